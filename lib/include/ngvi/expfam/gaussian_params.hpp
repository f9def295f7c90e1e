#pragma once
/// @file
/// The three parameterisations of a d-dimensional Gaussian q = N(m, S) (docs/math.md §1.2):
///   natural      η = (η₁, η₂) = (S⁻¹m, −½S⁻¹),          domain Ω = {η₂ ≺ 0};
///   expectation  μ = (μ₁, μ₂) = (m, S + mmᵀ) = E[T(z)],  domain M = {μ₂ − μ₁μ₁ᵀ ≻ 0};
///   moments      (m, S).
/// Both η and μ live in the vector space R^d × Sym(d) with the pairing ⟨a, b⟩ = a₁ᵀb₁ + tr(a₂ᵀb₂);
/// the linear operations below act on that space (they do not check the domain).
#include <string_view>

#include "ngvi/linalg/validate.hpp"
#include "ngvi/scalar/types.hpp"

namespace ngvi {

/// An element (v₁, V₂) of R^d × Sym(d): the common shape of η, μ, gradients and directions.
template <class Scalar>
struct GaussianPair {
  Vec<Scalar> first;
  Mat<Scalar> second;

  Index dim() const { return first.size(); }

  GaussianPair& operator+=(const GaussianPair& o) { first += o.first; second += o.second; return *this; }
  GaussianPair& operator-=(const GaussianPair& o) { first -= o.first; second -= o.second; return *this; }
  GaussianPair& operator*=(const Scalar& a) { first *= a; second *= a; return *this; }
  friend GaussianPair operator+(GaussianPair a, const GaussianPair& b) { return a += b; }
  friend GaussianPair operator-(GaussianPair a, const GaussianPair& b) { return a -= b; }
  friend GaussianPair operator*(const Scalar& s, GaussianPair a) { return a *= s; }
};

/// Natural parameter η = (η₁, η₂). Same vector space as GaussianPair, named for clarity.
template <class Scalar>
struct GaussianNatural : GaussianPair<Scalar> {
  GaussianNatural() = default;
  GaussianNatural(Vec<Scalar> eta1, Mat<Scalar> eta2) : GaussianPair<Scalar>{std::move(eta1), std::move(eta2)} {}
  explicit GaussianNatural(GaussianPair<Scalar> p) : GaussianPair<Scalar>(std::move(p)) {}
  // Vector-space operations that keep the type, so that λ ← (1 − ρ)λ + ρλ̂ needs no cast; mixed
  // with a plain GaussianPair they resolve to GaussianPair's operators, as before.
  using GaussianPair<Scalar>::operator+=;  // `x += pair` keeps working (returns GaussianPair&)
  using GaussianPair<Scalar>::operator-=;
  GaussianNatural& operator+=(const GaussianNatural& o) { GaussianPair<Scalar>::operator+=(o); return *this; }
  GaussianNatural& operator-=(const GaussianNatural& o) { GaussianPair<Scalar>::operator-=(o); return *this; }
  GaussianNatural& operator*=(const Scalar& a) { GaussianPair<Scalar>::operator*=(a); return *this; }
  friend GaussianNatural operator+(GaussianNatural a, const GaussianNatural& b) { return a += b; }
  friend GaussianNatural operator-(GaussianNatural a, const GaussianNatural& b) { return a -= b; }
  friend GaussianNatural operator*(const Scalar& s, GaussianNatural a) { return a *= s; }
  const Vec<Scalar>& eta1() const { return this->first; }
  const Mat<Scalar>& eta2() const { return this->second; }
  Vec<Scalar>& eta1() { return this->first; }
  Mat<Scalar>& eta2() { return this->second; }
};

/// Expectation parameter μ = (μ₁, μ₂) = (E z, E zzᵀ).
template <class Scalar>
struct GaussianExpectation : GaussianPair<Scalar> {
  GaussianExpectation() = default;
  GaussianExpectation(Vec<Scalar> mu1, Mat<Scalar> mu2) : GaussianPair<Scalar>{std::move(mu1), std::move(mu2)} {}
  explicit GaussianExpectation(GaussianPair<Scalar> p) : GaussianPair<Scalar>(std::move(p)) {}
  using GaussianPair<Scalar>::operator+=;  // `x += pair` keeps working (returns GaussianPair&)
  using GaussianPair<Scalar>::operator-=;
  GaussianExpectation& operator+=(const GaussianExpectation& o) { GaussianPair<Scalar>::operator+=(o); return *this; }
  GaussianExpectation& operator-=(const GaussianExpectation& o) { GaussianPair<Scalar>::operator-=(o); return *this; }
  GaussianExpectation& operator*=(const Scalar& a) { GaussianPair<Scalar>::operator*=(a); return *this; }
  friend GaussianExpectation operator+(GaussianExpectation a, const GaussianExpectation& b) { return a += b; }
  friend GaussianExpectation operator-(GaussianExpectation a, const GaussianExpectation& b) { return a -= b; }
  friend GaussianExpectation operator*(const Scalar& s, GaussianExpectation a) { return a *= s; }
  const Vec<Scalar>& mu1() const { return this->first; }
  const Mat<Scalar>& mu2() const { return this->second; }
  Vec<Scalar>& mu1() { return this->first; }
  Mat<Scalar>& mu2() { return this->second; }
};

/// Mean and covariance (m, S).
template <class Scalar>
struct GaussianMoments {
  Vec<Scalar> mean;
  Mat<Scalar> cov;
  Index dim() const { return mean.size(); }
};

/// The duality pairing ⟨a, b⟩ = a₁ᵀb₁ + tr(a₂ᵀb₂).
/// @throws std::invalid_argument if the dimensions differ.
template <class Scalar>
Scalar pairing(const GaussianPair<Scalar>& a, const GaussianPair<Scalar>& b) {
  if (a.dim() != b.dim() || a.second.rows() != b.second.rows() || a.second.cols() != b.second.cols())
    throw_size("ngvi::pairing", "b", "has a different dimension from 'a'");
  return a.first.dot(b.first) + a.second.cwiseProduct(b.second).sum();
}

/// Squared norm of the pair under the same inner product, ⟨a, a⟩.
template <class Scalar>
Scalar pair_squared_norm(const GaussianPair<Scalar>& a) {
  return a.first.squaredNorm() + a.second.squaredNorm();
}

/// Checks that the vector and matrix parts agree in size and are finite.
template <class Scalar>
void require_pair_shape(const GaussianPair<Scalar>& p, std::string_view func, std::string_view arg) {
  require_positive_dim(p.first.size(), func, arg);
  if (p.second.rows() != p.first.size() || p.second.cols() != p.first.size())
    throw_size(func, arg, "has a matrix part of size " + std::to_string(p.second.rows()) + " x " +
                              std::to_string(p.second.cols()) + " for a vector part of size " +
                              std::to_string(p.first.size()));
  require_finite(p.first, func, arg);
  require_finite(p.second, func, arg);
}

}  // namespace ngvi
