#pragma once
/// @file
/// Structured RapidCheck generators (style.md §8): SPD matrices with a prescribed condition number,
/// dyadic reals, and Gaussians in each parameterisation. Values are generated in double from
/// RapidCheck's own random stream (so failures shrink and reproduce from RC_PARAMS="seed=..."), then
/// cast exactly to the scalar under test.
#include <rapidcheck.h>

#include <cmath>

#include "ngvi/data/synthetic.hpp"
#include "ngvi/expfam/gaussian_maps.hpp"

namespace ngvi::gen {

/// A dyadic rational k / 2^bits in [lo, hi]: exactly representable in every scalar type.
inline rc::Gen<double> dyadic(double lo, double hi, int bits = 10) {
  const double scale = std::ldexp(1.0, bits);
  const auto klo = static_cast<long>(std::ceil(lo * scale));
  const auto khi = static_cast<long>(std::floor(hi * scale));
  return rc::gen::map(rc::gen::inRange<long>(klo, khi + 1), [scale](long k) { return static_cast<double>(k) / scale; });
}

/// A spec for an SPD matrix: dimension, condition number (log-uniform in [1, kappa_max]) and seed.
struct SpdSpec {
  Index d;
  double kappa;
  std::uint64_t seed;
};

inline rc::Gen<SpdSpec> spd_spec(Index d_min, Index d_max, double kappa_max) {
  return rc::gen::apply(
      [](Index d, double log10_kappa, std::uint64_t seed) { return SpdSpec{d, std::pow(10.0, log10_kappa), seed}; },
      rc::gen::inRange<Index>(d_min, d_max + 1), dyadic(0.0, std::log10(kappa_max), 6),
      rc::gen::arbitrary<std::uint64_t>());
}

/// Q diag(λ) Qᵀ with λ log-uniformly spaced in [1, κ]: the condition number is κ by construction.
template <class Scalar>
Mat<Scalar> spd_from(const SpdSpec& s) {
  data::Rng rng(s.seed);
  return data::cast_matrix<Scalar>(data::random_spd(s.d, s.kappa, rng));
}

/// A Gaussian with covariance from `s` and a mean of unit scale, cast to Scalar.
template <class Scalar>
GaussianMoments<Scalar> gaussian_from(const SpdSpec& s) {
  data::Rng rng(s.seed ^ 0x5bd1e995ULL);
  return data::cast_moments<Scalar>(data::random_gaussian(s.d, s.kappa, rng));
}

inline const char* kappa_bucket(double kappa) {
  return kappa > 1e6 ? "kappa>1e6" : kappa > 1e3 ? "kappa in (1e3,1e6]" : "kappa<=1e3";
}

}  // namespace ngvi::gen
