// The baseline comparison contract (ngvi/report/compare.hpp) and the JUnit writer, on hand-built
// records whose expected classification follows from the rules stated in the header.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "ngvi/report/compare.hpp"
#include "ngvi/report/junit.hpp"

namespace ngvi::report {
namespace { namespace NGVI_UNITY_ID {

ClaimRecord rec(const std::string& claim, const std::string& inst, Kind kind, double lhs, double rhs,
                const std::string& unit = "", const std::string& precision = "double") {
  ClaimRecord r;
  r.claim = claim;
  r.instance = inst;
  r.precision = precision;
  r.kind = kind;
  r.form = unit == "eps" ? Form::kIdentity : Form::kInequality;
  r.lhs = lhs;
  r.rhs = rhs;
  r.margin = rhs - lhs;
  r.unit = unit;
  apply_verdict_rule(r);
  return r;
}

RunMeta meta_all() {
  RunMeta m;
  m.seed = 1;
  m.mode = "quick";
  m.precisions = {"double", "mp50"};
  m.claims = "*";
  return m;
}

const RecordChange& row(const Comparison& c, const std::string& inst) {
  for (const auto& r : c.rows)
    if (r.instance == inst) return r;
  throw std::runtime_error("no row " + inst);
}

TEST(CompareRuns, MissingRecordIsARegression) {
  const std::vector<ClaimRecord> old{rec("a", "i", Kind::kClaim, 0.5, 1), rec("a", "j", Kind::kClaim, 0.5, 1)};
  const std::vector<ClaimRecord> now{rec("a", "i", Kind::kClaim, 0.5, 1)};
  const auto c = compare_runs(old, now, meta_all(), MarginTolerance{});
  EXPECT_EQ(c.compared, 1);
  EXPECT_EQ(c.missing, 1);
  EXPECT_EQ(c.regressions, 1);
  EXPECT_EQ(row(c, "j").change, Change::kMissing);
}

TEST(CompareRuns, NoOverlapComparesNothing) {
  const auto c = compare_runs({rec("thm1.rate", "i", Kind::kClaim, 0.5, 1)}, {rec("lemma4.x", "i", Kind::kClaim, 0.5, 1)},
                              [] {
                                auto m = meta_all();
                                m.claims = "lemma4.*";
                                return m;
                              }(),
                              MarginTolerance{});
  EXPECT_TRUE(c.nothing_compared());
  EXPECT_EQ(c.out_of_scope, 1);  // thm1 is outside the selection: not "missing"
  EXPECT_EQ(c.missing, 0);
  EXPECT_EQ(c.added, 1);
}

TEST(CompareRuns, BrokenToHoldsIsAnImprovementAndTheReverseARegression) {
  const auto broken = rec("a", "i", Kind::kClaim, 2, 1);
  const auto holds = rec("a", "i", Kind::kClaim, 0.5, 1);
  auto c = compare_runs({broken}, {holds}, meta_all(), MarginTolerance{});
  EXPECT_EQ(c.improvements, 1);
  EXPECT_EQ(c.regressions, 0);
  c = compare_runs({holds}, {broken}, meta_all(), MarginTolerance{});
  EXPECT_EQ(c.regressions, 1);
  // A control that stops being broken regresses; one that becomes broken improves.
  c = compare_runs({rec("a", "k", Kind::kControl, 2, 1)}, {rec("a", "k", Kind::kControl, 0.5, 1)}, meta_all(), {});
  EXPECT_EQ(c.regressions, 1);
  // Holding evidence that turns vacuous is no longer evidence: a regression.
  c = compare_runs({holds}, {rec("a", "i", Kind::kClaim, 1e-5, 1)}, meta_all(), {});
  EXPECT_EQ(c.regressions, 1);
  EXPECT_NE(c.rows[0].what.find("vacuous"), std::string::npos);
}

// Vacuous -> holds is an improvement when the bound came down, not when the measured side grew (a
// worse estimator makes the same bound look tight; header rule, compare.cpp's judge).
TEST(CompareRuns, VacuousToHoldsByALargerLeftSideIsNoImprovement) {
  const auto vacuous = rec("a", "i", Kind::kClaim, 1e-6, 1);  // tightness 1e-6 < kVacuousTightness
  ASSERT_EQ(vacuous.verdict, Verdict::kVacuous);
  // The lhs grew 1e4-fold against the same bound: a neutral change, listed, neither count.
  auto c = compare_runs({vacuous}, {rec("a", "i", Kind::kClaim, 1e-2, 1)}, meta_all(), {});
  EXPECT_EQ(c.improvements, 0);
  EXPECT_EQ(c.regressions, 0);
  EXPECT_EQ(c.rows[0].change, Change::kUnchanged);
  EXPECT_NE(c.rows[0].what.find("not an improvement"), std::string::npos);
  // The bound came down 1e4-fold over the same lhs: an improvement.
  c = compare_runs({vacuous}, {rec("a", "i", Kind::kClaim, 1e-6, 1e-4)}, meta_all(), {});
  EXPECT_EQ(c.improvements, 1);
  // Both moved: the larger factor decides (bound 1000-fold down, lhs 10-fold up: improvement; the
  // reverse: neutral).
  c = compare_runs({vacuous}, {rec("a", "i", Kind::kClaim, 1e-5, 1e-3)}, meta_all(), {});
  EXPECT_EQ(c.improvements, 1);
  c = compare_runs({vacuous}, {rec("a", "i", Kind::kClaim, 1e-3, 1e-1)}, meta_all(), {});
  EXPECT_EQ(c.improvements, 0);
  EXPECT_EQ(c.rows[0].change, Change::kUnchanged);
  // A vacuous record with a non-positive lhs that grows to hold: the measured side moved, neutral.
  c = compare_runs({rec("a", "i", Kind::kClaim, -1, 1)}, {rec("a", "i", Kind::kClaim, 0.5, 1)}, meta_all(), {});
  EXPECT_EQ(c.improvements, 0);
}

TEST(CompareRuns, MarginToleranceIsPerUnit) {
  // eps margin 100 -> 60 (shrinks by 0.4 of 100); plain margin 1 -> 0.6 (0.4 of 1).
  const std::vector<ClaimRecord> old{rec("a", "e", Kind::kClaim, 0, 100, "eps"), rec("a", "p", Kind::kClaim, 1, 2)};
  const std::vector<ClaimRecord> now{rec("a", "e", Kind::kClaim, 40, 100, "eps"), rec("a", "p", Kind::kClaim, 1.4, 2)};
  MarginTolerance tol;
  auto c = compare_runs(old, now, meta_all(), tol);  // default 0.5: both within
  EXPECT_EQ(c.regressions, 0);
  parse_margin_tolerance("eps=0.3", &tol);  // eps now stricter than the 0.4 shrink
  c = compare_runs(old, now, meta_all(), tol);
  EXPECT_EQ(c.regressions, 1);
  EXPECT_EQ(row(c, "e").change, Change::kRegression);
  EXPECT_EQ(row(c, "p").change, Change::kUnchanged);
  parse_margin_tolerance("plain=0.1", &tol);
  c = compare_runs(old, now, meta_all(), tol);
  EXPECT_EQ(c.regressions, 2);
  EXPECT_THROW(parse_margin_tolerance("eps=1.5", &tol), std::invalid_argument);
  EXPECT_THROW(parse_margin_tolerance("x", &tol), std::invalid_argument);
  EXPECT_THROW(parse_margin_tolerance("=0.2", &tol), std::invalid_argument);
}

TEST(CompareRuns, NewRecordsAreListedAndOtherPrecisionsOutOfScope) {
  auto m = meta_all();
  m.precisions = {"double"};
  const auto c = compare_runs({rec("a", "i", Kind::kClaim, 0.5, 1, "", "mp50")},
                              {rec("a", "i", Kind::kClaim, 0.5, 1), rec("a", "n", Kind::kClaim, 0.5, 1)}, m, {});
  EXPECT_EQ(c.added, 2);
  EXPECT_EQ(c.out_of_scope, 1);
  EXPECT_EQ(c.regressions, 0);
}

TEST(CompareRuns, MetaDifferencesNameEachField) {
  auto a = meta_all(), b = meta_all();
  EXPECT_TRUE(meta_differences(a, b).empty());
  b.seed = 2;
  b.mode = "full";
  b.precisions = {"double"};
  b.claims = "thm1.*";
  const auto d = meta_differences(a, b);
  ASSERT_EQ(d.size(), 4u);
  EXPECT_NE(d[0].find("seed 1"), std::string::npos);
  EXPECT_NE(d[1].find("mode"), std::string::npos);
  EXPECT_NE(d[2].find("precisions"), std::string::npos);
  EXPECT_NE(d[3].find("thm1.*"), std::string::npos);
  // Precision order does not matter; an older file without a selection is not a difference.
  b = meta_all();
  b.precisions = {"mp50", "double"};
  b.claims.clear();
  EXPECT_TRUE(meta_differences(a, b).empty());
}

TEST(CompareRuns, MetaDifferencesNameTheImplementationAndProtocolVersion) {
  auto a = meta_all(), b = meta_all();
  b.implementation = "numpy-ngd";
  b.implementation_version = "1.0";
  b.protocol = "conjugate-ngd";
  b.protocol_version = 1;
  auto d = meta_differences(a, b);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0], "implementation the library's algorithm (baseline) vs implementation 'numpy-ngd' 1.0 (conjugate-ngd v1) (new)");
  a = b;
  EXPECT_TRUE(meta_differences(a, b).empty());
  b.implementation_version = "1.1";
  EXPECT_EQ(meta_differences(a, b).size(), 1u);
  b = a;
  b.protocol_version = 2;
  d = meta_differences(a, b);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NE(d[0].find("protocol conjugate-ngd v1 (baseline) vs conjugate-ngd v2 (new)"), std::string::npos);
}

TEST(CompareRuns, SelectionGlobs) {
  EXPECT_TRUE(selection_matches("", "x"));
  EXPECT_TRUE(selection_matches("lemma4.*,thm1.*", "thm1.rate"));
  EXPECT_FALSE(selection_matches("lemma4.*", "thm1.rate"));
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

long count(const std::string& s, const std::string& what) {
  long n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

TEST(Junit, OneTestCasePerRecordWithFailuresErrorsAndSkips) {
  ClaimRecord skipped;
  skipped.claim = "b";
  skipped.instance = "data<&>";
  skipped.lhs = skipped.rhs = skipped.margin = std::nan("");
  skipped.verdict = Verdict::kSkipped;
  skipped.note = "skipped: table not installed";
  const std::vector<ClaimRecord> recs{rec("a", "i", Kind::kClaim, 0.5, 1),         // pass
                                      rec("a", "j", Kind::kClaim, 2, 1),           // failure
                                      rec("a", "k", Kind::kControl, std::nan(""), 1),  // error
                                      rec("a", "v", Kind::kClaim, 1e-6, 1),        // skipped (vacuous)
                                      skipped};
  const std::string path = ::testing::TempDir() + "/junit_records.xml";
  write_junit_records(path, "ngvi verify", recs);
  const std::string x = slurp(path);
  EXPECT_EQ(count(x, "<testcase "), 5);
  EXPECT_EQ(count(x, "<failure "), 1);
  EXPECT_EQ(count(x, "<error "), 1);
  EXPECT_EQ(count(x, "<skipped "), 2);
  EXPECT_EQ(count(x, "<testsuite "), 2);
  EXPECT_NE(x.find("data&lt;&amp;&gt;"), std::string::npos);
  EXPECT_NE(x.find("tests=\"5\" failures=\"1\" errors=\"1\""), std::string::npos);
  std::remove(path.c_str());
}

TEST(Junit, ComparisonFailsRegressionsAndMissingRecords) {
  const std::vector<ClaimRecord> old{rec("a", "i", Kind::kClaim, 0.5, 1), rec("a", "j", Kind::kClaim, 0.5, 1),
                                     rec("a", "k", Kind::kClaim, 0.5, 1)};
  const std::vector<ClaimRecord> now{rec("a", "i", Kind::kClaim, 0.5, 1), rec("a", "k", Kind::kClaim, 2, 1),
                                     rec("a", "n", Kind::kClaim, 0.5, 1)};
  const auto c = compare_runs(old, now, meta_all(), {});
  const std::string path = ::testing::TempDir() + "/junit_diff.xml";
  write_junit_comparison(path, "ngvi diff", c);
  const std::string x = slurp(path);
  EXPECT_EQ(count(x, "<testcase "), 4);  // i, j (missing), k (regressed), n (new)
  EXPECT_EQ(count(x, "<failure "), 2);
  std::remove(path.c_str());
}

}}  // namespace
}  // namespace ngvi::report
