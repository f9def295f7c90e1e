#pragma once
/// @file
/// Bonnet/Price Monte Carlo gradient of E_q[ℓ(z)] (ngvi-math.md §3.2, eq. (11)). With z_k = m + Lε_k,
/// ε_k ~ N(0, I) drawn as one d × K block and one Cholesky factor L of S per call:
/// \f[ \bar g = \tfrac1K\sum_k \nabla\ell(z_k),\qquad \bar H = \tfrac1K\sum_k \nabla^2\ell(z_k), \f]
/// \f[ \hat g_1 = \bar g - \bar H m,\qquad \hat g_2 = \tfrac12\bar H \quad(\text{gradient in }\mu), \f]
/// and in the square-root parameterisation ("SGD (p)", §7.2): ∇_m = ḡ, ∇_L = tril(H̄ L).
/// ĝ₂ ≼ 0 on every draw when ℓ is concave (Remark 2).
///
/// `LogLik` is any callable `(const Vec<Scalar>& z, bool with_hessian) -> LogLikDerivatives<Scalar>`.
#include "ngvi/expfam/gaussian_maps.hpp"
#include "ngvi/models/glm_likelihood.hpp"
#include "ngvi/random/stream.hpp"

namespace ngvi {

/// A d × K block of independent N(0, 1) draws (doubles cast exactly to Scalar).
/// @throws std::invalid_argument naming 'K' if K < 1.
template <class Scalar>
Mat<Scalar> standard_normal_block(Index d, int K, random::Stream& rng, std::string_view func = "ngvi::standard_normal_block") {
  if (K < 1) throw_size(func, "K", "must be >= 1 (number of Monte Carlo samples)");
  require_positive_dim(d, func, "d");
  Mat<Scalar> e(d, K);
  for (int k = 0; k < K; ++k)
    for (Index j = 0; j < d; ++j) e(j, k) = Scalar(rng.normal());
  return e;
}

/// Sample means ḡ and H̄ of ∇ℓ and ∇²ℓ over z_k = m + L ε_k (ε the columns of `eps`).
template <class Scalar>
struct PriceMeans {
  Vec<Scalar> grad;
  Mat<Scalar> hess;
};

template <class Scalar, class LogLik>
PriceMeans<Scalar> price_means(const LogLik& loglik, const Vec<Scalar>& m, const Mat<Scalar>& l, const Mat<Scalar>& eps) {
  constexpr const char* f = "ngvi::price_means";
  if (eps.cols() < 1) throw_size(f, "eps", "has no columns (K = 0 samples)");
  if (eps.rows() != m.size() || l.rows() != m.size() || l.cols() != m.size()) throw_size(f, "eps", "does not match the dimension of m and L");
  const Index d = m.size();
  const Mat<Scalar> z = (l * eps).colwise() + m;
  PriceMeans<Scalar> out{Vec<Scalar>::Zero(d), Mat<Scalar>::Zero(d, d)};
  for (Index k = 0; k < eps.cols(); ++k) {
    const LogLikDerivatives<Scalar> r = loglik(Vec<Scalar>(z.col(k)), true);
    out.grad += r.grad;
    out.hess += r.hess;
  }
  const Scalar inv_k = Scalar(1) / Scalar(eps.cols());
  out.grad *= inv_k;
  out.hess *= inv_k;
  return out;
}

/// ĝ = (ḡ − H̄m, ½H̄) at μ from the given block of draws.
/// @throws std::domain_error if μ ∉ M (names 'mu'), std::invalid_argument on sizes or K = 0.
template <class Scalar, class LogLik>
GaussianPair<Scalar> price_gradient_from(const LogLik& loglik, const GaussianExpectation<Scalar>& mu, const Mat<Scalar>& eps) {
  const auto fs = validate_expectation(mu, "ngvi::price_gradient", "mu");
  const auto pm = price_means(loglik, mu.mu1(), fs.lower(), eps);
  Mat<Scalar> g2 = pm.hess / 2;
  g2 = symmetrise(g2);
  return GaussianPair<Scalar>{Vec<Scalar>(pm.grad - pm.hess * mu.mu1()), g2};
}

/// Price gradient in μ with K fresh draws from `rng` (one Cholesky of S = μ₂ − μ₁μ₁ᵀ).
/// @throws std::invalid_argument naming 'K' if K < 1.
template <class Scalar, class LogLik>
GaussianPair<Scalar> price_gradient(const LogLik& loglik, const GaussianExpectation<Scalar>& mu, int K, random::Stream& rng) {
  return price_gradient_from(loglik, mu, standard_normal_block<Scalar>(mu.dim(), K, rng, "ngvi::price_gradient"));
}

/// Gradient of E_q ℓ in (m, L), L lower triangular: (ḡ, tril(H̄ L)).
template <class Scalar>
struct SqrtParamGradient {
  Vec<Scalar> grad_m;
  Mat<Scalar> grad_L;
};

/// Price ("SGD (p)") gradient in (m, L) from a block of draws.
template <class Scalar, class LogLik>
SqrtParamGradient<Scalar> price_gradient_mL_from(const LogLik& loglik, const Vec<Scalar>& m, const Mat<Scalar>& l, const Mat<Scalar>& eps) {
  const auto pm = price_means(loglik, m, l, eps);
  return SqrtParamGradient<Scalar>{pm.grad, Mat<Scalar>((pm.hess * l).template triangularView<Eigen::Lower>())};
}

}  // namespace ngvi
