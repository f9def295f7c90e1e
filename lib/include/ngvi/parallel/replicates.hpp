#pragma once
/// @file
/// Runs R independent replicates on a pool of threads, and across processes when a process group
/// is installed (each rank computes its share; results travel as bytes, parallel/serialise.hpp).
/// Replicate r receives its index and writes only its own result slot, and every random draw it
/// makes comes from `random::Stream(seed, r)`, so the results are bitwise identical for any thread
/// count and any number of processes.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "ngvi/parallel/serialise.hpp"
#include "ngvi/parallel/thread_exit.hpp"

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
    for (int i = 0; i < n; ++i) pool.push_back(worker_thread([&worker] { worker(); }));
    for (auto& t : pool) t.join();
  }
  if (error) std::rethrow_exception(error);
  return out;
}

/// Replicates this process has computed through run_replicates and run_replicate_groups since the
/// start (or the last reset_replicate_tally): under a process group, its share only.
inline std::atomic<long>& replicate_tally() {
  static std::atomic<long> n{0};
  return n;
}
inline void reset_replicate_tally() { replicate_tally() = 0; }

/// Every rank's replicate_tally(), in rank order ({this process's} without a process group). With a
/// process group installed this is a collective call: every rank must make it.
inline std::vector<long> replicates_per_rank() {
  ProcessGroup* g = process_group();
  const long mine = replicate_tally().load();
  if (g == nullptr || g->size() <= 1) return {mine};
  std::vector<std::byte> bytes(sizeof(long));
  std::memcpy(bytes.data(), &mine, sizeof(long));
  const std::vector<std::byte> all = g->all_gather(bytes);
  if (all.size() != static_cast<std::size_t>(g->size()) * sizeof(long))
    throw std::runtime_error("ngvi::parallel::replicates_per_rank: the gathered tally has the wrong size");
  std::vector<long> out(static_cast<std::size_t>(g->size()));
  std::memcpy(out.data(), all.data(), all.size());
  return out;
}

namespace detail {

/// Items [k·N/P, (k+1)·N/P) belong to rank k of P.
inline long block_begin(long items, long rank, long ranks) { return items * rank / ranks; }

/// Runs items 0 … items−1 (item i computed by fn(i)), split across the ranks of the installed process
/// group and gathered with put/get (parallel/serialise.hpp); `weight(lo, hi)` is the number of
/// replicates in items [lo, hi), added to replicate_tally().
template <class Fn, class Weight>
auto split_and_gather(long items, int threads, Fn&& fn, Weight&& weight) -> std::vector<decltype(fn(0L))> {
  using R = decltype(fn(0L));
  static_assert(Serialisable<R>,
                "ngvi::parallel::run_replicates: the result type must be serialisable (parallel/serialise.hpp) so that "
                "replicates can be split across processes; give it serial_fields(T&) or serialise/deserialise");
  ProcessGroup* g = process_group();
  if (g == nullptr || g->size() <= 1) {
    auto out = run_replicates_local(0, items, threads, fn);
    replicate_tally() += weight(0L, items);
    return out;
  }
  const long p = g->size(), k = g->rank();
  const long lo = block_begin(items, k, p), hi = block_begin(items, k + 1, p);
  std::vector<R> mine;
  std::string failure;
  try {
    mine = run_replicates_local(lo, hi - lo, threads, fn);
    replicate_tally() += weight(lo, hi);
  } catch (const std::exception& e) {
    failure = e.what();
    if (failure.empty()) failure = "ngvi::parallel::run_replicates: a replicate failed";
  }
  // Each rank sends a status byte, then its results in item order, or the failure's message.
  Writer w;
  put(w, static_cast<std::uint8_t>(failure.empty() ? 0 : 1));
  if (failure.empty())
    for (const auto& x : mine) put(w, x);
  else
    put(w, failure);
  const std::vector<std::byte> all = g->all_gather(w.bytes());
  Reader rd(all);
  std::vector<R> out(static_cast<std::size_t>(items));
  std::string first_failure;
  for (long r = 0; r < p; ++r) {
    std::uint8_t status = 0;
    get(rd, status);
    if (status != 0) {
      std::string msg;
      get(rd, msg);
      if (first_failure.empty()) first_failure = msg;
      continue;
    }
    for (long i = block_begin(items, r, p); i < block_begin(items, r + 1, p); ++i) get(rd, out[static_cast<std::size_t>(i)]);
  }
  if (rd.remaining() != 0) throw std::runtime_error("ngvi::parallel::run_replicates: the gathered results have trailing bytes");
  if (!failure.empty()) throw std::runtime_error(failure);
  if (!first_failure.empty())
    throw std::runtime_error("ngvi::parallel::run_replicates: a replicate failed on another rank: " + first_failure);
  return out;
}

}  // namespace detail

