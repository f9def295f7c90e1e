#pragma once
/// @file
/// Bonnet/Price Monte Carlo gradient of E_q[ℓ(z)] (docs/math.md §3.2, eq. (11)). With z_k = m + Lε_k,
/// ε_k ~ N(0, I) drawn as one d × K block and one Cholesky factor L of S per call:
/// \f[ \bar g = \tfrac1K\sum_k \nabla\ell(z_k),\qquad \bar H = \tfrac1K\sum_k \nabla^2\ell(z_k), \f]
/// \f[ \hat g_1 = \bar g - \bar H m,\qquad \hat g_2 = \tfrac12\bar H \quad(\text{gradient in }\mu), \f]
/// and in the square-root parameterisation ("SGD (p)", §7.2): ∇_m = ḡ, ∇_L = tril(H̄ L).
/// ĝ₂ ≼ 0 on every draw when ℓ is concave (Remark 2).
///
/// `LogLik` is any callable `(const Vec<Scalar>& z, bool with_hessian) -> LogLikDerivatives<Scalar>`;
/// one that also has the block forms of BlockLogLik (the GLMs' loglik_function) is evaluated on all
/// K draws at once.
#include "ngvi/expfam/gaussian_maps.hpp"
#include "ngvi/models/glm_likelihood.hpp"
#include "ngvi/random/stream.hpp"

