#pragma once
/// @file
/// The column tiles into which the products of large order are split, so that a
/// parallel::TilePool can share them out: symmetric_gram (kernels/rank_update.hpp) and the block
/// sweep's products (kernels/spd_inverse.hpp).
///
/// Within a tile, every product is taken in blocks of at most kRankUpdateDepth inner indices and
/// kTilePanelRows rows (detail::blocked_product, detail::blocked_lower_product), because Eigen's
/// product kernels pack their operands into buffers that they take from the stack up to
/// EIGEN_STACK_ALLOCATION_LIMIT (128 KB) and from the heap above it. Bounded blocks keep every
/// packed operand on the stack, so the tiled products make no heap allocation at any order.
#include <Eigen/Core>
#include <algorithm>

#include "ngvi/kernels/tile_pool.hpp"
#include "ngvi/scalar/types.hpp"

namespace ngvi {

/// Width of the column tiles. From order kTiledOrder on, the tiles are used whether or not there is a pool: the tiles'
/// shapes depend on the orders only, so a result is bitwise the same for any number of threads.
inline constexpr Index kTileWidth = 64;
/// Smallest order whose products are split into tiles (two full tiles). Below it, the work of a
/// product is too small to share: at d = 100, M = 256 the whole Gram product is too short for
/// handing tiles to another thread to pay (bench/README.md has the measurement).
inline constexpr Index kTiledOrder = 2 * kTileWidth;

/// Largest inner dimension of one product of the hot loop's kernels: the columns of X in one rank
/// update (kernels/rank_update.hpp) and the inner indices of one block of a tile's product.
inline constexpr Index kRankUpdateDepth = 128;

/// Rows of one block of a tile's product: the packed block of those rows is at most rows ×
/// kRankUpdateDepth scalars, which is EIGEN_STACK_ALLOCATION_LIMIT at 128 rows of doubles.
template <class Scalar>
inline constexpr Index kTilePanelRows =
    std::max<Index>(1, static_cast<Index>(EIGEN_STACK_ALLOCATION_LIMIT / (kRankUpdateDepth * sizeof(Scalar))));

/// Number of column tiles of width kTileWidth over n columns (the last one may be narrower).
inline constexpr long tile_count(Index n) { return static_cast<long>((n + kTileWidth - 1) / kTileWidth); }

/// fn(j0, w) over the column tiles [j0, j0 + w) of n columns, on `pool` (may be null) when n is at
/// least kTiledOrder; below it, fn(0, n) once on the caller. For column-by-column passes, whose
/// entries do not depend on the split (the step's update, the average, the conversion's set-up).
namespace kernels {

/// The threads that run the tiles of one product: a handle on a parallel::TilePool, or on none
/// (the default), in which case the caller runs every tile. Code outside kernels/ holds this handle
/// (ExecutionContext::tiles, kernels/execution.hpp) and hands it to the kernels, which alone see the
/// pool. Not owned; a product is bitwise the same for any handle (the tiles' shapes depend on the
/// orders only).
class TileThreads {
 public:
  constexpr TileThreads() = default;
  constexpr explicit TileThreads(parallel::TilePool* pool) : pool_(pool) {}
  /// The pool, or nullptr for the caller alone.
  constexpr parallel::TilePool* pool() const { return pool_; }

