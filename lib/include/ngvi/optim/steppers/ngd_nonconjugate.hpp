#pragma once
/// @file
/// Stochastic NGD for a non-conjugate likelihood with a Gaussian prior, as parts of the trajectory
/// engine (docs/math.md §2.4, §7.2): the stepper η_{t+1} = (1−γ_t)η_t + γ_t(η_p + ĝ_t), which tests
/// η_{t+1} ∈ Ω after every step by one Cholesky factorisation (expfam/natural_factor.hpp). Its
/// estimator of ĝ is MonteCarloGradient (estimators/monte_carlo_gradient.hpp) with a gradient route:
/// the Bonnet/Price gradient (eq. (11); valid for every t when ℓ is concave and γ_t ∈ (0, 1],
/// Remark 2), for comparison the reparameterisation gradient of Algorithm 1 (which can leave Ω:
/// Appendix B), or a caller's own route (estimators/gradient_route.hpp).
///
/// The factor that tests η_{t+1} also gives the next step's mean m and covariance factor L, so the
/// estimator draws z = m + Lε from it without forming μ or S, and the reparameterisation gradient's
/// Cholesky backward pass multiplies by its L⁻¹. The draws are one d × K block; the buffers are sized
/// once, so with a block log-likelihood (BlockLogLik: the GLMs' loglik_function) a step makes no heap
/// allocation (lib/tests/alloc); a point-by-point log-likelihood returns its derivatives by value.
#include <utility>

#include "ngvi/estimators/monte_carlo_gradient.hpp"
#include "ngvi/expfam/natural_factor.hpp"
#include "ngvi/optim/engine.hpp"
#include "ngvi/optim/natural_update.hpp"

namespace ngvi {

template <class Scalar_>
class NgdFactorStepper {
 public:
  using Scalar = Scalar_;
  using Point = GaussianNatural<Scalar>;
  using Direction = GaussianPair<Scalar>;

  /// @throws std::invalid_argument naming 'q0' (dimension), std::domain_error naming 'q0' / 'prior'.
  NgdFactorStepper(const GaussianMoments<Scalar>& prior, const GaussianMoments<Scalar>& q0)
      : prior_(moments_to_natural(prior)), cur_(moments_to_natural(q0)), next_(cur_), factor_(q0.dim()) {
    constexpr const char* f = "ngvi::NgdFactorStepper";
    if (q0.dim() != prior.dim()) throw_size(f, "q0", "has a different dimension from 'prior'");
    if (!factor_.factor(cur_)) throw_domain(f, "q0", "has a precision that is not positive definite in working precision");
  }
  Index dim() const { return cur_.dim(); }
  const Point& point() const { return cur_; }
  const Point& prior() const { return prior_; }
  Direction make_direction() const { return Direction{Vec<Scalar>(dim()), Mat<Scalar>(dim(), dim())}; }
  /// m, L (S = LLᵀ) and L⁻¹ of the iterate, for the estimator.
  const Vec<Scalar>& mean() const { return factor_.mean(); }
  const Mat<Scalar>& lower() const { return factor_.lower(); }
  const Mat<Scalar>& lower_inverse() const { return factor_.lower_inverse(); }

  /// η_{t+1} = (1−γ)η_t + γ(η_p + ĝ), kept only if −η₂ is positive definite (η_t stays otherwise).
  StepStatus step(long, const Scalar& gamma, const Direction& g) {
    next_ = cur_;
    natural_update(next_, prior_, g, gamma);
    if (!factor_.factor(next_)) {
      factor_.factor(cur_);
      return StepStatus::left("eta", "left Omega (-eta2 not positive definite)");
    }
    std::swap(cur_, next_);
    return StepStatus::fine();
  }

 private:
  Point prior_, cur_, next_;
  mutable NaturalFactor<Scalar> factor_;
};

}  // namespace ngvi
