#pragma once
/// @file
/// In-place inverse of a symmetric positive-definite matrix through its Cholesky factor, for the
/// NGD hot loop's η → (m, S) conversion: A = LLᵀ (Eigen's blocked LLT, in place), W = L⁻¹ (in
/// place), A⁻¹ = WᵀW (lower triangle). The last two are the recursive, product-rich forms of
/// LAPACK's trtri and lauum: Eigen has neither, and solving LLᵀX = I with two dense triangular
/// solves costs about 2.3 d³ flops against d³ here and ran 2.8x slower at d = 100 (bench/).
#include <Eigen/Cholesky>

#include "ngvi/linalg/validate.hpp"

namespace ngvi {
namespace detail {

/// Below this order the recursion switches to the plain loops.
inline constexpr Index kSpdInverseLeaf = 16;

/// On entry the lower triangle of `w` holds a nonsingular lower-triangular L; on exit it holds
/// L⁻¹ (the strict upper triangle is not touched). `tmp` is scratch of at least w.rows()² entries.
/// Recursion on [[A, 0], [B, C]]⁻¹ = [[A⁻¹, 0], [−C⁻¹BA⁻¹, C⁻¹]].
template <class Scalar>
void lower_triangular_inverse_in_place(Eigen::Ref<Mat<Scalar>> w, Eigen::Ref<Mat<Scalar>> tmp) {
  const Index n = w.rows();
  if (n <= kSpdInverseLeaf) {
    // Column j of L⁻¹ by forward substitution; column k > j of w still holds L when it is read.
    for (Index j = 0; j < n; ++j) {
      w(j, j) = Scalar(1) / w(j, j);
      for (Index i = j + 1; i < n; ++i) {
        Scalar s(0);
        for (Index k = j; k < i; ++k) s += w(i, k) * w(k, j);
        w(i, j) = -s / w(i, i);
      }
    }
    return;
  }
  const Index h = n / 2;
  lower_triangular_inverse_in_place<Scalar>(w.topLeftCorner(h, h), tmp);
  lower_triangular_inverse_in_place<Scalar>(w.bottomRightCorner(n - h, n - h), tmp);
  auto b = w.bottomLeftCorner(n - h, h);
  auto t = tmp.topLeftCorner(n - h, h);
  t.noalias() = b * w.topLeftCorner(h, h).template triangularView<Eigen::Lower>();
  b.noalias() = w.bottomRightCorner(n - h, n - h).template triangularView<Eigen::Lower>() * t;
  b = -b;
}

/// Writes the lower triangle of WᵀW into `s` for the lower-triangular W held in the lower
/// triangle of `w` (s and w distinct). Recursion: with W = [[A, 0], [B, C]],
/// WᵀW = [[AᵀA + BᵀB, ·], [CᵀB, CᵀC]].
template <class Scalar>
void lower_triangular_gram(const Eigen::Ref<const Mat<Scalar>>& w, Eigen::Ref<Mat<Scalar>> s) {
  const Index n = w.rows();
  if (n <= kSpdInverseLeaf) {
    for (Index j = 0; j < n; ++j)
      for (Index i = j; i < n; ++i) {
        Scalar a(0);
        for (Index k = i; k < n; ++k) a += w(k, i) * w(k, j);
        s(i, j) = a;
      }
    return;
  }
  const Index h = n / 2;
  lower_triangular_gram<Scalar>(w.topLeftCorner(h, h), s.topLeftCorner(h, h));
  s.topLeftCorner(h, h).template selfadjointView<Eigen::Lower>().rankUpdate(w.bottomLeftCorner(n - h, h).transpose());
  s.bottomLeftCorner(n - h, h).noalias() =
      w.bottomRightCorner(n - h, n - h).transpose().template triangularView<Eigen::Upper>() * w.bottomLeftCorner(n - h, h);
  lower_triangular_gram<Scalar>(w.bottomRightCorner(n - h, n - h), s.bottomRightCorner(n - h, n - h));
}

}  // namespace detail

/// A⁻¹ for symmetric positive-definite A, exactly symmetric, with one Cholesky factorisation and
/// no allocation once the arguments are sized (d × d each).
///
/// Reads the lower triangle of `a` and overwrites `a` with scratch; writes A⁻¹ into `inverse`;
/// `tmp` is scratch. Returns false, leaving `inverse` unspecified, if the factorisation fails or a
/// pivot is not positive and finite (A not positive definite in working precision). Nothing else
/// is validated: this is the hot loop's routine; `SpdFactor` is the validating entry point.
template <class Scalar>
bool spd_inverse_in_place(Mat<Scalar>& a, Mat<Scalar>& inverse, Mat<Scalar>& tmp) {
  const Index d = a.rows();
  {
    Eigen::LLT<Eigen::Ref<Mat<Scalar>>> llt(a);
    if (llt.info() != Eigen::Success) return false;
  }
  for (Index i = 0; i < d; ++i)
    if (!(a(i, i) > Scalar(0)) || !is_finite_scalar(a(i, i))) return false;
  detail::lower_triangular_inverse_in_place<Scalar>(a, tmp);
  detail::lower_triangular_gram<Scalar>(a, inverse);
  for (Index j = 1; j < d; ++j)
    for (Index i = 0; i < j; ++i) inverse(i, j) = inverse(j, i);
  return true;
}

}  // namespace ngvi
