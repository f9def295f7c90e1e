#pragma once
/// @file
/// Cholesky factorisation of a symmetric positive-definite matrix, with log-determinant, inverse and
/// solves through the factor.
#include <Eigen/Cholesky>
#include <string>
#include <string_view>

#include "ngvi/linalg/validate.hpp"

namespace ngvi {

/// A = L Lᵀ for symmetric positive-definite A, L lower triangular with positive diagonal.
///
/// The constructor validates A (square, finite, symmetric within a rounding budget) and factors
/// its lower triangle.
/// @tparam Scalar any ngvikit scalar type.
/// @throws std::invalid_argument if A is not square.
/// @throws std::domain_error if A has a non-finite entry, is not symmetric, or is not positive
///         definite (the factorisation fails or a diagonal entry of L is not positive). The message
///         names `func` and `arg` as given by the caller.
template <class Scalar>
class SpdFactor {
 public:
  SpdFactor(const Mat<Scalar>& a, std::string_view func, std::string_view arg) {
    require_square(a, func, arg);
    require_positive_dim(a.rows(), func, arg);
    require_finite(a, func, arg);
    require_symmetric(a, func, arg);
    llt_.compute(a);
    if (llt_.info() != Eigen::Success) throw_domain(func, arg, "is not positive definite");
    const auto& l = llt_.matrixLLT();
    for (Index i = 0; i < a.rows(); ++i)
      if (!is_positive_pivot(l(i, i)))
        throw_domain(func, arg, "is not positive definite (pivot " + std::to_string(i) + ")");
  }

  Index dim() const { return llt_.matrixLLT().rows(); }

  /// The lower-triangular factor L.
  Mat<Scalar> lower() const { return llt_.matrixL(); }

  /// \f$ \log\det A = 2 \sum_i \log L_{ii} \f$.
  Scalar log_det() const {
    using std::log;
    const auto& l = llt_.matrixLLT();
    Scalar s(0);
    for (Index i = 0; i < l.rows(); ++i) s += log(l(i, i));
    return Scalar(2) * s;
  }

  /// A⁻¹ b through two triangular solves.
  Vec<Scalar> solve(const Vec<Scalar>& b) const { return llt_.solve(b); }
  Mat<Scalar> solve(const Mat<Scalar>& b) const { return llt_.solve(b); }

  /// A⁻¹, returned exactly symmetric.
  Mat<Scalar> inverse() const {
    return symmetrise(llt_.solve(Mat<Scalar>::Identity(dim(), dim())));
  }

  /// bᵀ A⁻¹ b computed as ||L⁻¹ b||².
  Scalar inv_quad(const Vec<Scalar>& b) const {
    const Vec<Scalar> w = llt_.matrixL().solve(b);
    return w.squaredNorm();
  }

  const Eigen::LLT<Mat<Scalar>>& llt() const { return llt_; }

 private:
  Eigen::LLT<Mat<Scalar>> llt_;
};

/// log det A for symmetric positive-definite A (validated).
template <class Scalar>
Scalar log_det_spd(const Mat<Scalar>& a, std::string_view func = "ngvi::log_det_spd", std::string_view arg = "A") {
  return SpdFactor<Scalar>(a, func, arg).log_det();
}

/// A⁻¹ for symmetric positive-definite A (validated), exactly symmetric.
template <class Scalar>
Mat<Scalar> inverse_spd(const Mat<Scalar>& a, std::string_view func = "ngvi::inverse_spd", std::string_view arg = "A") {
  return SpdFactor<Scalar>(a, func, arg).inverse();
}

/// True when A is symmetric positive definite (no exception; for predicates in tests and claims).
template <class Scalar>
bool is_spd(const Mat<Scalar>& a) {
  try {
    SpdFactor<Scalar> f(a, "ngvi::is_spd", "A");
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace ngvi
