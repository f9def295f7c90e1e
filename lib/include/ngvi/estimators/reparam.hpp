#pragma once
/// @file
/// The reparameterisation ("automatic differentiation") gradient of Algorithm 1 (docs/math.md §3.3):
/// with L = chol(μ₂ − μ₁μ₁ᵀ), z_k = μ₁ + Lε_k and ℓ̂ = (1/K)Σ_k ℓ(z_k), reverse mode gives
/// \f[ \bar m = \tfrac1K\sum_k \nabla\ell(z_k), \qquad \bar L = \operatorname{tril}\Big(\tfrac1K\sum_k \nabla\ell(z_k)\,\varepsilon_k^\top\Big), \f]
/// the exact Cholesky backward pass (Murray 2016; Φ(X) = tril(X) with its diagonal halved)
/// \f[ \bar S = \operatorname{sym}\big(L^{-\top}\,\Phi(L^\top \bar L)\,L^{-1}\big), \f]
/// and the chain rule through S = μ₂ − μ₁μ₁ᵀ:
/// \f[ \hat g_1 = \bar m - 2\bar S\mu_1, \qquad \hat g_2 = \bar S. \f]
/// Unbiased, but ĝ₂ ≼ 0 is not guaranteed (Appendix B).
#include "ngvi/estimators/price.hpp"

