#pragma once
/// @file
/// The two models of the variational predictive natural gradient (VPNG, Tang & Ranganath 2019;
/// docs/systems.md D), seen through what the predictive-Fisher estimator needs of a model with a
/// mean-field Gaussian q(z) = N(μ, diag(σ²)), σ = exp(ω), reparameterised as z = μ + σ ⊙ ε:
///
///   dim()                          D, the dimension of z
///   prior_variance()               σ0², the prior being N(0, σ0² I)
///   loglik(z)                      log p(x | z)
///   loglik_grad(z)                 ∇_z log p(x | z)
///   predictive_fisher(z)           G(z) = E_{x' ~ p(x'|z)}[s sᵀ], s = ∇_z log p(x' | z) (the inner
///                                  expectation done analytically)
///   sample_predictive_score(z, r)  s for one draw x' ~ p(x' | z)
///
/// The variational parameter is one stacked vector λ = (μ, ω) ∈ R^{2D}; the models have no global
/// parameter θ (the θ-block of F_r is empty). When the kit's diagonal-Gaussian family type lands,
/// λ ↦ (μ, σ) is the place where it slots in (mf_mu, mf_sigma below).
#include <Eigen/Cholesky>
#include <boost/math/constants/constants.hpp>
#include <cmath>
#include <algorithm>
#include <numeric>
#include <utility>
#include <vector>

#include "ngvi/linalg/validate.hpp"
#include "ngvi/scalar/types.hpp"

namespace ngvi {

/// μ of λ = (μ, ω).
template <class Scalar>
Vec<Scalar> mf_mu(const Vec<Scalar>& lambda) {
  return lambda.head(lambda.size() / 2);
}
/// σ = exp(ω) of λ = (μ, ω).
template <class Scalar>
Vec<Scalar> mf_sigma(const Vec<Scalar>& lambda) {
  using std::exp;
  const Index d = lambda.size() / 2;
  Vec<Scalar> s(d);
  for (Index i = 0; i < d; ++i) s(i) = exp(lambda(d + i));
  return s;
}
/// λ = (μ, ω) from μ and σ.
template <class Scalar>
Vec<Scalar> mf_stack(const Vec<Scalar>& mu, const Vec<Scalar>& sigma) {
  using std::log;
  Vec<Scalar> l(2 * mu.size());
  l.head(mu.size()) = mu;
  for (Index i = 0; i < mu.size(); ++i) l(mu.size() + i) = log(sigma(i));
  return l;
}

/// The ELBO's prior and entropy terms for q = N(μ, diag σ²), p(z) = N(0, σ0² I), i.e. −KL(q ‖ p),
/// and its gradient in (μ, ω):
/// ∇_μ = −μ/σ0², ∇_ω = 1 − σ²/σ0² (docs/systems.md D.4).
template <class Scalar>
Scalar mf_neg_kl(const Vec<Scalar>& lambda, const Scalar& prior_var) {
  using std::log;
  const Index d = lambda.size() / 2;
  const Vec<Scalar> mu = mf_mu(lambda), s = mf_sigma(lambda);
  Scalar kl(0);
  for (Index i = 0; i < d; ++i) kl += (s(i) * s(i) + mu(i) * mu(i)) / prior_var - Scalar(1) - Scalar(2) * lambda(d + i) + log(prior_var);
  return -kl / 2;
}
template <class Scalar>
Vec<Scalar> mf_neg_kl_gradient(const Vec<Scalar>& lambda, const Scalar& prior_var) {
  const Index d = lambda.size() / 2;
  const Vec<Scalar> s = mf_sigma(lambda);
  Vec<Scalar> g(2 * d);
  g.head(d) = -lambda.head(d) / prior_var;
  for (Index i = 0; i < d; ++i) g(d + i) = Scalar(1) - s(i) * s(i) / prior_var;
  return g;
}

/// docs/systems.md D.3: x_1..x_N | z ~ N(z, Σ) with Σ known, z ~ N(0, σ0² I). The expected
/// log-likelihood under q is a quadratic in μ, so the ELBO, its gradient, the mean-field optimum and
/// F_r all have closed forms (the kit's derivation):
///   ∇_μ L = NΣ⁻¹(x̄ − μ) − μ/σ0²,  ∇_{ω_i} L = 1 − (N(Σ⁻¹)_ii + σ0⁻²) σ_i²,
///   μ* = (NΣ⁻¹ + σ0⁻² I)⁻¹ NΣ⁻¹ x̄,  σ_i*² = 1/(N(Σ⁻¹)_ii + σ0⁻²),  G(z) = NΣ⁻¹ for every z.
template <class Scalar>
class GaussianMeanModel {
 public:
  using value_type = Scalar;  ///< the scalar of λ and z (read by PredictiveFisherEstimator)
  /// @param x N × D observations (rows); @param cov Σ (SPD); @param prior_var σ0² > 0.
  GaussianMeanModel(Mat<Scalar> x, Mat<Scalar> cov, Scalar prior_var) : x_(std::move(x)), cov_(std::move(cov)), prior_var_(std::move(prior_var)) {
    constexpr const char* f = "ngvi::GaussianMeanModel";
    if (x_.rows() < 1) throw_size(f, "x", "must have at least one row");
    require_square(cov_, f, "cov");
    if (cov_.rows() != x_.cols()) throw_size(f, "cov", "must be D x D with D the columns of x");
    require_finite(x_, f, "x");
    require_symmetric(cov_, f, "cov");
    if (!(prior_var_ > Scalar(0)) || !is_finite_scalar(prior_var_)) throw_domain(f, "prior_var", "must be finite and > 0");
    const Eigen::LLT<Mat<Scalar>> llt(cov_);
    if (llt.info() != Eigen::Success) throw_domain(f, "cov", "must be positive definite");
    chol_ = llt.matrixL();
    prec_ = llt.solve(Mat<Scalar>::Identity(dim(), dim()));
    symmetrise_in_place(prec_);
    xbar_ = x_.colwise().mean().transpose();
    using std::log;
    Scalar logdet(0);
    for (Index i = 0; i < dim(); ++i) logdet += Scalar(2) * log(chol_(i, i));
    log_norm_ = -Scalar(n()) * (Scalar(dim()) * log(Scalar(2) * boost::math::constants::pi<Scalar>()) + logdet) / 2;
  }

