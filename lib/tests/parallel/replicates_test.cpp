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

namespace ngvi::parallel {
namespace {

// An in-process stand-in for an MPI communicator: P "ranks" run one after another; all_gather
// returns the blocks recorded so far, and a failure status for ranks not run yet (so the first
// pass throws, and also exercises the failure path). The second pass sees every block. It checks
// the block arithmetic and the byte layout that the MPI back end relies on.
class RecordingGroup : public ProcessGroup {
 public:
  RecordingGroup(int rank, int size, std::vector<std::vector<std::byte>>* blocks) : rank_(rank), size_(size), blocks_(blocks) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::vector<std::byte> all_gather(const std::vector<std::byte>& mine) override {
    (*blocks_)[static_cast<std::size_t>(rank_)] = mine;
    std::vector<std::byte> all;
    for (const auto& b : *blocks_) {
      if (b.empty()) all.push_back(std::byte(1));  // a rank not run yet reports a failure
      else all.insert(all.end(), b.begin(), b.end());
    }
    return all;
  }

 private:
  int rank_, size_;
  std::vector<std::vector<std::byte>>* blocks_;
};

TEST(Replicates, SplitAcrossRanksGivesTheSameVector) {
  const auto reference = run_replicates(37, 2, replicate_sum);
  const int p = 3;
  std::vector<std::vector<std::byte>> blocks(p);
  // First pass fills every rank's block; the second pass reads complete gathers.
  for (int pass = 0; pass < 2; ++pass) {
    for (int k = 0; k < p; ++k) {
      RecordingGroup g(k, p, &blocks);
      set_process_group(&g);
      std::vector<double> got;
      try {
        got = run_replicates(37, 1, replicate_sum);
      } catch (const std::runtime_error& e) {
        EXPECT_EQ(pass, 0) << e.what();
        EXPECT_NE(std::string(e.what()).find("another rank"), std::string::npos);
      }
      set_process_group(nullptr);
      if (pass == 1) {
        ASSERT_EQ(got.size(), reference.size());
        for (std::size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], reference[i]) << "rank " << k << " replicate " << i;
      }
    }
  }
}

}  // namespace
}  // namespace ngvi::parallel
