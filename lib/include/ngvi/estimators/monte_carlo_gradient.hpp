#pragma once
/// @file
/// NGD's Monte Carlo estimator of ĝ for a non-conjugate likelihood (docs/math.md §2.4, §7.2): at the
/// stepper's q = N(m, LLᵀ), K standard-normal draws ε (one d × K block, drawn from `rng`) and a
/// gradient route (estimators/gradient_route.hpp: Bonnet–Price, reparameterisation, or a caller's
/// own type) give ĝ in natural coordinates. The stepper provides m, L and L⁻¹ (mean(), lower(),
/// lower_inverse(): optim/steppers/ngd_nonconjugate.hpp's NgdFactorStepper, whose factor tests
/// η_{t+1} ∈ Ω). The buffers are sized once, so with a block log-likelihood a step makes no heap
/// allocation (lib/tests/alloc).
#include "ngvi/estimators/gradient_route.hpp"

namespace ngvi {

/// ĝ at the stepper's q from K standard-normal draws of `rng`, by the route given.
template <class Scalar, class LogLik>
class MonteCarloGradient {
 public:
  using Route = GradientRoute<Scalar, LogLik>;
  /// @throws std::invalid_argument naming 'K' if K < 1, 'route' if it has no function.
  MonteCarloGradient(const LogLik& loglik, Index d, int K, random::Stream& rng, Route route)
      : loglik_(loglik), rng_(rng), route_(route), eps_(d, K > 0 ? K : 1) {
    if (K < 1) throw_size("ngvi::MonteCarloGradient", "K", "must be >= 1 (number of Monte Carlo samples)");
    if (route_.natural_into == nullptr) throw_size("ngvi::MonteCarloGradient", "route", "has no natural_into");
  }
  /// A shipped route by name (Bonnet–Price by default).
  MonteCarloGradient(const LogLik& loglik, Index d, int K, random::Stream& rng, std::string_view kind = PriceRoute::name)
      : MonteCarloGradient(loglik, d, K, rng, route_of<Scalar, LogLik>(kind)) {}
  template <class S>
  void estimate(long, const S& s, GaussianPair<Scalar>& g) {
    fill_standard_normal(eps_, rng_);
    route_.natural_into(loglik_, s.mean(), s.lower(), route_.needs_lower_inverse ? s.lower_inverse() : no_inverse_, eps_, scratch_, g);
  }
  const Route& route() const { return route_; }

 private:
  const LogLik& loglik_;
  random::Stream& rng_;
  Route route_;
  Mat<Scalar> eps_;
  Mat<Scalar> no_inverse_;  ///< what a route that reads no L⁻¹ is handed (empty)
  MonteCarloScratch<Scalar> scratch_;
};

}  // namespace ngvi
