#pragma once
/// @file
/// Log-partition A(η) and its convex conjugate A*(μ) for the Gaussian family with base measure
/// h ≡ 1, so that A*(μ) is the negative differential entropy (docs/math.md §1.2, eqs. (17)–(18)).
/// Their gradients are the maps ∇A = natural_to_expectation and ∇A* = expectation_to_natural.
#include <boost/math/constants/constants.hpp>

#include "ngvi/expfam/gaussian_maps.hpp"

namespace ngvi {

/// c₀ = (d/2) log 2π, the log-partition constant of the base measure h ≡ 1.
template <class Scalar>
Scalar log_partition_constant(Index d) {
  return Scalar(d) * boost::math::constants::log_root_two_pi<Scalar>();
}

/// \f[ A(\eta) = -\tfrac14 \eta_1^\top \eta_2^{-1}\eta_1 - \tfrac12 \log\det(-2\eta_2) + \tfrac d2\log 2\pi
///            = \tfrac12 \eta_1^\top \Lambda^{-1}\eta_1 - \tfrac12\log\det\Lambda + c_0,\quad \Lambda=-2\eta_2. \f]
/// Gradient: ∇A(η) = (m, S + mmᵀ) (natural_to_expectation).
/// @pre −η₂ symmetric positive definite.
/// @throws std::domain_error if η ∉ Ω or is not finite.
template <class Scalar>
Scalar log_partition(const GaussianNatural<Scalar>& eta) {
  const auto f = validate_natural(eta, "ngvi::log_partition", "eta");
  return f.inv_quad(eta.eta1()) / 2 - f.log_det() / 2 + log_partition_constant<Scalar>(eta.dim());
}

/// \f[ A^*(\mu) = -\tfrac12\log\det(\mu_2-\mu_1\mu_1^\top) - \tfrac d2 - \tfrac d2\log 2\pi. \f]
/// Gradient: ∇A*(μ) = (S⁻¹μ₁, −½S⁻¹) (expectation_to_natural).
/// @pre μ₂ − μ₁μ₁ᵀ symmetric positive definite.
template <class Scalar>
Scalar conjugate_log_partition(const GaussianExpectation<Scalar>& mu) {
  const auto f = validate_expectation(mu, "ngvi::conjugate_log_partition", "mu");
  const Index d = mu.dim();
  return -f.log_det() / 2 - Scalar(d) / 2 - log_partition_constant<Scalar>(d);
}

/// ∇A(η), named for use in formulas; identical to natural_to_expectation.
template <class Scalar>
GaussianExpectation<Scalar> grad_log_partition(const GaussianNatural<Scalar>& eta) {
  return natural_to_expectation(eta);
}

/// ∇A*(μ), named for use in formulas; identical to expectation_to_natural.
template <class Scalar>
GaussianNatural<Scalar> grad_conjugate_log_partition(const GaussianExpectation<Scalar>& mu) {
  return expectation_to_natural(mu);
}

}  // namespace ngvi
