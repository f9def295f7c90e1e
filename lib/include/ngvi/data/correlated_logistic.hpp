#pragma once
/// @file
/// The kit's generator of correlated logistic-regression data for the VPNG benchmark
/// (docs/systems.md D.4, a kit choice: the generator behind the slides' table was not recoverable).
/// Features x = √c·s·1_D + √(1 − c)·e, s ~ N(0, 1), e ~ N(0, I_D): every pair of features has
/// correlation c. The true weight w* is drawn N(0, I_D), projected orthogonal to 1_D and scaled so
/// that √(1 − c)·‖w*‖ = signal: the labels y ~ Bernoulli(σ(w*ᵀx)) depend only on the low-variance
/// directions, where the likelihood's curvature is small and a mean-field q's σ is not.
#include <cmath>

#include "ngvi/data/synthetic.hpp"
#include "ngvi/linalg/validate.hpp"

namespace ngvi::data {

struct CorrelatedLogisticData {
  Mat<double> x_train, x_test;
  Vec<double> y_train, y_test;
  Vec<double> w_star;
};

struct CorrelatedLogisticOptions {
  Index dim = 10;          ///< D
  double correlation = 0.999;  ///< c ∈ [0, 1)
  Index n_train = 2000;
  Index n_test = 2000;
  double signal = 8;       ///< √(1 − c)·‖w*‖, the logit scale along the signal direction
};

/// Draws one data set from `seed` (Boost mt19937_64, the same on every platform).
/// @throws std::domain_error naming the option that is out of range.
inline CorrelatedLogisticData correlated_logistic_data(const CorrelatedLogisticOptions& o, std::uint64_t seed) {
  constexpr const char* f = "ngvi::data::correlated_logistic_data";
  if (o.dim < 2) throw_domain(f, "dim", "must be >= 2 (w* is orthogonal to the all-ones vector)");
  if (!(o.correlation >= 0 && o.correlation < 1)) throw_domain(f, "correlation", "must lie in [0, 1)");
  if (o.n_train < 2 || o.n_test < 2) throw_domain(f, "n_train", "and n_test must be >= 2");
  if (!(o.signal > 0) || !std::isfinite(o.signal)) throw_domain(f, "signal", "must be finite and > 0");
  Rng rng(seed);
  boost::random::normal_distribution<double> nd;
  boost::random::uniform_01<double> u01;
  CorrelatedLogisticData out;
  const Index d = o.dim;
  Vec<double> w = gaussian_vector(d, rng);
  w.array() -= w.mean();  // projection orthogonal to 1_D
  w *= o.signal / (std::sqrt(1 - o.correlation) * w.norm());
  out.w_star = w;
  auto draw = [&](Index n, Mat<double>& x, Vec<double>& y) {
    x.resize(n, d);
    y.resize(n);
    const double a = std::sqrt(o.correlation), b = std::sqrt(1 - o.correlation);
    for (Index k = 0; k < n; ++k) {
      const double s = nd(rng);
      for (Index i = 0; i < d; ++i) x(k, i) = a * s + b * nd(rng);
      const double eta = x.row(k).dot(w);
      y(k) = u01(rng) < 1 / (1 + std::exp(-eta)) ? 1.0 : 0.0;
    }
  };
  draw(o.n_train, out.x_train, out.y_train);
  draw(o.n_test, out.x_test, out.y_test);
  return out;
}

}  // namespace ngvi::data
