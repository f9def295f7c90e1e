#pragma once
/// @file
/// The reparameterisation ("automatic differentiation") gradient of Algorithm 1 (ngvi-math.md §3.3):
/// with L = chol(μ₂ − μ₁μ₁ᵀ), z_k = μ₁ + Lε_k and ℓ̂ = (1/K)Σ_k ℓ(z_k), reverse mode gives
/// \f[ \bar m = \tfrac1K\sum_k \nabla\ell(z_k), \qquad \bar L = \operatorname{tril}\Big(\tfrac1K\sum_k \nabla\ell(z_k)\,\varepsilon_k^\top\Big), \f]
/// the exact Cholesky backward pass (Murray 2016; Φ(X) = tril(X) with its diagonal halved)
/// \f[ \bar S = \operatorname{sym}\big(L^{-\top}\,\Phi(L^\top \bar L)\,L^{-1}\big), \f]
/// and the chain rule through S = μ₂ − μ₁μ₁ᵀ:
/// \f[ \hat g_1 = \bar m - 2\bar S\mu_1, \qquad \hat g_2 = \bar S. \f]
/// Unbiased, but ĝ₂ ≼ 0 is not guaranteed (Appendix B).
#include "ngvi/estimators/price.hpp"

namespace ngvi {

/// The reverse-mode adjoint of A = L Lᵀ: given L and L̄ (lower), returns the symmetric Ā.
/// @pre L lower triangular with positive diagonal (checked), L̄ of the same size.
/// @throws std::domain_error naming 'L' or std::invalid_argument naming 'Lbar'.
template <class Scalar>
Mat<Scalar> cholesky_backward(const Mat<Scalar>& l, const Mat<Scalar>& lbar) {
  constexpr const char* f = "ngvi::cholesky_backward";
  require_square(l, f, "L");
  if (lbar.rows() != l.rows() || lbar.cols() != l.cols()) throw_size(f, "Lbar", "has a different size from 'L'");
  for (Index i = 0; i < l.rows(); ++i)
    if (!(l(i, i) > Scalar(0))) throw_domain(f, "L", "has a non-positive diagonal entry at " + std::to_string(i));
  Mat<Scalar> phi = (l.transpose() * lbar.template triangularView<Eigen::Lower>().toDenseMatrix()).template triangularView<Eigen::Lower>();
  phi.diagonal() /= Scalar(2);
  const auto lt = l.template triangularView<Eigen::Lower>();
  const Mat<Scalar> y = lt.transpose().solve(phi);                          // L⁻ᵀ Φ
  const Mat<Scalar> g = lt.transpose().solve(Mat<Scalar>(y.transpose())).transpose();  // (L⁻ᵀ (L⁻ᵀΦ)ᵀ)ᵀ = L⁻ᵀ Φ L⁻¹
  return symmetrise(g);
}

/// Reparameterisation gradient in (m, L) from a block of draws: (m̄, L̄).
template <class Scalar, class LogLik>
SqrtParamGradient<Scalar> reparam_gradient_mL_from(const LogLik& loglik, const Vec<Scalar>& m, const Mat<Scalar>& l, const Mat<Scalar>& eps) {
  constexpr const char* f = "ngvi::reparam_gradient_mL";
  if (eps.cols() < 1) throw_size(f, "eps", "has no columns (K = 0 samples)");
  if (eps.rows() != m.size() || l.rows() != m.size() || l.cols() != m.size()) throw_size(f, "eps", "does not match the dimension of m and L");
  const Index d = m.size();
  const Mat<Scalar> z = (l * eps).colwise() + m;
  SqrtParamGradient<Scalar> out{Vec<Scalar>::Zero(d), Mat<Scalar>::Zero(d, d)};
  for (Index k = 0; k < eps.cols(); ++k) {
    const LogLikDerivatives<Scalar> r = loglik(Vec<Scalar>(z.col(k)), false);
    out.grad_m += r.grad;
    out.grad_L.noalias() += r.grad * eps.col(k).transpose();
  }
  const Scalar inv_k = Scalar(1) / Scalar(eps.cols());
  out.grad_m *= inv_k;
  out.grad_L = (out.grad_L * inv_k).template triangularView<Eigen::Lower>();
  return out;
}

/// Algorithm 1 in μ from a block of draws.
/// @throws std::domain_error if μ ∉ M (names 'mu'), std::invalid_argument on sizes or K = 0.
template <class Scalar, class LogLik>
GaussianPair<Scalar> reparam_gradient_from(const LogLik& loglik, const GaussianExpectation<Scalar>& mu, const Mat<Scalar>& eps) {
  const auto fs = validate_expectation(mu, "ngvi::reparam_gradient", "mu");
  const Mat<Scalar> l = fs.lower();
  const auto g = reparam_gradient_mL_from(loglik, mu.mu1(), l, eps);
  const Mat<Scalar> sbar = cholesky_backward(l, g.grad_L);
  return GaussianPair<Scalar>{Vec<Scalar>(g.grad_m - Scalar(2) * (sbar * mu.mu1())), sbar};
}

/// Algorithm 1 in μ with K fresh draws from `rng`.
/// @throws std::invalid_argument naming 'K' if K < 1.
template <class Scalar, class LogLik>
GaussianPair<Scalar> reparam_gradient(const LogLik& loglik, const GaussianExpectation<Scalar>& mu, int K, random::Stream& rng) {
  return reparam_gradient_from(loglik, mu, standard_normal_block<Scalar>(mu.dim(), K, rng, "ngvi::reparam_gradient"));
}

}  // namespace ngvi
