#pragma once
/// @file
/// In-place inverse of a symmetric positive-definite matrix, for the NGD hot loop's η → (m, S)
/// conversion. Three routes, one test of positive definiteness (every pivot d_k of A = LDLᵀ
/// positive and finite, which holds exactly when A is positive definite):
///
/// - Orders up to kSpdSweepMaxOrder, hardware floating point: Gauss–Jordan elimination on the
///   symmetric matrix without pivoting (the sweep operator), at a compile-time order. Sweeping
///   pivot k replaces the matrix by a_ij − a_ik a_kj / a_kk off row and column k, a_ik / a_kk on
///   them and −1/a_kk at (k, k); after all d pivots it holds −A⁻¹. Its k-th pivot is the k-th
///   leading Schur complement's first entry, i.e. d_k. It costs d³ multiply-adds against d³/2 but
///   needs no square roots, and its critical path is one division and one multiply-add per pivot;
///   each sweep is d independent full-column multiply-adds. At d = 10 it took 251 ns against
///   563 ns for the Cholesky route at the same compile-time order (Google Benchmark, 2 cores with
///   AVX-512), with the same accuracy against a spectral reference up to κ = 1e12.
/// - Orders up to kSpdInverseLeaf, any scalar: the root-free unblocked form, A = LDLᵀ with unit L
///   (d divisions, no square roots), W = L⁻¹ (no divisions) and A⁻¹ = WᵀD⁻¹W: d³/2 multiply-adds
///   plus d²/2 multiplications. In mp50 that saves the d square roots of a Cholesky route, about 50
///   multiplications each. Every loop is an axpy over a contiguous column, so its multiply-adds are
///   independent of each other: the dot-product forms wait on the latency of the previous
///   multiply-add at every term, which made the conversion 4x its flop count at d = 10.
/// - Larger orders: the block form of the sweep, by recursion on halves. With
///   A = [[A₁₁, A₂₁ᵀ], [A₂₁, A₂₂]], X = A₁₁⁻¹, Y = A₂₁X, the Schur complement C = A₂₂ − YA₂₁ᵀ and
///   Z = C⁻¹,
///       A⁻¹ = [[X + YᵀZY, −(ZY)ᵀ], [−ZY, Z]],
///   with X and Z inverted by the same recursion down to blocks of kSpdBlockLeaf, which take the
///   unblocked route. Each leaf is a diagonal block of a Schur complement of A, so its LDLᵀ
///   pivots are A's d_k, in order, and the test of positive definiteness is the same. Every level does
///   two matrix products (YᵀZY's inner ZY and Y) and two products with a symmetric result (C and
///   X + YᵀZY), about 3h³ multiply-adds for halves of order h; the total is d³/2, as for
///   Cholesky, trtri and lauum, and all of it except the leaves is in Eigen's matrix-product
///   kernels. At d = 500 it ran at about 21–25 GFMA/s against 17–19 for Eigen's LLT followed by a
///   recursive triangular inverse and WᵀW (2.5–3.0 ms against 3.1–3.6 ms), and at d = 100 in
///   55–63 µs against 75–86 µs (2 cores with AVX-512, one thread; ranges over runs on a noisy
///   machine). lib/tests/linalg/spd_inverse_test.cpp holds every route to the same forward-error
///   budget c·d·u·κ against a spectral reference, up to κ = 1e8.
#include <Eigen/Core>
#include <cmath>
#include <type_traits>

#include "ngvi/linalg/validate.hpp"

