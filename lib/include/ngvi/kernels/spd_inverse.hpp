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
///   each sweep is d independent full-column multiply-adds, where the Cholesky route's
///   sqrt → divide → multiply-add chain is latency-bound at small d. At d = 10 it beat the Cholesky
///   route at the same compile-time order (bench/README.md has the measurement), with the same
///   accuracy against a spectral reference up to κ = 1e12.
/// - Orders up to kSpdInverseLeaf, software scalars (mp50 and the like): the root-free unblocked
///   form, A = LDLᵀ with unit L (d divisions, no square roots), W = L⁻¹ (no divisions) and
///   A⁻¹ = WᵀD⁻¹W: d³/2 multiply-adds plus d²/2 multiplications. In mp50 that saves the d square
///   roots of a Cholesky route, about 50 multiplications each. Every loop is an axpy over a
///   contiguous column, so its multiply-adds are independent of each other: the dot-product forms
///   wait on the latency of the previous multiply-add at every term, which made the conversion
///   latency-bound at d = 10 (bench/README.md).
/// - Larger orders (hardware floating point from kSpdSweepMaxOrder + 1, software scalars from
///   kSpdInverseLeaf + 1): the block form of the sweep, by recursion on halves. With
///   A = [[A₁₁, A₂₁ᵀ], [A₂₁, A₂₂]], X = A₁₁⁻¹, Y = A₂₁X, the Schur complement C = A₂₂ − YA₂₁ᵀ and
///   Z = C⁻¹,
///       A⁻¹ = [[X + YᵀZY, −(ZY)ᵀ], [−ZY, Z]],
///   with X and Z inverted by the same recursion down to blocks of order ≤ kSpdBlockLeaf, which
///   take the sweep (hardware floating point) or the unblocked route (software scalars). Each leaf
///   is a diagonal block of a Schur complement of A, so its pivots are A's d_k, in order, and the
///   test of positive definiteness is the same. Every level does two matrix products (YᵀZY's inner
///   ZY and Y) and two products with a symmetric result (C and X + YᵀZY), about 3h³ multiply-adds
///   for halves of order h; the total is d³/2, as for Cholesky, trtri and lauum, and all of it
///   except the leaves is in Eigen's matrix-product kernels; at d = 100 and 500 it beat Eigen's
///   LLT followed by a recursive triangular inverse and WᵀW (bench/README.md has the
///   measurements). lib/tests/kernels/spd_inverse_test.cpp holds every route to the same
///   forward-error budget c·d·u·κ against a spectral reference, up to κ = 1e8.
///
/// Tiles. Where both halves of a level are wider than one tile (kTileWidth = 64 columns,
/// kernels/tiles.hpp; from order 137), that level's four products are split into column tiles of
/// their results, and a parallel::TilePool shares them out when one is given. Within a tile the
/// products go in blocks of bounded rows and inner dimension (kernels/tiles.hpp), so that no packed
/// operand leaves the stack. The split depends on the orders only, so the inverse is bitwise the
/// same for any pool or none.
#include <Eigen/Core>
#include <cmath>
#include <type_traits>

#include "ngvi/kernels/tiles.hpp"
#include "ngvi/linalg/validate.hpp"

