#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <vector>

#include "ngvi/random/stream.hpp"

namespace ngvi::random {
namespace { namespace NGVI_UNITY_ID {

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

// The sampler must reproduce Boost's uniform_int_distribution (Stream::index) draw for draw,
// including the stream words it consumes, for small n, n near 2^63 (where rejection is frequent:
// about half the words are rejected) and n = 2^64 − 1, and for n = 1, which draws nothing.
TEST(IndexSampler, ReproducesStreamIndexExactly) {
  for (std::uint64_t n : {1ULL, 2ULL, 3ULL, 7ULL, 12ULL, 4096ULL, 20190ULL, (1ULL << 63) + 5, ~0ULL - 1, ~0ULL}) {
    Stream a(3, 9), b(3, 9);
    const IndexSampler sampler(n);
    for (int i = 0; i < 20000; ++i) {
      const auto expected = a.index(n);
      ASSERT_EQ(sampler(b), expected) << "n " << n << " draw " << i;
      ASSERT_EQ(b.position(), a.position()) << "n " << n << " draw " << i;
    }
  }
  EXPECT_THROW(IndexSampler(0), std::invalid_argument);
}

// A generator that replays chosen words, so the words next to bucket edges are met for certain.
struct ScriptedWords {
  using result_type = std::uint64_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~0ULL; }
  std::vector<result_type> words;
  std::size_t next = 0;
  result_type operator()() { return words[next++ % words.size()]; }
};

// Boost's algorithm on the words at and next to every bucket edge it uses: 0, the last word of
// the first bucket, the first and last accepted words of the last bucket, the first rejected one,
// and the top of the range. For n a power of two the bucket width carries Boost's +1 correction,
// and an error there shows only at these words.
TEST(IndexSampler, MatchesBoostAtBucketEdges) {
  constexpr std::uint64_t all = ~0ULL;
  for (std::uint64_t n : {2ULL, 3ULL, 4096ULL, 20190ULL, 1ULL << 40, (1ULL << 63) + 5, 1ULL << 63}) {
    const std::uint64_t bucket = all / n + (all % n == n - 1 ? 1 : 0);
    const std::uint64_t accepted_top = bucket * n - 1;  // wraps to all when bucket·n = 2^64
    ScriptedWords a{{0, bucket - 1, bucket, accepted_top, accepted_top + 1, all - 1, all, 12345}}, b = a;
    const IndexSampler sampler(n);
    boost::random::uniform_int_distribution<std::uint64_t> boost_index(0, n - 1);
    for (int i = 0; i < 6; ++i) {
      ASSERT_EQ(sampler(b), boost_index(a)) << "n " << n << " draw " << i;
      ASSERT_EQ(b.next, a.next) << "n " << n << " draw " << i;
    }
  }
}

}}  // namespace
}  // namespace ngvi::random