namespace ngvi {
namespace detail {

/// At or below this order the unblocked root-free route inverts the whole matrix. In mp50 it beats
/// the block sweep up to here (order 32: 1.6 ms against 2.1 ms, Eigen's generic products with
/// software scalars being the slower part). In double the block sweep was already faster from
/// order 20 (order 32: 5.5 µs against 8.2 µs CPU time, measured under load); taking it above
/// kSpdSweepMaxOrder for hardware types is a measured, untaken follow-up.
inline constexpr Index kSpdInverseLeaf = 32;

/// Order of the diagonal blocks at which the block sweep stops recursing (unblocked leaves).
inline constexpr Index kSpdBlockLeaf = 16;

/// Order above which a product with a symmetric result is split into halves (two symmetric halves
/// and one matrix product) instead of going to Eigen's triangular-result product in one piece,
/// whose rate fell from 19 GFMA/s at order 125 to 11 at order 250.
inline constexpr Index kLowerProductSplit = 128;

/// True when x is a positive, finite pivot.
template <class Scalar>
bool is_positive_pivot(const Scalar& x) {
  return x > Scalar(0) && is_finite_scalar(x);
}

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

/// Unblocked in-place inverse of the unit lower-triangular factor in the strict lower triangle of
/// `w` (LAPACK trti2, lower, unit diagonal, column form): columns from the last one; the column
/// below the diagonal becomes −W₂₂ l₂₁ with the already inverted trailing block W₂₂, the product
/// formed in place as axpys over W₂₂'s columns. The diagonal (holding 1/d_k) and the strict upper
/// triangle are not touched.
template <class Scalar>
void unit_lower_triangular_inverse_unblocked(Eigen::Ref<Mat<Scalar>> w) {
  const Index n = w.rows();
  for (Index j = n - 1; j >= 0; --j) {
    Scalar* cj = &w.coeffRef(0, j);
    // x = cj[j+1 .. n) ← W₂₂ x, from the last entry up so that each x_k is read before it changes.
    for (Index k = n - 1; k > j; --k) {
      const Scalar* ck = &w.coeffRef(0, k);
      const Scalar xk = cj[k];
      for (Index i = k + 1; i < n; ++i) cj[i] += xk * ck[i];
    }
    for (Index i = j + 1; i < n; ++i) cj[i] = -cj[i];
  }
}

/// Unblocked lower triangle of WᵀD⁻¹W (W unit lower with 1/d_k on its diagonal) into `s`, distinct
/// from `w`, as Σ_k r_kᵀ (r_k / d_k) over the rows r_k of W (entries 0..k): each a rank-1 update of
/// the leading lower triangle made of column axpys, with r_k first put in contiguous scratch `r`
/// (w.rows() entries) and each column's factor r_kj / d_k formed once. The strict upper triangle
/// of `s` is not touched.
template <class Scalar>
void unit_lower_triangular_gram_unblocked(const Eigen::Ref<const Mat<Scalar>>& w, Eigen::Ref<Mat<Scalar>> s, Scalar* r) {
  const Index n = w.rows();
  for (Index j = 0; j < n; ++j)
    for (Index i = j; i < n; ++i) s(i, j) = Scalar(0);
  for (Index k = 0; k < n; ++k) {
    for (Index j = 0; j < k; ++j) r[j] = w(k, j);
    r[k] = Scalar(1);
    for (Index j = 0; j <= k; ++j) {
      Scalar* sj = &s.coeffRef(0, j);
      const Scalar rj = j == k ? Scalar(w(k, k)) : Scalar(r[j] * w(k, k));
      for (Index i = j; i <= k; ++i) sj[i] += r[i] * rj;
    }
  }
}

/// The unblocked route: A⁻¹, exactly symmetric, into `s` from the lower triangle of `a`
/// (overwritten), `r` scratch of a.rows() entries. Returns false at a pivot that is not positive
/// and finite.
template <class Scalar>
bool spd_inverse_unblocked(Eigen::Ref<Mat<Scalar>> a, Eigen::Ref<Mat<Scalar>> s, Scalar* r) {
  if (!ldlt_lower_unblocked<Scalar>(a)) return false;
  unit_lower_triangular_inverse_unblocked<Scalar>(a);
  unit_lower_triangular_gram_unblocked<Scalar>(a, s, r);
  copy_lower_to_upper(s);
  return true;
}

/// Lower triangle of c −= a·b, where the full product is known to be symmetric (the strict upper
/// triangle of `c` is not touched). Above kLowerProductSplit: [[c₁₁, ·], [c₂₁, c₂₂]] with c₂₁ a
/// matrix product and c₁₁, c₂₂ by recursion.
template <class Scalar>
void lower_subtract_product(Eigen::Ref<Mat<Scalar>> c, const Eigen::Ref<const Mat<Scalar>>& a,
                            const Eigen::Ref<const Mat<Scalar>>& b) {
  const Index n = c.rows();
  if (n <= kLowerProductSplit) {
    c.template triangularView<Eigen::Lower>() -= a * b;
    return;
  }
  const Index h = n / 2;
  lower_subtract_product<Scalar>(c.topLeftCorner(h, h), a.topRows(h), b.leftCols(h));
  c.bottomLeftCorner(n - h, h).noalias() -= a.bottomRows(n - h) * b.leftCols(h);
  lower_subtract_product<Scalar>(c.bottomRightCorner(n - h, n - h), a.bottomRows(n - h), b.rightCols(n - h));
}

/// The block sweep (see the file comment): A⁻¹, exactly symmetric (both triangles), into `s` from
/// the lower triangle of `a`, which is overwritten (its lower-right blocks take the Schur
/// complements) and whose strict upper triangle is not read; `r` is scratch of kSpdBlockLeaf
/// entries. The split point is rounded to a multiple of 8 so that the blocks' columns start on
/// vector boundaries. While X + YᵀZY is pending, Yᵀ waits in the upper-right block of `s`, which
/// is written last; no other storage is needed. Returns false at the first leaf pivot that is not
/// positive and finite.
template <class Scalar>
bool spd_inverse_block_sweep(Eigen::Ref<Mat<Scalar>> a, Eigen::Ref<Mat<Scalar>> s, Scalar* r) {
  const Index n = a.rows();
  if (n <= kSpdBlockLeaf) return spd_inverse_unblocked<Scalar>(a, s, r);
  Index h = (n / 2 + 4) / 8 * 8;
  if (h <= 0 || h >= n) h = n / 2;
  const Index m = n - h;
  auto x = s.topLeftCorner(h, h);
  auto yt = s.topRightCorner(h, m);
  auto zy = s.bottomLeftCorner(m, h);
  auto z = s.bottomRightCorner(m, m);
  const auto a21 = a.bottomLeftCorner(m, h);
  if (!spd_inverse_block_sweep<Scalar>(a.topLeftCorner(h, h), x, r)) return false;
  yt.noalias() = x * a21.transpose();                                   // Yᵀ = X A₂₁ᵀ
  lower_subtract_product<Scalar>(a.bottomRightCorner(m, m), a21, yt);  // C = A₂₂ − A₂₁ Yᵀ
  if (!spd_inverse_block_sweep<Scalar>(a.bottomRightCorner(m, m), z, r)) return false;
  zy.noalias() = -(z * yt.transpose());        // −ZY
  lower_subtract_product<Scalar>(x, yt, zy);   // X + YᵀZY
  copy_lower_to_upper(x);
  yt = zy.transpose();
  return true;
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

/// A⁻¹ for symmetric positive-definite A, exactly symmetric, with no allocation once the arguments
/// are sized (d × d each) and no square roots.
///
/// Reads the lower triangle of `a` and overwrites `a` with scratch; writes A⁻¹ into `inverse`;
/// `tmp` is scratch. Returns false, leaving `inverse` unspecified, if a pivot d_k of A = LDLᵀ is not
/// positive and finite (A not positive definite in working precision). Nothing else is validated:
/// this is the hot loop's routine; `SpdFactor` is the validating entry point.
template <class Scalar>
bool spd_inverse_in_place(Mat<Scalar>& a, Mat<Scalar>& inverse, Mat<Scalar>& tmp) {
  const Index d = a.rows();
  if constexpr (std::is_floating_point_v<Scalar>) {
    if (d >= 1 && d <= detail::kSpdSweepMaxOrder) {
      copy_lower_to_upper(a);
      return detail::spd_inverse_sweep_dispatch<Scalar>(d, a.data(), inverse.data());
    }
  }
  if (d > detail::kSpdInverseLeaf) return detail::spd_inverse_block_sweep<Scalar>(a, inverse, tmp.data());
  return detail::spd_inverse_unblocked<Scalar>(a, inverse, tmp.data());
}

}  // namespace ngvi