  Index dim() const { return x_.cols(); }
  Index n() const { return x_.rows(); }
  const Scalar& prior_variance() const { return prior_var_; }
  const Mat<Scalar>& precision() const { return prec_; }
  const Mat<Scalar>& covariance() const { return cov_; }
  const Vec<Scalar>& mean_observation() const { return xbar_; }

  Scalar loglik(const Vec<Scalar>& z) const {
    Scalar s(0);
    for (Index k = 0; k < n(); ++k) {
      const Vec<Scalar> r = x_.row(k).transpose() - z;
      s += r.dot(prec_ * r);
    }
    return log_norm_ - s / 2;
  }
  Vec<Scalar> loglik_grad(const Vec<Scalar>& z) const { return Scalar(n()) * (prec_ * (xbar_ - z)); }
  Mat<Scalar> predictive_fisher(const Vec<Scalar>&) const { return Scalar(n()) * prec_; }
  /// Draws x'_n = z + L u_n ~ N(z, Σ), n = 1..N (L the Cholesky factor of Σ), and returns
  /// Σ_n Σ⁻¹(x'_n − z) = Σ⁻¹ L Σ_n u_n.
  template <class Rng>
  Vec<Scalar> sample_predictive_score(const Vec<Scalar>&, Rng& rng) const {
    Vec<Scalar> usum = Vec<Scalar>::Zero(dim());
    for (Index k = 0; k < n(); ++k)
      for (Index i = 0; i < dim(); ++i) usum(i) += Scalar(rng.normal());
    return prec_ * (chol_ * usum);
  }

