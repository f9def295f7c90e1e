#pragma once
/// @file
/// The six maps between natural, expectation and moment parameters of a Gaussian, each validating
/// its input (docs/math.md §1.2, eqs. (5)–(6)). Matrix outputs are exactly symmetric.
///   moments_to_natural:     η = (S⁻¹m, −½S⁻¹)
///   natural_to_moments:     S = (−2η₂)⁻¹, m = S η₁
///   moments_to_expectation: μ = (m, S + mmᵀ)
///   expectation_to_moments: m = μ₁, S = μ₂ − μ₁μ₁ᵀ
///   natural_to_expectation: μ = ∇A(η)
///   expectation_to_natural: η = ∇A*(μ)
#include "ngvi/expfam/gaussian_params.hpp"
#include "ngvi/linalg/spd.hpp"

namespace ngvi {

/// Validates (m, S): finite, matching sizes, S symmetric positive definite. Returns the factor of S.
template <class Scalar>
SpdFactor<Scalar> validate_moments(const GaussianMoments<Scalar>& q, std::string_view func, std::string_view arg) {
  require_positive_dim(q.mean.size(), func, arg);
  require_finite(q.mean, func, arg);
  if (q.cov.rows() != q.mean.size() || q.cov.cols() != q.mean.size())
    throw_size(func, arg, "has a covariance whose size does not match its mean");
  return SpdFactor<Scalar>(q.cov, func, std::string(arg) + ".cov");
}

/// Validates η ∈ Ω and returns the factor of the precision Λ = −2η₂.
template <class Scalar>
SpdFactor<Scalar> validate_natural(const GaussianNatural<Scalar>& eta, std::string_view func, std::string_view arg) {
  require_pair_shape(eta, func, arg);
  const Mat<Scalar> precision = Scalar(-2) * eta.eta2();
  return SpdFactor<Scalar>(precision, func, std::string("-2*") + std::string(arg) + ".eta2");
}

/// True when η ∈ Ω, i.e. −η₂ is symmetric positive definite (one Cholesky factorisation); false,
/// never an exception, for any η outside Ω, including a pair of mismatched shapes.
template <class Scalar>
bool in_natural_domain(const GaussianNatural<Scalar>& eta) {
  try {
    validate_natural(eta, "ngvi::in_natural_domain", "eta");
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

/// Validates μ ∈ M and returns the factor of the covariance S = μ₂ − μ₁μ₁ᵀ.
template <class Scalar>
SpdFactor<Scalar> validate_expectation(const GaussianExpectation<Scalar>& mu, std::string_view func,
                                       std::string_view arg) {
  require_pair_shape(mu, func, arg);
  const Mat<Scalar> s = mu.mu2() - mu.mu1() * mu.mu1().transpose();
  return SpdFactor<Scalar>(s, func, std::string(arg) + ".mu2 - mu1*mu1^T");
}

/// η = (S⁻¹m, −½S⁻¹).
/// @pre S symmetric positive definite, all entries finite.
/// @throws std::domain_error / std::invalid_argument naming the argument otherwise.
template <class Scalar>
GaussianNatural<Scalar> moments_to_natural(const GaussianMoments<Scalar>& q) {
  const auto f = validate_moments(q, "ngvi::moments_to_natural", "q");
  Mat<Scalar> p = f.inverse();
  Vec<Scalar> eta1 = f.solve(q.mean);
  p *= Scalar(-0.5);
  return GaussianNatural<Scalar>(std::move(eta1), std::move(p));
}

/// (m, S) from η: S = (−2η₂)⁻¹, m = S η₁.
/// @pre −η₂ symmetric positive definite, η finite.
template <class Scalar>
GaussianMoments<Scalar> natural_to_moments(const GaussianNatural<Scalar>& eta) {
  const auto f = validate_natural(eta, "ngvi::natural_to_moments", "eta");
  return GaussianMoments<Scalar>{f.solve(eta.eta1()), f.inverse()};
}

/// μ = (m, S + mmᵀ).
/// @pre S symmetric positive definite.
template <class Scalar>
GaussianExpectation<Scalar> moments_to_expectation(const GaussianMoments<Scalar>& q) {
  validate_moments(q, "ngvi::moments_to_expectation", "q");
  Mat<Scalar> mu2 = q.cov + q.mean * q.mean.transpose();
  return GaussianExpectation<Scalar>(q.mean, symmetrise(mu2));
}

/// (m, S) = (μ₁, μ₂ − μ₁μ₁ᵀ).
/// @pre μ₂ − μ₁μ₁ᵀ symmetric positive definite.
template <class Scalar>
GaussianMoments<Scalar> expectation_to_moments(const GaussianExpectation<Scalar>& mu) {
  validate_expectation(mu, "ngvi::expectation_to_moments", "mu");
  Mat<Scalar> s = mu.mu2() - mu.mu1() * mu.mu1().transpose();
  return GaussianMoments<Scalar>{mu.mu1(), symmetrise(s)};
}

/// μ = ∇A(η) = (m, S + mmᵀ).
template <class Scalar>
GaussianExpectation<Scalar> natural_to_expectation(const GaussianNatural<Scalar>& eta) {
  const auto f = validate_natural(eta, "ngvi::natural_to_expectation", "eta");
  Vec<Scalar> m = f.solve(eta.eta1());
  Mat<Scalar> mu2 = f.inverse() + m * m.transpose();
  return GaussianExpectation<Scalar>(std::move(m), symmetrise(mu2));
}

/// η = ∇A*(μ) = (S⁻¹μ₁, −½S⁻¹) with S = μ₂ − μ₁μ₁ᵀ.
template <class Scalar>
GaussianNatural<Scalar> expectation_to_natural(const GaussianExpectation<Scalar>& mu) {
  const auto f = validate_expectation(mu, "ngvi::expectation_to_natural", "mu");
  Mat<Scalar> p = f.inverse();
  p *= Scalar(-0.5);
  return GaussianNatural<Scalar>(f.solve(mu.mu1()), std::move(p));
}

#ifdef NGVI_EXTERN_TEMPLATES
// In-tree targets take these instantiations from lib/src/hot_loop_instantiations_*.cpp.
extern template GaussianNatural<double> moments_to_natural<double>(const GaussianMoments<double>&);
extern template GaussianMoments<double> natural_to_moments<double>(const GaussianNatural<double>&);
extern template GaussianExpectation<double> moments_to_expectation<double>(const GaussianMoments<double>&);
extern template GaussianMoments<double> expectation_to_moments<double>(const GaussianExpectation<double>&);
extern template GaussianExpectation<double> natural_to_expectation<double>(const GaussianNatural<double>&);
extern template GaussianNatural<double> expectation_to_natural<double>(const GaussianExpectation<double>&);
extern template GaussianNatural<mp50> moments_to_natural<mp50>(const GaussianMoments<mp50>&);
extern template GaussianMoments<mp50> natural_to_moments<mp50>(const GaussianNatural<mp50>&);
extern template GaussianExpectation<mp50> moments_to_expectation<mp50>(const GaussianMoments<mp50>&);
extern template GaussianMoments<mp50> expectation_to_moments<mp50>(const GaussianExpectation<mp50>&);
extern template GaussianExpectation<mp50> natural_to_expectation<mp50>(const GaussianNatural<mp50>&);
extern template GaussianNatural<mp50> expectation_to_natural<mp50>(const GaussianExpectation<mp50>&);
#endif

}  // namespace ngvi
