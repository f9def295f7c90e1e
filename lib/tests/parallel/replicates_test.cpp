#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <tuple>

#include "ngvi/parallel/replicates.hpp"
#include "ngvi/random/stream.hpp"

namespace ngvi::parallel {
namespace { namespace NGVI_UNITY_ID {

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

}}  // namespace
}  // namespace ngvi::parallel

namespace ngvi::parallel {
namespace { namespace NGVI_UNITY_ID {

// An in-process stand-in for an MPI communicator: P "ranks" run one after another; all_gather
// returns the blocks recorded so far, and a failure status for ranks not run yet (so the first
// pass throws, and also exercises the failure path). The second pass sees every block. It checks
// the block arithmetic and the byte layout that the MPI back end relies on. (replicates_per_rank
// gathers raw counts, not this layout, so it is tested with its own stand-in below.)
class RecordingGroup : public ProcessGroup {
 public:
  RecordingGroup(int rank, int size, std::vector<std::vector<std::byte>>* blocks) : rank_(rank), size_(size), blocks_(blocks) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::vector<std::byte> all_gather(const std::vector<std::byte>& mine) override {
    (*blocks_)[static_cast<std::size_t>(rank_)] = mine;
    std::vector<std::byte> all;
    for (const auto& b : *blocks_) {
      if (b.empty()) {  // a rank not run yet reports a failure
        Writer w;
        put(w, std::uint8_t{1});
        put(w, std::string("not run yet"));
        all.insert(all.end(), w.bytes().begin(), w.bytes().end());
      } else {
        all.insert(all.end(), b.begin(), b.end());
      }
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

// A result that is neither trivially copyable nor a standard container: gathered through its
// serial_fields hook.
struct Run {
  std::vector<double> kl;
  std::string note;
  long stopped_at = -1;
};
auto serial_fields(Run& r) { return std::tie(r.kl, r.note, r.stopped_at); }

Run make_run(long r) {
  Run out;
  random::Stream s(7, static_cast<std::uint64_t>(r));
  for (long i = 0; i <= r % 5; ++i) out.kl.push_back(s.normal());
  out.note = std::string(static_cast<std::size_t>(r % 3), 'x');
  out.stopped_at = r * r;
  return out;
}

// Runs `call` as each of P in-process ranks twice (the first pass fills the blocks); returns, per
// rank, the result of the second pass and the items `call` computed there.
template <class Call>
auto run_as_ranks(int p, Call&& call) {
  using R = decltype(call(static_cast<std::vector<long>*>(nullptr)));
  std::vector<std::vector<std::byte>> blocks(static_cast<std::size_t>(p));
  std::vector<R> results(static_cast<std::size_t>(p));
  std::vector<std::vector<long>> computed(static_cast<std::size_t>(p));
  for (int pass = 0; pass < 2; ++pass)
    for (int k = 0; k < p; ++k) {
      RecordingGroup g(k, p, &blocks);
      set_process_group(&g);
      std::vector<long> items;
      try {
        R got = call(&items);
        if (pass == 1) results[static_cast<std::size_t>(k)] = std::move(got);
      } catch (const std::runtime_error&) {
        EXPECT_EQ(pass, 0);
      }
      set_process_group(nullptr);
      if (pass == 1) computed[static_cast<std::size_t>(k)] = items;
    }
  return std::make_pair(results, computed);
}

TEST(Replicates, EachRankComputesOnlyItsBlockOfAnySerialisableResult) {
  const long count = 23;
  const auto reference = run_replicates(count, 2, make_run);
  const int p = 3;
  auto [results, computed] = run_as_ranks(p, [&](std::vector<long>* items) {
    std::mutex m;
    return run_replicates(count, 2, [&](long r) {
      std::lock_guard<std::mutex> lock(m);
      items->push_back(r);
      return make_run(r);
    });
  });
  for (int k = 0; k < p; ++k) {
    auto mine = computed[static_cast<std::size_t>(k)];
    std::sort(mine.begin(), mine.end());
    std::vector<long> block;
    for (long r = count * k / p; r < count * (k + 1) / p; ++r) block.push_back(r);
    EXPECT_EQ(mine, block) << "rank " << k;
    const auto& got = results[static_cast<std::size_t>(k)];
    ASSERT_EQ(got.size(), reference.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].kl, reference[i].kl) << "rank " << k << " replicate " << i;
      EXPECT_EQ(got[i].note, reference[i].note);
      EXPECT_EQ(got[i].stopped_at, reference[i].stopped_at);
    }
  }
}

TEST(Replicates, GroupsAreSplitWholeAndTheTallyCountsReplicates) {
  // 21 replicates in groups of 8: groups [0, 8), [8, 16), [16, 21); with 3 ranks one group each.
  const long replicates = 21, group = 8;
  auto group_sum = [](long first, long n) {
    std::vector<double> v;
    for (long r = first; r < first + n; ++r) v.push_back(replicate_sum(r));
    return v;
  };
  reset_replicate_tally();
  const auto reference = run_replicate_groups(replicates, group, 1, group_sum);
  EXPECT_EQ(replicate_tally().load(), replicates);
  ASSERT_EQ(reference.size(), 3u);
  EXPECT_EQ(reference[2].size(), 5u);
  std::vector<long> tallies;
  auto [results, computed] = run_as_ranks(3, [&](std::vector<long>* items) {
    reset_replicate_tally();
    auto out = run_replicate_groups(replicates, group, 1, [&](long first, long n) {
      items->push_back(first);
      return group_sum(first, n);
    });
    tallies.push_back(replicate_tally().load());
    return out;
  });
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(computed[static_cast<std::size_t>(k)], std::vector<long>{group * k}) << "rank " << k;
    EXPECT_EQ(results[static_cast<std::size_t>(k)], reference) << "rank " << k;
  }
  // The second pass gives the last three entries: ranks computed 8, 8 and 5 replicates.
  ASSERT_GE(tallies.size(), 3u);
  EXPECT_EQ((std::vector<long>(tallies.end() - 3, tallies.end())), (std::vector<long>{8, 8, 5}));
  EXPECT_THROW(run_replicate_groups(4, 0, 1, group_sum), std::invalid_argument);
}

// Stand-in for replicates_per_rank's gather: every rank reports the same tallies.
class FixedGather : public ProcessGroup {
 public:
  explicit FixedGather(std::vector<long> tallies) : tallies_(std::move(tallies)) {}
  int rank() const override { return 0; }
  int size() const override { return static_cast<int>(tallies_.size()); }
  std::vector<std::byte> all_gather(const std::vector<std::byte>& mine) override {
    long self = 0;
    std::memcpy(&self, mine.data(), sizeof(long));
    EXPECT_EQ(self, tallies_[0]);
    std::vector<std::byte> all(tallies_.size() * sizeof(long));
    std::memcpy(all.data(), tallies_.data(), all.size());
    return all;
  }

 private:
  std::vector<long> tallies_;
};

TEST(Replicates, PerRankTallyIsGathered) {
  reset_replicate_tally();
  run_replicates(5, 1, replicate_sum);
  EXPECT_EQ(replicates_per_rank(), std::vector<long>{5});
  FixedGather g({5, 7});
  set_process_group(&g);
  EXPECT_EQ(replicates_per_rank(), (std::vector<long>{5, 7}));
  set_process_group(nullptr);
}

}}  // namespace
}  // namespace ngvi::parallel