  /// The exact ELBO (expected log-likelihood in closed form) and its gradient in λ = (μ, ω).
  Scalar elbo(const Vec<Scalar>& lambda) const {
    const Vec<Scalar> mu = mf_mu(lambda), s = mf_sigma(lambda);
    Scalar tr(0);
    for (Index i = 0; i < dim(); ++i) tr += prec_(i, i) * s(i) * s(i);
    return loglik(mu) - Scalar(n()) * tr / 2 + mf_neg_kl(lambda, prior_var_);
  }
  Vec<Scalar> elbo_gradient(const Vec<Scalar>& lambda) const {
    const Index d = dim();
    const Vec<Scalar> s = mf_sigma(lambda);
    Vec<Scalar> g = mf_neg_kl_gradient(lambda, prior_var_);
    g.head(d) += loglik_grad(Vec<Scalar>(lambda.head(d)));
    for (Index i = 0; i < d; ++i) g(d + i) -= Scalar(n()) * prec_(i, i) * s(i) * s(i);
    return g;
  }
  /// −∇²_μ L = NΣ⁻¹ + σ0⁻² I.
  Mat<Scalar> mean_hessian() const { return Scalar(n()) * prec_ + Mat<Scalar>::Identity(dim(), dim()) / prior_var_; }
  /// The mean-field optimum λ* = (μ*, ω*).
  Vec<Scalar> optimum() const {
    const Vec<Scalar> mu = mean_hessian().llt().solve(Vec<Scalar>(Scalar(n()) * (prec_ * xbar_)));
    using std::sqrt;
    Vec<Scalar> s(dim());
    for (Index i = 0; i < dim(); ++i) s(i) = Scalar(1) / sqrt(Scalar(n()) * prec_(i, i) + Scalar(1) / prior_var_);
    return mf_stack(mu, s);
  }

 private:
  Mat<Scalar> x_, cov_, chol_, prec_;
  Scalar prior_var_;
  Vec<Scalar> xbar_;
  Scalar log_norm_;
};

/// The bivariate example of docs/systems.md D.3: Σ = [[1, 1 − ε], [1 − ε, 1]], N observations drawn
/// from N(z_true, Σ) with z_true = (1, 1/2) (kit choice), prior N(0, σ0² I). ε, σ0 are exact in
/// Scalar when given as Scalar; the data are drawn in double and are exact in every Scalar.
template <class Scalar, class Rng>
GaussianMeanModel<Scalar> bivariate_example(const Scalar& eps_corr, Index n, const Scalar& sigma0, Rng& rng) {
  constexpr const char* f = "ngvi::bivariate_example";
  if (!(eps_corr > Scalar(0)) || !(eps_corr < Scalar(2))) throw_domain(f, "eps_corr", "must lie in (0, 2)");
  if (n < 1) throw_size(f, "n", "must be >= 1");
  Mat<Scalar> cov(2, 2);
  cov << Scalar(1), Scalar(1) - eps_corr, Scalar(1) - eps_corr, Scalar(1);
  // Draws in double through Σ's Cholesky factor in double: any data set is fine, only its exactness
  // in every Scalar matters.
  const double e = static_cast<double>(eps_corr), l21 = 1 - e, l22 = std::sqrt(1 - l21 * l21);
  Mat<Scalar> x(n, 2);
  for (Index k = 0; k < n; ++k) {
    const double u1 = rng.normal(), u2 = rng.normal();
    x(k, 0) = Scalar(1 + u1);
    x(k, 1) = Scalar(0.5 + l21 * u1 + l22 * u2);
  }
  return GaussianMeanModel<Scalar>(std::move(x), std::move(cov), sigma0 * sigma0);
}

/// docs/systems.md D.4: y_n | x_n, w ~ Bernoulli(σ(wᵀx_n)), w ~ N(0, σ0² I):
///   ∇_w log p = Σ_n (y_n − p_n) x_n,  G(w) = Σ_n p_n(1 − p_n) x_n x_nᵀ,  p_n = σ(wᵀx_n).
template <class Scalar>
class LogisticModel {
 public:
  using value_type = Scalar;  ///< the scalar of λ and z (read by PredictiveFisherEstimator)
  LogisticModel(Mat<Scalar> x, Vec<Scalar> y, Scalar prior_var = Scalar(1)) : x_(std::move(x)), y_(std::move(y)), prior_var_(std::move(prior_var)) {
    constexpr const char* f = "ngvi::LogisticModel";
    if (x_.rows() < 1 || x_.cols() < 1) throw_size(f, "x", "must be non-empty");
    require_rows(y_, x_.rows(), f, "y");
    require_finite(x_, f, "x");
    for (Index k = 0; k < y_.size(); ++k)
      if (!(y_(k) == Scalar(0) || y_(k) == Scalar(1))) throw_domain(f, "y", "must hold labels 0 or 1");
    if (!(prior_var_ > Scalar(0)) || !is_finite_scalar(prior_var_)) throw_domain(f, "prior_var", "must be finite and > 0");
  }
  Index dim() const { return x_.cols(); }
  Index n() const { return x_.rows(); }
  const Scalar& prior_variance() const { return prior_var_; }
  const Mat<Scalar>& x() const { return x_; }
  const Vec<Scalar>& y() const { return y_; }

