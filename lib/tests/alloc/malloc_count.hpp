#pragma once
// The heap-allocation counter of ngvi_alloc_tests and the driver loop it counts, shared by the
// translation units of that executable (step_allocation_test.cpp defines the counter and the
// malloc wrapper; step_allocation_mpfr.cpp adds GMP's allocation functions for mpfr50).
#include <gtest/gtest.h>

#include <memory>

#include "ngvi/estimators/minibatch_gradient.hpp"
#include "ngvi/models/linear_regression_data.hpp"
#include "ngvi/optim/ngd_driver.hpp"

namespace ngvi::alloc_test {

/// Non-null while this thread counts; every counted allocation adds one to *t_malloc_counter.
extern thread_local long* t_malloc_counter;

/// Counts this thread's malloc calls while in scope.
class MallocCount {
 public:
  MallocCount() { t_malloc_counter = &count_; }
  ~MallocCount() { t_malloc_counter = nullptr; }
  long value() const { return count_; }

 private:
  long count_ = 0;
};

template <class Scalar>
LinearRegression<Scalar> model_of_order(Index d) {
  return LinearRegression<Scalar>(cast_dataset<Scalar>(data::synthetic_regression(512, d, 10.0, 1.0, 3)),
                                  Mat<Scalar>::Identity(d, d), Scalar(1));
}

// Runs `steps` steps of the driver (run_ngd with the mini-batch estimator, the conversion and the
// average) and counts the allocations between consecutive observer calls from the second step on:
// each window holds the conversion and average of one step and the estimate and update of the
// next, so every buffer has been sized before counting starts.
template <class Scalar>
long allocations_in_driver_loop(Index d, Index m, long steps) {
  const auto model = model_of_order<Scalar>(d);
  MinibatchGradient<Scalar> est(model, m);
  random::Stream rng(1, 0);
  NgdOptions opt;
  opt.steps = steps;
  long in_loop = 0, windows = 0;
  std::unique_ptr<MallocCount> window;
  run_ngd(
      model.prior_natural(), standard_natural<Scalar>(d),
      [&](long, const GaussianNatural<Scalar>&, GaussianPair<Scalar>& g) {
        est.draw(rng);
        est.evaluate(g);
      },
      StepSchedule<Scalar>::theorem1(), opt, static_cast<TrajectoryRecorder<Scalar>*>(nullptr),
      [&](long t, const auto&, const auto&, const auto&, const auto&) {
        if (window) in_loop += window->value();
        window.reset();
        if (t >= 1 && t + 1 < steps) {
          window = std::make_unique<MallocCount>();
          ++windows;
        }
      });
  EXPECT_EQ(windows, steps - 2) << "the observer did not open every counting window";
  return in_loop;
}

}  // namespace ngvi::alloc_test
