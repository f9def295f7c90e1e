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
/// the heap to the system past its trim threshold), each allocation can then cost a brk system
/// call, which made the product much slower in one measurement. Blocks of 128 columns keep the
/// packed operand at d × 128 doubles, on the stack up to d = 128, at the speed of the
/// allocation-free product. bench/README.md has the measurements.
///
/// From order kTiledOrder (kernels/tiles.hpp), symmetric_gram splits the product into column tiles
/// that a parallel::TilePool can share out; each tile keeps the blocks of kRankUpdateDepth columns,
/// and the panel below its diagonal block is taken in blocks of kTilePanelRows rows, so that the
/// packed panel rows stay on the stack too: the Gram product makes no heap allocation at any order.
///
/// Small batches are the exception (symmetric_gram): for x with at most kGeneralGramEntries
/// entries, one general product x·xᵀ into the whole matrix is faster than the rank update despite
/// its twice as many multiply-adds, because the rank update's fixed cost dominates there
/// (bench/README.md has the measurements).
#include <Eigen/Core>
#include <algorithm>

#include "ngvi/linalg/validate.hpp"
#include "ngvi/kernels/tiles.hpp"
#include "ngvi/scalar/types.hpp"

namespace ngvi {

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

/// c = alpha·x·xᵀ, exactly symmetric (c is resized to x.rows() square if needed):
/// - the general product for at most kGeneralGramEntries entries of x;
/// - from order kTiledOrder, column tiles of width kTileWidth (detail::lower_product_tile on x and
///   xᵀ: the lower triangle's M·d(d+1)/2 multiply-adds, mirrored tile by tile), on `pool` when
///   given;
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
    parallel::for_each_tile(pool, tile_count(d), [&](long t) {
      detail::lower_product_tile(c, x, x.transpose(), alpha, /*accumulate=*/false, /*mirror=*/true, t);
    });
    return;
  } else {
    c.setZero();
    lower_rank_update(c, x, alpha);
  }
  copy_lower_to_upper(c);
}

/// symmetric_gram on the threads of a handle.
template <class Scalar>
void symmetric_gram(Mat<Scalar>& c, const Mat<Scalar>& x, const Scalar& alpha, kernels::TileThreads threads) {
  symmetric_gram(c, x, alpha, threads.pool());
}

}  // namespace ngvi
