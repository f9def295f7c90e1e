#pragma once
/// @file
/// The diagonal (mean-field) Gaussian N(m, diag(s)) on R^d as an exponential family: the product of
/// d univariate Gaussians (univariate_gaussian.hpp), with
///   η = [m/s, −1/(2s)] and μ = [m, s + m²] stored as d × 2 matrices (column 0 the linear part,
///   column 1 the quadratic part, coordinate i in row i), contiguous in memory;
///   A(η) = Σᵢ A₁(η_i),  A*(μ) = Σᵢ A₁*(μ_i),  ⟨η, μ⟩ = Σ η ∘ μ.
/// Ω = {η₂ < 0 entrywise}, M = {μ₂ > μ₁² entrywise}.
#include "ngvi/expfam/univariate_gaussian.hpp"

namespace ngvi {

template <class ScalarT>
class DiagonalGaussian {
 public:
  using Scalar = ScalarT;
  using Natural = Eigen::Matrix<Scalar, Eigen::Dynamic, 2>;
  using Expectation = Eigen::Matrix<Scalar, Eigen::Dynamic, 2>;

  /// @throws std::invalid_argument naming 'd' if d < 1.
  explicit DiagonalGaussian(Index d) : d_(d) { require_positive_dim(d, "ngvi::DiagonalGaussian", "d"); }

  template <class S>
  DiagonalGaussian<S> rebind() const { return DiagonalGaussian<S>(d_); }

  Index dim() const { return d_; }
  Index flat_size() const { return 2 * d_; }
  Index size() const { return 2 * d_; }

  bool in_domain(const Natural& eta) const {
    if (eta.rows() != d_) return false;
    for (Index i = 0; i < d_; ++i)
      if (!detail::gauss1::natural_ok(eta(i, 0), eta(i, 1))) return false;
    return true;
  }
  bool in_mean_domain(const Expectation& mu) const {
    if (mu.rows() != d_) return false;
    for (Index i = 0; i < d_; ++i)
      if (!detail::gauss1::mean_ok(mu(i, 0), mu(i, 1))) return false;
    return true;
  }

