#pragma once
/// @file
/// An svi-gmm implementation given as a value (protocols/svi_gmm.hpp) as the claims run it, and the
/// kit's own implementation of the protocol, built from its parts (the in-tree reference):
///
///   svi_gmm_variant   the Variant that carries an implementation (filed under kPartSviGmm, protocol
///                     "svi-gmm"), so that the claims that accept the protocol run it and the others
///                     write "not applicable";
///   svi_gmm_for       the implementation a variant carries, or null (a claim's read of the part);
///   SviGmmRunner      one trajectory: start() once, then update(t, λ_t, S_t), each result checked
///                     (shape K × (d + 2), finite, in gmm::GlobalFamily's domain: γ_k > 0 and −1/(2s_k²) < 0).
///                     Whatever the implementation throws and whatever it returns that the protocol
///                     does not allow is an ImplementationError naming the protocol call, the step and
///                     the implementation (protocol_common.hpp), which claims::run_claim writes as the
///                     claim's one error record;
///   kit_svi_gmm       the kit's algorithm behind the protocol: gmm::GmmModel's local statistics on
///                     the minibatch times svi::replication_factor (svi::SviEstimator's ĝ), natural_update with ρ_t =
///                     svi::SviSchedule(κ, τ, ρ₀).at(t) (origin 1; κ = 0 is the batch step); with
///                     svi::SviParts replaced (schedule, replication) it is a wrong implementation of the
///                     kind the claims must see.
#include <memory>
#include <span>
#include <string>
#include <utility>

#include "ngvi/linalg/validate.hpp"
#include "ngvi/models/gmm.hpp"
#include "ngvi/optim/natural_update.hpp"
#include "ngvi/optim/steppers/protocol_common.hpp"
#include "ngvi/optim/steppers/svi.hpp"
#include "ngvi/optim/variant.hpp"
#include "ngvi/protocols/svi_gmm.hpp"

namespace ngvi {

/// A variant that is a whole svi-gmm implementation (double; the claims of that protocol run in double).
inline Variant svi_gmm_variant(protocols::SviGmm impl, std::string description = {}) {
  return protocol_variant(std::move(impl), kPartSviGmm, protocols::kSviGmm, protocols::kSviGmmVersion, "a Gaussian-mixture SVI implementation", std::move(description));
}

/// The svi-gmm implementation `v` hands the claims in place of the library's algorithm, or null; notes
/// a read of kPartSviGmm.
inline const protocols::SviGmm* svi_gmm_for(const Variant* v) { return protocol_implementation<protocols::SviGmm>(v, kPartSviGmm); }

/// One trajectory of an svi-gmm implementation (see the file comment).
class SviGmmRunner {
 public:
  /// @throws ImplementationError naming the call 'start' if the implementation throws or returns no
  ///         update function.
  SviGmmRunner(const protocols::SviGmm& impl, protocols::GmmProblem problem)
      : name_(impl.name),
        problem_(std::move(problem)),
        traj_(start_trajectory(protocols::kSviGmm, impl, problem_, &protocols::SviGmmTrajectory::update, "update")) {}
  SviGmmRunner(const SviGmmRunner&) = delete;
  SviGmmRunner& operator=(const SviGmmRunner&) = delete;

  const protocols::GmmProblem& problem() const { return problem_; }

  /// The implementation's update t at λ_t (K × (d + 2)) on the minibatch `batch` (rows of X), checked.
  Mat<double> update(long t, const Mat<double>& lambda, std::span<const long> batch) {
    Mat<double> r;
    try {
      r = traj_.update(t, lambda, batch);
    } catch (const std::exception& e) {
      fail_call(t, std::string("threw: ") + e.what());
    }
    const long K = problem_.K, cols = problem_.X.cols() + 2;
    if (r.rows() != K || r.cols() != cols)
      fail_call(t, "returned lambda of shape (" + std::to_string(r.rows()) + ", " + std::to_string(r.cols()) + "), expected (" + std::to_string(K) +
                       ", " + std::to_string(cols) + ")");
    if (!all_finite(r)) fail_call(t, "returned lambda with a non-finite entry");
    if (!gmm::GlobalFamily<double>{K, cols - 2}.in_domain(r.array()))
      fail_call(t, "returned lambda outside the family's domain (every gamma_k > 0 and -1/(2 s_k^2) < 0)");
    return r;
  }

 private:
  [[noreturn]] void fail_call(long t, const std::string& what) const { throw_implementation_error(protocols::kSviGmm, name_, "update", t, what); }

  std::string name_;
  protocols::GmmProblem problem_;
  protocols::SviGmmTrajectory traj_;
};

/// The kit's SVI for the mixture behind the protocol (the in-tree reference; see the file comment), with
/// `parts` in place of the library's ρ_t and N/|S| where they are set.
inline protocols::SviGmm kit_svi_gmm(svi::SviParts<double> parts = {}) {
  protocols::SviGmm impl;
  impl.name = "ngvikit gmm::GmmModel + svi::SviSchedule";
  impl.version = "1";
  impl.origin = 1;  // SviSchedule::at(t) is Hoffman's t + 1
  impl.serial = false;
  impl.start = [parts](const protocols::GmmProblem& p) {
    const bool batch = p.kappa == 0;
    const svi::SviSchedule<double> schedule(p.kappa, p.tau, p.rho0, batch);
    auto X = std::make_shared<const Mat<double>>(p.X);
    gmm::GmmOptions<double> opt;
    opt.components = p.K;
    opt.alpha0 = p.alpha0;
    opt.sigma2 = p.sigma2;
    opt.s0_2 = p.s0_2;
    opt.m0 = p.m0;
    auto model = std::make_shared<const gmm::GmmModel<double>>(*X, opt);
    protocols::SviGmmTrajectory traj;
    traj.update = [schedule, X, model, parts](long t, const Mat<double>& lambda, std::span<const long> batch) {
      gmm::Global<double> l = lambda.array(), stats;
      model->local_statistics(l, batch, 0, stats);
      stats *= svi::replication_factor(parts, model->size(), static_cast<long>(batch.size()));
      const svi::PartsSchedule<double, svi::SviSchedule<double>> rho(schedule, parts);
      natural_update(l, model->prior_natural(), stats, rho.at(t));
      return Mat<double>(l.matrix());
    };
    return traj;
  };
  return impl;
}

}  // namespace ngvi
