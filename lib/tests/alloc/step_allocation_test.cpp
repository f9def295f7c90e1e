// Heap allocations in the NGD hot loop (issue 6: no allocation inside the loop), counted by
// wrapping malloc: this executable is linked with -Wl,--wrap=malloc, and Eigen takes every dynamic
// buffer through malloc, so a temporary matrix in the step (e.g. a product evaluated into a
// temporary before a sign change) or a product kernel whose packing buffers exceed Eigen's stack
// limit shows here. Allocations made inside the C++ runtime's own operator new are not seen; the
// step's containers are sized before the loop.
//
// Up to order kRankUpdateDepth = 128 the whole step makes none, in double and in mp50. Above it,
// Eigen's product kernels take their packing buffers from the heap (bench/README.md gives the
// counts), which is why the orders below stop at 128.
#include <gtest/gtest.h>

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "ngvi/estimators/minibatch_gradient.hpp"
#include "ngvi/linalg/rank_update.hpp"
#include "ngvi/models/linear_regression_data.hpp"
#include "ngvi/optim/ngd_driver.hpp"
#include "ngvi/scalar/types.hpp"

extern "C" void* __real_malloc(std::size_t size);

namespace {
thread_local long* t_malloc_counter = nullptr;  // non-null while this thread counts
}  // namespace

extern "C" void* __wrap_malloc(std::size_t size) {
  if (t_malloc_counter != nullptr) ++*t_malloc_counter;
  return __real_malloc(size);
}

namespace ngvi {
namespace {

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
  const Dataset<double> raw = data::synthetic_regression(512, d, 10.0, 1.0, 3);
  return LinearRegression<Scalar>(Dataset<Scalar>{data::cast_matrix<Scalar>(raw.X), data::cast_vector<Scalar>(raw.y)},
                                  Mat<Scalar>::Identity(d, d), Scalar(1));
}

// The step as BM_NgdStep times it: draw, evaluate (gather, rank-M update, mirror), the natural
// update, the conversion and the average; two steps before counting, so that every buffer is sized.
template <class Scalar>
long allocations_in_steps(Index d, Index m, int steps) {
  const auto model = model_of_order<Scalar>(d);
  MinibatchGradient<Scalar> est(model, m);
  random::Stream rng(1, 0);
  GaussianNatural<Scalar> eta = standard_natural<Scalar>(d);
  GaussianPair<Scalar> g{Vec<Scalar>::Zero(d), Mat<Scalar>::Zero(d, d)};
  MomentWorkspace<Scalar> ws(d);
  IterateAverage<Scalar> avg;
  auto step = [&](long t) {
    est.draw(rng);
    est.evaluate(g);
    ngd_step(eta, model.prior_natural(), g, Scalar(2) / Scalar(t + 2));
    EXPECT_TRUE(ws.convert(eta));
    avg.add_moments(ws.mean(), ws.cov());
  };
  step(0);
  step(1);
  MallocCount count;
  for (long t = 2; t < 2 + steps; ++t) step(t);
  return count.value();
}

// The counter sees Eigen's allocations (otherwise the tests below would pass whatever the step did).
TEST(StepAllocation, TheCounterSeesAnEigenAllocation) {
  MallocCount count;
  Mat<double> m(50, 50);
  m.setZero();
  EXPECT_EQ(m.sum(), 0.0);
  EXPECT_GE(count.value(), 1);
}

TEST(StepAllocation, TheDoubleStepMakesNoHeapAllocationUpToOrder128) {
  // Every route of the conversion (sweep ≤ 16, block sweep above, with odd splits) and the rank
  // update with one and with two blocks of columns.
  const std::vector<std::pair<Index, Index>> sizes{{1, 1}, {3, 2}, {10, 32}, {17, 32}, {40, 32}, {100, 256}, {128, 256}};
  for (const auto& [d, m] : sizes) EXPECT_EQ(allocations_in_steps<double>(d, m, 3), 0) << "d " << d << " M " << m;
}

TEST(StepAllocation, TheMp50StepMakesNoHeapAllocation) {
  // The unblocked route (d ≤ 32) and the block sweep with unblocked leaves (d = 40).
  for (Index d : {3, 10, 40}) EXPECT_EQ(allocations_in_steps<mp50>(d, 8, 2), 0) << "d " << d;
}

// The driver's loop, counted between consecutive observer calls: each window holds the conversion
// and average of one step and the estimate and update of the next.
TEST(StepAllocation, TheDriverLoopMakesNoHeapAllocation) {
  for (Index d : {10, 40}) {
    const auto model = model_of_order<double>(d);
    MinibatchGradient<double> est(model, 32);
    random::Stream rng(2, 0);
    NgdOptions opt;
    opt.steps = 6;
    long in_loop = 0;
    std::unique_ptr<MallocCount> window;
    run_ngd(
        model.prior_natural(), standard_natural<double>(d),
        [&](long, const GaussianNatural<double>&, GaussianPair<double>& g) {
          est.draw(rng);
          est.evaluate(g);
        },
        StepSchedule<double>::theorem1(), opt, static_cast<TrajectoryRecorder<double>*>(nullptr),
        [&](long t, const auto&, const auto&, const auto&, const auto&) {
          if (window) in_loop += window->value();
          window.reset();
          if (t >= 1) window = std::make_unique<MallocCount>();
        });
    window.reset();
    EXPECT_EQ(in_loop, 0) << "d " << d;
  }
}

}  // namespace
}  // namespace ngvi