  Scalar log_partition(const Natural& eta) const {
    require_natural(eta, "ngvi::DiagonalGaussian::log_partition", "eta");
    Scalar a(0);
    for (Index i = 0; i < d_; ++i) a += detail::gauss1::log_partition(eta(i, 0), eta(i, 1));
    return a;
  }
  Scalar conjugate(const Expectation& mu) const {
    require_mean(mu, "ngvi::DiagonalGaussian::conjugate", "mu");
    Scalar a(0);
    for (Index i = 0; i < d_; ++i) a += detail::gauss1::conjugate(mu(i, 0), mu(i, 1));
    return a;
  }
  Expectation to_mean(const Natural& eta) const {
    require_natural(eta, "ngvi::DiagonalGaussian::to_mean", "eta");
    Expectation mu(d_, 2);
    for (Index i = 0; i < d_; ++i) {
      Scalar m, s;
      detail::gauss1::moments(eta(i, 0), eta(i, 1), &m, &s);
      mu(i, 0) = m;
      mu(i, 1) = s + m * m;
    }
    return mu;
  }
  Natural to_natural(const Expectation& mu) const {
    require_mean(mu, "ngvi::DiagonalGaussian::to_natural", "mu");
    Natural eta(d_, 2);
    for (Index i = 0; i < d_; ++i) {
      const Scalar s = mu(i, 1) - mu(i, 0) * mu(i, 0);
      eta(i, 0) = mu(i, 0) / s;
      eta(i, 1) = Scalar(-1) / (2 * s);
    }
    return eta;
  }
  /// ⟨η, μ⟩ = Σᵢ η_i1 μ_i1 + η_i2 μ_i2. @throws std::invalid_argument on a size mismatch.
  Scalar pairing(const Natural& eta, const Expectation& mu) const {
    if (eta.rows() != d_ || mu.rows() != d_) throw_size("ngvi::DiagonalGaussian::pairing", "mu", "has a size other than d x 2");
    return eta.cwiseProduct(mu).sum();
  }
  /// KL(q‖p) = Σᵢ ½(s0/s1 + (m1 − m0)²/s1 − 1 + log(s1/s0)), from the moments.
  Scalar kl(const Natural& q, const Natural& p) const {
    require_natural(q, "ngvi::DiagonalGaussian::kl", "q");
    require_natural(p, "ngvi::DiagonalGaussian::kl", "p");
    Scalar k(0);
    for (Index i = 0; i < d_; ++i) {
      Scalar m0, s0, m1, s1;
      detail::gauss1::moments(q(i, 0), q(i, 1), &m0, &s0);
      detail::gauss1::moments(p(i, 0), p(i, 1), &m1, &s1);
      k += detail::gauss1::kl_moments(m0, s0, m1, s1);
    }
    return k;
  }
  Scalar bregman_log_partition(const Natural& eta, const Natural& eta_ref) const {
    return generic_bregman_log_partition(*this, eta, eta_ref);
  }
  Scalar bregman_conjugate(const Expectation& mu, const Expectation& mu_ref) const {
    return generic_bregman_conjugate(*this, mu, mu_ref);
  }
  /// F(η) v coordinate by coordinate (2 × 2 blocks, univariate_gaussian.hpp).
  Expectation fisher_apply(const Natural& eta, const Natural& v) const {
    require_natural(eta, "ngvi::DiagonalGaussian::fisher_apply", "eta");
    require_shape(v, "ngvi::DiagonalGaussian::fisher_apply", "v");
    Expectation out(d_, 2);
    for (Index i = 0; i < d_; ++i)
      detail::gauss1::fisher(eta(i, 0), eta(i, 1), v(i, 0), v(i, 1), &out(i, 0), &out(i, 1));
    return out;
  }
  Natural fisher_inverse_apply(const Expectation& mu, const Expectation& u) const {
    require_mean(mu, "ngvi::DiagonalGaussian::fisher_inverse_apply", "mu");
    require_shape(u, "ngvi::DiagonalGaussian::fisher_inverse_apply", "u");
    Natural out(d_, 2);
    for (Index i = 0; i < d_; ++i)
      detail::gauss1::fisher_inverse(mu(i, 0), mu(i, 1), u(i, 0), u(i, 1), &out(i, 0), &out(i, 1));
    return out;
  }
  /// Column-major coordinates: (η₁, η₂) stacked.
  Vec<Scalar> flatten_natural(const Natural& eta) const { return Eigen::Map<const Vec<Scalar>>(eta.data(), eta.size()); }
  Vec<Scalar> flatten_expectation(const Expectation& mu) const { return Eigen::Map<const Vec<Scalar>>(mu.data(), mu.size()); }
  Natural unflatten_natural(const Eigen::Ref<const Vec<Scalar>>& v) const { return unflatten(v, "ngvi::DiagonalGaussian::unflatten_natural"); }
  Expectation unflatten_expectation(const Eigen::Ref<const Vec<Scalar>>& v) const {
    return unflatten(v, "ngvi::DiagonalGaussian::unflatten_expectation");
  }
  Natural direction(Index i) const {
    Natural e = Natural::Zero(d_, 2);
    e.data()[i] = Scalar(1);
    return e;
  }

 private:
  void require_natural(const Natural& eta, std::string_view func, std::string_view arg) const {
    require_shape(eta, func, arg);
    if (!in_domain(eta)) throw_domain(func, arg, "is not a natural parameter: needs finite entries and column 1 < 0");
  }
  void require_mean(const Expectation& mu, std::string_view func, std::string_view arg) const {
    require_shape(mu, func, arg);
    if (!in_mean_domain(mu))
      throw_domain(func, arg, "is not an expectation parameter: needs finite entries and mu(i,1) > mu(i,0)^2");
  }
  void require_shape(const Natural& x, std::string_view func, std::string_view arg) const {
    if (x.rows() != d_) throw_size(func, arg, "has " + std::to_string(x.rows()) + " rows, expected d = " + std::to_string(d_));
  }
  Natural unflatten(const Eigen::Ref<const Vec<Scalar>>& v, std::string_view func) const {
    if (v.size() != 2 * d_) throw_size(func, "v", "has size " + std::to_string(v.size()) + ", expected 2d");
    return Eigen::Map<const Natural>(v.data(), d_, 2);
  }

  Index d_;
};

}  // namespace ngvi
