#pragma once
/// @file
/// Seeded synthetic regression problems for tests, claims and benchmarks (docs/math.md §5.1):
/// X with rows x_i ~ N(0, Σ) where Σ has condition number κ (κ = 1: well conditioned), a true
/// z ~ N(0, I) and y = Xz + s_e·ε. Values are doubles, so casting to any wider scalar is exact.
#include <cmath>

#include <Eigen/Cholesky>

#include "ngvi/data/dataset.hpp"
#include "ngvi/data/synthetic.hpp"

namespace ngvi::data {

/// @throws std::invalid_argument naming 'n' or 'd' if either is < 1; std::domain_error naming
///         'kappa' or 'noise_sd' on κ < 1 or s_e < 0.
inline Dataset<double> synthetic_regression(Index n, Index d, double kappa, double noise_sd, std::uint64_t seed) {
  constexpr const char* f = "ngvi::data::synthetic_regression";
  if (n < 1) throw_size(f, "n", "must be >= 1");
  if (d < 1) throw_size(f, "d", "must be >= 1");
  if (!(kappa >= 1.0) || !std::isfinite(kappa)) throw_domain(f, "kappa", "must be finite and >= 1");
  if (!(noise_sd >= 0.0) || !std::isfinite(noise_sd)) throw_domain(f, "noise_sd", "must be finite and >= 0");
  Rng rng(seed);
  Dataset<double> out;
  const Mat<double> g = gaussian_matrix(n, d, rng);
  if (kappa == 1.0) {
    out.X = g;
  } else {
    const Mat<double> cov = random_spd(d, kappa, rng, 1.0 / kappa);
    const Mat<double> l = Eigen::LLT<Mat<double>>(cov).matrixL();
    out.X = g * l.transpose();
  }
  const Vec<double> z = gaussian_vector(d, rng);
  out.y = out.X * z + noise_sd * gaussian_vector(n, rng);
  return out;
}

}  // namespace ngvi::data
