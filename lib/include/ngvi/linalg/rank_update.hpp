#pragma once
/// @file
/// The mini-batch Gram product of the NGD hot loop: the lower triangle of c += α·X·Xᵀ for a d × M
/// batch X, as symmetric rank updates (Eigen's selfadjointView().rankUpdate) over blocks of at most
/// kRankUpdateDepth columns of X.
///
/// Why blocks: Eigen's product kernels pack their operands into buffers that they take from the
/// stack up to EIGEN_STACK_ALLOCATION_LIMIT (128 KB) and from the heap above it. With the whole
/// batch as the inner dimension, d = 100, M = 256 packs 100 × 256 doubles (200 KB) and so made two
/// heap allocations per step; depending on the allocator's state (glibc returns the freed top of
/// the heap to the system past its trim threshold), that doubled the product's time in one
/// measurement (112 µs against 54 µs, with 14,618 brk calls). Blocks of 128 columns keep the packed
/// operand at d × 128 doubles, on the stack up to d = 128, at the same speed (53.7 µs at d = 100,
/// M = 256).
///
/// From order kTiledOrder (linalg/tiles.hpp), symmetric_gram splits the product into column tiles
/// that a parallel::TilePool can share out; each tile keeps the blocks of kRankUpdateDepth columns,
/// and the panel below its diagonal block is taken in blocks of kGramPanelRows rows, so that the
/// packed panel rows stay on the stack too: the Gram product makes no heap allocation at any order.
///
/// Small batches are the exception (symmetric_gram): for x with at most kGeneralGramEntries
/// entries, one general product x·xᵀ into the whole matrix is faster than the rank update despite
/// its twice as many multiply-adds, because the rank update's fixed cost dominates there (at d = 10,
/// M = 32: 229 ns against 321 ns, in isolation, medians).
#include <Eigen/Core>
#include <algorithm>

#include "ngvi/linalg/validate.hpp"
#include "ngvi/linalg/tiles.hpp"
#include "ngvi/scalar/types.hpp"

