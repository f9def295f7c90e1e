#pragma once
/// @file
/// The univariate Gaussian N(m, s) as an exponential family (docs/math.md §1.2 with d = 1):
///   T(x) = (x, x²),  η = (m/s, −1/(2s)) ∈ Ω = R × (−∞, 0),  μ = (m, s + m²) ∈ M = {μ₂ > μ₁²},
///   A(η) = −η₁²/(4η₂) − ½ log(−2η₂) + ½ log 2π,   A*(μ) = −½ log(μ₂ − μ₁²) − ½ − ½ log 2π.
/// Parameters are fixed-size 2-vectors (no heap allocation), so a Product of N univariate
/// Gaussians stores its parameters as one contiguous 2 × N matrix.
/// The per-coordinate formulas live in `detail::gauss1`, shared with the diagonal Gaussian.
#include <boost/math/constants/constants.hpp>

#include "ngvi/expfam/family.hpp"

namespace ngvi {
namespace detail::gauss1 {

template <class Scalar>
bool natural_ok(const Scalar& e1, const Scalar& e2) {
  return is_finite_scalar(e1) && is_finite_scalar(e2) && e2 < Scalar(0);
}
template <class Scalar>
bool mean_ok(const Scalar& m1, const Scalar& m2) {
  return is_finite_scalar(m1) && is_finite_scalar(m2) && m2 - m1 * m1 > Scalar(0);
}
/// A(η) for one coordinate.
template <class Scalar>
Scalar log_partition(const Scalar& e1, const Scalar& e2) {
  using std::log;
  return -e1 * e1 / (4 * e2) - log(Scalar(-2) * e2) / 2 + boost::math::constants::log_root_two_pi<Scalar>();
}
/// A*(μ) for one coordinate.
template <class Scalar>
Scalar conjugate(const Scalar& m1, const Scalar& m2) {
  using std::log;
  return -log(m2 - m1 * m1) / 2 - Scalar(0.5) - boost::math::constants::log_root_two_pi<Scalar>();
}
/// (m, s) from η: s = −1/(2η₂), m = s η₁.
template <class Scalar>
void moments(const Scalar& e1, const Scalar& e2, Scalar* m, Scalar* s) {
  *s = Scalar(-1) / (2 * e2);
  *m = *s * e1;
}
/// KL(N(m0, s0) ‖ N(m1, s1)) = ½(s0/s1 + (m1 − m0)²/s1 − 1 + log(s1/s0)).
template <class Scalar>
Scalar kl_moments(const Scalar& m0, const Scalar& s0, const Scalar& m1, const Scalar& s1) {
  using std::log;
  const Scalar dm = m1 - m0;
  return (s0 / s1 + dm * dm / s1 - Scalar(1) + log(s1 / s0)) / 2;
}
/// F(η) v with F = Cov(x, x²) = [[s, 2ms], [2ms, 2s² + 4m²s]].
template <class Scalar>
void fisher(const Scalar& e1, const Scalar& e2, const Scalar& v1, const Scalar& v2, Scalar* o1, Scalar* o2) {
  Scalar m, s;
  moments(e1, e2, &m, &s);
  *o1 = s * v1 + 2 * m * s * v2;
  *o2 = 2 * m * s * v1 + (2 * s * s + 4 * m * m * s) * v2;
}
/// F(η)⁻¹ u = ∇²A*(μ) u = [[(s + 2m²)/s², −m/s²], [−m/s², 1/(2s²)]] u with m = μ₁, s = μ₂ − μ₁².
template <class Scalar>
void fisher_inverse(const Scalar& m1, const Scalar& m2, const Scalar& u1, const Scalar& u2, Scalar* o1, Scalar* o2) {
  const Scalar s = m2 - m1 * m1;
  const Scalar s2 = s * s;
  *o1 = ((s + 2 * m1 * m1) * u1 - m1 * u2) / s2;
  *o2 = (u2 / 2 - m1 * u1) / s2;
}

}  // namespace detail::gauss1

/// The univariate Gaussian family. Natural = Expectation = Eigen 2-vector (η₁, η₂) / (μ₁, μ₂).
template <class ScalarT>
struct UnivariateGaussian {
  using Scalar = ScalarT;
  using Natural = Eigen::Matrix<Scalar, 2, 1>;
  using Expectation = Eigen::Matrix<Scalar, 2, 1>;

  template <class S>
  UnivariateGaussian<S> rebind() const { return {}; }

  Index flat_size() const { return 2; }
  Index size() const { return 2; }