  /// Σ_n y_n η_n − log(1 + e^{η_n}), with the softplus written to avoid overflow.
  Scalar loglik(const Vec<Scalar>& w) const {
    using std::exp;
    using std::log;
    const Vec<Scalar> eta = x_ * w;
    Scalar s(0);
    for (Index k = 0; k < n(); ++k) {
      const Scalar a = eta(k);
      const Scalar softplus = a > Scalar(0) ? a + log(Scalar(1) + exp(-a)) : log(Scalar(1) + exp(a));
      s += y_(k) * a - softplus;
    }
    return s;
  }
  Vec<Scalar> probabilities(const Vec<Scalar>& w) const {
    using std::exp;
    const Vec<Scalar> eta = x_ * w;
    Vec<Scalar> p(n());
    using std::abs;
    for (Index k = 0; k < n(); ++k) {
      const Scalar e = exp(-abs(eta(k)));  // ≤ 1: 1/(1 + e^{-η}) for η ≥ 0, e^{η}/(1 + e^{η}) for η < 0
      p(k) = eta(k) >= Scalar(0) ? Scalar(1) / (Scalar(1) + e) : e / (Scalar(1) + e);
    }
    return p;
  }
  Vec<Scalar> loglik_grad(const Vec<Scalar>& w) const { return x_.transpose() * (y_ - probabilities(w)); }
  Mat<Scalar> predictive_fisher(const Vec<Scalar>& w) const {
    const Vec<Scalar> p = probabilities(w);
    const Vec<Scalar> v = p.array() * (Scalar(1) - p.array());
    Mat<Scalar> g = x_.transpose() * v.asDiagonal() * x_;
    symmetrise_in_place(g);
    return g;
  }
  /// Draws y'_n ~ Bernoulli(p_n) and returns Σ_n (y'_n − p_n) x_n.
  template <class Rng>
  Vec<Scalar> sample_predictive_score(const Vec<Scalar>& w, Rng& rng) const {
    const Vec<Scalar> p = probabilities(w);
    Vec<Scalar> r(n());
    for (Index k = 0; k < n(); ++k) r(k) = (Scalar(rng.uniform01()) < p(k) ? Scalar(1) : Scalar(0)) - p(k);
    return x_.transpose() * r;
  }

 private:
  Mat<Scalar> x_;
  Vec<Scalar> y_;
  Scalar prior_var_;
};

/// Area under the ROC curve of scores against 0/1 labels, by the Mann–Whitney rank sum with tied
/// scores given their average rank: the probability that a random positive outscores a random
/// negative, ties counting one half.
/// @throws std::invalid_argument naming 'labels' when the sizes differ or one class is absent.
inline double roc_auc(const std::vector<double>& scores, const std::vector<int>& labels) {
  constexpr const char* f = "ngvi::roc_auc";
  if (scores.size() != labels.size()) throw_size(f, "labels", "must have one entry per score");
  std::vector<std::size_t> order(scores.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return scores[a] < scores[b]; });
  double rank_sum = 0;
  long pos = 0, neg = 0;
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j < order.size() && scores[order[j]] == scores[order[i]]) ++j;
    const double avg_rank = 0.5 * static_cast<double>(i + 1 + j);  // ranks i+1..j
    for (std::size_t k = i; k < j; ++k)
      if (labels[order[k]] == 1) rank_sum += avg_rank;
    i = j;
  }
  for (int l : labels) (l == 1 ? pos : neg)++;
  if (pos == 0 || neg == 0) throw_size(f, "labels", "must contain both classes");
  return (rank_sum - 0.5 * static_cast<double>(pos) * static_cast<double>(pos + 1)) / (static_cast<double>(pos) * static_cast<double>(neg));
}

}  // namespace ngvi
