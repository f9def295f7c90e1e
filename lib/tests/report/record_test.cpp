#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>

#include "ngvi/report/record.hpp"

namespace ngvi::report {
namespace { namespace NGVI_UNITY_ID {

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
  EXPECT_EQ(back[0].verdict, Verdict::kError);  // recomputed on reading: a NaN rhs is an error, not a broken control
  EXPECT_EQ(back_meta.commit, "abc");
  EXPECT_EQ(back_meta.seed, 7u);
  EXPECT_EQ(back_meta.ranks, 2);
  EXPECT_EQ(back_meta.replicates_per_rank, (std::vector<long>{96, 104}));
  std::remove(path.c_str());
}

TEST(ClaimRecordJson, LevelRoundTripsAndDeterministicRecordsStayNan) {
  ClaimRecord mc, det;
  mc.claim = det.claim = "x.y";
  mc.instance = "mc";
  det.instance = "det";
  mc.precision = det.precision = "double";
  mc.lhs = det.lhs = 1;
  mc.rhs = det.rhs = 2;
  mc.margin = det.margin = 1;
  mc.level = 2e-4;
  const std::string path = ::testing::TempDir() + "/claims_level.json";
  write_claims_json(path, RunMeta{}, {mc, det});
  const auto back = read_claims_json(path);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].level, 2e-4);
  EXPECT_TRUE(std::isnan(back[1].level));
  std::remove(path.c_str());
}

// A control's route (re-run or injected) survives claims.json, claim records have none, the counts
// give the injected share, and an unknown route is an error naming the field.
TEST(ClaimRecordJson, ControlRouteRoundTripsAndIsCounted) {
  ClaimRecord claim, rerun, injected;
  claim.claim = rerun.claim = injected.claim = "x.y";
  claim.instance = "c";
  rerun.instance = "r";
  injected.instance = "i";
  claim.precision = rerun.precision = injected.precision = "double";
  rerun.kind = injected.kind = Kind::kControl;
  claim.lhs = 1, claim.rhs = 2, claim.margin = 1;
  rerun.lhs = injected.lhs = 3, rerun.rhs = injected.rhs = 2, rerun.margin = injected.margin = -1;
  injected.injected = true;
  const std::string path = ::testing::TempDir() + "/claims_route.json";
  write_claims_json(path, RunMeta{}, {claim, rerun, injected});
  const auto back = read_claims_json(path);
  ASSERT_EQ(back.size(), 3u);
  EXPECT_FALSE(back[0].injected);
  EXPECT_FALSE(back[1].injected);
  EXPECT_TRUE(back[2].injected);
  const auto n = count_records(back);
  EXPECT_EQ(n.controls, 2);
  EXPECT_EQ(n.controls_injected, 1);
  {
    std::ifstream in(path);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("\"control_route\": \"rerun\""), std::string::npos);
    EXPECT_NE(text.find("\"control_route\": \"injected\""), std::string::npos);
    std::string bad = text;
    bad.replace(bad.find("\"injected\""), std::string("\"injected\"").size(), "\"sideways\"");
    std::ofstream(path) << bad;
  }
  try {
    (void)read_claims_json(path);
    ADD_FAILURE() << "an unknown control_route was accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("control_route"), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
}

