#pragma once
/// @file
/// Closed-form Kullback–Leibler divergence between Gaussians (docs/math.md §1.3).
#include "ngvi/expfam/gaussian_maps.hpp"

namespace ngvi {

/// \f[ \mathrm{KL}(N(m_0,S_0)\,\|\,N(m_1,S_1)) = \tfrac12\Big[\operatorname{tr}(S_1^{-1}S_0)
///     + (m_1-m_0)^\top S_1^{-1}(m_1-m_0) - d + \log\det S_1 - \log\det S_0\Big]. \f]
/// @pre both covariances symmetric positive definite, same dimension.
/// @throws std::invalid_argument on a dimension mismatch, std::domain_error on invalid moments.
template <class Scalar>
Scalar kl_gaussian(const GaussianMoments<Scalar>& q, const GaussianMoments<Scalar>& p) {
  const auto fq = validate_moments(q, "ngvi::kl_gaussian", "q");
  const auto fp = validate_moments(p, "ngvi::kl_gaussian", "p");
  if (q.dim() != p.dim()) throw_size("ngvi::kl_gaussian", "p", "has a different dimension from 'q'");
  const Vec<Scalar> dm = p.mean - q.mean;
  const Scalar tr = fp.solve(q.cov).trace();
  return (tr + fp.inv_quad(dm) - Scalar(q.dim()) + fp.log_det() - fq.log_det()) / 2;
}

/// KL(q‖p) for natural parameters (converts through the moments).
template <class Scalar>
Scalar kl_gaussian(const GaussianNatural<Scalar>& q, const GaussianNatural<Scalar>& p) {
  return kl_gaussian(natural_to_moments(q), natural_to_moments(p));
}

/// KL(q‖p) for expectation parameters (converts through the moments).
template <class Scalar>
Scalar kl_gaussian(const GaussianExpectation<Scalar>& q, const GaussianExpectation<Scalar>& p) {
  return kl_gaussian(expectation_to_moments(q), expectation_to_moments(p));
}

#ifdef NGVI_EXTERN_TEMPLATES
// In-tree targets take these instantiations from lib/src/hot_loop_instantiations_*.cpp.
extern template double kl_gaussian<double>(const GaussianMoments<double>&, const GaussianMoments<double>&);
extern template double kl_gaussian<double>(const GaussianNatural<double>&, const GaussianNatural<double>&);
extern template double kl_gaussian<double>(const GaussianExpectation<double>&, const GaussianExpectation<double>&);
extern template mp50 kl_gaussian<mp50>(const GaussianMoments<mp50>&, const GaussianMoments<mp50>&);
extern template mp50 kl_gaussian<mp50>(const GaussianNatural<mp50>&, const GaussianNatural<mp50>&);
extern template mp50 kl_gaussian<mp50>(const GaussianExpectation<mp50>&, const GaussianExpectation<mp50>&);
#endif

}  // namespace ngvi
