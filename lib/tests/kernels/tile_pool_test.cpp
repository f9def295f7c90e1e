// parallel::TilePool, and the step's tiled products on it: every tile runs exactly once, errors
// come back to the caller, and the Gram product, the SPD inverse and a whole NGD trajectory are
// bitwise the same with no pool and with pools of 1, 2 and 3 threads (the tiles' shapes depend
// on the orders only). Below the tiled orders a step pool overlaps the next estimate with the
// conversion (run_ngd): the trajectory is bitwise the same there too, the overlap is taken exactly
// where overlaps_estimate says, and errors come back in the sequential loop's order.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "ngvi/estimators/minibatch_gradient.hpp"
#include "ngvi/kernels/rank_update.hpp"
#include "ngvi/kernels/spd_inverse.hpp"
#include "ngvi/data/synthetic_regression.hpp"
#include "ngvi/optim/ngd_driver.hpp"
#include "ngvi/optim/recorder.hpp"
#include "ngvi/kernels/tile_pool.hpp"
#include "ngvi/random/stream.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

using parallel::TilePool;

TEST(TilePool, RunsEveryTileExactlyOnceOverManyRuns) {
  for (int threads : {1, 2, 3}) {
    TilePool pool(threads);
    EXPECT_EQ(pool.threads(), threads);
    for (long count : {0L, 1L, 2L, 7L, 100L}) {
      for (int rep = 0; rep < 200; ++rep) {  // many back-to-back jobs: the job handover, not just one run
        std::vector<std::atomic<int>> hits(static_cast<std::size_t>(count));
        pool.run(count, [&](long i) { hits[static_cast<std::size_t>(i)].fetch_add(1); });
        for (long i = 0; i < count; ++i)
          ASSERT_EQ(hits[static_cast<std::size_t>(i)].load(), 1) << "threads " << threads << " count " << count << " tile " << i;
      }
    }
  }
}

// Back-to-back jobs whose tile counts change: a thread late for one job must never claim a tile of
// the next, nor one past the next job's count. A first version of the pool published the new count
// before it closed the old job, and this loop then hung within seconds (a late claim counted an
// extra tile done) or ran a tile at an index past the count.
TEST(TilePool, HandsOverBetweenJobsOfDifferentSizes) {
  TilePool pool(2);
  const long counts[] = {2, 9, 3, 16, 5};
  std::vector<std::atomic<int>> hits(16);
  std::atomic<long> out_of_range{0};
  long wrong = 0;
  for (long r = 0; r < 500000; ++r) {
    const long c = counts[r % 5];
    for (long i = 0; i < c; ++i) hits[static_cast<std::size_t>(i)].store(0);
    pool.run(c, [&](long i) {
      if (i < 0 || i >= c) ++out_of_range;
      else hits[static_cast<std::size_t>(i)].fetch_add(1);
    });
    for (long i = 0; i < c; ++i) wrong += hits[static_cast<std::size_t>(i)].load() != 1;
  }
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(out_of_range.load(), 0);
}

TEST(TilePool, RethrowsATileErrorAndStaysUsable) {
  TilePool pool(2);
  EXPECT_THROW(pool.run(16, [](long i) { if (i == 5) throw std::runtime_error("tile 5"); }), std::runtime_error);
  std::atomic<long> sum{0};
  pool.run(10, [&](long i) { sum += i; });
  EXPECT_EQ(sum.load(), 45);
  try {
    TilePool bad(-1);
    FAIL() << "a negative thread count was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'threads'"), std::string::npos) << e.what();
  }
  EXPECT_GE(TilePool(0).threads(), 1);
}

// The pools every result is compared across: none, and 1, 2, 3 threads.
std::vector<std::unique_ptr<TilePool>> pools() {
  std::vector<std::unique_ptr<TilePool>> p;
  p.push_back(nullptr);
  for (int t : {1, 2, 3}) p.push_back(std::make_unique<TilePool>(t));
  return p;
}

TEST(TiledProducts, GramIsBitwiseTheSameForAnyPool) {
  static_assert(kTileWidth == 64 && kTiledOrder == 128, "the orders below straddle the tiled route's bounds");
  random::Stream rng(31, 0);
  const auto ps = pools();
  for (Index d : {127, 128, 129, 200, 300}) {
    Mat<double> x(d, 256);
    for (Index k = 0; k < x.cols(); ++k)
      for (Index i = 0; i < d; ++i) x(i, k) = rng.normal();
    Mat<double> ref;
    symmetric_gram(ref, x, -0.5, ps[0].get());
    EXPECT_EQ(ref, ref.transpose()) << "d " << d;
    for (std::size_t k = 1; k < ps.size(); ++k) {
      Mat<double> c;
      symmetric_gram(c, x, -0.5, ps[k].get());
      EXPECT_EQ(c, ref) << "d " << d << " threads " << ps[k]->threads();
    }
  }
}

