#pragma once
/// @file
/// Differential entropy of a Gaussian.
#include <boost/math/constants/constants.hpp>

#include "ngvi/expfam/gaussian_maps.hpp"

namespace ngvi {

/// \f[ H[N(m,S)] = \tfrac d2 (1 + \log 2\pi) + \tfrac12 \log\det S \;(= -A^*(\mu)). \f]
/// @pre S symmetric positive definite.
template <class Scalar>
Scalar entropy(const GaussianMoments<Scalar>& q) {
  const auto f = validate_moments(q, "ngvi::entropy", "q");
  const Index d = q.dim();
  return Scalar(d) / 2 + Scalar(d) * boost::math::constants::log_root_two_pi<Scalar>() + f.log_det() / 2;
}

}  // namespace ngvi