/// Calls fn(r) for r = 0 … count−1 on `threads` worker threads per process (0 = all cores) and
/// returns the results in replicate order. With a process group of P > 1 ranks installed, rank k
/// computes only the block [k·count/P, (k+1)·count/P) and the blocks are gathered (the result type
/// must be Serialisable, parallel/serialise.hpp); every rank returns the same vector, bitwise the one
/// a single process computes. The first exception thrown by any replicate is rethrown (on every rank,
/// as std::runtime_error on the ranks where it did not occur) after all workers have stopped.
/// @throws std::invalid_argument if threads < 0 or count < 0.
template <class Fn>
auto run_replicates(long count, int threads, Fn&& fn) -> std::vector<decltype(fn(0L))> {
  if (threads < 0) throw std::invalid_argument("ngvi::parallel::run_replicates: argument 'threads' must be >= 0");
  if (count < 0) throw std::invalid_argument("ngvi::parallel::run_replicates: argument 'count' must be >= 0");
  return detail::split_and_gather(count, threads, fn, [](long lo, long hi) { return hi - lo; });
}

/// Calls fn(i) for i = 0 … count−1, independent deterministic work items (e.g. the subtrees of an
/// exact enumeration), and returns the results in item order, split across the ranks of a process
/// group and `threads` threads as run_replicates splits replicates, but not counted in
/// replicate_tally() (they are not Monte Carlo replicates). A result type that is not Serialisable
/// is computed whole on every rank. Every rank of a process group must make the same calls in the
/// same order (they are collective), so call it only where run_replicates may be called.
/// @throws std::invalid_argument if threads < 0 or count < 0.
template <class Fn>
auto run_work_items(long count, int threads, Fn&& fn) -> std::vector<decltype(fn(0L))> {
  if (threads < 0) throw std::invalid_argument("ngvi::parallel::run_work_items: argument 'threads' must be >= 0");
  if (count < 0) throw std::invalid_argument("ngvi::parallel::run_work_items: argument 'count' must be >= 0");
  if constexpr (Serialisable<decltype(fn(0L))>)
    return detail::split_and_gather(count, threads, fn, [](long, long) { return 0L; });
  else
    return run_replicates_local(0, count, threads, fn);
}

/// Replicates 0 … replicates−1 in consecutive groups of `group_size` (the last group may be shorter):
/// fn(first, n) computes replicates [first, first + n) together (e.g. one per SIMD lane) and returns
/// one result for the group. Returns the groups' results in order. Groups, not replicates, are split
/// across the ranks of a process group as run_replicates splits replicates, so each rank still runs
/// whole groups; replicate_tally() counts replicates.
/// @throws std::invalid_argument if threads < 0, replicates < 0 or group_size < 1.
template <class Fn>
auto run_replicate_groups(long replicates, long group_size, int threads, Fn&& fn) -> std::vector<decltype(fn(0L, 0L))> {
  constexpr const char* f = "ngvi::parallel::run_replicate_groups";
  if (threads < 0) throw std::invalid_argument(std::string(f) + ": argument 'threads' must be >= 0");
  if (replicates < 0) throw std::invalid_argument(std::string(f) + ": argument 'replicates' must be >= 0");
  if (group_size < 1) throw std::invalid_argument(std::string(f) + ": argument 'group_size' must be >= 1");
  const long groups = (replicates + group_size - 1) / group_size;
  auto size_of = [&](long gi) { return std::min(replicates, (gi + 1) * group_size) - gi * group_size; };
  return detail::split_and_gather(
      groups, threads, [&](long gi) { return fn(gi * group_size, size_of(gi)); },
      [&](long lo, long hi) { return hi > lo ? std::min(replicates, hi * group_size) - lo * group_size : 0L; });
}

}  // namespace ngvi::parallel