TEST(TiledProducts, SpdInverseIsBitwiseTheSameForAnyPool) {
  random::Stream rng(32, 0);
  const auto ps = pools();
  for (Index d : {130, 137, 257, 385, 500}) {  // 137: the smallest order whose halves both exceed one tile
    Mat<double> g(d, 2 * d);
    for (Index k = 0; k < g.cols(); ++k)
      for (Index i = 0; i < d; ++i) g(i, k) = rng.normal();
    const Mat<double> a = g * g.transpose() / double(g.cols()) + Mat<double>::Identity(d, d);
    Mat<double> work = a, ref(d, d), tmp(d, d);
    ASSERT_TRUE(spd_inverse_in_place(work, ref, tmp, ps[0].get()));
    // The result is an inverse (its accuracy is spd_inverse_test's business; this only guards
    // against comparing garbage with garbage).
    EXPECT_LT((a * ref - Mat<double>::Identity(d, d)).norm(), 1e-10) << "d " << d;
    for (std::size_t k = 1; k < ps.size(); ++k) {
      Mat<double> w = a, inv(d, d), t(d, d);
      ASSERT_TRUE(spd_inverse_in_place(w, inv, t, ps[k].get()));
      EXPECT_EQ(inv, ref) << "d " << d << " threads " << ps[k]->threads();
    }
  }
}

// A trajectory of 6 steps with checkpoints and a recorder, at orders where a pool of 2 or 3
// threads overlaps the estimate with the conversion (40, 100) and where it shares the tiles of the
// products (150): the iterate, the average, the checkpoint averages, the recorded points and the
// random stream's state after the run are bitwise those of the run without a pool, and so are
// those of a run that turns the overlap off.
TEST(TiledProducts, NgdTrajectoryIsBitwiseTheSameForAnyStepPool) {
  const auto ps = pools();
  for (const Index d : {Index(40), Index(100), Index(150)}) {
    const LinearRegression<double> model(data::synthetic_regression(600, d, 10.0, 0.7, 5), Mat<double>::Identity(d, d), 0.5);
    struct Run {
      NgdResult<double> res;
      std::vector<TrajectoryPoint<double>> points;
      std::uint64_t next_draw;
    };
    auto run = [&](TilePool* pool, bool overlap) {
      MinibatchGradient<double> est(model, 64);
      random::Stream rng(17, 3);
      NgdOptions opt;
      opt.steps = 6;
      opt.checkpoints = {2, 5};
      opt.execution.pool = pool;
      opt.execution.overlap_estimate = overlap;
      TrajectoryRecorder<double> rec(2, [](long, const GaussianNatural<double>&) { return TrajectoryPoint<double>{}; });
      Run r{run_ngd_minibatch(model, standard_natural<double>(d), est, rng, StepSchedule<double>::theorem1(), opt, RecordTrajectory{&rec}), rec.points(), 0};
      r.next_draw = rng.index(1000003);
      return r;
    };
    const Run ref = run(nullptr, true);
    ASSERT_TRUE(ref.res.average.has_value());
    ASSERT_EQ(ref.res.checkpoint_averages.size(), 2u);
    for (std::size_t k = 1; k < ps.size(); ++k) {
      for (const bool overlap : {true, false}) {
        const Run r = run(ps[k].get(), overlap);
        const std::string where = "d " + std::to_string(d) + " threads " + std::to_string(ps[k]->threads()) + " overlap " +
                                  std::to_string(kernels::ExecutionContext{ps[k].get(), overlap}.overlaps(d, true));
        EXPECT_EQ(r.res.last.eta1(), ref.res.last.eta1()) << where;
        EXPECT_EQ(r.res.last.eta2(), ref.res.last.eta2()) << where;
        EXPECT_EQ(r.res.average->first, ref.res.average->first) << where;
        EXPECT_EQ(r.res.average->second, ref.res.average->second) << where;
        ASSERT_EQ(r.res.checkpoint_averages.size(), 2u) << where;
        for (std::size_t c = 0; c < 2; ++c) EXPECT_EQ(r.res.checkpoint_averages[c].second, ref.res.checkpoint_averages[c].second) << where;
        ASSERT_EQ(r.points.size(), ref.points.size()) << where;
        for (std::size_t c = 0; c < r.points.size(); ++c) EXPECT_EQ(r.points[c].eta.eta2(), ref.points[c].eta.eta2()) << where;
        EXPECT_EQ(r.next_draw, ref.next_draw) << where << ": the run drew a different number of batches";
      }
    }
  }
}

