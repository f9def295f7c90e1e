#pragma once
/// @file
/// Runs R independent replicates on a pool of threads. Replicate r receives its index and writes
/// only its own result slot, and every random draw it makes comes from `random::Stream(seed, r)`, so
/// the results are bitwise identical for any thread count.
#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace ngvi::parallel {

/// Number of hardware threads (at least 1).
inline int hardware_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

/// Calls fn(r) for r = 0 … count−1 on `threads` worker threads (0 = all cores) and returns the
/// results in replicate order. The first exception thrown by any replicate is rethrown after all
/// workers have stopped.
/// @throws std::invalid_argument if threads < 0.
template <class Fn>
auto run_replicates(long count, int threads, Fn&& fn) -> std::vector<decltype(fn(0L))> {
  using R = decltype(fn(0L));
  if (threads < 0) throw std::invalid_argument("ngvi::parallel::run_replicates: argument 'threads' must be >= 0");
  if (count < 0) throw std::invalid_argument("ngvi::parallel::run_replicates: argument 'count' must be >= 0");
  std::vector<R> out(static_cast<std::size_t>(count));
  const int n = std::max(1, std::min<int>(threads == 0 ? hardware_threads() : threads, static_cast<int>(std::max(1L, count))));
  std::atomic<long> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto worker = [&] {
    for (long r; (r = next.fetch_add(1)) < count;) {
      try {
        out[static_cast<std::size_t>(r)] = fn(r);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        next = count;
      }
    }
  };
  if (n == 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    pool.reserve(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
  }
  if (error) std::rethrow_exception(error);
  return out;
}

}  // namespace ngvi::parallel
