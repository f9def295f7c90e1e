#pragma once
/// @file
/// The standard normal quantile z_p, for large-sample (normal) confidence bounds on a Monte Carlo
/// mean: mean ± z_c·se.
#include <boost/math/distributions/normal.hpp>

#include "ngvi/linalg/validate.hpp"

namespace ngvi::stats {

/// z_p with Φ(z_p) = p.
/// @throws std::domain_error naming 'p' unless p ∈ (0, 1).
template <class Scalar>
Scalar normal_quantile(const Scalar& p) {
  if (!(p > Scalar(0) && p < Scalar(1))) throw_domain("ngvi::stats::normal_quantile", "p", "must lie in (0, 1)");
  return boost::math::quantile(boost::math::normal_distribution<Scalar>(), p);
}

}  // namespace ngvi::stats
