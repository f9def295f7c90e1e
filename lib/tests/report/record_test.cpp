#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>

#include "ngvi/report/record.hpp"

namespace ngvi::report {
namespace {

TEST(ClaimRecordJson, RoundTripKeepsEveryFieldAndNonFiniteValues) {
  ClaimRecord a;
  a.claim = "x.y";
  a.instance = "i1";
  a.precision = "mp50";
  a.kind = Kind::kControl;
  a.lhs = 3.5;
  a.rhs = std::nan("");
  a.margin = -INFINITY;
  a.verdict = verdict_from_margin(a.margin);
  a.seconds = 0.25;
  a.unit = "eps";
  a.note = "n";
  RunMeta meta;
  meta.commit = "abc";
  meta.seed = 7;
  meta.precisions = {"double"};
  meta.ranks = 2;
  meta.replicates_per_rank = {96, 104};
  const std::string path = ::testing::TempDir() + "/claims_roundtrip.json";
  write_claims_json(path, meta, {a});
  RunMeta back_meta;
  const auto back = read_claims_json(path, &back_meta);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].claim, "x.y");
  EXPECT_EQ(back[0].kind, Kind::kControl);
  EXPECT_EQ(back[0].lhs, 3.5);
  EXPECT_TRUE(std::isnan(back[0].rhs));
  EXPECT_TRUE(std::isinf(back[0].margin) && std::signbit(back[0].margin));
  EXPECT_EQ(back[0].verdict, Verdict::kBroken);
  EXPECT_EQ(back_meta.commit, "abc");
  EXPECT_EQ(back_meta.seed, 7u);
  EXPECT_EQ(back_meta.ranks, 2);
  EXPECT_EQ(back_meta.replicates_per_rank, (std::vector<long>{96, 104}));
  std::remove(path.c_str());
}

TEST(ClaimRecordJson, VerdictRuleTreatsNanAsBroken) {
  EXPECT_EQ(verdict_from_margin(1e-300), Verdict::kHolds);
  EXPECT_EQ(verdict_from_margin(0.0), Verdict::kBroken);
  EXPECT_EQ(verdict_from_margin(std::nan("")), Verdict::kBroken);
  EXPECT_EQ(verdict_from_margin(INFINITY), Verdict::kBroken);
}

TEST(ClaimRecordJson, ReadErrorsNameTheFile) {
  try {
    read_claims_json("/nonexistent/claims.json");
    FAIL() << "no throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/claims.json"), std::string::npos);
  }
  const std::string path = ::testing::TempDir() + "/bad.json";
  std::ofstream(path) << "{not json";
  try {
    read_claims_json(path);
    FAIL() << "no throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("not valid JSON"), std::string::npos);
  }
  std::remove(path.c_str());
}

}  // namespace
}  // namespace ngvi::report