  bool in_domain(const Natural& eta) const { return detail::gauss1::natural_ok(eta(0), eta(1)); }
  bool in_mean_domain(const Expectation& mu) const { return detail::gauss1::mean_ok(mu(0), mu(1)); }

  void require_natural(const Natural& eta, std::string_view func, std::string_view arg) const {
    if (!in_domain(eta)) throw_domain(func, arg, "is not a natural parameter: needs finite entries and eta2 < 0");
  }
  void require_mean(const Expectation& mu, std::string_view func, std::string_view arg) const {
    if (!in_mean_domain(mu)) throw_domain(func, arg, "is not an expectation parameter: needs finite entries and mu2 > mu1^2");
  }

  /// A(η). @pre η ∈ Ω. @throws std::domain_error naming 'eta' otherwise.
  Scalar log_partition(const Natural& eta) const {
    require_natural(eta, "ngvi::UnivariateGaussian::log_partition", "eta");
    return detail::gauss1::log_partition(eta(0), eta(1));
  }
  /// A*(μ). @pre μ ∈ M.
  Scalar conjugate(const Expectation& mu) const {
    require_mean(mu, "ngvi::UnivariateGaussian::conjugate", "mu");
    return detail::gauss1::conjugate(mu(0), mu(1));
  }
  /// μ = ∇A(η) = (m, s + m²).
  Expectation to_mean(const Natural& eta) const {
    require_natural(eta, "ngvi::UnivariateGaussian::to_mean", "eta");
    Scalar m, s;
    detail::gauss1::moments(eta(0), eta(1), &m, &s);
    return Expectation(m, s + m * m);
  }
  /// η = ∇A*(μ) = (m/s, −1/(2s)), s = μ₂ − μ₁².
  Natural to_natural(const Expectation& mu) const {
    require_mean(mu, "ngvi::UnivariateGaussian::to_natural", "mu");
    const Scalar s = mu(1) - mu(0) * mu(0);
    return Natural(mu(0) / s, Scalar(-1) / (2 * s));
  }
  Scalar pairing(const Natural& eta, const Expectation& mu) const { return eta(0) * mu(0) + eta(1) * mu(1); }
  /// KL(q‖p) from the moment closed form.
  Scalar kl(const Natural& q, const Natural& p) const {
    require_natural(q, "ngvi::UnivariateGaussian::kl", "q");
    require_natural(p, "ngvi::UnivariateGaussian::kl", "p");
    Scalar m0, s0, m1, s1;
    detail::gauss1::moments(q(0), q(1), &m0, &s0);
    detail::gauss1::moments(p(0), p(1), &m1, &s1);
    return detail::gauss1::kl_moments(m0, s0, m1, s1);
  }
  Scalar bregman_log_partition(const Natural& eta, const Natural& eta_ref) const {
    return generic_bregman_log_partition(*this, eta, eta_ref);
  }
  Scalar bregman_conjugate(const Expectation& mu, const Expectation& mu_ref) const {
    return generic_bregman_conjugate(*this, mu, mu_ref);
  }
  Expectation fisher_apply(const Natural& eta, const Natural& v) const {
    require_natural(eta, "ngvi::UnivariateGaussian::fisher_apply", "eta");
    Expectation out;
    detail::gauss1::fisher(eta(0), eta(1), v(0), v(1), &out(0), &out(1));
    return out;
  }
  Natural fisher_inverse_apply(const Expectation& mu, const Expectation& u) const {
    require_mean(mu, "ngvi::UnivariateGaussian::fisher_inverse_apply", "mu");
    Natural out;
    detail::gauss1::fisher_inverse(mu(0), mu(1), u(0), u(1), &out(0), &out(1));
    return out;
  }
  Vec<Scalar> flatten_natural(const Natural& eta) const { return eta; }
  Vec<Scalar> flatten_expectation(const Expectation& mu) const { return mu; }
  Natural unflatten_natural(const Eigen::Ref<const Vec<Scalar>>& v) const { return unflatten(v, "ngvi::UnivariateGaussian::unflatten_natural"); }
  Expectation unflatten_expectation(const Eigen::Ref<const Vec<Scalar>>& v) const {
    return unflatten(v, "ngvi::UnivariateGaussian::unflatten_expectation");
  }
  Natural direction(Index i) const {
    Natural e = Natural::Zero();
    e(i) = Scalar(1);
    return e;
  }

 private:
  static Natural unflatten(const Eigen::Ref<const Vec<Scalar>>& v, std::string_view func) {
    if (v.size() != 2) throw_size(func, "v", "has size " + std::to_string(v.size()) + ", expected 2");
    return Natural(v(0), v(1));
  }
};

}  // namespace ngvi
