// parallel::TilePool, and the step's tiled products on it: every tile runs exactly once, errors
// come back to the caller, and the Gram product, the SPD inverse and a whole NGD trajectory are
// bitwise the same with no pool and with pools of 1, 2 and 3 threads (the tiles' shapes depend
// on the orders only).
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "ngvi/estimators/minibatch_gradient.hpp"
#include "ngvi/linalg/rank_update.hpp"
#include "ngvi/linalg/spd_inverse.hpp"
#include "ngvi/models/linear_regression_data.hpp"
#include "ngvi/optim/ngd_driver.hpp"
#include "ngvi/parallel/tile_pool.hpp"
#include "ngvi/random/stream.hpp"

namespace ngvi {
namespace {

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

TEST(TiledProducts, NgdTrajectoryIsBitwiseTheSameForAnyStepPool) {
  const Index d = 150;
  const LinearRegression<double> model(data::synthetic_regression(600, d, 10.0, 0.7, 5), Mat<double>::Identity(d, d), 0.5);
  NgdOptions opt;
  opt.steps = 6;
  auto run = [&](TilePool* pool) {
    MinibatchGradient<double> est(model, 64);
    random::Stream rng(17, 3);
    opt.step_pool = pool;
    return run_ngd_minibatch(model, standard_natural<double>(d), est, rng, StepSchedule<double>::theorem1(), opt);
  };
  const auto ps = pools();
  const auto ref = run(nullptr);
  ASSERT_TRUE(ref.average.has_value());
  for (std::size_t k = 1; k < ps.size(); ++k) {
    const auto res = run(ps[k].get());
    EXPECT_EQ(res.eta.eta1(), ref.eta.eta1()) << "threads " << ps[k]->threads();
    EXPECT_EQ(res.eta.eta2(), ref.eta.eta2()) << "threads " << ps[k]->threads();
    EXPECT_EQ(res.average->first, ref.average->first) << "threads " << ps[k]->threads();
    EXPECT_EQ(res.average->second, ref.average->second) << "threads " << ps[k]->threads();
  }
}

}  // namespace
}  // namespace ngvi
