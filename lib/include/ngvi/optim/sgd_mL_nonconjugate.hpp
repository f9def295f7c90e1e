#pragma once
/// @file
/// SGD on the square-root parameterisation (m, L) of q = N(m, LLᵀ) for a non-conjugate likelihood
/// with prior N(m_p, S_p) (docs/math.md §7.1-7.2, Appendix F). The gradient of f = −E_qℓ + KL is
/// \f[ \nabla_m f = -\hat g_m + S_p^{-1}(m - m_p), \qquad
///     \nabla_L f = -\hat g_L + \operatorname{tril}(S_p^{-1}L) - \operatorname{diag}(1/L_{11}, …, 1/L_{dd}), \f]
/// with (ĝ_m, ĝ_L) the reparameterisation gradient ("SGD") or the Price gradient ("SGD (p)"); the
/// stepper (steppers/sgd_sqrt.hpp) clamps the diagonal of L to ≥ ε_clamp after each step.
#include <vector>
#include <utility>

#include "ngvi/estimators/gradient_route.hpp"
#include "ngvi/estimators/reparam.hpp"
#include "ngvi/optim/schedule.hpp"
#include "ngvi/optim/ngd_nonconjugate.hpp"
#include "ngvi/optim/steppers/sgd_sqrt.hpp"

namespace ngvi {

/// (∇_m f, ∇_L f) at the stepper's (m, L) from K standard-normal draws, by the route given (estimators/gradient_route.hpp).
template <class Scalar, class LogLik>
class SqrtMonteCarloGradient {
 public:
  using Route = GradientRoute<Scalar, LogLik>;
  /// @throws std::invalid_argument naming 'K' or 'route' (no mL_from); std::domain_error naming 'prior'.
  SqrtMonteCarloGradient(const LogLik& loglik, const GaussianMoments<Scalar>& prior, int K, random::Stream& rng, Route route)
      : loglik_(loglik), prior_mean_(prior.mean), rng_(rng), route_(route), k_(K) {
    constexpr const char* f = "ngvi::SqrtMonteCarloGradient";
    if (K < 1) throw_size(f, "K", "must be >= 1 (number of Monte Carlo samples)");
    if (route_.mL_from == nullptr) throw_size(f, "route", "has no mL_from");
    prec_p_ = validate_moments(prior, f, "prior").inverse();
  }
  /// A shipped route by name.
  SqrtMonteCarloGradient(const LogLik& loglik, const GaussianMoments<Scalar>& prior, int K, random::Stream& rng, std::string_view kind)
      : SqrtMonteCarloGradient(loglik, prior, K, rng, route_of<Scalar, LogLik>(kind)) {}
  template <class S>
  void estimate(long, const S& s, SqrtParam<Scalar>& out) {
    const auto& q = s.point();
    const Index d = q.m.size();
    const Mat<Scalar> eps = standard_normal_block<Scalar>(d, k_, rng_, "ngvi::SqrtMonteCarloGradient");
    const auto g = route_.mL_from(loglik_, q.m, q.l, eps);
    out.m = -g.grad_m + prec_p_ * (q.m - prior_mean_);
    out.l = -g.grad_L + Mat<Scalar>((prec_p_ * q.l).template triangularView<Eigen::Lower>());
    for (Index i = 0; i < d; ++i) out.l(i, i) -= Scalar(1) / q.l(i, i);
  }

 private:
  const LogLik& loglik_;
  Vec<Scalar> prior_mean_;
  Mat<Scalar> prec_p_;
  random::Stream& rng_;
  Route route_;
  int k_;
};

/// The trajectory of an SGD run in (m, L): the last finite iterate and the tail average over the
/// second half of the run.
template <class Scalar>
using SgdMLRun = Trajectory<SqrtParam<Scalar>, SqrtParam<Scalar>>;

/// The step-size grid searched for SGD and NGD (Appendix F tunes from a grid whose values are not
/// stated; this one is the kit's): {10⁻⁴, 3·10⁻⁴, 10⁻³, …, 0.3, 1}.
template <class Scalar>
std::vector<Scalar> step_size_grid() {
  std::vector<Scalar> g;
  Scalar p = Scalar(1) / Scalar(10000);
  for (int k = 0; k < 5; ++k) {
    g.push_back(p);
    g.push_back(Scalar(3) * p);
    p *= Scalar(10);
  }
  g.push_back(Scalar(1));
  return g;
}

/// Runs T steps of SGD in (m, L) from q0; `observers` see the engine's StepEvent after every finite
/// step (e.stepper.point() is (m, L); optim/engine.hpp: OnStep, StopWhen, Progress).
/// @pre K ≥ 1, T ≥ 1, ε_clamp > 0. @throws std::invalid_argument / std::domain_error naming the argument.
template <class Scalar, class LogLik, class Schedule, class... Obs>
SgdMLRun<Scalar> sgd_mL_nonconjugate(const LogLik& loglik, const GaussianMoments<Scalar>& prior, const GaussianMoments<Scalar>& q0,
                                     const Schedule& schedule, int K, long T, random::Stream& rng, std::string_view estimator,
                                     const Scalar& eps_clamp, Obs&&... observers) {
  constexpr const char* f = "ngvi::sgd_mL_nonconjugate";
  if (K < 1) throw_size(f, "K", "must be >= 1 (number of Monte Carlo samples)");
  if (T < 1) throw_size(f, "T", "must be >= 1");
  if (!(eps_clamp > Scalar(0))) throw_domain(f, "eps_clamp", "must be positive");
  const auto fq = validate_moments(q0, f, "q0");
  if (prior.dim() != q0.dim()) throw_size(f, "prior", "has a different dimension from 'q0'");
  SgdSqrtStepper<Scalar> stepper(SqrtParam<Scalar>{q0.mean, fq.lower()}, eps_clamp);
  SqrtMonteCarloGradient<Scalar, LogLik> est(loglik, prior, K, rng, estimator);
  PointAverage<SgdSqrtStepper<Scalar>> tail(AverageWeights::kTail);
  return run_trajectory(stepper, est, schedule, tail, RunOptions{T}, std::forward<Obs>(observers)...);
}

}  // namespace ngvi
