#pragma once
/// @file
/// A fixed set of threads that runs the tiles of one product at a time, for the large-order
/// products inside a single NGD step (the Gram product of kernels/rank_update.hpp and the block
/// sweep of kernels/spd_inverse.hpp).
///
/// Determinism. The routines that take a pool split their work into tiles whose shapes depend on
/// the matrix orders only, never on the number of threads, and each tile is one product with a
/// fixed summation order. The pool only decides which thread computes which tile, so a result is
/// bitwise the same with no pool, with a pool of one thread and with a pool of any size.
///
/// Scheduling. `run(count, fn)` calls fn(i) once for each i in [0, count); the calling thread takes
/// tiles too, and tiles are handed out in index order to whichever thread asks first. Between runs
/// the workers spin for kSpinMicroseconds, so the next product of the same step starts without a
/// wake-up, then sleep on a condition variable. A pool with one thread has no workers and runs the
/// tiles in order on the caller.
///
/// A pool runs one `run` at a time: it must not be shared by threads that call it concurrently
/// (a replicate sweep gives each concurrent trajectory none, or its own).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "ngvi/parallel/replicates.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace ngvi::parallel {

class TilePool {
 public:
  /// How long an idle worker polls for the next run before it sleeps. The products of one NGD
  /// step at d = 500 are separated by short serial stretches (the block sweep's leaves, the rest of
  /// the step), and waking a sleeping worker would add a delay of the order of the shorter
  /// stretches to each product. bench/README.md has the measurements.
  static constexpr int kSpinMicroseconds = 200;

  /// Most tiles in one run (the tile index has 32 bits of the state word; the last value closes).
  static constexpr long kMaxTiles = 0xfffffffeL;

  /// @param[in] threads threads that take tiles, the caller's included (0 = all cores).
  /// @throws std::invalid_argument naming 'threads' if threads < 0.
  explicit TilePool(int threads) {
    if (threads < 0) throw std::invalid_argument("ngvi::parallel::TilePool: argument 'threads' must be >= 0 (0 = all cores)");
    const int n = threads == 0 ? hardware_threads() : threads;
    workers_.reserve(static_cast<std::size_t>(n - 1));
    for (int i = 1; i < n; ++i) workers_.push_back(worker_thread([this] { worker_loop(); }));
  }
  TilePool(const TilePool&) = delete;
  TilePool& operator=(const TilePool&) = delete;
  ~TilePool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_.store(true, std::memory_order_relaxed);
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
  }

  /// Threads that take tiles, the caller's included.
  int threads() const { return static_cast<int>(workers_.size()) + 1; }

  /// Calls fn(i) for i = 0 … count−1, each once, on the pool's threads and the caller's, and
  /// returns when all have returned. The first exception thrown by a tile is rethrown here, after
  /// every tile has finished or been skipped.
  /// @throws std::invalid_argument naming 'count' if count > kMaxTiles.
  template <class Fn>
  void run(long count, Fn&& fn) {
    if (count <= 0) return;
    if (count > kMaxTiles) throw std::invalid_argument("ngvi::parallel::TilePool::run: argument 'count' must be <= 2^32 - 2");
    if (workers_.empty() || count == 1) {
      for (long i = 0; i < count; ++i) fn(i);
      return;
    }
    // Two generations per job. First a closed one, whose tile index admits no claim: a thread late
    // for the previous job may have read its (generation, index) word and be about to compare it
    // with count_, and from here on its compare-exchange fails. Only then is the job written, and
    // the open generation publishes it.
    const std::uint64_t closed = ((state_.load(std::memory_order_relaxed) >> 32) + 1) & kNoTile;  // generations wrap at 2^32
    state_.store((closed << 32) | kNoTile, std::memory_order_seq_cst);
    call_ = [](void* ctx, long i) { (*static_cast<std::remove_reference_t<Fn>*>(ctx))(i); };
    ctx_ = static_cast<void*>(&fn);
    error_ = nullptr;
    failed_.store(false, std::memory_order_relaxed);
    done_.store(0, std::memory_order_relaxed);
    count_.store(count, std::memory_order_release);  // a thread that reads it also sees the closed word
    const std::uint64_t gen = (closed + 1) & kNoTile;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      state_.store(gen << 32, std::memory_order_release);  // publishes the job above; tile index 0
    }
    wake_.notify_all();
    take_tiles(gen);
    for (int spins = 0; done_.load(std::memory_order_acquire) != count; ++spins) {
      if (spins < 4096) pause();
      else std::this_thread::yield();
    }
    if (failed_.load(std::memory_order_relaxed)) std::rethrow_exception(error_);
  }

 private:
  static void pause() {
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#endif
  }

  /// Claims and runs tiles of job `gen` until none is left. A claim is a compare-exchange on the
  /// (generation, next tile) word, so a thread that is late for a job can never claim a tile of a
  /// newer one, nor one past the job's count (run() closes the old generation before it changes
  /// count_); while a claimed tile runs, its job cannot finish, so call_ and ctx_ stay.
  void take_tiles(std::uint64_t gen) {
    for (;;) {
      std::uint64_t s = state_.load(std::memory_order_acquire);
      if ((s >> 32) != gen) return;
      const long i = static_cast<long>(s & 0xffffffffu);
      if (i >= count_.load(std::memory_order_acquire)) return;
      if (!state_.compare_exchange_weak(s, s + 1, std::memory_order_acq_rel, std::memory_order_relaxed)) continue;
      if (!failed_.load(std::memory_order_relaxed)) {
        try {
          call_(ctx_, i);
        } catch (...) {
          std::lock_guard<std::mutex> lock(error_mutex_);
          if (!failed_.load(std::memory_order_relaxed)) error_ = std::current_exception();
          failed_.store(true, std::memory_order_relaxed);
        }
      }
      done_.fetch_add(1, std::memory_order_acq_rel);
    }
  }

  void worker_loop() {
    std::uint64_t seen = 0;
    for (;;) {
      const auto spin_until = std::chrono::steady_clock::now() + std::chrono::microseconds(kSpinMicroseconds);
      std::uint64_t gen = state_.load(std::memory_order_acquire) >> 32;
      for (int k = 0; gen == seen && !stop_.load(std::memory_order_relaxed); ++k) {
        if ((k & 63) == 0 && std::chrono::steady_clock::now() > spin_until) {
          std::unique_lock<std::mutex> lock(mutex_);
          wake_.wait(lock, [&] { return stop_.load(std::memory_order_relaxed) || (state_.load(std::memory_order_acquire) >> 32) != seen; });
        }
        pause();
        gen = state_.load(std::memory_order_acquire) >> 32;
      }
      if (stop_.load(std::memory_order_relaxed)) return;
      seen = gen;
      take_tiles(gen);
    }
  }

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::atomic<bool> stop_{false};
  static constexpr std::uint64_t kNoTile = 0xffffffffu;  // a tile index no job reaches
  std::atomic<std::uint64_t> state_{0};  // job generation (high 32 bits), next tile (low 32 bits)
  std::atomic<long> count_{0};
  std::atomic<long> done_{0};
  void (*call_)(void*, long) = nullptr;
  void* ctx_ = nullptr;
  std::atomic<bool> failed_{false};
  std::exception_ptr error_;
  std::mutex error_mutex_;
};

/// fn(i) for i = 0 … count−1: on `pool` when there is one, else in order on the caller.
template <class Fn>
void for_each_tile(TilePool* pool, long count, Fn&& fn) {
  if (pool != nullptr) {
    pool->run(count, fn);
    return;
  }
  for (long i = 0; i < count; ++i) fn(i);
}

}  // namespace ngvi::parallel
