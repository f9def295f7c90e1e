#pragma once
/// @file
/// In-place inverse of a symmetric positive-definite matrix through its Cholesky factor, for the
/// NGD hot loop's η → (m, S) conversion: A = LLᵀ (in place), W = L⁻¹ (in place), A⁻¹ = WᵀW
/// (lower triangle). This is LAPACK's potrf + potri (trtri + lauum); Eigen has neither of the last
/// two, and solving LLᵀX = I with two dense triangular solves costs about 2.3 d³ flops against
/// d³ here and ran 2.8x slower at d = 100 (bench/).
///
/// Above the leaf order (32) Eigen's blocked LLT factors A, and the triangular inverse and WᵀW
/// recurse into halves, so that most of the flops are Eigen matrix products; the recursion's leaves
/// are the unblocked column forms of LAPACK's trti2 and lauu2. Orders up to the leaf use the
/// root-free form throughout: A = LDLᵀ with unit L (d divisions, no square roots), W = L⁻¹ (no
/// divisions) and A⁻¹ = WᵀD⁻¹W, the same multiply-adds as the Cholesky route plus d²/2
/// multiplications. In mp50 that saves the d square roots, about 50 multiplications each. Every
/// unblocked loop is an axpy over a contiguous column, so its multiply-adds are independent of each
/// other: the dot-product forms wait on the latency of the previous multiply-add at every term,
/// which made the conversion 4x its flop count at d = 10.
///
/// For hardware floating-point types at orders up to kSpdSweepMaxOrder the inverse is formed
/// instead by Gauss–Jordan elimination on the symmetric matrix without pivoting (the sweep
/// operator), at a compile-time order: sweeping pivot k replaces the matrix by
/// a_ij − a_ik a_kj / a_kk off row and column k, a_ik / a_kk on them and −1/a_kk at (k, k), and
/// after all d pivots it holds −A⁻¹. Its k-th pivot is the k-th leading Schur complement's first
/// entry, i.e. d_k of A = LDLᵀ (= l_kk²), so "every pivot positive and finite" is exactly the
/// Cholesky test of positive definiteness. It costs d³ multiply-adds against d³/2 but needs no
/// square roots, and its critical path is one division and one multiply-add per pivot; each
/// sweep is d independent full-column multiply-adds. At d = 10 it took 251 ns against 563 ns for
/// the Cholesky route at the same compile-time order (Google Benchmark, 2 cores with AVX-512), with
/// the same accuracy against a spectral reference up to κ = 1e12
/// (lib/tests/linalg/spd_inverse_test.cpp checks it to 1e8).
#include <Eigen/Cholesky>
#include <cmath>
#include <type_traits>

#include "ngvi/linalg/validate.hpp"

