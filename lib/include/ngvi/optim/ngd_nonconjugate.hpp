#pragma once
/// @file
/// Stochastic NGD for a non-conjugate likelihood with a Gaussian prior (ngvi-math.md §2.4, §7.2):
/// \f[ \eta_{t+1} = (1-\gamma_t)\eta_t + \gamma_t(\eta_p + \hat g^\ell_t), \f]
/// with ĝ^ℓ_t the Bonnet/Price gradient (eq. (11); valid for every t when ℓ is concave and
/// γ_t ∈ (0, 1], Remark 2) or, for comparison, the reparameterisation gradient of Algorithm 1
/// (which can leave Ω: Appendix B). Leaving Ω is detected after every step and reported, never
/// silently continued. The returned average is the tail average of η over t ≥ T/2 (Ω is convex).
///
/// One Cholesky factorisation per step (expfam/natural_factor.hpp): the factor of Λ_{t+1} = −2η₂
/// that tests η_{t+1} ∈ Ω also gives the next step's mean m and covariance factor L, so the
/// estimator draws z = m + Lε from it without forming μ or S, and the reparameterisation gradient's
/// Cholesky backward pass multiplies by its L⁻¹. The draws are one d × K block; the step's buffers
/// are sized on the first step and reused, so with a block log-likelihood (BlockLogLik: the GLMs'
/// loglik_function) a step makes no heap allocation (lib/tests/alloc); a point-by-point
/// log-likelihood returns its derivatives by value, one allocation set per draw.
#include <functional>
#include <utility>

#include "ngvi/estimators/reparam.hpp"
#include "ngvi/expfam/natural_factor.hpp"
#include "ngvi/optim/ngd_step.hpp"
#include "ngvi/optim/schedule.hpp"

namespace ngvi {

enum class GradientEstimator { kPrice, kReparam };

inline const char* estimator_name(GradientEstimator e) { return e == GradientEstimator::kPrice ? "price" : "reparam"; }

template <class Scalar>
struct NgdRun {
  GaussianNatural<Scalar> last;     ///< η_T (or the last iterate inside Ω)
  GaussianNatural<Scalar> average;  ///< tail average of η_t, t ≥ T/2
  long steps = 0;                   ///< steps taken
  bool left_domain = false;         ///< an update produced η ∉ Ω
  long left_at = -1;                ///< the step whose update left Ω
};

/// Runs T steps of stochastic NGD from q0. If given, `on_step(t, η_{t+1})` is called after every
/// step that stays in Ω (for trajectory recording; it must not modify the run).
/// @pre K ≥ 1, T ≥ 1, q0 and prior valid moments of the likelihood's dimension.
/// @throws std::invalid_argument naming 'K' / 'T', std::domain_error naming 'q0' / 'prior'.
template <class Scalar, class LogLik>
NgdRun<Scalar> ngd_nonconjugate(const LogLik& loglik, const GaussianMoments<Scalar>& prior, const GaussianMoments<Scalar>& q0,
                               const StepSchedule<Scalar>& schedule, int K, long T, random::Stream& rng,
                               GradientEstimator estimator = GradientEstimator::kPrice,
                               const std::function<void(long, const GaussianNatural<Scalar>&)>& on_step = {}) {
  constexpr const char* f = "ngvi::ngd_nonconjugate";
  if (K < 1) throw_size(f, "K", "must be >= 1 (number of Monte Carlo samples)");
  if (T < 1) throw_size(f, "T", "must be >= 1");
  const auto eta_p = moments_to_natural(prior);
  NgdRun<Scalar> run;
  run.last = moments_to_natural(q0);
  if (q0.dim() != prior.dim()) throw_size(f, "q0", "has a different dimension from 'prior'");
  const Index d = q0.dim();
  run.average = GaussianNatural<Scalar>(Vec<Scalar>::Zero(d), Mat<Scalar>::Zero(d, d));
  NaturalFactor<Scalar> factor(d);
  if (!factor.factor(run.last)) throw_domain(f, "q0", "has a precision that is not positive definite in working precision");
  Mat<Scalar> eps(d, K);
  MonteCarloScratch<Scalar> scratch;
  GaussianPair<Scalar> g{Vec<Scalar>(d), Mat<Scalar>(d, d)};
  GaussianNatural<Scalar> next = run.last;
  long averaged = 0;
  for (long t = 0; t < T; ++t) {
    fill_standard_normal(eps, rng);
    if (estimator == GradientEstimator::kPrice) price_gradient_into(loglik, factor.mean(), factor.lower(), eps, scratch, g);
    else reparam_gradient_into(loglik, factor.mean(), factor.lower(), factor.lower_inverse(), eps, scratch, g);
    next = run.last;
    ngd_step(next, eta_p, g, schedule.at(t));
    ++run.steps;
    if (!factor.factor(next)) {  // η_{t+1} ∉ Ω; run.last stays η_t
      run.left_domain = true;
      run.left_at = t;
      break;
    }
    std::swap(run.last, next);
    if (on_step) on_step(t, run.last);
    if (2 * t >= T) {
      run.average += run.last;
      ++averaged;
    }
  }
  if (averaged > 0) run.average *= Scalar(1) / Scalar(averaged);
  else run.average = run.last;
  return run;
}

}  // namespace ngvi
