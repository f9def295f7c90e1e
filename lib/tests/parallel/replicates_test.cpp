#include <gtest/gtest.h>

#include "ngvi/parallel/replicates.hpp"
#include "ngvi/random/stream.hpp"

namespace ngvi::parallel {
namespace {

double replicate_sum(long r) {
  random::Stream s(99, static_cast<std::uint64_t>(r));
  double acc = 0;
  for (int i = 0; i < 1000; ++i) acc += s.normal();
  return acc;
}

TEST(Replicates, BitwiseIdenticalForAnyThreadCount) {
  const auto one = run_replicates(64, 1, replicate_sum);
  const auto two = run_replicates(64, 2, replicate_sum);
  const auto many = run_replicates(64, 7, replicate_sum);
  ASSERT_EQ(one.size(), 64u);
  for (std::size_t i = 0; i < one.size(); ++i) {
    EXPECT_EQ(one[i], two[i]);
    EXPECT_EQ(one[i], many[i]);
  }
}

TEST(Replicates, PropagatesTheFirstErrorAndRejectsBadArguments) {
  EXPECT_THROW(run_replicates(10, 2, [](long r) -> int { if (r == 3) throw std::runtime_error("boom"); return 0; }),
               std::runtime_error);
  EXPECT_THROW(run_replicates(10, -1, [](long) { return 0; }), std::invalid_argument);
  EXPECT_TRUE(run_replicates(0, 2, [](long) { return 0; }).empty());
}

}  // namespace
}  // namespace ngvi::parallel
