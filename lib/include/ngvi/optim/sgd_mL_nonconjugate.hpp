#pragma once
#include <functional>
/// @file
/// SGD on the square-root parameterisation (m, L) of q = N(m, LLᵀ) for a non-conjugate likelihood
/// with prior N(m_p, S_p) (ngvi-math.md §7.1–7.2, Appendix F). The gradient of f = −E_qℓ + KL is
/// \f[ \nabla_m f = -\hat g_m + S_p^{-1}(m - m_p), \qquad
///     \nabla_L f = -\hat g_L + \operatorname{tril}(S_p^{-1}L) - \operatorname{diag}(1/L_{11}, …, 1/L_{dd}), \f]
/// with (ĝ_m, ĝ_L) the reparameterisation gradient ("SGD") or the Price gradient ("SGD (p)"), and
/// after each step the diagonal of L is clamped to ≥ ε_clamp (the projection of Appendix F). The
/// clamp helper here is this file's own (`clamp_diagonal_nonconjugate`).
#include <vector>

#include "ngvi/estimators/reparam.hpp"
#include "ngvi/optim/ngd_nonconjugate.hpp"
#include "ngvi/optim/schedule.hpp"

namespace ngvi {

/// In place: L_ii ← max(L_ii, ε_clamp).
template <class Scalar>
void clamp_diagonal_nonconjugate(Mat<Scalar>& l, const Scalar& eps_clamp) {
  for (Index i = 0; i < l.rows(); ++i)
    if (!(l(i, i) >= eps_clamp)) l(i, i) = eps_clamp;
}

template <class Scalar>
struct SgdMLRun {
  Vec<Scalar> m, m_average;
  Mat<Scalar> l, l_average;  ///< lower triangular; the average is over t ≥ T/2
  long steps = 0;
  bool diverged = false;     ///< a non-finite iterate appeared (the step size is too large)
};

/// The step-size grid searched for SGD and NGD (Appendix F tunes from a grid whose values are [U];
/// this one is ours): {10⁻⁴, 3·10⁻⁴, 10⁻³, …, 0.3, 1}.
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

/// Runs T steps of SGD in (m, L) from q0. If given, `on_step(t, m, L)` is called after every finite
/// step (for trajectory recording).
/// @pre K ≥ 1, T ≥ 1, ε_clamp > 0. @throws std::invalid_argument / std::domain_error naming the argument.
template <class Scalar, class LogLik>
SgdMLRun<Scalar> sgd_mL_nonconjugate(const LogLik& loglik, const GaussianMoments<Scalar>& prior, const GaussianMoments<Scalar>& q0,
                                     const StepSchedule<Scalar>& schedule, int K, long T, random::Stream& rng,
                                     GradientEstimator estimator, const Scalar& eps_clamp,
                                     const std::function<void(long, const Vec<Scalar>&, const Mat<Scalar>&)>& on_step = {}) {
  constexpr const char* f = "ngvi::sgd_mL_nonconjugate";
  if (K < 1) throw_size(f, "K", "must be >= 1 (number of Monte Carlo samples)");
  if (T < 1) throw_size(f, "T", "must be >= 1");
  if (!(eps_clamp > Scalar(0))) throw_domain(f, "eps_clamp", "must be positive");
  const auto fp = validate_moments(prior, f, "prior");
  const auto fq = validate_moments(q0, f, "q0");
  const Index d = q0.dim();
  if (prior.dim() != d) throw_size(f, "prior", "has a different dimension from 'q0'");
  const Mat<Scalar> prec_p = fp.inverse();
  SgdMLRun<Scalar> run{q0.mean, Vec<Scalar>::Zero(d), fq.lower(), Mat<Scalar>::Zero(d, d)};
  long averaged = 0;
  for (long t = 0; t < T; ++t) {
    const Mat<Scalar> eps = standard_normal_block<Scalar>(d, K, rng, f);
    const auto g = estimator == GradientEstimator::kPrice ? price_gradient_mL_from(loglik, run.m, run.l, eps)
                                                          : reparam_gradient_mL_from(loglik, run.m, run.l, eps);
    const Scalar gamma = schedule.at(t);
    Vec<Scalar> gm = -g.grad_m + prec_p * (run.m - prior.mean);
    Mat<Scalar> gl = -g.grad_L + Mat<Scalar>((prec_p * run.l).template triangularView<Eigen::Lower>());
    for (Index i = 0; i < d; ++i) gl(i, i) -= Scalar(1) / run.l(i, i);
    run.m -= gamma * gm;
    run.l -= gamma * gl;
    clamp_diagonal_nonconjugate(run.l, eps_clamp);
    ++run.steps;
    if (!is_finite_scalar(run.m.squaredNorm() + run.l.squaredNorm())) {
      run.diverged = true;
      break;
    }
    if (on_step) on_step(t, run.m, run.l);
    if (2 * t >= T) {
      run.m_average += run.m;
      run.l_average += run.l;
      ++averaged;
    }
  }
  if (averaged > 0) {
    run.m_average /= Scalar(averaged);
    run.l_average /= Scalar(averaged);
  } else {
    run.m_average = run.m;
    run.l_average = run.l;
  }
  return run;
}

}  // namespace ngvi
