#pragma once
/// @file
/// Variational objective of a Gaussian-prior generalised linear model with a Gaussian q = N(m, S)
/// (docs/math.md §6). Every datum enters through u_i = a_iᵀz ~ N(ν_i, τ_i), ν_i = a_iᵀm,
/// τ_i = a_iᵀSa_i, so the model needs only the one-dimensional expectations
/// \f[ e_k(y, \nu, \tau) = E_{u\sim N(\nu,\tau)}\big[\ell^{(k)}(u)\big], \quad k = 0, …, 4, \f]
/// of the pointwise log-likelihood ℓ (supplied by a `Family`: closed form for Poisson, quadrature
/// for logistic). From them (Bonnet/Price, docs/math.md §3.2):
/// \f[ \nabla_m E_q\ell = \sum_i e_{1,i} a_i,\qquad \nabla_S E_q\ell = \tfrac12\sum_i e_{2,i} a_i a_i^\top, \f]
/// \f[ \nabla_{\mu_1} = \nabla_m - 2\nabla_S m,\qquad \nabla_{\mu_2} = \nabla_S. \f]
/// The negative ELBO is f = −Σ_i E_q ℓ_i + KL(q ‖ N(m_p, S_p)). Its second derivative in μ along a
/// direction v = (v₁, V₂) (heat-equation identities ∂_τ E h = ½E h'', ∂_ν E h = E h'):
/// \f[ v^\top \nabla^2_\mu f\, v = -\sum_i \big( e_{3,i}\,\alpha_i\beta_i + \tfrac14 e_{4,i}\,\beta_i^2 \big)
///     + v_1^\top S^{-1} v_1 + \tfrac12 \operatorname{tr}\big((S^{-1}D)^2\big), \f]
/// with α_i = a_iᵀv₁, β_i = a_iᵀV₂a_i − 2ν_iα_i, D = V₂ − v₁mᵀ − mv₁ᵀ (the e₂α² terms cancel;
/// the KL part is the Hessian of −½ log det(μ₂ − μ₁μ₁ᵀ), the rest of the KL being linear in μ).
#include <functional>

#include "ngvi/expfam/gaussian_maps.hpp"
#include "ngvi/expfam/kl.hpp"
#include "ngvi/models/glm_likelihood.hpp"
#include "ngvi/random/stream.hpp"

namespace ngvi {

/// The five one-dimensional expectations e_k = E[ℓ^{(k)}(u)], u ~ N(ν, τ).
template <class Scalar>
struct Expect1D {
  Scalar e0, e1, e2, e3, e4;
};

/// Expected log-likelihood gradient in (m, S).
template <class Scalar>
struct MomentGradient {
  Vec<Scalar> grad_m;
  Mat<Scalar> grad_S;
};

/// A Gaussian-prior GLM with a variational Gaussian; `Family` supplies `name`, `validate(data, func)`,
/// `expect(y, nu, tau)` and `pointwise(data, z, with_hessian)`.
template <class Scalar, class Family>
class GlmVariational {
 public:
  /// @pre data valid for the family (labels/counts), prior moments valid, same dimension.
  /// @throws std::domain_error / std::invalid_argument naming the argument otherwise.
  GlmVariational(Dataset<Scalar> data, GaussianMoments<Scalar> prior, Family family)
      : data_(std::move(data)), prior_(std::move(prior)), family_(std::move(family)) {
    const std::string f = std::string("ngvi::") + Family::kName;
    family_.validate(data_, f);
    validate_moments(prior_, f, "prior");
    if (prior_.dim() != data_.d()) throw_size(f, "prior", "has dimension " + std::to_string(prior_.dim()) + ", expected " + std::to_string(data_.d()));
  }

  const Dataset<Scalar>& data() const { return data_; }
  const GaussianMoments<Scalar>& prior() const { return prior_; }
  const Family& family() const { return family_; }
  Index dim() const { return data_.d(); }

  /// Pointwise ℓ(z) with gradient and (optionally) Hessian: the target of the Monte Carlo estimators.
  LogLikDerivatives<Scalar> loglik(const Vec<Scalar>& z, bool with_hessian = true) const {
    return family_.pointwise(data_, z, with_hessian);
  }