 private:
  parallel::TilePool* pool_ = nullptr;
};

}  // namespace kernels

template <class Fn>
void for_each_column_tile(parallel::TilePool* pool, Index n, Fn&& fn) {
  if (n < kTiledOrder) {
    fn(Index(0), n);
    return;
  }
  parallel::for_each_tile(pool, tile_count(n), [&](long t) {
    const Index j0 = static_cast<Index>(t) * kTileWidth;
    fn(j0, std::min(kTileWidth, n - j0));
  });
}

/// for_each_column_tile on the threads of a handle.
template <class Fn>
void for_each_column_tile(kernels::TileThreads threads, Index n, Fn&& fn) {
  for_each_column_tile(threads.pool(), n, static_cast<Fn&&>(fn));
}

namespace detail {

/// dst = alpha·p·q, or dst += alpha·p·q when `accumulate`, for p of r × k and q of k × w, in blocks
/// of at most kRankUpdateDepth inner indices (in order) and kTilePanelRows<Scalar> rows, so that
/// every packed operand fits Eigen's stack limit. A block of one row goes as w dot products: as a
/// vector product, Eigen copied the strided row to the heap. `dst` is a writable block (a view).
template <class Scalar, class Dst, class P, class Q>
void blocked_product(Dst dst, const P& p, const Q& q, const Scalar& alpha, bool accumulate) {
  const Index rows = p.rows(), depth = p.cols(), w = q.cols();
  for (Index k0 = 0; k0 < depth; k0 += kRankUpdateDepth) {
    const Index k = std::min(kRankUpdateDepth, depth - k0);
    const bool add = accumulate || k0 > 0;
    const auto qb = q.middleRows(k0, k);
    for (Index i0 = 0; i0 < rows; i0 += kTilePanelRows<Scalar>) {
      const Index r = std::min(kTilePanelRows<Scalar>, rows - i0);
      auto db = dst.middleRows(i0, r);
      const auto pb = p.block(i0, k0, r, k);
      if (r == 1) {
        for (Index j = 0; j < w; ++j) {
          const Scalar v = alpha * pb.row(0).dot(qb.col(j));
          if (add) db(0, j) += v;
          else db(0, j) = v;
        }
      } else if (add) {
        db.noalias() += (alpha * pb) * qb;
      } else {
        db.noalias() = (alpha * pb) * qb;
      }
    }
  }
}

/// The lower triangle of dst = alpha·p·q, or of dst += alpha·p·q when `accumulate`, for a square
/// dst of order w ≤ kTileWidth (p: w × k, q: k × w), in blocks of at most kRankUpdateDepth inner
/// indices, in order; the strict upper triangle of dst is not touched.
template <class Scalar, class Dst, class P, class Q>
void blocked_lower_product(Dst dst, const P& p, const Q& q, const Scalar& alpha, bool accumulate) {
  const Index depth = p.cols();
  for (Index k0 = 0; k0 < depth; k0 += kRankUpdateDepth) {
    const Index k = std::min(kRankUpdateDepth, depth - k0);
    const auto pb = p.middleCols(k0, k);
    const auto qb = q.middleRows(k0, k);
    if (accumulate || k0 > 0) dst.template triangularView<Eigen::Lower>() += (alpha * pb) * qb;
    else dst.template triangularView<Eigen::Lower>() = (alpha * pb) * qb;
  }
}

/// Tile `t` of a product with a symmetric result: the columns J = [j0, j0 + w) of the lower
/// triangle of the order-n matrix c = alpha·p·q, or c += alpha·p·q when `accumulate` (p: n × k,
/// q: k × n), as blocked_lower_product for the diagonal block and blocked_product for the panel
/// below it; then, when `mirror`, those columns are copied onto rows J of the upper triangle. Tiles
/// write disjoint entries and read only p, q and their own columns of c.
template <class Scalar, class C, class P, class Q>
void lower_product_tile(C& c, const P& p, const Q& q, const Scalar& alpha, bool accumulate, bool mirror, long t) {
  const Index n = c.rows();
  const Index j0 = static_cast<Index>(t) * kTileWidth;
  const Index w = std::min(kTileWidth, n - j0);
  const Index below = n - j0 - w;
  const auto qj = q.middleCols(j0, w);
  blocked_lower_product(c.block(j0, j0, w, w), p.middleRows(j0, w), qj, alpha, accumulate);
  if (below > 0) blocked_product(c.block(j0 + w, j0, below, w), p.middleRows(j0 + w, below), qj, alpha, accumulate);
  if (!mirror) return;
  auto diag = c.block(j0, j0, w, w);
  for (Index j = 0; j < w; ++j)
    for (Index i = 0; i < j; ++i) diag(i, j) = diag(j, i);
  if (below > 0) c.block(j0, j0 + w, w, below) = c.block(j0 + w, j0, below, w).transpose();
}

}  // namespace detail

}  // namespace ngvi
