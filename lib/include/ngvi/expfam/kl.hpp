#pragma once
/// @file
/// Closed-form Kullback–Leibler divergence between Gaussians (docs/math.md §1.3).
#include <string_view>

#include "ngvi/expfam/gaussian_maps.hpp"

namespace ngvi {

/// A Gaussian whose covariance is factored once, for several KL divergences that share it
/// (kl_gaussian on moments factors both of its arguments at every call).
/// Holds a reference to the moments: they must outlive it (a temporary is refused).
/// @throws std::invalid_argument / std::domain_error, naming `func` and `arg`, on invalid moments.
template <class Scalar>
struct FactoredGaussian {
  const GaussianMoments<Scalar>& moments;
  SpdFactor<Scalar> factor;  ///< of moments.cov
  Scalar log_det;            ///< log det of moments.cov
  FactoredGaussian(const GaussianMoments<Scalar>& q, std::string_view func, std::string_view arg)
      : moments(q), factor(validate_moments(q, func, arg)), log_det(factor.log_det()) {}
  FactoredGaussian(GaussianMoments<Scalar>&&, std::string_view, std::string_view) = delete;
};

/// \f[ \mathrm{KL}(N(m_0,S_0)\,\|\,N(m_1,S_1)) = \tfrac12\Big[\operatorname{tr}(S_1^{-1}S_0)
///     + (m_1-m_0)^\top S_1^{-1}(m_1-m_0) - d + \log\det S_1 - \log\det S_0\Big], \f]
/// from covariances already factored.
/// @throws std::invalid_argument on a dimension mismatch.
template <class Scalar>
Scalar kl_gaussian(const FactoredGaussian<Scalar>& q, const FactoredGaussian<Scalar>& p) {
  if (q.moments.dim() != p.moments.dim()) throw_size("ngvi::kl_gaussian", "p", "has a different dimension from 'q'");
  const Vec<Scalar> dm = p.moments.mean - q.moments.mean;
  const Scalar tr = p.factor.solve(q.moments.cov).trace();
  return (tr + p.factor.inv_quad(dm) - Scalar(q.moments.dim()) + p.log_det - q.log_det) / 2;
}

/// KL(q‖p) of two Gaussians given by their moments (the formula above).
/// @pre both covariances symmetric positive definite, same dimension.
/// @throws std::invalid_argument on a dimension mismatch, std::domain_error on invalid moments.
template <class Scalar>
Scalar kl_gaussian(const GaussianMoments<Scalar>& q, const GaussianMoments<Scalar>& p) {
  const FactoredGaussian<Scalar> fq(q, "ngvi::kl_gaussian", "q");
  const FactoredGaussian<Scalar> fp(p, "ngvi::kl_gaussian", "p");
  return kl_gaussian(fq, fp);
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