namespace ngvi {

/// The reverse-mode adjoint of A = L Lᵀ with L⁻¹ given: Ā = sym(L⁻ᵀ Φ(Lᵀ L̄) L⁻¹) into `out`, as
/// three products with a triangular factor (Lᵀ L̄, Φ L⁻¹ and L⁻ᵀ (Φ L⁻¹); d³/2 multiply-adds each)
/// where the solves with L would take two triangular solves and a general product. `phi` and `tmp`
/// are buffers (resized if needed), so nothing is allocated once they are sized, up to the order at
/// which Eigen's product kernels take their packing buffers from the heap (bench/README.md).
/// Nothing is validated: this is the form for NGD's inner loop, whose NaturalFactor gives L and L⁻¹.
/// @pre L lower triangular with a positive diagonal, `l_inv` its inverse (lower), L̄ lower (strict
///      upper triangle zero), all of one order.
template <class Scalar>
void cholesky_backward_into(const Mat<Scalar>& l, const Mat<Scalar>& l_inv, const Mat<Scalar>& lbar, Mat<Scalar>& phi,
                            Mat<Scalar>& tmp, Mat<Scalar>& out) {
  phi.noalias() = l.template triangularView<Eigen::Lower>().transpose() * lbar;  // Lᵀ L̄
  phi.template triangularView<Eigen::StrictlyUpper>().setZero();                  // Φ: the lower triangle,
  phi.diagonal() *= Scalar(0.5);                                                  // its diagonal halved
  tmp.noalias() = phi.template triangularView<Eigen::Lower>() * l_inv;            // Φ L⁻¹
  out.noalias() = l_inv.template triangularView<Eigen::Lower>().transpose() * tmp;  // L⁻ᵀ Φ L⁻¹
  symmetrise_in_place(out);
}

/// L⁻¹ for L lower triangular with a nonzero diagonal, by a triangular solve (the validating
/// forms' route; NGD's loop reads it off its NaturalFactor).
template <class Scalar>
Mat<Scalar> lower_triangular_inverse(const Mat<Scalar>& l) {
  return l.template triangularView<Eigen::Lower>().solve(Mat<Scalar>::Identity(l.rows(), l.cols()));
}

/// The reverse-mode adjoint of A = L Lᵀ: given L and L̄ (lower; its strict upper triangle is
/// ignored), returns the symmetric Ā (cholesky_backward_into, with L⁻¹ from a triangular solve).
/// @pre L lower triangular with positive diagonal (checked), L̄ of the same size.
/// @throws std::domain_error naming 'L' or std::invalid_argument naming 'Lbar'.
template <class Scalar>
Mat<Scalar> cholesky_backward(const Mat<Scalar>& l, const Mat<Scalar>& lbar) {
  constexpr const char* f = "ngvi::cholesky_backward";
  require_square(l, f, "L");
  if (lbar.rows() != l.rows() || lbar.cols() != l.cols()) throw_size(f, "Lbar", "has a different size from 'L'");
  for (Index i = 0; i < l.rows(); ++i)
    if (!(l(i, i) > Scalar(0))) throw_domain(f, "L", "has a non-positive diagonal entry at " + std::to_string(i));
  const Mat<Scalar> lbar_lower = lbar.template triangularView<Eigen::Lower>();
  Mat<Scalar> phi, tmp, out;
  cholesky_backward_into(l, lower_triangular_inverse(l), lbar_lower, phi, tmp, out);
  return out;
}

/// m̄ into s.grad and L̄ into s.mat (strict upper triangle zero) for z_k = m + Lε_k. Sizes are the
/// caller's to check.
template <class Scalar, class LogLik>
void reparam_means_into(const LogLik& loglik, const Vec<Scalar>& m, const Mat<Scalar>& l, const Mat<Scalar>& eps,
                        MonteCarloScratch<Scalar>& s) {
  if constexpr (BlockLogLik<LogLik, Scalar>) {
    // The block form: G = [∇ℓ(z_1) … ∇ℓ(z_K)] from the log-likelihood, m̄ = G1/K, L̄ = G εᵀ/K.
    s.z.noalias() = l * eps;
    s.z.colwise() += m;
    loglik.block_gradients(s.z, s.grads, s.block);
    const Scalar inv_k = Scalar(1) / Scalar(eps.cols());
    s.grad = s.grads.rowwise().sum() * inv_k;
    s.mat.noalias() = s.grads * eps.transpose();
    s.mat *= inv_k;
  } else {
    monte_carlo_means_into(loglik, false, m, l, eps, s, [&](Index k, const LogLikDerivatives<Scalar>& r, Mat<Scalar>& lbar) {
      lbar.noalias() += r.grad * eps.col(k).transpose();
    });
  }
  s.mat.template triangularView<Eigen::StrictlyUpper>().setZero();
}

/// Reparameterisation gradient in (m, L) from a block of draws: (m̄, L̄).
template <class Scalar, class LogLik>
SqrtParamGradient<Scalar> reparam_gradient_mL_from(const LogLik& loglik, const Vec<Scalar>& m, const Mat<Scalar>& l, const Mat<Scalar>& eps) {
  require_draw_shapes(m, l, eps, "ngvi::reparam_gradient_mL");
  MonteCarloScratch<Scalar> s;
  reparam_means_into(loglik, m, l, eps, s);
  return SqrtParamGradient<Scalar>{std::move(s.grad), std::move(s.mat)};
}

/// Algorithm 1's ĝ = (m̄ − 2S̄m, S̄) into `out` at the Gaussian with mean m and covariance factor L
/// (lower, positive diagonal; `l_inv` = L⁻¹, lower), from the block of draws `eps`; `s` holds the
/// buffers. Nothing is validated: this is the form for NGD's inner loop, whose NaturalFactor gives
/// m, L and L⁻¹; reparam_gradient_from is the validating form.
template <class Scalar, class LogLik>
void reparam_gradient_into(const LogLik& loglik, const Vec<Scalar>& m, const Mat<Scalar>& l, const Mat<Scalar>& l_inv,
                           const Mat<Scalar>& eps, MonteCarloScratch<Scalar>& s, GaussianPair<Scalar>& out) {
  reparam_means_into(loglik, m, l, eps, s);
  cholesky_backward_into(l, l_inv, s.mat, s.phi, s.tmp, out.second);
  out.first = s.grad;
  out.first.noalias() -= Scalar(2) * (out.second * m);
}

/// Algorithm 1 in μ from a block of draws (one Cholesky of S = μ₂ − μ₁μ₁ᵀ).
/// @throws std::domain_error if μ ∉ M (names 'mu'), std::invalid_argument on sizes or K = 0.
template <class Scalar, class LogLik>
GaussianPair<Scalar> reparam_gradient_from(const LogLik& loglik, const GaussianExpectation<Scalar>& mu, const Mat<Scalar>& eps) {
  return gradient_at_expectation(mu, eps, "ngvi::reparam_gradient", "ngvi::reparam_gradient_mL",
                                 [&](const Vec<Scalar>& m, const Mat<Scalar>& l, const Mat<Scalar>& e, MonteCarloScratch<Scalar>& s,
                                     GaussianPair<Scalar>& g) { reparam_gradient_into(loglik, m, l, lower_triangular_inverse(l), e, s, g); });
}

/// Algorithm 1 in μ with K fresh draws from `rng`.
/// @throws std::invalid_argument naming 'K' if K < 1.
template <class Scalar, class LogLik>
GaussianPair<Scalar> reparam_gradient(const LogLik& loglik, const GaussianExpectation<Scalar>& mu, int K, random::Stream& rng) {
  return reparam_gradient_from(loglik, mu, standard_normal_block<Scalar>(mu.dim(), K, rng, "ngvi::reparam_gradient"));
}

}  // namespace ngvi
