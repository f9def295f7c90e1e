#pragma once
/// @file
/// The Fisher metric of the Gaussian family in natural parameters, F(η) = ∇²A(η) = Cov_q[T(z)],
/// applied to a direction, and its inverse ∇²A*(μ) applied to a direction (docs/math.md §1.1, §2.2).
#include "ngvi/expfam/gaussian_maps.hpp"

namespace ngvi {

/// F(η) v = d/dt ∇A(η + t v) at t = 0. With S = (−2η₂)⁻¹, m = S η₁ and v = (v₁, V₂), V₂ symmetric:
/// \f[ dS = 2 S V_2 S,\quad dm = S(2V_2 m + v_1),\quad F(\eta)v = (dm,\; dS + dm\,m^\top + m\,dm^\top). \f]
/// @pre η ∈ Ω; v finite, of the same dimension, V₂ symmetric.
template <class Scalar>
GaussianPair<Scalar> fisher_apply(const GaussianNatural<Scalar>& eta, const GaussianPair<Scalar>& v) {
  constexpr const char* kFunc = "ngvi::fisher_apply";
  const auto f = validate_natural(eta, kFunc, "eta");
  require_pair_shape(v, kFunc, "v");
  if (v.dim() != eta.dim()) throw_size(kFunc, "v", "has a different dimension from 'eta'");
  require_symmetric(v.second, kFunc, "v.second");
  const Mat<Scalar> s = f.inverse();
  const Vec<Scalar> m = s * eta.eta1();
  Mat<Scalar> ds = Scalar(2) * s * v.second * s;
  const Vec<Scalar> dm = s * (Scalar(2) * v.second * m + v.first);
  Mat<Scalar> d2 = ds + dm * m.transpose() + m * dm.transpose();
  return GaussianPair<Scalar>{dm, symmetrise(d2)};
}

/// F(η)⁻¹ u = ∇²A*(μ) u = d/dt ∇A*(μ + t u) at t = 0, μ = ∇A(η). With S = μ₂ − μ₁μ₁ᵀ, P = S⁻¹:
/// \f[ dS = U_2 - u_1 m^\top - m u_1^\top,\quad dP = -P\,dS\,P,\quad
///     F^{-1}u = (dP\,m + P u_1,\; -\tfrac12 dP). \f]
/// @pre μ ∈ M; u finite, of the same dimension, U₂ symmetric.
template <class Scalar>
GaussianPair<Scalar> fisher_inverse_apply(const GaussianExpectation<Scalar>& mu, const GaussianPair<Scalar>& u) {
  constexpr const char* kFunc = "ngvi::fisher_inverse_apply";
  const auto f = validate_expectation(mu, kFunc, "mu");
  require_pair_shape(u, kFunc, "u");
  if (u.dim() != mu.dim()) throw_size(kFunc, "u", "has a different dimension from 'mu'");
  require_symmetric(u.second, kFunc, "u.second");
  const Mat<Scalar> p = f.inverse();
  const Vec<Scalar>& m = mu.mu1();
  const Mat<Scalar> ds = u.second - u.first * m.transpose() - m * u.first.transpose();
  const Mat<Scalar> dp = -(p * ds * p);
  Mat<Scalar> d2 = Scalar(-0.5) * dp;
  return GaussianPair<Scalar>{dp * m + p * u.first, symmetrise(d2)};
}

}  // namespace ngvi
