// Heap allocations in the NGD hot loop (issue 6: no allocation inside the loop), counted by
// wrapping malloc: this executable is linked with -Wl,--wrap=malloc, and Eigen takes every dynamic
// buffer through malloc, so a temporary matrix in the step (e.g. a product evaluated into a
// temporary before a sign change) or a product kernel whose packing buffers exceed Eigen's stack
// limit shows here. Allocations made inside the C++ runtime's own operator new are not seen; the
// step's containers are sized before the loop.
//
// The step is counted inside run_ngd, the driver every experiment and claim uses. It makes none,
// in double at the orders counted (up to 500) and in mp50 at the orders counted (up to 40). So is
// the non-conjugate step (optim/ngd_nonconjugate.hpp) with a block log-likelihood, for both
// estimators. The lane route (optim/ngd_lanes.hpp) is counted by difference between a short and a
// long run.
#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "ngvi/estimators/minibatch_gradient.hpp"
#include "ngvi/data/synthetic_regression.hpp"
#include "ngvi/kernels/rank_update.hpp"
#include "ngvi/models/logistic_regression.hpp"
#include "ngvi/optim/ngd_nonconjugate.hpp"
#include "ngvi/optim/ngd_driver.hpp"
#include "ngvi/optim/ngd_lanes.hpp"
#include "ngvi/scalar/types.hpp"
#include "malloc_count.hpp"

extern "C" void* __real_malloc(std::size_t size);

thread_local long* ngvi::alloc_test::t_malloc_counter = nullptr;
std::atomic<bool> ngvi::alloc_test::g_count_all_threads{false};
std::atomic<long> ngvi::alloc_test::g_all_threads_count{0};

extern "C" void* __wrap_malloc(std::size_t size) {
  ngvi::alloc_test::count_allocation();
  return __real_malloc(size);
}

