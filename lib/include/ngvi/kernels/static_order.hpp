#pragma once
/// @file
/// Dispatch of a run-time order d to a compile-time one, for the small-d passes of the NGD hot loop
/// (the Theorem 1 workload runs at d = 10). At a compile-time order Eigen unrolls and vectorises a
/// column of d entries without a scalar tail, and copies it without a call to memcpy, which makes
/// the batch gather with ĝ₁ = X_b y_b and the average's pass cheaper at d = 10, M = 32
/// (bench/README.md has the measurements).
#include "ngvi/scalar/types.hpp"

namespace ngvi {

/// Largest order the hot loop's passes dispatch to a compile-time order.
inline constexpr int kStaticOrderMax = 16;

/// Calls fn.template operator()<N>() with N = d when 1 ≤ d ≤ kMax and returns true; returns false
/// without calling fn for any other d.
template <int kMax, int N = 1, class Fn>
bool with_static_order(Index d, Fn&& fn) {
  if constexpr (N > kMax) {
    return false;
  } else {
    if (d == N) {
      fn.template operator()<N>();
      return true;
    }
    return with_static_order<kMax, N + 1>(d, fn);
  }
}

}  // namespace ngvi
