#pragma once
/// @file
/// The kit's mutations of a conjugate-NGD implementation (protocols/conjugate_ngd.hpp): each turns an
/// implementation given as a value into one that computes as if it had a plausible bug in a part the
/// protocol exposes, by changing what crosses the protocol, never the implementation's code (which
/// the kit does not own: a Python object, a child process). `ngvi verify --algorithm exec:CMD
/// --mutants all` runs the claims against the implementation and against each mutation of it (the
/// kill matrix of that implementation); the Python package applies the same mutations, by the same
/// names, to a Python implementation (ngvikit.kill_matrix).
///
///   schedule-off-by-one     the step index handed is t + 1: a schedule indexed from t = 1
///                           (γ_t = 2/(t + 3) for Theorem 1's 2/(t + 2));
///   batch-scale-m-plus-one  the noise variance handed is σ²(M + 1)/M: the data term of the estimate
///                           scaled by n/(M + 1) instead of n/M (for an implementation that divides by
///                           σ², as eq. (15) does);
///   average-uniform         the implementation's average replaced by the uniform average of its
///                           iterates' expectation parameters (Theorem 1 weighs μ_t by t);
///   average-last            the implementation's average replaced by its last iterate's μ.
///
/// A mutation that a claim cannot see through the protocol (an average, when the implementation keeps
/// none and the claim averages its iterates itself) still runs: the matrix then reports it survived,
/// which is what the claims can tell about that implementation.
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "ngvi/expfam/gaussian_maps.hpp"
#include "ngvi/protocols/conjugate_ngd.hpp"

namespace ngvi::protocols {

/// One mutation of the conjugate-NGD protocol: its name (as `--mutants` takes it), the part of the
/// implementation it changes, and what it does.
struct ConjugateNgdMutation {
  std::string name;
  std::string part;
  std::string description;
};

/// The mutations, in the order the kill matrix lists them.
inline const std::vector<ConjugateNgdMutation>& conjugate_ngd_mutations() {
  static const std::vector<ConjugateNgdMutation> all{
      {"schedule-off-by-one", "schedule", "the step index handed is t + 1: a schedule indexed from t = 1"},
      {"batch-scale-m-plus-one", "estimate", "the noise variance handed is sigma^2 (M+1)/M: the estimate's data term scaled by n/(M+1)"},
      {"average-uniform", "averaging", "the average replaced by the uniform average of the iterates' expectation parameters"},
      {"average-last", "averaging", "the average replaced by the last iterate's expectation parameters"},
  };
  return all;
}

/// The implementation under the mutation `name` (one of conjugate_ngd_mutations()): same name and
/// version, same `serial`; its trajectories call the implementation's.
/// @throws std::invalid_argument naming the mutation when it is not one of them.
template <class Scalar>
ConjugateNgd<Scalar> mutate_conjugate_ngd(ConjugateNgd<Scalar> impl, const std::string& name) {
  bool known = false;
  std::string names;
  for (const auto& m : conjugate_ngd_mutations()) {
    known = known || m.name == name;
    names += (names.empty() ? "" : ", ") + m.name;
  }
  if (!known) throw std::invalid_argument("mutation '" + name + "' is not a mutation of the conjugate-ngd protocol (its mutations: " + names + ")");
  auto inner = std::make_shared<const ConjugateNgd<Scalar>>(std::move(impl));
  ConjugateNgd<Scalar> out;
  out.name = inner->name;
  out.version = inner->version;
  out.serial = inner->serial;
  if (name == "schedule-off-by-one") {
    out.start = [inner](const BlrProblem<Scalar>& p) {
      auto traj = inner->start(p);
      auto step = traj.step;
      traj.step = [step](long t, const GaussianNatural<Scalar>& eta, std::span<const Index> batch) { return step(t + 1, eta, batch); };
      return traj;
    };
  } else if (name == "batch-scale-m-plus-one") {
    out.start = [inner](const BlrProblem<Scalar>& p) {
      // The handed problem must outlive the trajectory (the protocol lets the implementation keep a
      // reference to it): the trajectory's functions own the copy.
      auto q = std::make_shared<BlrProblem<Scalar>>(p);
      q->noise_var = p.noise_var * Scalar(p.batch + 1) / Scalar(p.batch);
      auto traj = inner->start(*q);
      auto step = traj.step;
      traj.step = [q, step](long t, const GaussianNatural<Scalar>& eta, std::span<const Index> batch) { return step(t, eta, batch); };
      if (traj.average) {
        auto average = traj.average;
        traj.average = [q, average] { return average(); };
      }
      return traj;
    };
  } else {
    const bool last_only = name == "average-last";
    out.start = [inner, last_only](const BlrProblem<Scalar>& p) {
      auto traj = inner->start(p);
      struct State {
        std::optional<GaussianExpectation<Scalar>> sum, last;
        long count = 0;
      };
      auto state = std::make_shared<State>();
      auto step = traj.step;
      traj.step = [state, step](long t, const GaussianNatural<Scalar>& eta, std::span<const Index> batch) {
        auto next = step(t, eta, batch);
        const auto mu = natural_to_expectation(next);
        state->last = mu;
        if (state->sum) *state->sum += mu;
        else state->sum = mu;
        ++state->count;
        return next;
      };
      traj.average = [state, last_only] {
        if (state->count == 0) throw std::logic_error("average() before the first step");
        if (last_only) return *state->last;
        GaussianExpectation<Scalar> avg = *state->sum;
        avg *= Scalar(1) / Scalar(state->count);
        return avg;
      };
      return traj;
    };
  }
  return out;
}

}  // namespace ngvi::protocols