TEST(StepOverlap, IsTakenBelowTheTiledOrdersWithTwoThreadsOrMore) {
  static_assert(kernels::kOverlapMinOrder == 16 && kTiledOrder == 128, "the orders below straddle the overlap's bounds");
  TilePool one(1), two(2), three(3);
  for (const Index d : {Index(16), Index(40), Index(127)}) {
    EXPECT_TRUE(kernels::ExecutionContext{&two}.overlaps(d, true)) << d;
    EXPECT_TRUE(kernels::ExecutionContext{&three}.overlaps(d, true)) << d;
    EXPECT_FALSE(kernels::ExecutionContext{&one}.overlaps(d, true)) << d;
    EXPECT_FALSE(kernels::ExecutionContext{nullptr}.overlaps(d, true)) << d;
    EXPECT_FALSE(kernels::ExecutionContext{&two}.overlaps(d, /*average=*/false)) << d;
    EXPECT_FALSE((kernels::ExecutionContext{&two, /*overlap_estimate=*/false}.overlaps(d, true))) << d;
  }
  for (const Index d : {Index(1), Index(15), Index(128), Index(500)}) EXPECT_FALSE(kernels::ExecutionContext{&two}.overlaps(d, true)) << d;
}

// The order of the estimates and the recorder's points shows which loop ran: overlapped, the
// estimate of step t + 1 is made before the recorder sees η_{t+1} (beside the conversion); in
// sequence, after it.
TEST(StepOverlap, TheNextEstimateIsMadeBesideTheConversion) {
  const Index d = 24;
  const LinearRegression<double> model(data::synthetic_regression(200, d, 10.0, 0.7, 5), Mat<double>::Identity(d, d), 0.5);
  auto events = [&](TilePool* pool) {
    std::vector<std::string> log;
    MinibatchGradient<double> est(model, 16);
    random::Stream rng(5, 1);
    NgdOptions opt;
    opt.steps = 3;
    opt.execution.pool = pool;
    TrajectoryRecorder<double> rec(1, [&](long t, const GaussianNatural<double>&) {
      log.push_back("record " + std::to_string(t));
      return TrajectoryPoint<double>{};
    });
    run_ngd(
        model.prior_natural(), standard_natural<double>(d),
        [&](long t, const GaussianNatural<double>&, GaussianPair<double>& g) {
          log.push_back("estimate " + std::to_string(t));
          est.draw(rng);
          est.evaluate(g);
        },
        StepSchedule<double>::theorem1(), opt, RecordTrajectory{&rec});
    return log;
  };
  TilePool two(2);
  const std::vector<std::string> overlapped{"record 0", "estimate 0", "estimate 1", "record 1", "estimate 2", "record 2", "record 3"};
  const std::vector<std::string> sequential{"record 0", "estimate 0", "record 1", "estimate 1", "record 2", "estimate 2", "record 3"};
  EXPECT_EQ(events(&two), overlapped);
  EXPECT_EQ(events(nullptr), sequential);
}

