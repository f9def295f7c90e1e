#pragma once
// The heap-allocation counter of ngvi_alloc_tests and the driver loop it counts, shared by the
// translation units of that executable (step_allocation_test.cpp defines the counter and the
// malloc wrapper; step_allocation_mpfr.cpp adds GMP's allocation functions for mpfr50).
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <type_traits>
#include <utility>

#include "ngvi/estimators/minibatch_gradient.hpp"
#include "ngvi/data/synthetic_regression.hpp"
#include "ngvi/optim/ngd_driver.hpp"

namespace ngvi::alloc_test {

/// Non-null while this thread counts; every counted allocation adds one to *t_malloc_counter.
extern thread_local long* t_malloc_counter;
/// Set while every thread's allocations are counted (into g_all_threads_count): a step pool's
/// workers allocate on their own threads.
extern std::atomic<bool> g_count_all_threads;
extern std::atomic<long> g_all_threads_count;

/// Called by the counted allocation functions (the malloc wrapper, GMP's functions).
inline void count_allocation() {
  if (t_malloc_counter != nullptr) ++*t_malloc_counter;
  else if (g_count_all_threads.load(std::memory_order_relaxed)) g_all_threads_count.fetch_add(1, std::memory_order_relaxed);
}

/// Counts the malloc calls of this thread, or of every thread when `all_threads`, while in scope
/// (one all-thread count at a time).
class MallocCount {
 public:
  explicit MallocCount(bool all_threads = false) : all_threads_(all_threads) {
    if (all_threads_) {
      g_all_threads_count.store(0);
      g_count_all_threads.store(true);
    } else {
      t_malloc_counter = &count_;
    }
  }
  ~MallocCount() {
    if (all_threads_) g_count_all_threads.store(false);
    else t_malloc_counter = nullptr;
  }
  long value() const { return all_threads_ ? g_all_threads_count.load() : count_; }

 private:
  bool all_threads_;
  long count_ = 0;
};

/// Synthetic data of order d cast from double; with `thirds`, divided by 3 in Scalar, so that in a
/// software scalar the estimator takes the row-product route instead of the exact sums.
template <class Scalar>
LinearRegression<Scalar> model_of_order(Index d, bool thirds = false) {
  Dataset<Scalar> data = cast_dataset<Scalar>(data::synthetic_regression(512, d, 10.0, 1.0, 3));
  if (thirds) {
    data.X /= Scalar(3);
    data.y /= Scalar(3);
  }
  return LinearRegression<Scalar>(std::move(data), Mat<Scalar>::Identity(d, d), Scalar(1));
}

// Runs `steps` steps of the driver (run_ngd with the mini-batch estimator, the conversion and the
// average) and counts the allocations between consecutive observer calls from the second step on:
// each window holds the conversion and average of one step and the estimate and update of the
// next, so every buffer has been sized before counting starts. With a step pool, the windows count
// every thread's allocations.
template <class Scalar>
long allocations_in_driver_loop(Index d, Index m, long steps, parallel::TilePool* pool = nullptr, bool thirds = false) {
  const auto model = model_of_order<Scalar>(d, thirds);
  MinibatchGradient<Scalar> est(model, m);
  if constexpr (!std::is_floating_point_v<Scalar>) {
    EXPECT_EQ(est.uses_row_products(), thirds) << "the data do not select the route they are meant to";
  }
  random::Stream rng(1, 0);
  NgdOptions opt;
  opt.steps = steps;
  opt.execution.pool = pool;
  long in_loop = 0, windows = 0;
  std::unique_ptr<MallocCount> window;
  run_ngd(
      model.prior_natural(), standard_natural<Scalar>(d),
      [&](long, const GaussianNatural<Scalar>&, GaussianPair<Scalar>& g) {
        est.draw(rng);
        est.evaluate(g);
      },
      StepSchedule<Scalar>::theorem1(), opt,
      OnStep{[&](const auto& event) {
        const long t = event.t;
        if (window) in_loop += window->value();
        window.reset();
        if (t >= 1 && t + 1 < steps) {
          window = std::make_unique<MallocCount>(pool != nullptr);
          ++windows;
        }
      }});
  EXPECT_EQ(windows, steps - 2) << "the observer did not open every counting window";
  return in_loop;
}

}  // namespace ngvi::alloc_test