TEST(SuiteLevel, SumsTheLevelsOfClaimRecordsOnly) {
  ClaimRecord a, b, c, d;
  a.level = 0.004;
  b.level = 0.003;
  c.kind = Kind::kControl;
  c.level = 0.5;  // a control's miss rate is a power, not a false alarm
  // d deterministic: NaN level, counts nothing
  EXPECT_NEAR(suite_level({a, b, c, d}), 0.007, 1e-15);
  EXPECT_EQ(suite_level({d}), 0.0);
  a.level = 0.008;
  EXPECT_GT(suite_level({a, b}), kSuiteLevel);
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

// An integer field holding a float or an integer beyond its type's range is an error naming the
// field, not a cast (undefined behaviour the claims.json fuzz target found: "controls": 1.1e21 in a
// mutants.json; fuzz/regressions/claims_json/ keeps that input).
TEST(ClaimRecordJson, IntegerFieldsOutOfRangeAreErrorsNamingTheField) {
  const std::string path = ::testing::TempDir() + "/claims_ints.json";
  auto reads = [&](const std::string& meta) {
    std::ofstream(path) << "{\"meta\": " << meta << ", \"records\": []}";
    try {
      RunMeta m;
      (void)read_claims_json(path, &m);
      return std::string("read");
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
  };
  EXPECT_EQ(reads(R"({"seed": 7, "threads": 2, "ranks": 1, "replicates_per_rank": [3, 4]})"), "read");
  for (const char* bad : {R"({"seed": 1.1e21})", R"({"seed": -1})", R"({"threads": 1e10})", R"({"threads": 2.5})",
                          R"({"ranks": 4294967296})", R"({"protocol_version": "1"})", R"({"replicates_per_rank": [1, 1e300]})"}) {
    const std::string what = reads(bad);
    const std::string field = std::string(bad).substr(2, std::string(bad).find('"', 2) - 2);
    EXPECT_NE(what.find("field '" + field + "'"), std::string::npos) << bad << ": " << what;
    EXPECT_NE(what.find(path), std::string::npos) << bad << ": " << what;
  }
  std::remove(path.c_str());
}

ClaimRecord judged(Kind kind, Form form, double lhs, double rhs) {
  ClaimRecord r;
  r.claim = "c";
  r.instance = "i";
  r.precision = "double";
  r.kind = kind;
  r.form = form;
  r.lhs = lhs;
  r.rhs = rhs;
  r.margin = rhs - lhs;
  apply_verdict_rule(r);
  return r;
}

TEST(VerdictRule, NonFiniteNumbersAreErrorsNeverPasses) {
  const double nan = std::nan("");
  for (Kind k : {Kind::kClaim, Kind::kControl}) {
    // A NaN control used to count as "broken", i.e. passing: now it is an error, a failure.
    EXPECT_EQ(judged(k, Form::kInequality, nan, 1.0).verdict, Verdict::kError);
    EXPECT_EQ(judged(k, Form::kInequality, 0.5, INFINITY).verdict, Verdict::kError);
    EXPECT_EQ(judged(k, Form::kIdentity, -INFINITY, 1.0).verdict, Verdict::kError);
    EXPECT_EQ(outcome(judged(k, Form::kInequality, nan, 1.0)), Outcome::kFail);
  }
}

TEST(VerdictRule, TightnessAndVacuous) {
  // 1e-4 of the bound used: holds but vacuous (not evidence, not a failure).
  const auto v = judged(Kind::kClaim, Form::kInequality, 1e-4, 1.0);
  EXPECT_EQ(v.verdict, Verdict::kVacuous);
  EXPECT_DOUBLE_EQ(v.tightness, 1e-4);
  EXPECT_EQ(outcome(v), Outcome::kVacuous);
  EXPECT_FALSE(record_passes(v));
  // At 1e-2 it is evidence.
  const auto h = judged(Kind::kClaim, Form::kInequality, 1e-2, 1.0);
  EXPECT_EQ(h.verdict, Verdict::kHolds);
  EXPECT_TRUE(record_passes(h));
  // Identities have no tightness: a tiny error against its budget is the best case, not vacuous.
  const auto id = judged(Kind::kClaim, Form::kIdentity, 1e-9, 100.0);
  EXPECT_EQ(id.verdict, Verdict::kHolds);
  EXPECT_TRUE(std::isnan(id.tightness));
  // A control that holds, however loosely, is a failing control, not "vacuous".
  const auto c = judged(Kind::kControl, Form::kInequality, 1e-6, 1.0);
  EXPECT_EQ(c.verdict, Verdict::kHolds);
  EXPECT_EQ(outcome(c), Outcome::kFail);
  // Undefined tightness (rhs <= 0): no vacuous verdict, the margin decides.
  const auto z = judged(Kind::kClaim, Form::kInequality, -2.0, 0.0);
  EXPECT_TRUE(std::isnan(z.tightness));
  EXPECT_EQ(z.verdict, Verdict::kHolds);
  EXPECT_EQ(judged(Kind::kClaim, Form::kInequality, 2.0, 1.0).verdict, Verdict::kBroken);
}

// The vacuous rule for upper bounds reads only non-negative left sides: a signed lhs far below its
// bound (a largest decrease that is negative, the mp50 eigenvalue exactly at its floor) is not loose.
TEST(VerdictRule, SignedLhsHasNoTightnessAndIsNeverVacuousByIt) {
  const auto neg = judged(Kind::kClaim, Form::kInequality, -2e-10, 4e-9);
  EXPECT_TRUE(std::isnan(neg.tightness));
  EXPECT_EQ(neg.verdict, Verdict::kHolds);
  // lhs = 0 of an upper bound on a non-negative quantity is still vacuous: nothing was measured.
  EXPECT_EQ(judged(Kind::kClaim, Form::kInequality, 0.0, 1.0).verdict, Verdict::kVacuous);
}

// A difference is judged by its resolution budget/|reference|, never by lhs/rhs.
ClaimRecord difference(Kind kind, double deviation, double budget, double reference) {
  ClaimRecord r = judged(kind, Form::kDifference, deviation, budget);
  r.resolution = resolution_of(budget, reference);
  apply_verdict_rule(r);
  return r;
}

TEST(VerdictRule, DifferencesAreJudgedByTheirResolution) {
  // A rate 0.5 measured to 3e-11 against a budget 7.7e-6: lhs/rhs is 4e-6, but the record resolves
  // relative deviations of 1.5e-5: evidence.
  const auto fine = difference(Kind::kClaim, 3e-11, 7.7e-6, 0.5);
  EXPECT_EQ(fine.verdict, Verdict::kHolds);
  EXPECT_TRUE(std::isnan(fine.tightness));
  EXPECT_DOUBLE_EQ(fine.resolution, 7.7e-6 / 0.5);
  // A budget as large as the reference accepts 0 in its place: vacuous.
  EXPECT_EQ(difference(Kind::kClaim, 0.1, 0.5, 0.5).verdict, Verdict::kVacuous);
  EXPECT_EQ(difference(Kind::kClaim, 0.1, 0.6, -0.5).verdict, Verdict::kVacuous);
  EXPECT_EQ(difference(Kind::kClaim, 0.1, 0.49, 0.5).verdict, Verdict::kHolds);
  // The margin still decides first; a control is never vacuous.
  EXPECT_EQ(difference(Kind::kClaim, 1e-5, 7.7e-6, 0.5).verdict, Verdict::kBroken);
  EXPECT_EQ(difference(Kind::kControl, 0.1, 0.5, 0.5).verdict, Verdict::kHolds);
  // A reference of 0 leaves the resolution undefined: the margin alone decides.
  const auto zero = difference(Kind::kClaim, 1e-3, 1.0, 0.0);
  EXPECT_TRUE(std::isnan(zero.resolution));
  EXPECT_EQ(zero.verdict, Verdict::kHolds);
  // Another form keeps no resolution.
  ClaimRecord other = judged(Kind::kClaim, Form::kInequality, 0.5, 1.0);
  other.resolution = 3;
  apply_verdict_rule(other);
  EXPECT_TRUE(std::isnan(other.resolution));
}

TEST(VerdictRule, SkippedStaysSkippedAndCounts) {
  ClaimRecord s;
  s.lhs = s.rhs = s.margin = std::nan("");
  s.verdict = Verdict::kSkipped;
  apply_verdict_rule(s);
  EXPECT_EQ(s.verdict, Verdict::kSkipped);
  EXPECT_FALSE(record_passes(s));
  const std::vector<ClaimRecord> recs{s, judged(Kind::kClaim, Form::kInequality, 0.5, 1.0),
                                      judged(Kind::kClaim, Form::kInequality, 1e-5, 1.0),
                                      judged(Kind::kControl, Form::kInequality, 2.0, 1.0),
                                      judged(Kind::kControl, Form::kInequality, std::nan(""), 1.0)};
  const auto n = count_records(recs);
  EXPECT_EQ(n.records, 5);
  EXPECT_EQ(n.claims, 3);
  EXPECT_EQ(n.claims_hold, 1);
  EXPECT_EQ(n.controls, 2);
  EXPECT_EQ(n.controls_broken, 1);
  EXPECT_EQ(n.vacuous, 1);
  EXPECT_EQ(n.skipped, 1);
  EXPECT_EQ(n.errors, 1);
  EXPECT_EQ(n.failures, 1);
  EXPECT_FALSE(n.pass());
  // Only skipped and vacuous records: no failure, but nothing shown either.
  EXPECT_FALSE(count_records({recs[0], recs[2]}).pass());
}

TEST(ClaimRecordJson, RoundTripKeepsFormTightnessAndEveryVerdict) {
  std::vector<ClaimRecord> recs{judged(Kind::kClaim, Form::kInequality, 1e-5, 1.0),
                                judged(Kind::kClaim, Form::kIdentity, 3.0, 100.0),
                                judged(Kind::kControl, Form::kInequality, std::nan(""), 1.0),
                                judged(Kind::kClaim, Form::kInequality, 3.0, 1.0),
                                difference(Kind::kClaim, 1e-9, 1e-6, 0.5),
                                difference(Kind::kClaim, 1e-9, 2.0, 0.5)};
  ClaimRecord s;
  s.verdict = Verdict::kSkipped;
  s.lhs = s.rhs = s.margin = std::nan("");
  recs.push_back(s);
  RunMeta meta;
  meta.claims = "lemma4.*,thm1.*";
  const std::string path = ::testing::TempDir() + "/claims_verdicts.json";
  write_claims_json(path, meta, recs);
  RunMeta back_meta;
  const auto back = read_claims_json(path, &back_meta);
  ASSERT_EQ(back.size(), recs.size());
  for (std::size_t i = 0; i < recs.size(); ++i) {
    EXPECT_EQ(back[i].verdict, recs[i].verdict) << i;
    EXPECT_EQ(back[i].form, recs[i].form) << i;
    EXPECT_TRUE(back[i].tightness == recs[i].tightness || (std::isnan(back[i].tightness) && std::isnan(recs[i].tightness))) << i;
    EXPECT_TRUE(back[i].resolution == recs[i].resolution || (std::isnan(back[i].resolution) && std::isnan(recs[i].resolution))) << i;
  }
  EXPECT_EQ(back_meta.claims, "lemma4.*,thm1.*");
  std::remove(path.c_str());
  EXPECT_THROW(verdict_from_string("pass"), std::invalid_argument);
}

TEST(ClaimRecordJson, OlderFilesWithoutFormInferItFromTheUnit) {
  const std::string path = ::testing::TempDir() + "/claims_old.json";
  std::ofstream(path) << R"({"meta": {"seed": 1}, "records": [
    {"claim": "a", "instance": "i", "precision": "double", "kind": "claim", "lhs": 2, "rhs": 8, "margin": 6,
     "verdict": "holds", "unit": "eps"},
    {"claim": "a", "instance": "j", "precision": "double", "kind": "claim", "lhs": 2, "rhs": 8, "margin": 6,
     "verdict": "holds", "unit": ""}]})";
  const auto back = read_claims_json(path);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].form, Form::kIdentity);
  EXPECT_TRUE(std::isnan(back[0].tightness));
  EXPECT_EQ(back[1].form, Form::kInequality);
  EXPECT_DOUBLE_EQ(back[1].tightness, 0.25);
  std::remove(path.c_str());
}

