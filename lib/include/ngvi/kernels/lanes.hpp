#pragma once
/// @file
/// The lanes layout: every scalar of a replicate's state stored for L replicates side by side
/// (structure of arrays: one column of L entries per scalar), so that each vector instruction does
/// the same scalar operation for L replicates (optim/steppers/ngd_lanes.hpp). Symmetric d × d
/// matrices are kept as their packed lower triangle, column by column.
#include <Eigen/Core>
#include <vector>

#include "ngvi/scalar/types.hpp"

namespace ngvi::kernels {

/// Lanes per group: 8 doubles fill one AVX-512 register.
inline constexpr int kLanes = 8;

template <class Scalar, int L = kLanes>
using LaneColumns = Eigen::Array<Scalar, L, Eigen::Dynamic>;
template <class Scalar, int L = kLanes>
using LaneColumn = Eigen::Array<Scalar, L, 1>;

/// Packed lower triangle of an order-d symmetric matrix, column by column: entry (i, j), i ≥ j, at
/// column at(i, j); the table is symmetric, so at(j, i) gives the same column.
class PackedLower {
 public:
  explicit PackedLower(Index d) : d_(d), p_(d * (d + 1) / 2), sym_(static_cast<std::size_t>(d * d)) {
    for (Index j = 0, q = 0; j < d; ++j)
      for (Index i = j; i < d; ++i, ++q) sym_[static_cast<std::size_t>(i + j * d)] = sym_[static_cast<std::size_t>(j + i * d)] = q;
  }
  Index dim() const { return d_; }
  /// Number of packed entries d(d + 1)/2.
  Index size() const { return p_; }
  Index at(Index i, Index j) const { return sym_[static_cast<std::size_t>(i + j * d_)]; }

 private:
  Index d_, p_;
  std::vector<Index> sym_;
};

}  // namespace ngvi::kernels