namespace ngvi {
namespace detail {

/// At or below this order the factorisation, the triangular inverse and WᵀW use the unblocked
/// loops; up to it they ran as fast as Eigen's blocked LLT with the recursion, or faster (order 33:
/// 8.7 µs against 10.2 µs for the earlier dot-product leaves).
inline constexpr Index kSpdInverseLeaf = 32;

/// True when x is a positive, finite pivot.
template <class Scalar>
bool is_positive_pivot(const Scalar& x) {
  return x > Scalar(0) && is_finite_scalar(x);
}

/// How the diagonal of a lower-triangular factor is held: the Cholesky factor's own l_kk
/// (A = LLᵀ), or a unit lower L with the reciprocals 1/d_k of A = LDLᵀ stored in its diagonal.
enum class Diagonal { kCholesky, kUnitWithInverseD };

/// Unblocked right-looking LDLᵀ factorisation of the lower triangle of `a` in place (the root-free
/// form of LAPACK potf2): for each k, d_k = a_kk, the trailing lower triangle takes the rank-1
/// update a_ij −= a_ik (a_jk / d_k) column by column, and the column below the pivot is scaled by
/// 1/d_k into L. On exit the strict lower triangle holds the unit L and the diagonal holds 1/d_k.
/// It does d divisions and no square roots (in mp50 a square root costs about 50 multiplications
/// and a division 5). The strict upper triangle is not touched. Returns false at the first pivot d_k
/// that is not positive and finite (A = LDLᵀ with every d_k > 0 exactly when A is positive definite).
template <class Scalar>
bool ldlt_lower_unblocked(Eigen::Ref<Mat<Scalar>> a) {
  const Index n = a.rows();
  for (Index k = 0; k < n; ++k) {
    Scalar* ck = &a.coeffRef(0, k);
    if (!is_positive_pivot(ck[k])) return false;
    const Scalar inv_d = Scalar(1) / ck[k];
    for (Index j = k + 1; j < n; ++j) {
      Scalar* cj = &a.coeffRef(0, j);
      const Scalar ljk = ck[j] * inv_d;
      for (Index i = j; i < n; ++i) cj[i] -= ck[i] * ljk;
    }
    for (Index i = k + 1; i < n; ++i) ck[i] *= inv_d;
    ck[k] = inv_d;
  }
  return true;
}

/// Unblocked in-place inverse of the lower-triangular factor in `w` (LAPACK trti2, lower, column
/// form): columns from the last one; the column below the diagonal becomes −w_jj · W₂₂ l₂₁ with the
/// already inverted trailing block W₂₂, the product formed in place as axpys over W₂₂'s columns.
/// kCholesky: w_jj ← 1/l_jj. kUnitWithInverseD: the unit diagonal is implicit (w_jj = 1) and the
/// stored 1/d_k are left as they are.
template <Diagonal kDiag, class Scalar>
void lower_triangular_inverse_unblocked(Eigen::Ref<Mat<Scalar>> w) {
  const Index n = w.rows();
  for (Index j = n - 1; j >= 0; --j) {
    Scalar* cj = &w.coeffRef(0, j);
    // x = cj[j+1 .. n) ← W₂₂ x, from the last entry up so that each x_k is read before it changes.
    for (Index k = n - 1; k > j; --k) {
      const Scalar* ck = &w.coeffRef(0, k);
      const Scalar xk = cj[k];
      for (Index i = k + 1; i < n; ++i) cj[i] += xk * ck[i];
      if constexpr (kDiag == Diagonal::kCholesky) cj[k] = xk * ck[k];
    }
    if constexpr (kDiag == Diagonal::kCholesky) {
      cj[j] = Scalar(1) / cj[j];
      const Scalar minus_wjj = -cj[j];
      for (Index i = j + 1; i < n; ++i) cj[i] *= minus_wjj;
    } else {
      for (Index i = j + 1; i < n; ++i) cj[i] = -cj[i];
    }
  }
}

/// Unblocked lower triangle of WᵀW (kCholesky) or WᵀD⁻¹W (kUnitWithInverseD, W unit lower with 1/d_k
/// on its diagonal) into `s`, distinct from `w`, as Σ_k r_kᵀ (r_k / d_k) over the rows r_k of W
/// (entries 0..k): each a rank-1 update of the leading lower triangle made of column axpys, with r_k
/// first put in contiguous scratch `r` (w.rows() entries) and each column's factor r_kj / d_k formed
/// once. The strict upper triangle of `s` is not touched.
template <Diagonal kDiag, class Scalar>
void lower_triangular_gram_unblocked(const Eigen::Ref<const Mat<Scalar>>& w, Eigen::Ref<Mat<Scalar>> s, Scalar* r) {
  const Index n = w.rows();
  for (Index j = 0; j < n; ++j)
    for (Index i = j; i < n; ++i) s(i, j) = Scalar(0);
  for (Index k = 0; k < n; ++k) {
    for (Index j = 0; j < k; ++j) r[j] = w(k, j);
    r[k] = kDiag == Diagonal::kCholesky ? Scalar(w(k, k)) : Scalar(1);
    for (Index j = 0; j <= k; ++j) {
      Scalar* sj = &s.coeffRef(0, j);
      Scalar rj;
      if constexpr (kDiag == Diagonal::kCholesky) rj = r[j];
      else rj = j == k ? Scalar(w(k, k)) : Scalar(r[j] * w(k, k));
      for (Index i = j; i <= k; ++i) sj[i] += r[i] * rj;
    }
  }
}

/// On entry the lower triangle of `w` holds a nonsingular Cholesky factor L; on exit it holds L⁻¹
/// (the strict upper triangle is not touched). `tmp` is scratch of at least w.rows()² entries.
/// Above the leaf order, [[A, 0], [B, C]]⁻¹ = [[A⁻¹, 0], [−C⁻¹BA⁻¹, C⁻¹]].
template <class Scalar>
void lower_triangular_inverse_in_place(Eigen::Ref<Mat<Scalar>> w, Eigen::Ref<Mat<Scalar>> tmp) {
  const Index n = w.rows();
  if (n <= kSpdInverseLeaf) {
    lower_triangular_inverse_unblocked<Diagonal::kCholesky, Scalar>(w);
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
/// triangle of `w` (s and w distinct; the strict upper triangle of `s` is not touched); `tmp` is
/// scratch of at least w.rows() entries. Above the leaf order, with W = [[A, 0], [B, C]],
/// WᵀW = [[AᵀA + BᵀB, ·], [CᵀB, CᵀC]].
template <class Scalar>
void lower_triangular_gram(const Eigen::Ref<const Mat<Scalar>>& w, Eigen::Ref<Mat<Scalar>> s, Eigen::Ref<Mat<Scalar>> tmp) {
  const Index n = w.rows();
  if (n <= kSpdInverseLeaf) {
    lower_triangular_gram_unblocked<Diagonal::kCholesky, Scalar>(w, s, tmp.data());
    return;
  }
  const Index h = n / 2;
  lower_triangular_gram<Scalar>(w.topLeftCorner(h, h), s.topLeftCorner(h, h), tmp);
  s.topLeftCorner(h, h).template selfadjointView<Eigen::Lower>().rankUpdate(w.bottomLeftCorner(n - h, h).transpose());
  s.bottomLeftCorner(n - h, h).noalias() =
      w.bottomRightCorner(n - h, n - h).transpose().template triangularView<Eigen::Upper>() * w.bottomLeftCorner(n - h, h);
  lower_triangular_gram<Scalar>(w.bottomRightCorner(n - h, n - h), s.bottomRightCorner(n - h, n - h), tmp);
}

/// Largest order inverted by the sweep (hardware floating-point types only).
inline constexpr Index kSpdSweepMaxOrder = 16;

/// The sweep at compile-time order N on the full symmetric matrix `a` (both triangles read and
/// overwritten); writes A⁻¹, exactly symmetric, into `s`. Returns false at the first pivot that is
/// not positive and finite.
template <class Scalar, int N>
bool spd_inverse_sweep(Scalar* a_data, Scalar* s_data) {
  using Matrix = Eigen::Matrix<Scalar, N, N>;
  using Vector = Eigen::Matrix<Scalar, N, 1>;
  Eigen::Map<Matrix> a(a_data);
  Eigen::Map<Matrix> s(s_data);
  for (int k = 0; k < N; ++k) {
    const Scalar pivot = a(k, k);
    if (!is_positive_pivot(pivot)) return false;
    const Scalar r = Scalar(1) / pivot;
    const Vector c = a.col(k);
    const Vector cr = c * r;
    for (int j = 0; j < N; ++j) a.col(j) -= cr(j) * c;
    a.col(k) = cr;
    a.row(k) = cr.transpose();
    a(k, k) = -r;
  }
  for (int j = 0; j < N; ++j)
    for (int i = j; i < N; ++i) s(i, j) = s(j, i) = -a(i, j);
  return true;
}

/// Dispatches order d ∈ [1, kSpdSweepMaxOrder] to its compile-time sweep.
template <class Scalar, int N = 1>
bool spd_inverse_sweep_dispatch(Index d, Scalar* a, Scalar* s) {
  if constexpr (N > kSpdSweepMaxOrder) {
    return false;
  } else {
    return d == N ? spd_inverse_sweep<Scalar, N>(a, s) : spd_inverse_sweep_dispatch<Scalar, N + 1>(d, a, s);
  }
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
  if constexpr (std::is_floating_point_v<Scalar>) {
    if (d >= 1 && d <= detail::kSpdSweepMaxOrder) {
      copy_lower_to_upper(a);
      return detail::spd_inverse_sweep_dispatch<Scalar>(d, a.data(), inverse.data());
    }
  }
  if (d <= detail::kSpdInverseLeaf) {
    if (!detail::ldlt_lower_unblocked<Scalar>(a)) return false;
    detail::lower_triangular_inverse_unblocked<detail::Diagonal::kUnitWithInverseD, Scalar>(a);
    detail::lower_triangular_gram_unblocked<detail::Diagonal::kUnitWithInverseD, Scalar>(a, inverse, tmp.data());
  } else {
    Eigen::LLT<Eigen::Ref<Mat<Scalar>>> llt(a);
    if (llt.info() != Eigen::Success) return false;
    for (Index i = 0; i < d; ++i)
      if (!detail::is_positive_pivot(a(i, i))) return false;
    detail::lower_triangular_inverse_in_place<Scalar>(a, tmp);
    detail::lower_triangular_gram<Scalar>(a, inverse, tmp);
  }
  copy_lower_to_upper(inverse);
  return true;
}

}  // namespace ngvi
