#pragma once
/// @file
/// Gamma(shape a ≥ 1, scale θ) draws by Marsaglia & Tsang's method ("A simple method for generating
/// gamma variables", ACM TOMS 26(3), 2000; docs/systems.md A.4): with d = a − 1/3 and c = 1/√(9d), draw
/// x ~ N(0, 1) until v = (1 + c x)³ > 0, then u ~ U(0, 1), and accept θ d v when
///   u < 1 − 0.0331 x⁴   (the squeeze, which takes nearly every draw at large a), or
///   ln u < x²/2 + d (1 − v + ln v).
/// The accepted values are Gamma(a, θ) exactly (the method is an exact rejection sampler; the squeeze
/// only skips the logarithms where the second test would accept anyway).
///
/// Why the kit has it: Boost.Random's gamma_distribution draws a shape above 1 by a rejection from a
/// Cauchy envelope, one tangent, one logarithm and one exponential per trial. The LDA start (K × V
/// entries of Gamma(100, 1/100), and K per document per E-step) then cost more than the rest of a short
/// document's fit (bench/README.md, "Online LDA across K and document length"). Here the variates come
/// from Boost.Random's normal (its ziggurat) and uniform_01, so the draws, like every Boost.Random
/// distribution's, are a function of the stream's words alone on every platform.
#include <cmath>
#include <stdexcept>

#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_01.hpp>

namespace ngvi::random {

/// Gamma(shape, scale) for shape ≥ 1 (Marsaglia & Tsang 2000). Stateless between draws.
class GammaSampler {
 public:
  /// @throws std::domain_error naming 'shape' (not finite or below 1: the method's d = a − 1/3 must
  ///         give an envelope that covers the density) or 'scale' (not finite and positive).
  GammaSampler(double shape, double scale) : d_(shape - 1.0 / 3.0), c_(0), scale_(scale) {
    if (!(shape >= 1.0) || !std::isfinite(shape))
      throw std::domain_error("ngvi::random::GammaSampler: argument 'shape' must be finite and >= 1 (Marsaglia-Tsang's method)");
    if (!(scale > 0.0) || !std::isfinite(scale))
      throw std::domain_error("ngvi::random::GammaSampler: argument 'scale' must be finite and positive");
    c_ = 1.0 / std::sqrt(9.0 * d_);
  }

  /// One draw from `rng` (a Stream, or any generator Boost.Random's distributions accept).
  template <class Engine>
  double operator()(Engine& rng) const {
    boost::random::normal_distribution<double> normal;
    boost::random::uniform_01<double> uniform;
    for (;;) {
      double x, v;
      do {
        x = normal(rng);
        v = 1.0 + c_ * x;
      } while (v <= 0.0);
      v = v * v * v;
      const double u = uniform(rng);
      const double x2 = x * x;
      if (u < 1.0 - 0.0331 * x2 * x2) return scale_ * d_ * v;
      if (std::log(u) < 0.5 * x2 + d_ * (1.0 - v + std::log(v))) return scale_ * d_ * v;
    }
  }

  double shape() const { return d_ + 1.0 / 3.0; }
  double scale() const { return scale_; }

 private:
  double d_, c_, scale_;
};

}  // namespace ngvi::random