namespace ngvi {

/// Fills `eps` (sized d × K by the caller) with independent N(0, 1) draws, column by column
/// (doubles cast exactly to Scalar), without allocating.
template <class Scalar>
void fill_standard_normal(Mat<Scalar>& eps, random::Stream& rng) {
  for (Index k = 0; k < eps.cols(); ++k)
    for (Index j = 0; j < eps.rows(); ++j) eps(j, k) = Scalar(rng.normal());
}

/// A d × K block of independent N(0, 1) draws (doubles cast exactly to Scalar), in the order of
/// fill_standard_normal.
/// @throws std::invalid_argument naming 'K' if K < 1.
template <class Scalar>
Mat<Scalar> standard_normal_block(Index d, int K, random::Stream& rng, std::string_view func = "ngvi::standard_normal_block") {
  if (K < 1) throw_size(func, "K", "must be >= 1 (number of Monte Carlo samples)");
  require_positive_dim(d, func, "d");
  Mat<Scalar> e(d, K);
  fill_standard_normal(e, rng);
  return e;
}

/// A log-likelihood callable that also averages its derivatives over a block of points itself:
/// `block_means(z, with_hessian, ḡ, H̄, work)` gives (1/K)Σ_k ∇ℓ(z_k) and, when asked,
/// (1/K)Σ_k ∇²ℓ(z_k) over the columns of the d × K matrix z, and `block_gradients(z, G, work)` the
/// ∇ℓ(z_k) as the columns of G, `work` being the caller's buffers (BlockWork). The estimators take
/// these instead of their point-by-point loop. The GLMs provide them (models/glm_variational.hpp,
/// GlmLogLik): their Hessian −Xᵀdiag(c)X is linear in the per-datum curvatures c, so H̄ is one
/// weighted Gram product where the loop forms K.
template <class LogLik, class Scalar>
concept BlockLogLik = requires(const LogLik& f, const Mat<Scalar>& z, bool h, Vec<Scalar>& g, Mat<Scalar>& m, BlockWork<Scalar>& w) {
  f.block_means(z, h, g, m, w);
  f.block_gradients(z, m, w);
};

/// Buffers of the Monte Carlo estimators' `_into` forms: sized on first use and reused, so the
/// estimators' own arithmetic does not allocate once they are sized. With a BlockLogLik (the GLMs)
/// neither does the log-likelihood, which works in `block`; a point-by-point log-likelihood returns
/// its derivatives by value, one allocation set per sample.
template <class Scalar>
struct MonteCarloScratch {
  Mat<Scalar> z;     ///< d × K points z_k = m + Lε_k
  Vec<Scalar> zk;    ///< the point passed to the log-likelihood
  Vec<Scalar> grad;  ///< ḡ (Price) or m̄ (reparameterisation)
  Mat<Scalar> mat;   ///< H̄ (Price) or L̄ (reparameterisation)
  Mat<Scalar> grads; ///< ∇ℓ(z_k) as columns (the reparameterisation gradient of a BlockLogLik)
  Mat<Scalar> phi;   ///< Φ of the Cholesky backward pass (reparameterisation)
  Mat<Scalar> tmp;   ///< Φ L⁻¹ of the Cholesky backward pass (reparameterisation)
  BlockWork<Scalar> block;  ///< the BlockLogLik's buffers
};

/// The Monte Carlo loop both estimators share: z_k = m + Lε_k into s.z, s.grad = (1/K)Σ∇ℓ(z_k),
/// and s.mat = (1/K)Σ of what `add(k, derivatives at z_k, s.mat)` accumulates (the Hessian for
/// Price, ∇ℓ(z_k)ε_kᵀ for the reparameterisation gradient). Sizes are the caller's to check.
template <class Scalar, class LogLik, class Add>
void monte_carlo_means_into(const LogLik& loglik, bool with_hessian, const Vec<Scalar>& m, const Mat<Scalar>& l,
                            const Mat<Scalar>& eps, MonteCarloScratch<Scalar>& s, Add&& add) {
  const Index d = m.size();
  s.z.noalias() = l * eps;
  s.z.colwise() += m;
  s.grad.setZero(d);
  s.mat.setZero(d, d);
  for (Index k = 0; k < eps.cols(); ++k) {
    s.zk = s.z.col(k);
    const LogLikDerivatives<Scalar> r = loglik(s.zk, with_hessian);
    s.grad += r.grad;
    add(k, r, s.mat);
  }
  const Scalar inv_k = Scalar(1) / Scalar(eps.cols());
  s.grad *= inv_k;
  s.mat *= inv_k;
}

/// ḡ into s.grad and H̄ into s.mat for z_k = m + Lε_k. Sizes are the caller's to check.
template <class Scalar, class LogLik>
void price_means_into(const LogLik& loglik, const Vec<Scalar>& m, const Mat<Scalar>& l, const Mat<Scalar>& eps,
                      MonteCarloScratch<Scalar>& s) {
  if constexpr (BlockLogLik<LogLik, Scalar>) {
    s.z.noalias() = l * eps;
    s.z.colwise() += m;
    loglik.block_means(s.z, true, s.grad, s.mat, s.block);
    return;
  }
  monte_carlo_means_into(loglik, true, m, l, eps, s, [](Index, const LogLikDerivatives<Scalar>& r, Mat<Scalar>& h) { h += r.hess; });
}

/// Checks the Monte Carlo estimators' common arguments: K ≥ 1 draws of m's dimension, L square.
template <class Scalar>
void require_draw_shapes(const Vec<Scalar>& m, const Mat<Scalar>& l, const Mat<Scalar>& eps, std::string_view func) {
  if (eps.cols() < 1) throw_size(func, "eps", "has no columns (K = 0 samples)");
  if (eps.rows() != m.size() || l.rows() != m.size() || l.cols() != m.size()) throw_size(func, "eps", "does not match the dimension of m and L");
}

/// Sample means ḡ and H̄ of ∇ℓ and ∇²ℓ over z_k = m + L ε_k (ε the columns of `eps`).
template <class Scalar>
struct PriceMeans {
  Vec<Scalar> grad;
  Mat<Scalar> hess;
};

template <class Scalar, class LogLik>
PriceMeans<Scalar> price_means(const LogLik& loglik, const Vec<Scalar>& m, const Mat<Scalar>& l, const Mat<Scalar>& eps) {
  require_draw_shapes(m, l, eps, "ngvi::price_means");
  MonteCarloScratch<Scalar> s;
  price_means_into(loglik, m, l, eps, s);
  return PriceMeans<Scalar>{std::move(s.grad), std::move(s.mat)};
}

/// ĝ = (ḡ − H̄m, ½H̄), ĝ₂ exactly symmetric, into `out` at the Gaussian with mean m and covariance
/// factor L (lower), from the block of draws `eps`; `s` holds the buffers. Nothing is validated:
/// this is the form for NGD's inner loop (optim/ngd_nonconjugate.hpp), whose NaturalFactor gives
/// m and L; price_gradient_from is the validating form.
template <class Scalar, class LogLik>
void price_gradient_into(const LogLik& loglik, const Vec<Scalar>& m, const Mat<Scalar>& l, const Mat<Scalar>& eps,
                         MonteCarloScratch<Scalar>& s, GaussianPair<Scalar>& out) {
  price_means_into(loglik, m, l, eps, s);
  out.first = s.grad;
  out.first.noalias() -= s.mat * m;
  out.second = s.mat / Scalar(2);
  symmetrise_in_place(out.second);
}

/// The validating form shared by the estimators' `_from` functions: checks μ ∈ M (naming 'mu' in
/// `func`), takes L = chol(μ₂ − μ₁μ₁ᵀ), checks the draws' shape (in `draws_func`) and returns
/// `into(m, L, eps, scratch, ĝ)`'s ĝ.
template <class Scalar, class Into>
GaussianPair<Scalar> gradient_at_expectation(const GaussianExpectation<Scalar>& mu, const Mat<Scalar>& eps, std::string_view func,
                                             std::string_view draws_func, Into&& into) {
  const auto fs = validate_expectation(mu, func, "mu");
  const Mat<Scalar> l = fs.lower();
  require_draw_shapes(mu.mu1(), l, eps, draws_func);
  MonteCarloScratch<Scalar> s;
  GaussianPair<Scalar> g;
  into(mu.mu1(), l, eps, s, g);
  return g;
}

/// ĝ = (ḡ − H̄m, ½H̄) at μ from the given block of draws (one Cholesky of S = μ₂ − μ₁μ₁ᵀ).
/// @throws std::domain_error if μ ∉ M (names 'mu'), std::invalid_argument on sizes or K = 0.
template <class Scalar, class LogLik>
GaussianPair<Scalar> price_gradient_from(const LogLik& loglik, const GaussianExpectation<Scalar>& mu, const Mat<Scalar>& eps) {
  return gradient_at_expectation(mu, eps, "ngvi::price_gradient", "ngvi::price_means",
                                 [&](auto&&... a) { price_gradient_into(loglik, a...); });
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
