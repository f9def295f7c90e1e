#pragma once
/// @file
/// The conjugate-NGD protocol: the smallest interface an implementation of natural-gradient descent
/// on Bayesian linear regression provides for the claims of that group (thm1.rate,
/// thm1.first_step, fig1.same_slope, lemma9.convex_hull, cor1.eta1_bound, cor2.mu1_bound,
/// lemma10.mu1_gap, lemma11.mu2_gap, x.unbiased_iterate, x.iterate_variance) to run against it (docs/engine.md, "Protocols").
///
/// The claim hands the implementation a problem once per trajectory (start) and, at each step t =
/// 0, 1, …, T − 1, the step index t, the current natural parameter η_t (the one this trajectory
/// returned last; η₀ at t = 0) and the mini-batch indices i_1, …, i_M it drew (eq. (15): uniform,
/// with replacement, from the claim's random stream); the implementation returns η_{t+1}. It owns
/// what real implementations own:
///   - its step-size schedule (Theorem 1's is γ_t = 2/(t + 2) at t = 0, 1, …: γ₀ = 1);
///   - its estimate of ∇_μ E_q[log p(y | z)] from the batch (eq. (15): (n/M) Σ_j (x_{i_j} y_{i_j}/σ²,
///     −x_{i_j} x_{i_j}ᵀ/(2σ²)));
///   - optionally, its average: `average()` after step t returns the average it keeps of the
///     iterates η_1, …, η_t, as expectation parameters μ = (m, S + mmᵀ) (Theorem 1's μ̄_T weighs
///     μ_t by t). Without it the claim averages the returned iterates with Theorem 1's weights.
/// The claims see an error in whatever the implementation owns: a schedule indexed from t = 1, an
/// average of natural parameters, a batch scale n/(M + 1).
///
/// Versioned (kConjugateNgdVersion): a change of what is handed or returned is a new version.
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "ngvi/expfam/gaussian_params.hpp"
#include "ngvi/scalar/types.hpp"

namespace ngvi::protocols {

/// The protocol's name (as in docs/engine.md and `ngvi verify --list`) and version.
inline constexpr const char* kConjugateNgd = "conjugate-ngd";
inline constexpr int kConjugateNgdVersion = 1;

/// What the claim hands at the start of a trajectory: Bayesian linear regression y = Xz + ε,
/// ε ~ N(0, σ² I), prior z ~ N(m_p, S_p), the batch size M of eq. (15) and the initial point η₀.
/// The implementation may keep a reference to it: it lives until the trajectory's last call.
template <class Scalar>
struct BlrProblem {
  Mat<Scalar> X;                        ///< n × d design
  Vec<Scalar> y;                        ///< n targets
  Scalar noise_var;                     ///< σ² > 0
  Vec<Scalar> prior_mean;               ///< m_p
  Mat<Scalar> prior_cov;                ///< S_p, symmetric positive definite
  GaussianNatural<Scalar> prior_natural;  ///< (S_p⁻¹m_p, −S_p⁻¹/2), for convenience
  Index batch = 1;                      ///< M
  GaussianNatural<Scalar> initial;      ///< η₀ (the claims start from q₀ = N(0, I))
};

/// One trajectory of an implementation: the state it keeps between steps.
template <class Scalar>
struct ConjugateNgdTrajectory {
  /// η_{t+1} from step t, the current η_t and the batch's indices (each in [0, n)). Required.
  std::function<GaussianNatural<Scalar>(long t, const GaussianNatural<Scalar>& eta, std::span<const Index> batch)> step;
  /// The implementation's average of η_1..η_t (as expectation parameters) after step t; empty when
  /// the implementation keeps none (the claim then averages with Theorem 1's weights).
  std::function<GaussianExpectation<Scalar>()> average;
};

/// An implementation of the protocol: a name and version (recorded in claims.json's meta) and a
/// start() that begins one trajectory. start() may be called for several trajectories at once from
/// several threads unless `serial` is set (then `ngvi verify` runs the claims one after another on one
/// thread, so the calls come one at a time and in the same order every run; a program calling
/// run_claim itself gives the RunContext one thread). The process implementation of
/// conjugate_ngd_exec.hpp is serial.
template <class Scalar>
struct ConjugateNgd {
  std::string name;
  std::string version;
  std::function<ConjugateNgdTrajectory<Scalar>(const BlrProblem<Scalar>&)> start;
  bool serial = false;
};

}  // namespace ngvi::protocols