// A point-free estimator (reads_point = false) has ĝ_{t+1} made beside the whole of step t. A stepper
// whose step 1 waits (up to a timeout) for the estimate of step 2 to begin sees it begin with a pool
// of two threads; it does not without a pool, nor with an estimator that reads the iterate (whose
// ĝ_{t+1} is made beside the conversion, after the update). The trajectories are bitwise the same.
template <bool kPointFree>
struct BeginLoggingEstimator {
  static constexpr bool reads_point = !kPointFree;
  MinibatchGradient<double>& est;
  random::Stream& rng;
  std::atomic<long>& begun;
  template <class S>
  void estimate(long t, const S&, typename S::Direction& g) {
    begun = t;
    est.draw(rng);
    est.evaluate(g);
  }
};
struct WaitingStepper : NgdStepper<double> {
  using NgdStepper<double>::NgdStepper;
  std::atomic<long>* begun = nullptr;
  std::chrono::duration<double> timeout{};
  bool saw_next_estimate = false;
  StepStatus step(long t, const double& gamma, const Direction& g) {
    if (t == 1) {
      const auto until = std::chrono::steady_clock::now() + timeout;
      while (begun->load() < 2 && std::chrono::steady_clock::now() < until) std::this_thread::yield();
      saw_next_estimate = begun->load() >= 2;
    }
    return NgdStepper<double>::step(t, gamma, g);
  }
};
TEST(StepOverlap, APointFreeEstimateIsMadeBesideTheWholeStep) {
  const Index d = 24;
  const LinearRegression<double> model(data::synthetic_regression(200, d, 10.0, 0.7, 5), Mat<double>::Identity(d, d), 0.5);
  auto run = [&]<bool kPointFree>(TilePool* pool, double timeout_s, std::bool_constant<kPointFree>) {
    MinibatchGradient<double> est(model, 16);
    random::Stream rng(5, 1);
    std::atomic<long> begun{-1};
    const kernels::ExecutionContext exec{pool};
    est.set_tiles(exec.tiles(d, true));
    WaitingStepper stepper(model.prior_natural(), standard_natural<double>(d), exec);
    stepper.begun = &begun;
    stepper.timeout = std::chrono::duration<double>(timeout_s);
    BeginLoggingEstimator<kPointFree> estimator{est, rng, begun};
    MeanAverage<WaitingStepper> avg;
    const auto tr = run_trajectory(stepper, estimator, StepSchedule<double>::theorem1(), avg, RunOptions{4});
    EXPECT_TRUE(tr.ok());
    return std::make_pair(stepper.saw_next_estimate, tr);
  };
  TilePool two(2);
  const auto beside = run(&two, 10.0, std::true_type{});
  const auto sequential = run(nullptr, 0.05, std::true_type{});
  const auto reads_point = run(&two, 0.05, std::false_type{});
  EXPECT_TRUE(beside.first) << "the estimate of step 2 did not begin while step 1 waited for it";
  EXPECT_FALSE(sequential.first);
  EXPECT_FALSE(reads_point.first);
  for (const auto* other : {&sequential.second, &reads_point.second}) {
    EXPECT_EQ(beside.second.last.eta2(), other->last.eta2());
    EXPECT_EQ(beside.second.average->second, other->average->second);
  }
}

// An estimate that fails at step 4, and a conversion that fails (γ = 2 takes η out of Ω): the
// overlapped loop reports the same error (thrown, or the trajectory's failure) after the same steps
// as the sequential one. The estimate
// of step 4 runs beside the conversion of step 3, but its error waits until step 3 is recorded.
TEST(StepOverlap, ErrorsComeBackInTheSequentialOrder) {
  const Index d = 20;
  const LinearRegression<double> model(data::synthetic_regression(200, d, 10.0, 0.7, 5), Mat<double>::Identity(d, d), 0.5);
  TilePool two(2);
  std::vector<std::string> omega_errors;
  for (TilePool* pool : {static_cast<TilePool*>(nullptr), &two}) {
    MinibatchGradient<double> est(model, 16);
    random::Stream rng(5, 1);
    NgdOptions opt;
    opt.steps = 10;
    opt.execution.pool = pool;
    long recorded = -1;
    TrajectoryRecorder<double> rec(1, [&](long t, const GaussianNatural<double>&) {
      recorded = t;
      return TrajectoryPoint<double>{};
    });
    try {
      run_ngd(
          model.prior_natural(), standard_natural<double>(d),
          [&](long t, const GaussianNatural<double>&, GaussianPair<double>& g) {
            if (t == 4) throw std::runtime_error("estimate failed at step 4");
            est.draw(rng);
            est.evaluate(g);
          },
          StepSchedule<double>::theorem1(), opt, RecordTrajectory{&rec});
      ADD_FAILURE() << "no error";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "estimate failed at step 4");
    }
    EXPECT_EQ(recorded, 4) << "pool " << (pool != nullptr);

    opt.theorem_steps = false;
    const auto tr = run_ngd_minibatch(model, standard_natural<double>(d), est, rng, StepSchedule<double>::constant(2.0), opt);
    ASSERT_FALSE(tr.ok());
    const std::string what = tr.failure->message();
    EXPECT_NE(what.find("left Omega"), std::string::npos) << what;
    omega_errors.push_back(what);
  }
  EXPECT_EQ(omega_errors[0], omega_errors[1]) << "the conversion failed after a different step";
}

}}  // namespace
}  // namespace ngvi
