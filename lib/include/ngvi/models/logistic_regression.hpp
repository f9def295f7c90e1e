#pragma once
/// @file
/// Bayesian logistic regression (Bernoulli-logit, labels y_i ∈ {0, 1}, bias through a column of
/// ones, see `with_bias_column`) with a Gaussian prior and Gaussian q (docs/math.md §6.1).
/// ℓ(u) = y u − softplus(u), so ℓ' = y − σ, ℓ'' = −ψ, ℓ''' = −ψ', ℓ'''' = −ψ'' with
/// ψ = σ(1 − σ), ψ' = ψ(1 − 2σ), ψ'' = ψ(1 − 6ψ). The expectations e_k = E_{u~N(ν,τ)} ℓ^{(k)}(u) are
/// computed by n-point Gauss–Hermite quadrature along u = ν + √τ x (default n = 64), and by Monte
/// Carlo through `GlmVariational::expected_loglik_mc`.
///
/// Quadrature error bound (`quadrature_error_bound`): |e_k − GH_n| ≤ |GH_n − T| + E_T, where T is the
/// trapezoid rule with step h on |x| ≤ R = N h and (Trefethen & Weideman 2014, Thm 5.1, plus the
/// omitted tail)
/// \f[ E_T = \frac{2 B_k e^{a^2/2}}{e^{2\pi a/h} - 1} + 2\,t_k\,\frac{\varphi(R)}{R}, \qquad a = \min\!\Big(\frac{\pi}{2\sqrt\tau}, 3\Big). \f]
/// On the strip |Im u| ≤ π/2 one has |σ| ≤ 1 and |1 − σ| ≤ 1 (Re(1 + e^{−u}) ≥ 1 there), hence
/// B₁ = 2, B₂ = 1, B₃ = 3, B₄ = 13, and |ℓ(u)| ≤ 2|Re u| + log 2 + π gives B₀ = 2|ν| + 2√τ + 4
/// (|φ(x + iy)| = φ(x) e^{y²/2} and E|x| ≤ 1). On the real line |ℓ^{(k)}| ≤ 1 for k ≥ 1 (t_k = 1),
/// and for k = 0 the tail is bounded by (c₀/R + c₁)φ(R) with c₀ = 2|ν| + 1, c₁ = 2√τ (R ≥ 2).
/// h is chosen so that 2πa/h = a²/2 + log(2B_k) + 70 and R = 12, making E_T < 1e-29; the bound is
/// dominated by the computed |GH_n − T|.
#include <boost/math/constants/constants.hpp>

#include "ngvi/models/gauss_hermite.hpp"
#include "ngvi/models/glm_variational.hpp"

namespace ngvi {

/// One-dimensional logistic expectations by a quadrature rule.
template <class Scalar>
Expect1D<Scalar> logistic_expect_rule(const QuadratureRule<Scalar>& rule, const Scalar& y, const Scalar& nu, const Scalar& tau) {
  using std::sqrt;
  const Scalar sd = sqrt(tau);
  Expect1D<Scalar> e{Scalar(0), Scalar(0), Scalar(0), Scalar(0), Scalar(0)};
  for (Index k = 0; k < rule.size(); ++k) {
    const Scalar u = nu + sd * rule.nodes(k);
    const Scalar s = sigmoid(u);
    const Scalar psi = s * (Scalar(1) - s);
    const Scalar w = rule.weights(k);
    e.e0 += w * (y * u - softplus(u));
    e.e1 += w * (y - s);
    e.e2 -= w * psi;
    e.e3 -= w * psi * (Scalar(1) - Scalar(2) * s);
    e.e4 -= w * psi * (Scalar(1) - Scalar(6) * psi);
  }
  return e;
}

/// Bernoulli-logit family for `GlmVariational`.
template <class Scalar>
struct LogisticFamily {
  static constexpr const char* kName = "LogisticRegression";
  QuadratureRule<Scalar> rule;

  explicit LogisticFamily(int nodes = 64) : rule(gauss_hermite_rule<Scalar>(nodes)) {}

  void validate(const Dataset<Scalar>& data, std::string_view func) const { validate_binary_labels(data, func); }

  Expect1D<Scalar> expect(const Scalar& y, const Scalar& nu, const Scalar& tau) const {
    return logistic_expect_rule(rule, y, nu, tau);
  }

