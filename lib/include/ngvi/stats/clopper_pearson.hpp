#pragma once
/// @file
/// The exact (Clopper–Pearson) confidence interval for a binomial proportion.
#include <boost/math/distributions/beta.hpp>
#include <string>
#include <utility>

#include "ngvi/linalg/validate.hpp"

namespace ngvi::stats {

/// Two-sided Clopper–Pearson interval [p_lo, p_hi] for x successes in n trials at confidence
/// 1 − α (Clopper & Pearson 1934): the end points solve P(Bin(n, p_lo) ≥ x) = α/2 and
/// P(Bin(n, p_hi) ≤ x) = α/2, i.e.
/// \f[ p_{lo} = B^{-1}_{x,\,n-x+1}(\alpha/2),\qquad p_{hi} = B^{-1}_{x+1,\,n-x}(1-\alpha/2), \f]
/// with p_lo = 0 at x = 0 and p_hi = 1 at x = n.
/// @throws std::invalid_argument naming 'n' (n < 1) or 'x' (outside [0, n]); std::domain_error
///         naming 'alpha' outside (0, 1).
template <class Scalar = double>
std::pair<Scalar, Scalar> clopper_pearson(long x, long n, const Scalar& alpha) {
  constexpr const char* f = "ngvi::stats::clopper_pearson";
  if (n < 1) throw_size(f, "n", "must be >= 1 (got " + std::to_string(n) + ")");
  if (x < 0 || x > n) throw_size(f, "x", "must lie in [0, n] (got " + std::to_string(x) + " of " + std::to_string(n) + ")");
  if (!(alpha > Scalar(0) && alpha < Scalar(1))) throw_domain(f, "alpha", "must lie in (0, 1)");
  const Scalar lo = x == 0 ? Scalar(0)
                           : Scalar(boost::math::quantile(
                                 boost::math::beta_distribution<Scalar>(Scalar(x), Scalar(n - x + 1)), alpha / 2));
  const Scalar hi = x == n ? Scalar(1)
                           : Scalar(boost::math::quantile(
                                 boost::math::complement(boost::math::beta_distribution<Scalar>(Scalar(x + 1), Scalar(n - x)), alpha / 2)));
  return {lo, hi};
}

}  // namespace ngvi::stats