TEST(ClaimRecordJson, MetaRecordsTheImplementationUnderTest) {
  RunMeta meta;
  meta.implementation = "numpy-ngd";
  meta.implementation_version = "1.0";
  meta.protocol = "conjugate-ngd";
  meta.protocol_version = 1;
  const std::string path = ::testing::TempDir() + "/claims_impl.json";
  write_claims_json(path, meta, {});
  RunMeta back;
  read_claims_json(path, &back);
  EXPECT_EQ(back.implementation, "numpy-ngd");
  EXPECT_EQ(back.implementation_version, "1.0");
  EXPECT_EQ(back.protocol, "conjugate-ngd");
  EXPECT_EQ(back.protocol_version, 1);
  EXPECT_EQ(describe_implementation(back), "implementation 'numpy-ngd' 1.0 (conjugate-ngd v1)");
  // Older files: the library's algorithm, or the variant they name; no protocol.
  std::ofstream(path) << R"({"meta": {"seed": 1, "variant": "g2-bias"}, "records": []})";
  read_claims_json(path, &back);
  EXPECT_EQ(back.implementation, "g2-bias");
  EXPECT_EQ(back.implementation_version, "");
  EXPECT_EQ(back.protocol, "");
  EXPECT_EQ(back.protocol_version, 0);
  EXPECT_EQ(describe_implementation(back), "variant 'g2-bias'");
  std::ofstream(path) << R"({"meta": {"seed": 1}, "records": []})";
  read_claims_json(path, &back);
  EXPECT_EQ(describe_implementation(back), "the library's algorithm");
  std::remove(path.c_str());
}

}}  // namespace
}  // namespace ngvi::report