  /// Sample means ḡ = (1/K)Σ_k ∇ℓ(z_k) and, when asked, H̄ = (1/K)Σ_k ∇²ℓ(z_k) over the K columns
  /// of z, from one product X Z and one weighted Gram product for H̄ (detail::glm_block_means), in
  /// the buffers `work` (no allocation once they are sized).
  /// @throws std::invalid_argument naming 'z' if it is not d × K with K ≥ 1; std::domain_error
  ///         naming 'z' if it is not finite or some derivative at some z_k is not.
  void loglik_block_means(const Mat<Scalar>& z, bool with_hessian, Vec<Scalar>& gbar, Mat<Scalar>& hbar, BlockWork<Scalar>& work) const {
    static const std::string f = std::string("ngvi::") + Family::kName + "::loglik_block_means";
    check_block(z, f);
    detail::glm_block_means(data_, z, with_hessian, gbar, hbar, work, f, datum_derivatives);
  }

  /// loglik_block_means with buffers of its own.
  void loglik_block_means(const Mat<Scalar>& z, bool with_hessian, Vec<Scalar>& gbar, Mat<Scalar>& hbar) const {
    BlockWork<Scalar> work;
    loglik_block_means(z, with_hessian, gbar, hbar, work);
  }

  /// The gradients ∇ℓ(z_k) of the K columns of z as the columns of `grads` (d × K), from the products
  /// X Z and Xᵀ R (detail::glm_block_gradients), in the buffers `work`. Throws as loglik_block_means.
  void loglik_block_gradients(const Mat<Scalar>& z, Mat<Scalar>& grads, BlockWork<Scalar>& work) const {
    static const std::string f = std::string("ngvi::") + Family::kName + "::loglik_block_gradients";
    check_block(z, f);
    detail::glm_block_gradients(data_, z, grads, work, f, datum_derivatives);
  }

  /// loglik_block_gradients with buffers of its own.
  void loglik_block_gradients(const Mat<Scalar>& z, Mat<Scalar>& grads) const {
    BlockWork<Scalar> work;
    loglik_block_gradients(z, grads, work);
  }

  /// e_k for datum i at q.
  Expect1D<Scalar> expect_datum(Index i, const GaussianMoments<Scalar>& q) const {
    const auto a = data_.X.row(i).transpose();
    const Scalar nu = a.dot(q.mean);
    const Scalar tau = a.dot(q.cov * a);
    return family_.expect(data_.y(i), nu, tau);
  }

  /// \f$ E_q[\log p(y|z)] = \sum_i e_{0,i} \f$.
  Scalar expected_loglik(const GaussianMoments<Scalar>& q) const {
    check_q(q, "expected_loglik");
    Scalar s(0);
    for (Index i = 0; i < data_.n(); ++i) s += expect_datum(i, q).e0;
    return s;
  }

  /// Monte Carlo estimate (1/K) Σ_k ℓ(m + L ε_k), ε_k from `rng`.
  /// @pre K ≥ 1. @throws std::invalid_argument naming 'K' otherwise.
  Scalar expected_loglik_mc(const GaussianMoments<Scalar>& q, int K, random::Stream& rng) const {
    const auto fq = check_q(q, "expected_loglik_mc");
    if (K < 1) throw_size(std::string("ngvi::") + Family::kName + "::expected_loglik_mc", "K", "must be >= 1 (number of samples)");
    const Mat<Scalar> l = fq.lower();
    Scalar s(0);
    Vec<Scalar> eps(dim());
    for (int k = 0; k < K; ++k) {
      for (Index j = 0; j < dim(); ++j) eps(j) = Scalar(rng.normal());
      s += family_.pointwise(data_, Vec<Scalar>(q.mean + l * eps), false).value;
    }
    return s / Scalar(K);
  }