namespace ngvi {

/// Largest number of columns of X in one rank update (see the file comment).
inline constexpr Index kRankUpdateDepth = 128;

/// Lower triangle of c += alpha·x·xᵀ (c square, of order x.rows()); the strict upper triangle of
/// `c` is not touched. The columns of x are taken in order, in blocks of kRankUpdateDepth.
template <class Scalar>
void lower_rank_update(Mat<Scalar>& c, const Mat<Scalar>& x, const Scalar& alpha) {
  const Index m = x.cols();
  for (Index k0 = 0; k0 < m; k0 += kRankUpdateDepth) {
    const Index k = std::min(kRankUpdateDepth, m - k0);
    c.template selfadjointView<Eigen::Lower>().rankUpdate(x.middleCols(k0, k), alpha);
  }
}

/// Largest number of entries of x for which symmetric_gram takes the general product. Measured in
/// isolation (bench/README.md): the general product is faster at d·M = 128 … 1024 (d = 4 … 32 at
/// M = 32, d = 4 at M = 256) and slower from d·M = 1536 (d = 48 at M = 32, d = 10 at M = 256).
inline constexpr Index kGeneralGramEntries = 1024;

/// Rows of a tile's panel in one product (detail::gram_tile): the packed block of the panel's rows
/// is at most rows × kRankUpdateDepth scalars, which is EIGEN_STACK_ALLOCATION_LIMIT at 128 rows
/// of doubles. Whole panels of more rows (from order 194 at M = 256) took their packing buffers
/// from the heap, two per step up to order 300 and ten at order 500.
template <class Scalar>
inline constexpr Index kGramPanelRows =
    std::max<Index>(1, static_cast<Index>(EIGEN_STACK_ALLOCATION_LIMIT / (kRankUpdateDepth * sizeof(Scalar))));

namespace detail {

/// Tile `t` of the lower triangle of c = alpha·x·xᵀ and its mirror: the columns J = [j0, j0 + w)
/// of the lower triangle (rows j0 … d−1), as one triangular product for the diagonal block and one
/// general product for each block of at most kGramPanelRows rows of the panel below it, over the
/// columns of x in blocks of kRankUpdateDepth (as lower_rank_update), so that every packed operand
/// fits Eigen's stack limit (a block of one row as w dot products); then those columns are copied
/// onto rows J of the upper triangle. Tiles write disjoint entries and read only x and their own
/// columns.
template <class Scalar>
void gram_tile(Mat<Scalar>& c, const Mat<Scalar>& x, const Scalar& alpha, long t) {
  const Index d = x.rows(), m = x.cols();
  const Index j0 = static_cast<Index>(t) * kTileWidth;
  const Index w = std::min(kTileWidth, d - j0);
  const Index below = d - j0 - w;
  auto diag = c.block(j0, j0, w, w);
  for (Index k0 = 0; k0 < m; k0 += kRankUpdateDepth) {
    const Index k = std::min(kRankUpdateDepth, m - k0);
    const auto xj = x.block(j0, k0, w, k);
    if (k0 == 0) diag.template triangularView<Eigen::Lower>() = (alpha * xj) * xj.transpose();
    else diag.template triangularView<Eigen::Lower>() += (alpha * xj) * xj.transpose();
    for (Index i0 = 0; i0 < below; i0 += kGramPanelRows<Scalar>) {
      const Index r = std::min(kGramPanelRows<Scalar>, below - i0);
      auto panel = c.block(j0 + w + i0, j0, r, w);
      const auto xb = x.block(j0 + w + i0, k0, r, k);
      if (r == 1) {  // a strided row times a matrix: Eigen's vector product copied the row to the heap
        for (Index j = 0; j < w; ++j) {
          const Scalar v = alpha * xb.row(0).dot(xj.row(j));
          if (k0 == 0) panel(0, j) = v;
          else panel(0, j) += v;
        }
      } else if (k0 == 0) {
        panel.noalias() = (alpha * xb) * xj.transpose();
      } else {
        panel.noalias() += (alpha * xb) * xj.transpose();
      }
    }
  }
  for (Index j = 0; j < w; ++j)
    for (Index i = 0; i < j; ++i) diag(i, j) = diag(j, i);
  if (below > 0) c.block(j0, j0 + w, w, below) = c.block(j0 + w, j0, below, w).transpose();
}

}  // namespace detail

/// c = alpha·x·xᵀ, exactly symmetric (c is resized to x.rows() square if needed):
/// - the general product for at most kGeneralGramEntries entries of x;
/// - from order kTiledOrder, column tiles of width kTileWidth (detail::gram_tile: the lower
///   triangle's M·d(d+1)/2 multiply-adds, mirrored tile by tile), on `pool` when given;
/// - otherwise lower_rank_update on a zeroed c, then the lower triangle is copied onto the upper.
/// No allocation once c is sized: below kTiledOrder for every size at which lower_rank_update
/// makes none (d ≤ 128), and at every order from kTiledOrder for scalars of at most 16 bytes
/// (double, long double).
template <class Scalar>
void symmetric_gram(Mat<Scalar>& c, const Mat<Scalar>& x, const Scalar& alpha, parallel::TilePool* pool = nullptr) {
  const Index d = x.rows();
  if (c.rows() != d || c.cols() != d) c.resize(d, d);
  if (x.size() <= kGeneralGramEntries) {
    c.noalias() = (alpha * x) * x.transpose();
  } else if (d >= kTiledOrder) {
    parallel::for_each_tile(pool, tile_count(d), [&](long t) { detail::gram_tile(c, x, alpha, t); });
    return;
  } else {
    c.setZero();
    lower_rank_update(c, x, alpha);
  }
  copy_lower_to_upper(c);
}

}  // namespace ngvi