namespace ngvi {
namespace detail {

/// Software scalars: at or below this order the unblocked root-free route inverts the whole
/// matrix. In mp50 it beats the block sweep up to here, Eigen's generic products with software
/// scalars being the slower part. In double the block sweep is taken from order 17: with unblocked
/// leaves it was already the cheaper route from order 20. bench/README.md has the measurements.
inline constexpr Index kSpdInverseLeaf = 32;

/// Order of the diagonal blocks at which the block sweep stops recursing. In double the leaves
/// are swept at a compile-time order, which beats the unblocked route on a block of order 16, and
/// 16 beat 24 as the leaf bound at d = 100, 200 and 500 (bench/README.md has the measurements).
inline constexpr Index kSpdBlockLeaf = 16;
static_assert(kSpdBlockLeaf >= 8, "the block sweep's split point assumes blocks above order 8");

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

/// Largest order inverted by the sweep (hardware floating-point types only): the whole matrix up
/// to this order, and every leaf of the block sweep.
inline constexpr Index kSpdSweepMaxOrder = 16;
static_assert(kSpdBlockLeaf <= kSpdSweepMaxOrder, "the block sweep's leaves must be within the sweep's orders");

/// The sweep at compile-time order N on the full symmetric matrix at `a_data` (both triangles read
/// and overwritten), column stride `a_stride`; writes A⁻¹, exactly symmetric, at `s_data`, column
/// stride `s_stride`. kBlock: the matrices are blocks of larger ones (the block sweep's leaves), so
/// the strides are run-time values; otherwise they are whole N × N matrices and the strides, which
/// must then be N, are compile-time constants. That keeps the whole-matrix route's addressing fixed:
/// through the block form, with run-time strides, it was slower at d = 10 and d = 3
/// (bench/README.md has the measurements).
/// Returns false at the first pivot that is not positive and finite.
template <class Scalar, int N, bool kBlock>
bool spd_inverse_sweep(Scalar* a_data, Index a_stride, Scalar* s_data, Index s_stride) {
  using Matrix = Eigen::Matrix<Scalar, N, N>;
  using Vector = Eigen::Matrix<Scalar, N, 1>;
  using Stride = Eigen::OuterStride<kBlock ? Eigen::Dynamic : N>;
  using Map = Eigen::Map<Matrix, Eigen::Unaligned, Stride>;
  Map a(a_data, N, N, Stride(a_stride));
  Map s(s_data, N, N, Stride(s_stride));
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

/// Dispatches order d ∈ [1, kSpdSweepMaxOrder] to its compile-time sweep (kBlock as there).
template <class Scalar, bool kBlock, int N = 1>
bool spd_inverse_sweep_dispatch(Index d, Scalar* a, Index a_stride, Scalar* s, Index s_stride) {
  if constexpr (N > kSpdSweepMaxOrder) {
    return false;
  } else {
    if (d != N) return spd_inverse_sweep_dispatch<Scalar, kBlock, N + 1>(d, a, a_stride, s, s_stride);
    return spd_inverse_sweep<Scalar, N, kBlock>(a, a_stride, s, s_stride);
  }
}

/// The sweep on an order-d block (d ≤ kSpdSweepMaxOrder) whose lower triangle holds A: mirrors
/// it (the strict upper triangle of `a` is scratch) and writes A⁻¹ into `s`.
template <class Scalar>
bool spd_inverse_sweep_block(Eigen::Ref<Mat<Scalar>> a, Eigen::Ref<Mat<Scalar>> s) {
  copy_lower_to_upper(a);
  return spd_inverse_sweep_dispatch<Scalar, true>(a.rows(), a.data(), a.outerStride(), s.data(), s.outerStride());
}

/// The block sweep (see the file comment): A⁻¹, exactly symmetric (both triangles), into `s` from
/// the lower triangle of `a`, which is overwritten (its lower-right blocks take the Schur
/// complements) and whose strict upper triangle is not read (in double, the leaves' diagonal blocks
/// of it are scratch for the sweep); `r` is scratch of kSpdBlockLeaf entries; `pool` (may be null)
/// runs the tiles of the levels that are split (see the file comment). The split point is
/// rounded to a multiple of 8 so that the blocks' columns start on vector boundaries. On the levels
/// that are not tiled, the products with a symmetric result go to Eigen's triangular-result product
/// in one piece: it does half the work of a full matrix product at a somewhat lower rate, and
/// splitting it into halves gained nothing at d = 200 and 500 (bench/README.md has the
/// measurements). While X + YᵀZY is pending, Yᵀ waits in the
/// upper-right block of `s`, which is written last; no other storage is needed. Returns false at
/// the first leaf pivot that is not positive and finite.
template <class Scalar>
bool spd_inverse_block_sweep(Eigen::Ref<Mat<Scalar>> a, Eigen::Ref<Mat<Scalar>> s, Scalar* r, parallel::TilePool* pool) {
  const Index n = a.rows();
  if (n <= kSpdBlockLeaf) {
    if constexpr (std::is_floating_point_v<Scalar>) return spd_inverse_sweep_block<Scalar>(a, s);
    return spd_inverse_unblocked<Scalar>(a, s, r);
  }
  const Index h = (n / 2 + 4) / 8 * 8;  // n > kSpdBlockLeaf ≥ 8, so 8 ≤ h ≤ n/2 + 4 < n
  const Index m = n - h;
  auto x = s.topLeftCorner(h, h);
  auto yt = s.topRightCorner(h, m);
  auto zy = s.bottomLeftCorner(m, h);
  auto z = s.bottomRightCorner(m, m);
  auto c = a.bottomRightCorner(m, m);
  const auto a21 = a.bottomLeftCorner(m, h);
  // Both halves wider than one tile: every product below is split into column tiles (see
  // kernels/tiles.hpp); the split depends on h and m only.
  const bool tiled = std::min(h, m) > kTileWidth;
  if (!spd_inverse_block_sweep<Scalar>(a.topLeftCorner(h, h), x, r, pool)) return false;
  if (tiled) {
    parallel::for_each_tile(pool, tile_count(m), [&](long t) {  // Yᵀ = X A₂₁ᵀ, by columns of Yᵀ
      const Index j0 = static_cast<Index>(t) * kTileWidth, w = std::min(kTileWidth, m - j0);
      blocked_product(yt.middleCols(j0, w), x, a21.middleRows(j0, w).transpose(), Scalar(1), /*accumulate=*/false);
    });
    parallel::for_each_tile(pool, tile_count(m), [&](long t) {  // C = A₂₂ − A₂₁ Yᵀ, by columns of C
      lower_product_tile(c, a21, yt, Scalar(-1), /*accumulate=*/true, /*mirror=*/false, t);
    });
  } else {
    yt.noalias() = x * a21.transpose();                               // Yᵀ = X A₂₁ᵀ
    c.template triangularView<Eigen::Lower>() -= a21 * yt;           // C = A₂₂ − A₂₁ Yᵀ
  }
  if (!spd_inverse_block_sweep<Scalar>(c, z, r, pool)) return false;
  if (tiled) {
    parallel::for_each_tile(pool, tile_count(h), [&](long t) {  // −ZY, by columns
      const Index j0 = static_cast<Index>(t) * kTileWidth, w = std::min(kTileWidth, h - j0);
      blocked_product(zy.middleCols(j0, w), z, yt.middleRows(j0, w).transpose(), Scalar(-1), /*accumulate=*/false);
    });
    // X + YᵀZY by columns of X, each tile then mirrored onto its rows of the upper triangle (no
    // tile reads the upper triangle of X).
    parallel::for_each_tile(pool, tile_count(h), [&](long t) {
      lower_product_tile(x, yt, zy, Scalar(-1), /*accumulate=*/true, /*mirror=*/true, t);
    });
    // Yᵀ's place takes −(ZY)ᵀ once every tile above has read Yᵀ.
    parallel::for_each_tile(pool, tile_count(m), [&](long t) {
      const Index j0 = static_cast<Index>(t) * kTileWidth, w = std::min(kTileWidth, m - j0);
      yt.middleCols(j0, w) = zy.middleRows(j0, w).transpose();
    });
    return true;
  }
  zy.noalias() = (-z) * yt.transpose();  // −ZY: the sign goes into the product's factor, no temporary
  x.template triangularView<Eigen::Lower>() -= yt * zy;  // X + YᵀZY
  copy_lower_to_upper(x);
  yt = zy.transpose();
  return true;
}

}  // namespace detail

/// A⁻¹ for symmetric positive-definite A, exactly symmetric, with no allocation once the arguments
/// are sized (d × d each) and no square roots.
///
/// Reads the lower triangle of `a` and overwrites `a` with scratch; writes A⁻¹ into `inverse`;
/// `tmp` is scratch. From order 137 the block sweep's products are tiled, and `pool` (may be null)
/// runs the tiles; the result does not depend on it. Returns false, leaving `inverse` unspecified, if a pivot d_k of A = LDLᵀ is not
/// positive and finite (A not positive definite in working precision). Nothing else is validated:
/// this is the hot loop's routine; `SpdFactor` is the validating entry point.
template <class Scalar>
bool spd_inverse_in_place(Mat<Scalar>& a, Mat<Scalar>& inverse, Mat<Scalar>& tmp, parallel::TilePool* pool = nullptr) {
  const Index d = a.rows();
  if (d == 0) return true;
  if constexpr (std::is_floating_point_v<Scalar>) {
    if (d <= detail::kSpdSweepMaxOrder) {
      copy_lower_to_upper(a);
      return detail::spd_inverse_sweep_dispatch<Scalar, false>(d, a.data(), d, inverse.data(), d);
    }
    return detail::spd_inverse_block_sweep<Scalar>(a, inverse, tmp.data(), pool);
  } else {
    if (d > detail::kSpdInverseLeaf) return detail::spd_inverse_block_sweep<Scalar>(a, inverse, tmp.data(), pool);
    return detail::spd_inverse_unblocked<Scalar>(a, inverse, tmp.data());
  }
}

/// spd_inverse_in_place on the threads of a handle.
template <class Scalar>
bool spd_inverse_in_place(Mat<Scalar>& a, Mat<Scalar>& inverse, Mat<Scalar>& tmp, kernels::TileThreads threads) {
  return spd_inverse_in_place(a, inverse, tmp, threads.pool());
}

#ifdef NGVI_EXTERN_TEMPLATES
// In-tree targets take these instantiations (and the sweeps at each compile-time order) from
// lib/src/hot_loop_instantiations_*.cpp.
extern template bool spd_inverse_in_place<double>(Mat<double>&, Mat<double>&, Mat<double>&, parallel::TilePool*);
extern template bool spd_inverse_in_place<mp50>(Mat<mp50>&, Mat<mp50>&, Mat<mp50>&, parallel::TilePool*);
#endif

}  // namespace ngvi
