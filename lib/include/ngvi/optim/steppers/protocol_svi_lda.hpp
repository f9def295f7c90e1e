#pragma once
/// @file
/// An svi-lda implementation given as a value (protocols/svi_lda.hpp) as the claims run it, and the
/// kit's own implementation of the protocol, built from its parts (the in-tree reference):
///
///   svi_lda_variant   the Variant that carries an implementation (filed under kPartSviLda, protocol
///                     "svi-lda"), so that the claims that accept the protocol run it and the others
///                     write "not applicable";
///   svi_lda_for       the implementation a variant carries, or null (a claim's read of the part);
///   SviLdaRunner      one trajectory: start() once, then update(t, λ_t, S_t), each result checked
///                     (shape K × V, finite, positive entries; γ |S| × K, finite). Whatever the
///                     implementation throws and whatever it returns that the protocol does not allow
///                     is an ImplementationError naming the protocol call, the step and the
///                     implementation (as protocol_ngd.hpp): it leaves the claim, which
///                     claims::run_claim writes as its one error record;
///   kit_svi_lda       the kit's algorithm behind the protocol: lda::LdaModel's E-step on the
///                     minibatch (γ from Gamma(100, 1/100), tol 1e−3, at most 100 updates, ε₀ =
///                     machine epsilon: scikit-learn's settings), λ̂ = η + (D/|S|) sstats and
///                     natural_update with ρ_t = svi::SviSchedule(κ, τ₀).at(t) (origin 1); with
///                     svi::SviParts replaced (schedule, replication) it is a wrong implementation of
///                     the kind the claims must see (the tests build two so).
#include <memory>
#include <string>
#include <utility>

#include "ngvi/linalg/validate.hpp"
#include "ngvi/models/lda.hpp"
#include "ngvi/optim/natural_update.hpp"
#include "ngvi/optim/steppers/protocol_ngd.hpp"
#include "ngvi/optim/steppers/svi.hpp"
#include "ngvi/optim/variant.hpp"
#include "ngvi/protocols/svi_lda.hpp"
#include "ngvi/random/stream.hpp"

namespace ngvi {

/// A variant that is a whole svi-lda implementation (double; the claims of that protocol run in double).
inline Variant svi_lda_variant(protocols::SviLda impl, std::string description = {}) {
  return protocol_variant(std::move(impl), kPartSviLda, protocols::kSviLda, protocols::kSviLdaVersion, "an online-LDA implementation", std::move(description));
}

/// The svi-lda implementation `v` hands the claims in place of the library's algorithm, or null; notes
/// a read of kPartSviLda.
inline const protocols::SviLda* svi_lda_for(const Variant* v) { return protocol_implementation<protocols::SviLda>(v, kPartSviLda); }

/// One trajectory of an svi-lda implementation (see the file comment).
class SviLdaRunner {
 public:
  /// @throws ImplementationError naming the call 'start' if the implementation throws or returns no
  ///         update function.
  SviLdaRunner(const protocols::SviLda& impl, protocols::LdaProblem problem)
      : name_(impl.name),
        problem_(std::move(problem)),
        traj_(start_trajectory(protocols::kSviLda, impl, problem_, &protocols::SviLdaTrajectory::update, "update")) {}
  SviLdaRunner(const SviLdaRunner&) = delete;
  SviLdaRunner& operator=(const SviLdaRunner&) = delete;

  const protocols::LdaProblem& problem() const { return problem_; }

  /// The implementation's update t at λ_t (K × V) on the minibatch `batch`, checked.
  protocols::LdaUpdate update(long t, const Mat<double>& lambda, const lda::Corpus& batch) {
    protocols::LdaUpdate r;
    try {
      r = traj_.update(t, lambda, batch);
    } catch (const std::exception& e) {
      fail_call("update", t, std::string("threw: ") + e.what());
    }
    const long K = problem_.K, V = problem_.V;
    if (r.lambda.rows() != K || r.lambda.cols() != V)
      fail_call("update", t, "returned lambda of shape (" + std::to_string(r.lambda.rows()) + ", " + std::to_string(r.lambda.cols()) + "), expected (" +
                                 std::to_string(K) + ", " + std::to_string(V) + ")");
    if (!all_finite(r.lambda)) fail_call("update", t, "returned lambda with a non-finite entry");
    if (!(r.lambda.minCoeff() > 0)) fail_call("update", t, "returned lambda with an entry <= 0 (outside the Dirichlet domain)");
    if (r.gamma) {
      if (r.gamma->rows() != batch.n_docs() || r.gamma->cols() != K)
        fail_call("update", t, "returned gamma of shape (" + std::to_string(r.gamma->rows()) + ", " + std::to_string(r.gamma->cols()) +
                                   "), expected (" + std::to_string(batch.n_docs()) + ", " + std::to_string(K) + ")");
      if (!all_finite(*r.gamma)) fail_call("update", t, "returned gamma with a non-finite entry");
    }
    return r;
  }

 private:
  [[noreturn]] void fail_call(const char* call, long t, const std::string& what) const {
    throw_implementation_error(protocols::kSviLda, name_, call, t, what);
  }

  std::string name_;
  protocols::LdaProblem problem_;
  protocols::SviLdaTrajectory traj_;
};

/// The kit's SVI for LDA behind the protocol (the in-tree reference; see the file comment), with
/// `parts` in place of the library's ρ_t and D/|S| where they are set.
inline protocols::SviLda kit_svi_lda(svi::SviParts<double> parts = {}) {
  protocols::SviLda impl;
  impl.name = "ngvikit lda::LdaModel + svi::SviSchedule";
  impl.version = "1";
  impl.origin = 1;  // SviSchedule::at(t) is Hoffman's t + 1
  impl.serial = false;
  impl.start = [parts](const protocols::LdaProblem& p) {
    const svi::SviSchedule<double> schedule(p.kappa, p.tau0);
    lda::LdaOptions<double> opt;
    opt.topics = p.K;
    opt.alpha = p.alpha;
    opt.eta = p.eta;
    const std::uint64_t seed = p.seed;
    const long D = p.D;
    protocols::SviLdaTrajectory traj;
    traj.update = [schedule, opt, seed, D, parts](long t, const Mat<double>& lambda, const lda::Corpus& batch) {
      const lda::LdaModel<double> model(batch, opt);
      const std::vector<long> all = [&] {
        std::vector<long> v(static_cast<std::size_t>(batch.n_docs()));
        for (long d = 0; d < batch.n_docs(); ++d) v[static_cast<std::size_t>(d)] = d;
        return v;
      }();
      lda::Topics<double> l = lambda.transpose(), sstats;
      const auto res = model.e_step(l, all, random::mix64(seed ^ static_cast<std::uint64_t>(t)), &sstats);
      sstats *= svi::replication_factor(parts, D, batch.n_docs());
      const svi::PartsSchedule<double, svi::SviSchedule<double>> rho(schedule, parts);
      natural_update(l, model.prior_natural(), sstats, rho.at(t));
      return protocols::LdaUpdate{l.transpose(), Mat<double>(res.gamma.transpose())};
    };
    return traj;
  };
  return impl;
}

}  // namespace ngvi
