#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "ngvi/random/stream.hpp"

namespace ngvi::random {
namespace {

TEST(Stream, IsAPureFunctionOfSeedIdAndCounter) {
  Stream a(7, 3), b(7, 3), c(7, 4), d(8, 3);
  for (int i = 0; i < 100; ++i) {
    const auto x = a();
    EXPECT_EQ(x, b());
    EXPECT_NE(x, c());
    EXPECT_NE(x, d());
  }
  Stream e(7, 3);
  e.seek(50);
  Stream f(7, 3);
  for (int i = 0; i < 50; ++i) f();
  EXPECT_EQ(e(), f());
}

// Uniform draws: mean 1/2 and variance 1/12 within 5 standard errors over 1e5 draws (a failure
// probability below 1e-6 for a correct generator).
TEST(Stream, UniformAndNormalMoments) {
  Stream s(1, 0);
  const int n = 100000;
  double su = 0, su2 = 0, sn = 0, sn2 = 0;
  for (int i = 0; i < n; ++i) {
    const double u = s.uniform01();
    ASSERT_TRUE(u >= 0.0 && u < 1.0);
    su += u;
    su2 += u * u;
    const double z = s.normal();
    sn += z;
    sn2 += z * z;
  }
  const double k = 5.0;
  EXPECT_NEAR(su / n, 0.5, k * std::sqrt(1.0 / 12.0 / n));
  EXPECT_NEAR(sn / n, 0.0, k * std::sqrt(1.0 / n));
  EXPECT_NEAR(sn2 / n, 1.0, k * std::sqrt(2.0 / n));
  EXPECT_NEAR(su2 / n - (su / n) * (su / n), 1.0 / 12.0, k * std::sqrt(1.0 / 180.0 / n));
}

TEST(Stream, IndexCoversRangeOnly) {
  Stream s(2, 0);
  std::set<std::uint64_t> seen;
  for (int i = 0; i < 1000; ++i) {
    const auto k = s.index(7);
    ASSERT_LT(k, 7u);
    seen.insert(k);
  }
  EXPECT_EQ(seen.size(), 7u);
}

}  // namespace
}  // namespace ngvi::random