  /// ∇ of E_q ℓ in (m, S) (symmetric gradient in S).
  MomentGradient<Scalar> grad_moments(const GaussianMoments<Scalar>& q) const {
    check_q(q, "grad_moments");
    MomentGradient<Scalar> g{Vec<Scalar>::Zero(dim()), Mat<Scalar>::Zero(dim(), dim())};
    for (Index i = 0; i < data_.n(); ++i) {
      const Vec<Scalar> a = data_.X.row(i).transpose();
      const auto e = expect_datum(i, q);
      g.grad_m += e.e1 * a;
      g.grad_S += (e.e2 / 2) * (a * a.transpose());
    }
    return g;
  }

  /// ∇_μ E_q ℓ = (∇_m − 2∇_S m, ∇_S).
  GaussianPair<Scalar> grad_expectation(const GaussianExpectation<Scalar>& mu) const {
    const auto q = expectation_to_moments(mu);
    const auto g = grad_moments(q);
    return GaussianPair<Scalar>{Vec<Scalar>(g.grad_m - Scalar(2) * (g.grad_S * q.mean)), g.grad_S};
  }

  /// f(q) = −E_q ℓ + KL(q ‖ prior).
  Scalar neg_elbo(const GaussianMoments<Scalar>& q) const { return -expected_loglik(q) + kl_gaussian(q, prior_); }

  /// f in the square-root parameterisation: q = N(m, L Lᵀ), L lower triangular.
  Scalar neg_elbo_mL(const Vec<Scalar>& m, const Mat<Scalar>& l) const {
    return neg_elbo(GaussianMoments<Scalar>{m, Mat<Scalar>(l * l.transpose())});
  }

  /// ∇_μ f = −∇_μ E_q ℓ + (η − η_p)  (docs/math.md §2.4).
  GaussianPair<Scalar> neg_elbo_grad_expectation(const GaussianExpectation<Scalar>& mu) const {
    const auto q = expectation_to_moments(mu);
    const auto eta = moments_to_natural(q);
    const auto eta_p = moments_to_natural(prior_);
    GaussianPair<Scalar> g = grad_expectation(mu);
    g *= Scalar(-1);
    g += eta;
    g -= eta_p;
    return g;
  }

  /// vᵀ ∇²_μ f v (see the file comment).
  /// @pre v has the dimension of the model; V₂ symmetric. @throws std::invalid_argument otherwise.
  Scalar hessian_quadratic_form(const GaussianExpectation<Scalar>& mu, const GaussianPair<Scalar>& v) const {
    const std::string f = std::string("ngvi::") + Family::kName + "::hessian_quadratic_form";
    const auto fs = validate_expectation(mu, f, "mu");
    require_pair_shape(v, f, "v");
    if (v.dim() != dim()) throw_size(f, "v", "has a different dimension from the model");
    const Vec<Scalar>& m = mu.mu1();
    const GaussianMoments<Scalar> q{m, Mat<Scalar>(mu.mu2() - m * m.transpose())};
    Scalar lik(0);
    for (Index i = 0; i < data_.n(); ++i) {
      const Vec<Scalar> a = data_.X.row(i).transpose();
      const Scalar nu = a.dot(m);
      const Scalar alpha = a.dot(v.first);
      const Scalar beta = a.dot(v.second * a) - Scalar(2) * nu * alpha;
      const auto e = family_.expect(data_.y(i), nu, Scalar(a.dot(q.cov * a)));
      lik -= e.e3 * alpha * beta + e.e4 * beta * beta / 4;
    }
    const Mat<Scalar> dmat = v.second - v.first * m.transpose() - m * v.first.transpose();
    const Mat<Scalar> sd = fs.solve(dmat);
    return lik + v.first.dot(fs.solve(v.first)) + (sd * sd).trace() / 2;
  }

  /// The Hessian of f in μ in Frobenius-isometric coordinates (μ₁, diag μ₂, √2·offdiag μ₂),
  /// assembled by polarisation of `hessian_quadratic_form` (p = d + d(d+1)/2 coordinates).
  Mat<Scalar> hessian_isometric(const GaussianExpectation<Scalar>& mu) const {
    const Index p = isometric_size(dim());
    Mat<Scalar> h(p, p);
    std::vector<GaussianPair<Scalar>> basis;
    for (Index k = 0; k < p; ++k) basis.push_back(isometric_basis<Scalar>(dim(), k));
    Vec<Scalar> diag(p);
    for (Index k = 0; k < p; ++k) diag(k) = hessian_quadratic_form(mu, basis[k]);
    for (Index k = 0; k < p; ++k) {
      h(k, k) = diag(k);
      for (Index l = k + 1; l < p; ++l) {
        const Scalar qsum = hessian_quadratic_form(mu, basis[k] + basis[l]);
        h(k, l) = h(l, k) = (qsum - diag(k) - diag(l)) / 2;
      }
    }
    return h;
  }

