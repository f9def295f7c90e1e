#pragma once
/// @file
/// Deterministic synthetic generators for tests, claims and benchmarks. Random draws use Boost.Random
/// (mt19937_64 and its normal distribution), whose sequences are the same on every platform, so an
/// instance is fixed by its seed. Generated values are doubles; casting them to a wider scalar is exact,
/// so every precision sees the same input.
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_01.hpp>
#include <cmath>
#include <Eigen/QR>

#include "ngvi/expfam/gaussian_params.hpp"
#include "ngvi/linalg/validate.hpp"

namespace ngvi::data {

using Rng = boost::random::mt19937_64;

/// d × d matrix of independent standard normal draws.
inline Mat<double> gaussian_matrix(Index rows, Index cols, Rng& rng) {
  boost::random::normal_distribution<double> nd;
  Mat<double> a(rows, cols);
  for (Index j = 0; j < cols; ++j)
    for (Index i = 0; i < rows; ++i) a(i, j) = nd(rng);
  return a;
}

inline Vec<double> gaussian_vector(Index n, Rng& rng) { return gaussian_matrix(n, 1, rng); }

// The two generators below instantiate Eigen's QR and products, which cost every translation unit
// that includes this header several seconds of compile time even when it calls neither. The
// in-tree targets (NGVI_EXTERN_TEMPLATES) see declarations only and take the definitions, compiled
// once, from lib/src/synthetic_instantiations.cpp; consumers of the header-only core get them
// inline as before.
#if defined(NGVI_EXTERN_TEMPLATES) && !defined(NGVI_DEFINE_SYNTHETIC)
/// A random orthogonal matrix (Q factor of a Gaussian matrix, signs fixed by R's diagonal).
Mat<double> random_orthogonal(Index d, Rng& rng);
/// Symmetric positive-definite Q diag(λ) Qᵀ with eigenvalues spaced log-uniformly in [lo, lo·κ]
/// (both ends included), after Eigen's generateRandomMatrixSvs. The result is symmetrised exactly.
/// @throws std::domain_error unless d >= 1, κ >= 1 and lo > 0 are finite.
Mat<double> random_spd(Index d, double kappa, Rng& rng, double lo = 1.0);
#else
#ifdef NGVI_DEFINE_SYNTHETIC
#define NGVI_SYNTHETIC_INLINE
#else
#define NGVI_SYNTHETIC_INLINE inline
#endif
/// A random orthogonal matrix (Q factor of a Gaussian matrix, signs fixed by R's diagonal).
NGVI_SYNTHETIC_INLINE Mat<double> random_orthogonal(Index d, Rng& rng) {
  const Mat<double> a = gaussian_matrix(d, d, rng);
  Eigen::HouseholderQR<Mat<double>> qr(a);
  Mat<double> q = qr.householderQ() * Mat<double>::Identity(d, d);
  const Mat<double> r = qr.matrixQR().triangularView<Eigen::Upper>();
  for (Index j = 0; j < d; ++j)
    if (r(j, j) < 0) q.col(j) *= -1.0;
  return q;
}

/// Symmetric positive-definite Q diag(λ) Qᵀ with eigenvalues spaced log-uniformly in [lo, lo·κ]
/// (both ends included), after Eigen's generateRandomMatrixSvs. The result is symmetrised exactly.
/// @throws std::domain_error unless d >= 1, κ >= 1 and lo > 0 are finite.
NGVI_SYNTHETIC_INLINE Mat<double> random_spd(Index d, double kappa, Rng& rng, double lo = 1.0) {
  if (d < 1) throw_size("ngvi::data::random_spd", "d", "must be at least 1");
  if (!(kappa >= 1.0) || !std::isfinite(kappa)) throw_domain("ngvi::data::random_spd", "kappa", "must be finite and >= 1");
  if (!(lo > 0.0) || !std::isfinite(lo)) throw_domain("ngvi::data::random_spd", "lo", "must be finite and positive");
  const Mat<double> q = random_orthogonal(d, rng);
  Vec<double> lambda(d);
  for (Index i = 0; i < d; ++i) {
    const double t = d == 1 ? 0.0 : static_cast<double>(i) / static_cast<double>(d - 1);
    lambda(i) = lo * std::pow(kappa, t);
  }
  const Mat<double> a = q * lambda.asDiagonal() * q.transpose();
  return symmetrise(a);
}
#undef NGVI_SYNTHETIC_INLINE
#endif

/// A Gaussian N(m, S) with m ~ N(0, mean_scale² I) and S = random_spd(d, κ).
inline GaussianMoments<double> random_gaussian(Index d, double kappa, Rng& rng, double mean_scale = 1.0) {
  GaussianMoments<double> q;
  q.mean = mean_scale * gaussian_vector(d, rng);
  q.cov = random_spd(d, kappa, rng);
  return q;
}

/// Casts a double matrix to another scalar (exact for every wider type).
template <class To, class From>
Mat<To> cast_matrix(const Mat<From>& a) {
  return a.unaryExpr([](const From& x) { return To(x); });
}
template <class To, class From>
Vec<To> cast_vector(const Vec<From>& a) {
  return a.unaryExpr([](const From& x) { return To(x); });
}
template <class To, class From>
GaussianMoments<To> cast_moments(const GaussianMoments<From>& q) {
  return GaussianMoments<To>{cast_vector<To>(q.mean), cast_matrix<To>(q.cov)};
}
template <class To, class From>
GaussianPair<To> cast_pair(const GaussianPair<From>& p) {
  return GaussianPair<To>{cast_vector<To>(p.first), cast_matrix<To>(p.second)};
}

}  // namespace ngvi::data
