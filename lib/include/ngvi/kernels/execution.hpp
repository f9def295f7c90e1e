#pragma once
/// @file
/// The execution context of a trajectory: which threads the work inside one step may use, and
/// whether the estimate of the next step may run beside this step's conversion and average. A
/// stepper holds one (optim/engine.hpp asks it through `execution()`); the mathematical routines
/// take none. Results are bitwise the same for every context: the tiles' shapes depend on the
/// orders only (kernels/tiles.hpp), and the overlap runs the sequential loop's work in its order
/// within each task.
#include <exception>
#include <utility>

#include "ngvi/kernels/tile_pool.hpp"
#include "ngvi/kernels/tiles.hpp"

namespace ngvi::kernels {

/// Smallest order at which a step pool overlaps the next estimate with the conversion; below it
/// one step is too short for handing half of it to another thread to pay (bench/README.md).
inline constexpr Index kOverlapMinOrder = 16;

struct ExecutionContext {
  /// Threads for the work inside one step, the caller's included; nullptr runs it on the caller.
  /// From order kTiledOrder they share the tiles of the step's products; below it (from
  /// kOverlapMinOrder) two of them overlap the estimate of the next step with this step's
  /// conversion and average. Not owned; one trajectory at a time may use a pool.
  parallel::TilePool* pool = nullptr;
  /// Allow that overlap (it changes no result; off, a pool below kTiledOrder is not used).
  bool overlap_estimate = true;

  /// True when a step at order d overlaps the estimate ĝ_{t+1} with the conversion and average of
  /// step t: a pool of two threads or more, an average that needs a conversion, and
  /// kOverlapMinOrder ≤ d < kTiledOrder (from kTiledOrder the pool takes the tiles instead).
  bool overlaps(Index d, bool converts) const {
    return overlap_estimate && converts && pool != nullptr && pool->threads() >= 2 && d >= kOverlapMinOrder && d < kTiledOrder;
  }
  /// The threads for the tiles of the step's products at order d: the caller alone when the pool
  /// overlaps instead.
  TileThreads tiles(Index d, bool converts) const { return TileThreads(overlaps(d, converts) ? nullptr : pool); }
};

/// The sequential context: everything on the calling thread.
inline ExecutionContext sequential() { return {}; }

/// finish() and next() at once, as the two tasks of one run of `pool`; returns finish()'s value.
/// An exception from finish() propagates; one from next() is handed back in `next_error`, so that
/// the caller raises errors in the sequential loop's order (the conversion of step t before the
/// estimate of step t + 1). next() is task 0, which the calling thread, already running, claims
/// first in practice: with M ≥ d the estimate is the longer task.
template <class Finish, class Next>
bool finish_beside_next(parallel::TilePool& pool, Finish&& finish, Next&& next, std::exception_ptr& next_error) {
  bool ok = false;
  std::exception_ptr finish_error;
  pool.run(2, [&](long task) {
    try {
      if (task == 1) ok = finish();
      else next();
    } catch (...) {
      (task == 1 ? finish_error : next_error) = std::current_exception();
    }
  });
  if (finish_error) std::rethrow_exception(finish_error);
  return ok;
}

}  // namespace ngvi::kernels
