#pragma once
/// @file
/// Bayesian Poisson regression (log link, counts y_i ∈ {0, 1, 2, …}) with a Gaussian prior and
/// Gaussian q (docs/math.md §6.2). With c = E e^u = exp(ν + τ/2) for u ~ N(ν, τ), the expectations
/// are closed form:
/// \f[ e_0 = y\nu - c - \log y!,\quad e_1 = y - c,\quad e_2 = e_3 = e_4 = -c, \f]
/// so the negative ELBO in μ (a_i = x_iᵀμ₁, S = μ₂ − μ₁μ₁ᵀ) is
/// \f[ f(\mu) = \sum_i \big[ e^{a_i - a_i^2/2 + x_i^\top\mu_2 x_i/2} - y_i a_i + \log y_i! \big] + \mathrm{KL}(q\,\|\,p), \f]
/// and its Hessian along v (glm_variational.hpp) has likelihood part Σ_i c_i(α_iβ_i + β_i²/4).
#include <boost/math/special_functions/gamma.hpp>

#include "ngvi/models/glm_variational.hpp"

namespace ngvi {

/// Poisson (log link) family for `GlmVariational`.
template <class Scalar>
struct PoissonFamily {
  static constexpr const char* kName = "PoissonRegression";

  void validate(const Dataset<Scalar>& data, std::string_view func) const { validate_counts(data, func); }

  Expect1D<Scalar> expect(const Scalar& y, const Scalar& nu, const Scalar& tau) const {
    using std::exp;
    using boost::math::lgamma;
    const Scalar c = exp(nu + tau / 2);
    return Expect1D<Scalar>{y * nu - c - lgamma(y + Scalar(1)), y - c, -c, -c, -c};
  }

  /// Datum i's residual and curvature at u = a_iᵀz, and its value when kValue (the block forms'
  /// kernel, which needs no value).
  template <bool kValue = true>
  static detail::GlmDatum<Scalar> datum(const Scalar& y, const Scalar& u) { return detail::poisson_datum<Scalar, kValue>(y, u); }

  /// ℓ at z on data that validate() accepted (GlmVariational validates its data once, at
  /// construction); only z is checked here.
  LogLikDerivatives<Scalar> pointwise(const Dataset<Scalar>& data, const Vec<Scalar>& z, bool with_hessian) const {
    require_latent_dim(data, z, "ngvi::PoissonRegression::loglik");
    return detail::poisson_loglik_valid(data, z, with_hessian);
  }
};

template <class Scalar>
using PoissonRegression = GlmVariational<Scalar, PoissonFamily<Scalar>>;

/// Poisson regression with prior N(m_p, S_p).
/// @throws std::domain_error if a count is negative or non-integer, or a feature is non-finite.
template <class Scalar>
PoissonRegression<Scalar> make_poisson_regression(Dataset<Scalar> data, GaussianMoments<Scalar> prior) {
  return PoissonRegression<Scalar>(std::move(data), std::move(prior), PoissonFamily<Scalar>());
}

}  // namespace ngvi
