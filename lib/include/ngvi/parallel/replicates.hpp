#pragma once
/// @file
/// Runs R independent replicates on a pool of threads, and across processes when a process group
/// is installed. Replicate r receives its index and writes only its own result slot, and every
/// random draw it makes comes from `random::Stream(seed, r)`, so the results are bitwise identical
/// for any thread count and any number of processes.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace ngvi::parallel {

/// A group of processes that share replicate work (the ngvi command installs an MPI communicator
/// when it runs under mpirun). Rank k of P computes the contiguous block of replicates
/// [k·R/P, (k+1)·R/P) and `all_gather` hands every rank the blocks of all ranks in rank order, so
/// every rank ends with the full, ordered result vector.
class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// Concatenates every rank's bytes in rank order, on every rank.
  virtual std::vector<std::byte> all_gather(const std::vector<std::byte>& mine) = 0;
};

namespace detail {
inline ProcessGroup*& group_slot() {
  static ProcessGroup* g = nullptr;
  return g;
}
}  // namespace detail

/// Installs (or, with nullptr, removes) the process group used by run_replicates. Call it once,
/// before any replicates run; the group must outlive every call.
inline void set_process_group(ProcessGroup* g) { detail::group_slot() = g; }
inline ProcessGroup* process_group() { return detail::group_slot(); }

/// Number of hardware threads (at least 1).
inline int hardware_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

/// Calls fn(r) for r = 0 … count−1 on `threads` worker threads (0 = all cores) and returns the
/// results in replicate order. The first exception thrown by any replicate is rethrown after all
/// workers have stopped.
/// @throws std::invalid_argument if threads < 0.
template <class Fn>
auto run_replicates_local(long first, long count, int threads, Fn&& fn) -> std::vector<decltype(fn(0L))> {
  using R = decltype(fn(0L));
  std::vector<R> out(static_cast<std::size_t>(count));
  const int n = std::max(1, std::min<int>(threads == 0 ? hardware_threads() : threads, static_cast<int>(std::max(1L, count))));
  std::atomic<long> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto worker = [&] {
    for (long r; (r = next.fetch_add(1)) < count;) {
      try {
        out[static_cast<std::size_t>(r)] = fn(first + r);
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

/// Calls fn(r) for r = 0 … count−1 on `threads` worker threads per process (0 = all cores) and
/// returns the results in replicate order. With a process group of P > 1 ranks installed and a
/// trivially copyable result type, each rank computes its block and the blocks are gathered; every
/// rank returns the same vector. The first exception thrown by any replicate is rethrown (on every
/// rank, as std::runtime_error on the ranks where it did not occur) after all workers have stopped.
/// @throws std::invalid_argument if threads < 0 or count < 0.
template <class Fn>
auto run_replicates(long count, int threads, Fn&& fn) -> std::vector<decltype(fn(0L))> {
  using R = decltype(fn(0L));
  if (threads < 0) throw std::invalid_argument("ngvi::parallel::run_replicates: argument 'threads' must be >= 0");
  if (count < 0) throw std::invalid_argument("ngvi::parallel::run_replicates: argument 'count' must be >= 0");
  ProcessGroup* g = process_group();
  if constexpr (std::is_trivially_copyable_v<R>) {
    if (g != nullptr && g->size() > 1) {
      const long p = g->size(), k = g->rank();
      const long lo = count * k / p, hi = count * (k + 1) / p;
      std::vector<R> mine;
      std::string failure;
      try {
        mine = run_replicates_local(lo, hi - lo, threads, fn);
      } catch (const std::exception& e) {
        failure = e.what();
      }
      // Each rank sends a status byte, then its results (or nothing after a failure).
      std::vector<std::byte> bytes(1 + (failure.empty() ? mine.size() * sizeof(R) : 0));
      bytes[0] = std::byte(failure.empty() ? 0 : 1);
      if (failure.empty() && !mine.empty()) std::memcpy(bytes.data() + 1, mine.data(), mine.size() * sizeof(R));
      const std::vector<std::byte> all = g->all_gather(bytes);
      std::vector<R> out(static_cast<std::size_t>(count));
      std::size_t pos = 0;
      bool any_failed = false;
      for (long r = 0; r < p; ++r) {
        const long n_r = count * (r + 1) / p - count * r / p;
        if (all.at(pos) != std::byte(0)) {
          any_failed = true;
          pos += 1;
          continue;
        }
        std::memcpy(out.data() + count * r / p, all.data() + pos + 1, static_cast<std::size_t>(n_r) * sizeof(R));
        pos += 1 + static_cast<std::size_t>(n_r) * sizeof(R);
      }
      if (!failure.empty()) throw std::runtime_error(failure);
      if (any_failed) throw std::runtime_error("ngvi::parallel::run_replicates: a replicate failed on another rank");
      return out;
    }
  }
  return run_replicates_local(0, count, threads, fn);
}

}  // namespace ngvi::parallel