  /// Datum i's residual and curvature at u = a_iᵀz, and its value when kValue (the block forms'
  /// kernel, which needs no value).
  template <bool kValue = true>
  static detail::GlmDatum<Scalar> datum(const Scalar& y, const Scalar& u) { return detail::logistic_datum<Scalar, kValue>(y, u); }

  /// ℓ at z on data that validate() accepted (GlmVariational validates its data once, at
  /// construction); only z is checked here.
  LogLikDerivatives<Scalar> pointwise(const Dataset<Scalar>& data, const Vec<Scalar>& z, bool with_hessian) const {
    require_latent_dim(data, z, "ngvi::LogisticRegression::loglik");
    return detail::logistic_loglik_valid(data, z, with_hessian);
  }

  /// Upper bounds on |e_k − GH_n(e_k)|, k = 0, …, 4 (see the file comment).
  /// @pre τ > 0. @throws std::domain_error naming 'tau' otherwise.
  Expect1D<Scalar> quadrature_error_bound(const Scalar& y, const Scalar& nu, const Scalar& tau) const {
    using std::abs;
    using std::exp;
    using std::log;
    using std::min;
    using std::sqrt;
    if (!(tau > Scalar(0)) || !is_finite_scalar(tau)) throw_domain("ngvi::LogisticFamily::quadrature_error_bound", "tau", "must be finite and positive");
    const Scalar pi = boost::math::constants::pi<Scalar>();
    const Scalar sd = sqrt(tau);
    const Scalar a = min(Scalar(pi / (Scalar(2) * sd)), Scalar(3));
    const Scalar r_trunc(12);
    const Scalar phi_r = boost::math::constants::one_div_root_two_pi<Scalar>() * exp(-r_trunc * r_trunc / 2);
    const Scalar b[5] = {Scalar(2) * abs(nu) + Scalar(2) * sd + Scalar(4), Scalar(2), Scalar(1), Scalar(3), Scalar(13)};
    const Scalar tails[5] = {((Scalar(2) * abs(nu) + Scalar(1)) / r_trunc + Scalar(2) * sd) * phi_r * 2, Scalar(2) * phi_r / r_trunc,
                             Scalar(2) * phi_r / r_trunc, Scalar(2) * phi_r / r_trunc, Scalar(2) * phi_r / r_trunc};
    Scalar out[5];
    for (int k = 0; k < 5; ++k) {
      const Scalar denom = a * a / 2 + log(Scalar(2) * b[k]) + Scalar(70);
      const Scalar h = Scalar(2) * pi * a / denom;
      const int half = static_cast<int>(to_double_floor(r_trunc / h)) + 1;
      const Scalar hh = r_trunc / Scalar(half);
      const auto trap = trapezoid_normal_rule<Scalar>(hh, half);
      const auto et = logistic_expect_rule(trap, y, nu, tau);
      const auto eg = logistic_expect_rule(rule, y, nu, tau);
      const Scalar disc = Scalar(2) * b[k] * exp(a * a / 2) / (exp(Scalar(2) * pi * a / hh) - Scalar(1));
      const Scalar diffs[5] = {abs(eg.e0 - et.e0), abs(eg.e1 - et.e1), abs(eg.e2 - et.e2), abs(eg.e3 - et.e3), abs(eg.e4 - et.e4)};
      out[k] = diffs[k] + disc + tails[k];
    }
    return Expect1D<Scalar>{out[0], out[1], out[2], out[3], out[4]};
  }

 private:
  static double to_double_floor(const Scalar& x) {
    using std::floor;
    return static_cast<double>(static_cast<long>(floor(x)));
  }
};

template <class Scalar>
using LogisticRegression = GlmVariational<Scalar, LogisticFamily<Scalar>>;

/// Logistic regression with prior N(m_p, S_p) and an n-node Gauss–Hermite rule.
/// @throws std::domain_error if a label is outside {0, 1} or a feature is non-finite (naming data.y / data.X).
template <class Scalar>
LogisticRegression<Scalar> make_logistic_regression(Dataset<Scalar> data, GaussianMoments<Scalar> prior, int nodes = 64) {
  return LogisticRegression<Scalar>(std::move(data), std::move(prior), LogisticFamily<Scalar>(nodes));
}

/// Standard normal prior N(0, I_d).
template <class Scalar>
GaussianMoments<Scalar> standard_normal_prior(Index d) {
  return GaussianMoments<Scalar>{Vec<Scalar>::Zero(d), Mat<Scalar>::Identity(d, d)};
}

}  // namespace ngvi
