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
/// Above that order the kernels still take their buffers from the heap (bench/README.md).
#include <Eigen/Core>
#include <algorithm>

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

}  // namespace ngvi
