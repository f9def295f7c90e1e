#pragma once
/// @file
/// One Cholesky factorisation of the precision Λ = −2η₂ of a Gaussian natural parameter η, and
/// what a Monte Carlo NGD step reads off it: the test η ∈ Ω, the mean m = Λ⁻¹η₁ and the lower
/// Cholesky factor L of the covariance S = Λ⁻¹, for the draws z = m + Lε.
///
/// L without forming S. With P the order-reversing permutation and PΛP = RRᵀ (R lower triangular,
/// Eigen's LLT), Λ = UUᵀ for the upper-triangular U = PRP, so S = U⁻ᵀU⁻¹ and U⁻ᵀ is lower
/// triangular with a positive diagonal: it is the Cholesky factor of S, L = U⁻ᵀ = P R⁻ᵀ P. So one
/// factorisation (d³/3 flops) and one triangular inverse (d³/3) give L, and its inverse
/// L⁻¹ = Uᵀ = P Rᵀ P is R itself, read in reverse order (a copy, no arithmetic): the Cholesky
/// backward pass of the reparameterisation gradient multiplies by it where it would otherwise
/// solve. The μ-parameterised route,
/// η → μ = (m, S + mmᵀ) and then chol(μ₂ − μ₁μ₁ᵀ), takes two factorisations and an inverse, and
/// the difference μ₂ − μ₁μ₁ᵀ cancels when |m|² is large against S.
///
/// The buffers are sized at construction; factor() does not allocate up to the order at which
/// Eigen's blocked kernels take their packing buffers from the heap (bench/README.md).
#include <Eigen/Cholesky>
#include <Eigen/Core>

#include "ngvi/expfam/gaussian_params.hpp"
#include "ngvi/linalg/validate.hpp"

namespace ngvi {

template <class Scalar>
class NaturalFactor {
 public:
  /// @throws std::invalid_argument naming 'd' if d < 1.
  explicit NaturalFactor(Index d)
      : reversed_(checked_dim(d), d), llt_(d), w_(d, d), lower_(d, d), lower_inverse_(d, d), mean_(d) {}

  Index dim() const { return mean_.size(); }

  /// Factors η's precision. Returns false, leaving the outputs unspecified, if η ∉ Ω in working
  /// precision: a pivot of Λ that is not positive and finite, or a mean or factor entry that is
  /// not finite. η₂ is taken as symmetric (both triangles are read, as they are equal in Ω).
  /// @throws std::invalid_argument naming 'eta' if its dimension is not dim().
  bool factor(const GaussianNatural<Scalar>& eta) {
    const Index d = dim();
    if (eta.first.size() != d || eta.second.rows() != d || eta.second.cols() != d)
      throw_size("ngvi::NaturalFactor::factor", "eta", "has a dimension other than " + std::to_string(d));
    reversed_.noalias() = eta.eta2().reverse() * Scalar(-2);  // PΛP (exact: a scaling by −2)
    llt_.compute(reversed_);
    if (llt_.info() != Eigen::Success) return false;
    const auto& r = llt_.matrixLLT();
    for (Index i = 0; i < d; ++i)
      if (!is_positive_pivot(r(i, i))) return false;
    mean_ = eta.eta1().reverse();  // m = P (PΛP)⁻¹ P η₁
    llt_.solveInPlace(mean_);
    mean_.reverseInPlace();
    w_.setIdentity();
    llt_.matrixL().solveInPlace(w_);    // W = R⁻¹ (lower triangular)
    lower_ = w_.transpose().reverse();  // L(i, j) = W(d−1−j, d−1−i) = (P R⁻ᵀ P)(i, j)
    return all_finite(mean_) && all_finite(lower_);
  }

  /// m = Λ⁻¹η₁ of the last successful factor().
  const Vec<Scalar>& mean() const { return mean_; }
  /// The lower Cholesky factor L of S = Λ⁻¹ (strict upper triangle zero) of the last successful
  /// factor().
  const Mat<Scalar>& lower() const { return lower_; }
  /// L⁻¹ (lower triangular, strict upper triangle zero) after a factor() that returned true and
  /// before the next factor(), copied out of the factorisation on each call (d² entries, no
  /// arithmetic; only the reparameterisation gradient asks for it): L⁻¹(i, j) = R(d−1−j, d−1−i) =
  /// (P Rᵀ P)(i, j). The LLT's storage keeps PΛP above the diagonal, so only the lower triangle is
  /// copied.
  const Mat<Scalar>& lower_inverse() {
    lower_inverse_.template triangularView<Eigen::StrictlyUpper>().setZero();
    lower_inverse_.template triangularView<Eigen::Lower>() = llt_.matrixLLT().transpose().reverse();
    return lower_inverse_;
  }

 private:
  static Index checked_dim(Index d) {
    require_positive_dim(d, "ngvi::NaturalFactor", "d");
    return d;
  }

  Mat<Scalar> reversed_;
  Eigen::LLT<Mat<Scalar>> llt_;
  Mat<Scalar> w_, lower_, lower_inverse_;
  Vec<Scalar> mean_;
};

}  // namespace ngvi
