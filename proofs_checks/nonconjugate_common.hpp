#pragma once
/// @file
/// Instances shared by the non-conjugate claims (docs/math.md §3, §6): the spec's verified logistic
/// and Poisson points, small random problems, and helpers (2 × 2 eigenvalues in closed form, the
/// symmetric KL between Gaussians).
#include <Eigen/Eigenvalues>

#include "ngvi/claims/check_util.hpp"
#include "ngvi/data/synthetic.hpp"
#include "ngvi/expfam/kl.hpp"
#include "ngvi/models/logistic_regression.hpp"
#include "ngvi/models/poisson_regression.hpp"
#include "ngvi/optim/ngd_nonconjugate.hpp"
#include "ngvi/optim/variant.hpp"

namespace ngvi::claims {

/// n copies of the row (1, 1) (scalar feature x = 1 with bias), labels y = 1 (§6.1).
template <class Scalar>
Dataset<Scalar> logistic_ones(Index n) {
  return Dataset<Scalar>{Mat<Scalar>::Ones(n, 2), Vec<Scalar>::Ones(n)};
}

/// n copies of x = 1 in d = 1 with y = 0, or X = I_d, y = 0 (§6.2).
template <class Scalar>
Dataset<Scalar> poisson_rows(const Mat<double>& x) {
  return cast_dataset<Scalar>(Dataset<double>{x, Vec<double>::Zero(x.rows())});
}

/// A small random problem: n rows of dyadic-rounded N(0, scale²) features plus a bias column,
/// labels from a fixed z (Bernoulli-logit) or counts (Poisson), drawn in double from the seed.
inline Dataset<double> random_glm_data(Index n, Index d, bool poisson, double scale, std::uint64_t seed) {
  random::Stream rng(seed, 0x4e4f4e43);
  Mat<double> x(n, d);
  for (Index i = 0; i < n; ++i)
    for (Index j = 0; j < d; ++j) x(i, j) = std::ldexp(std::round(std::ldexp(scale * rng.normal(), 10)), -10);
  Dataset<double> out{with_bias_column(x), Vec<double>(n)};
  for (Index i = 0; i < n; ++i) {
    const double u = 0.5 * out.X.row(i).sum();
    if (poisson) {
      const double rate = std::exp(u);
      double k = 0, p = std::exp(-rate), c = p, r = rng.uniform01();
      while (r > c && k < 50) { k += 1; p *= rate / k; c += p; }
      out.y(i) = k;
    } else {
      out.y(i) = rng.uniform01() < 1.0 / (1.0 + std::exp(-u)) ? 1.0 : 0.0;
    }
  }
  return out;
}

/// Largest eigenvalue of a symmetric 2 × 2 matrix, (a + c)/2 + √(((a − c)/2)² + b²).
template <class Scalar>
Scalar lambda_max_2x2(const Mat<Scalar>& g) {
  using std::sqrt;
  const Scalar h = (g(0, 0) - g(1, 1)) / 2;
  return (g(0, 0) + g(1, 1)) / 2 + sqrt(h * h + g(0, 1) * g(1, 0));
}

/// KL(p‖q) + KL(q‖p).
template <class Scalar>
Scalar kl_symmetric(const GaussianMoments<Scalar>& p, const GaussianMoments<Scalar>& q) {
  return kl_gaussian(p, q) + kl_gaussian(q, p);
}

inline std::string fmt_double(double x) {
  std::ostringstream s;
  s.precision(6);
  s << x;
  return s.str();
}

/// Smallest eigenvalue of a symmetric matrix, computed in double (sign checks with O(1) margins).
template <class Scalar>
double min_eigenvalue_double(const Mat<Scalar>& h) {
  const Mat<double> hd = data::cast_matrix<double>(h);
  Eigen::SelfAdjointEigenSolver<Mat<double>> es(hd, Eigen::EigenvaluesOnly);
  return es.eigenvalues()(0);
}

/// ngd_nonconjugate (optim/ngd_nonconjugate.hpp) on the library's algorithm or the context's
/// variant of it: the variant's schedule, gradient route (in place of `route`) and change to ĝ_t
/// (also given the iterate's mean). Same steps, draws and tail average as the library's wrapper.
template <class Scalar, class LogLik, class Schedule>
NgdRun<Scalar> ngd_nonconjugate_for(const Variant* variant, const LogLik& loglik, const GaussianMoments<Scalar>& prior,
                                    const GaussianMoments<Scalar>& q0, const Schedule& base, int K, long T, random::Stream& rng,
                                    std::string_view route = PriceRoute::name) {
  // The parts this run reads: a variant that replaces none of them runs the library's wrapper.
  if (!replaces<Scalar>(variant, kPartSchedule | kPartGradient | kPartEstimate | kPartEstimateAt))
    return ngd_nonconjugate(loglik, prior, q0, base, K, T, rng, route);
  NgdFactorStepper<Scalar> stepper(prior, q0);
  MonteCarloGradient<Scalar, LogLik> est(loglik, q0.dim(), K, rng, gradient_for<Scalar>(variant, route));
  VariantEstimator<decltype(est), Scalar> estimator{est, estimator_parts<Scalar>(variant)};
  PointAverage<NgdFactorStepper<Scalar>> tail(AverageWeights::kTail);
  const auto schedule = schedule_for<Scalar>(variant, base);
  return run_trajectory(stepper, estimator, schedule, tail, RunOptions{T});
}

}  // namespace ngvi::claims