namespace ngvi {
namespace {

using alloc_test::allocations_in_driver_loop;
using alloc_test::MallocCount;
using alloc_test::model_of_order;

// The counter sees Eigen's allocations (otherwise the tests below would pass whatever the step did).
TEST(StepAllocation, TheCounterSeesAnEigenAllocation) {
  MallocCount count;
  Mat<double> m(50, 50);
  m.setZero();
  EXPECT_EQ(m.sum(), 0.0);
  EXPECT_GE(count.value(), 1);
}

TEST(StepAllocation, TheDoubleStepMakesNoHeapAllocation) {
  static_assert(kRankUpdateDepth == 128, "the sizes below straddle one and two blocks of columns");
  static_assert(kTileWidth == 64 && kTilePanelRows<double> == 128, "the tiled sizes below straddle the row blocks");
  // Every route of the conversion (sweep ≤ 16, block sweep above, with odd splits, tiled from
  // order 137, with halves of more than kRankUpdateDepth from 257 and blocks of one row at 257 and
  // 385) and of the Gram product: the rank update with one and two blocks of columns, and its
  // tiles from order 128, with a last tile one column wide (129, 193, 257, 385), a panel of one
  // row (129), and panels of more than one block of rows (193 and up).
  const std::vector<std::pair<Index, Index>> sizes{{1, 1},     {3, 2},     {10, 32},   {17, 32},   {40, 32},   {100, 256},
                                                   {128, 256}, {129, 256}, {193, 256}, {200, 100}, {256, 256}, {257, 256},
                                                   {300, 100}, {385, 256}, {500, 256}};
  for (const auto& [d, m] : sizes) EXPECT_EQ(allocations_in_driver_loop<double>(d, m, 6), 0) << "d " << d << " M " << m;
}

// The all-thread count sees an allocation made on another thread, which this thread's count does not.
TEST(StepAllocation, TheAllThreadCounterSeesAnotherThreadsAllocation) {
  auto allocate_elsewhere = [] {
    std::thread([] {
      Mat<double> m(50, 50);
      m.setZero();
      EXPECT_EQ(m.sum(), 0.0);
    }).join();
  };
  long all = 0, mine = 0;
  {
    MallocCount count(/*all_threads=*/true);
    allocate_elsewhere();
    all = count.value();
  }
  {
    MallocCount count;
    allocate_elsewhere();
    mine = count.value();
  }
  EXPECT_GE(all, 1);
  EXPECT_EQ(mine, 0);
}

// With a step pool of two threads, below the tiled orders the next estimate runs beside the
// conversion (optim/ngd_driver.hpp): neither thread allocates.
TEST(StepAllocation, TheOverlappedStepMakesNoHeapAllocation) {
  parallel::TilePool two(2);
  for (const auto& [d, m] : std::vector<std::pair<Index, Index>>{{16, 32}, {40, 32}, {100, 256}, {127, 256}}) {
    ASSERT_TRUE(kernels::ExecutionContext{&two}.overlaps(d, true)) << "d " << d;
    EXPECT_EQ(allocations_in_driver_loop<double>(d, m, 6, &two), 0) << "d " << d << " M " << m;
  }
}

// The Gram product alone, at more batch sizes: its panels go in blocks of kTilePanelRows.
TEST(StepAllocation, TheTiledGramProductMakesNoHeapAllocation) {
  for (const Index d : {Index(129), Index(193), Index(257), Index(321), Index(500)}) {
    for (const Index m : {Index(100), Index(256)}) {
      const Mat<double> x = Mat<double>::Random(d, m);
      Mat<double> c(d, d);
      MallocCount count;
      symmetric_gram(c, x, -0.5);
      EXPECT_EQ(count.value(), 0) << "d " << d << " M " << m;
    }
  }
}

TEST(StepAllocation, TheMp50StepMakesNoHeapAllocation) {
  // The unblocked route (d ≤ 32) and the block sweep with unblocked leaves (d = 40), with the batch
  // summed exactly (data that are doubles) and from stored row products (data that are not).
  for (const bool thirds : {false, true})
    for (Index d : {3, 10, 40})
      EXPECT_EQ(allocations_in_driver_loop<mp50>(d, 8, 5, nullptr, thirds), 0) << "d " << d << (thirds ? " row products" : " exact sums");
}

// The lane route (optim/ngd_lanes.hpp) has no observer hook, so its loop is counted by difference:
// a run of T steps and one of 40T steps (no checkpoints) must make the same number of allocations,
// all of them the buffers sized before the loop and the results after it.
template <class Scalar>
long allocations_in_lane_run(Index d, Index m, long steps) {
  const auto model = model_of_order<Scalar>(d);
  const GaussianNatural<Scalar> eta0 = standard_natural<Scalar>(d);
  std::vector<random::Stream> streams;
  for (std::uint64_t r = 0; r < 5; ++r) streams.emplace_back(21, r);
  NgdOptions opt;
  opt.steps = steps;
  MallocCount count;
  const auto res = run_ngd_minibatch_lanes(model, eta0, m, streams, StepSchedule<Scalar>::theorem1(), opt);
  const long n = count.value();
  EXPECT_EQ(res.size(), 5u);
  return n;
}

TEST(StepAllocation, TheLaneRouteAllocatesTheSameForAnyNumberOfSteps) {
  for (const auto& [d, m] : std::vector<std::pair<Index, Index>>{{3, 2}, {10, 32}, {17, 8}}) {
    const long short_run = allocations_in_lane_run<double>(d, m, 5), long_run = allocations_in_lane_run<double>(d, m, 200);
    EXPECT_GT(short_run, 0) << "d " << d;  // its buffers are seen
    EXPECT_EQ(long_run, short_run) << "d " << d << " M " << m;
  }
  EXPECT_EQ(allocations_in_lane_run<mp50>(4, 3, 30), allocations_in_lane_run<mp50>(4, 3, 5));
}

// The non-conjugate NGD loop on Bayesian logistic regression (n = 64 rows, a N(0, I) prior, K = 8
// draws, γ = 0.1) with the model's block log-likelihood, counted between consecutive on_step calls from the
// second step on: each window holds one estimate (the draws, the block evaluation, the Price or
// reparameterisation gradient with its Cholesky backward pass), one update and one factorisation.
template <class Scalar>
long allocations_in_nonconjugate_loop(Index d, std::string_view estimator, long steps) {
  constexpr Index kRows = 64;
  random::Stream data_rng(31, static_cast<std::uint64_t>(d));
  Mat<Scalar> x(kRows, d);
  Vec<Scalar> y(kRows);
  for (Index i = 0; i < kRows; ++i) {
    for (Index j = 0; j < d; ++j) x(i, j) = Scalar(data_rng.normal() / std::sqrt(static_cast<double>(d)));
    y(i) = Scalar(data_rng.uniform01() < 0.5 ? 0 : 1);
  }
  const GaussianMoments<Scalar> prior = standard_normal_prior<Scalar>(d);
  const auto model = make_logistic_regression(Dataset<Scalar>{x, y}, prior);
  const auto ll = loglik_function(model);
  // q0 = N(0, I/d), where the reparameterisation gradient's steps stay in Ω (Appendix B: they need not).
  const GaussianMoments<Scalar> q0{Vec<Scalar>::Zero(d), Mat<Scalar>(Mat<Scalar>::Identity(d, d) / Scalar(d))};
  random::Stream rng(41, 0);
  long in_loop = 0, windows = 0;
  std::unique_ptr<MallocCount> window;
  const auto run = ngd_nonconjugate<Scalar>(ll, prior, q0, StepSchedule<Scalar>::constant(Scalar(0.1)), 8, steps, rng, estimator,
                                    OnStep{[&](const auto& e) {
                                      const long t = e.t;
                                      if (window) in_loop += window->value();
                                      window.reset();
                                      if (t >= 1 && t + 1 < steps) {
                                        window = std::make_unique<MallocCount>();
                                        ++windows;
                                      }
                                    }});
  EXPECT_TRUE(run.ok()) << std::string(estimator) << " d " << d;
  EXPECT_EQ(windows, steps - 2) << "the observer did not open every counting window";
  return in_loop;
}

TEST(StepAllocation, TheNonconjugateBlockStepMakesNoHeapAllocation) {
  for (std::string_view e : {PriceRoute::name, ReparamRoute::name}) {
    for (Index d : {1, 3, 10, 40, 100}) EXPECT_EQ(allocations_in_nonconjugate_loop<double>(d, e, 6), 0) << std::string(e) << " d " << d;
    for (Index d : {3, 10}) EXPECT_EQ(allocations_in_nonconjugate_loop<mp50>(d, e, 5), 0) << std::string(e) << " mp50 d " << d;
  }
}

}  // namespace
}  // namespace ngvi
