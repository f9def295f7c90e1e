#pragma once
/// @file
/// The column tiles into which the products of large order are split, so that a
/// parallel::TilePool can share them out: symmetric_gram (linalg/rank_update.hpp) and the block
/// sweep's products (linalg/spd_inverse.hpp).
#include <algorithm>

#include "ngvi/parallel/tile_pool.hpp"
#include "ngvi/scalar/types.hpp"

namespace ngvi {

/// Width of the column tiles. From order kTiledOrder on, the tiles are used whether or not there is a pool: the tiles'
/// shapes depend on the orders only, so a result is bitwise the same for any number of threads.
inline constexpr Index kTileWidth = 64;
/// Smallest order whose products are split into tiles (two full tiles). Below it, the work of a
/// product is too small to share: at d = 100, M = 256 the whole Gram product took 41 µs.
inline constexpr Index kTiledOrder = 2 * kTileWidth;

/// Number of column tiles of width kTileWidth over n columns (the last one may be narrower).
inline constexpr long tile_count(Index n) { return static_cast<long>((n + kTileWidth - 1) / kTileWidth); }

/// fn(j0, w) over the column tiles [j0, j0 + w) of n columns, on `pool` (may be null) when n is at
/// least kTiledOrder; below it, fn(0, n) once on the caller. For column-by-column passes, whose
/// entries do not depend on the split (the step's update, the average, the conversion's set-up).
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

}  // namespace ngvi
