#pragma once
/// @file
/// What a worker thread of the kit's pools releases when it ends.
#include <mpfr.h>

#include <thread>
#include <utility>

namespace ngvi::parallel {

/// Frees the calling thread's MPFR caches when it goes out of scope. MPFR keeps constants (π, log 2,
/// ...) and the tables of some functions (mpfr_exp_2's) in thread-local storage and frees them only
/// on request, so a worker thread that evaluated an mpfr50 or mpfi50 function and then ended would
/// leave them allocated and unreachable (LeakSanitizer's "direct leak" under `make asan`). Threads
/// started by worker_thread hold one.
class ThreadCacheRelease {
 public:
  ThreadCacheRelease() = default;
  ThreadCacheRelease(const ThreadCacheRelease&) = delete;
  ThreadCacheRelease& operator=(const ThreadCacheRelease&) = delete;
  ~ThreadCacheRelease() { mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE); }
};

/// A thread running fn() that frees its MPFR caches when fn returns: how the kit's pools start workers.
template <class Fn>
std::thread worker_thread(Fn fn) {
  return std::thread([fn = std::move(fn)]() mutable {
    ThreadCacheRelease release;
    fn();
  });
}

}  // namespace ngvi::parallel