  /// Number of Frobenius-isometric coordinates of R^d × Sym(d).
  static Index isometric_size(Index d) { return d + d * (d + 1) / 2; }

  /// The k-th unit direction of the isometric coordinates as a pair (v₁, V₂).
  template <class T>
  static GaussianPair<T> isometric_basis(Index d, Index k) {
    using std::sqrt;
    GaussianPair<T> e{Vec<T>::Zero(d), Mat<T>::Zero(d, d)};
    if (k < d) { e.first(k) = T(1); return e; }
    k -= d;
    if (k < d) { e.second(k, k) = T(1); return e; }
    k -= d;
    for (Index i = 0; i < d; ++i)
      for (Index j = i + 1; j < d; ++j) {
        if (k == 0) { e.second(i, j) = e.second(j, i) = T(1) / sqrt(T(2)); return e; }
        --k;
      }
    return e;
  }

 private:
  /// The family's datum without its value (the block forms use the derivatives only), as a
  /// callable of its own type, so that the per-point pass inlines it.
  static constexpr auto datum_derivatives = [](const Scalar& y, const Scalar& u) { return Family::template datum<false>(y, u); };

  void check_block(const Mat<Scalar>& z, const std::string& f) const {
    if (z.rows() != dim() || z.cols() < 1)
      throw_size(f, "z", "must be d x K with d = " + std::to_string(dim()) + " and K >= 1 points as columns");
    if (!all_finite(z)) throw_domain(f, "z", "has a non-finite entry");
  }

  SpdFactor<Scalar> check_q(const GaussianMoments<Scalar>& q, const char* what) const {
    const std::string f = std::string("ngvi::") + Family::kName + "::" + what;
    auto fq = validate_moments(q, f, "q");
    if (q.dim() != dim()) throw_size(f, "q", "has dimension " + std::to_string(q.dim()) + ", expected " + std::to_string(dim()));
    return fq;
  }

  Dataset<Scalar> data_;
  GaussianMoments<Scalar> prior_;
  Family family_;
};

/// A GLM's log-likelihood as the Monte Carlo estimators' callable: `(z, with_hessian)` gives ℓ(z)
/// point by point (GlmVariational::loglik), and the block forms, which price_means_into and
/// reparam_means_into take instead of their point-by-point loop when the callable has them
/// (estimators/price.hpp, BlockLogLik), with the caller's buffers (BlockWork). The model is kept by
/// reference and must outlive it; the callable holds no buffers, so one may be shared by threads.
template <class Scalar, class Family>
class GlmLogLik {
 public:
  explicit GlmLogLik(const GlmVariational<Scalar, Family>& model) : model_(&model) {}
  LogLikDerivatives<Scalar> operator()(const Vec<Scalar>& z, bool with_hessian = true) const { return model_->loglik(z, with_hessian); }
  void block_means(const Mat<Scalar>& z, bool with_hessian, Vec<Scalar>& gbar, Mat<Scalar>& hbar, BlockWork<Scalar>& work) const {
    model_->loglik_block_means(z, with_hessian, gbar, hbar, work);
  }
  void block_gradients(const Mat<Scalar>& z, Mat<Scalar>& grads, BlockWork<Scalar>& work) const {
    model_->loglik_block_gradients(z, grads, work);
  }

 private:
  const GlmVariational<Scalar, Family>* model_;
};

/// The block-capable log-likelihood callable of `model` (see GlmLogLik).
template <class Scalar, class Family>
GlmLogLik<Scalar, Family> loglik_function(const GlmVariational<Scalar, Family>& model) {
  return GlmLogLik<Scalar, Family>(model);
}

}  // namespace ngvi
