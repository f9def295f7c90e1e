// Runs every registered claim on its quick instances, in double and mp50, and asserts the suite's
// rule: no claim record fails (it holds, or is vacuous or skipped, which are listed and are not
// evidence), each negative control is broken, every claim has both kinds, and the verdict rule is
// wired: no record that holds has tightness below the vacuous threshold, every claim has a claim
// record of evidence (or says why it cannot), and every mp50 identity
// claim is within the 1e-40 relative guard. A claim whose controls are all injected by the checker
// (ClaimRecord::injected) says why none re-runs the library. A control whose note states its violation and threshold
// ("violation: ... = δ; breaks from δ_min") violates by a non-zero δ in its own precision (a δ
// computed in double for an mp50 record can round to 0 and violate nothing).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <regex>
#include <string>

#include "ngvi/scalar/traits.hpp"
#include "ngvi/claims/check_util.hpp"
#include "ngvi/claims/registry.hpp"

namespace ngvi::claims {
namespace { namespace NGVI_UNITY_ID {

class ClaimTest : public ::testing::TestWithParam<std::string> {};

// δ and δ_min of a control's note "violation: <what> = δ[...]; breaks from [<text>] δ_min ...", when it
// has that form (δ the last "= number" before the semicolon; δ_min the number right after "breaks from"
// when a parenthesis, semicolon or the end follows it, else the number after its clause's "=").
bool stated_violation(const std::string& note, double& delta, double& delta_min) {
  static const std::regex re(R"(violation:[^;]*= ?([-+]?(?:[0-9]*\.)?[0-9]+(?:[eE][-+]?[0-9]+)?)[^;=]*; breaks from (?:([-+]?(?:[0-9]*\.)?[0-9]+(?:[eE][-+]?[0-9]+)?)(?= \(|;|$)|[^;=]*= ?([-+]?(?:[0-9]*\.)?[0-9]+(?:[eE][-+]?[0-9]+)?)))");
  std::smatch m;
  if (!std::regex_search(note, m, re)) return false;
  delta = std::stod(m[1].str());
  delta_min = std::stod(m[2].matched ? m[2].str() : m[3].str());
  return true;
}

TEST_P(ClaimTest, HoldsWithBrokenControls) {
  const ClaimInfo* info = Registry::instance().find(GetParam());
  ASSERT_NE(info, nullptr);
  RunContext ctx;
  ctx.full = false;
  const auto recs = info->run(ctx);
  int claims = 0, controls = 0, evidence = 0, skipped = 0, run_controls = 0, injected = 0;
  bool says_why = false;  // a claim record's note says why the claim cannot have evidence here
  bool no_rerun_why = false;  // a control's note says why no control re-runs the library
  for (const auto& r : recs) {
    SCOPED_TRACE(r.claim + " " + r.instance + " " + r.precision + " lhs=" + std::to_string(r.lhs) +
                 " rhs=" + std::to_string(r.rhs) + " " + r.note);
    EXPECT_EQ(r.claim, info->id);
    says_why = says_why || (r.kind == Kind::kClaim && r.note.find("no evidence possible:") != std::string::npos);
    if (r.verdict == report::Verdict::kSkipped) {
      skipped += r.kind == Kind::kClaim;
      std::printf("[ skipped  ] %s %s %s: %s\n", r.claim.c_str(), r.instance.c_str(), r.precision.c_str(), r.note.c_str());
      continue;
    }
    EXPECT_TRUE(std::isfinite(r.lhs) && std::isfinite(r.rhs)) << "non-finite record";
    EXPECT_NE(r.verdict, report::Verdict::kError) << "record in error (non-finite lhs, rhs or margin)";
    if (r.verdict == report::Verdict::kHolds && r.form == report::Form::kInequality && r.kind == Kind::kClaim) {
      EXPECT_FALSE(r.tightness < report::kVacuousTightness) << "holds with tightness " << r.tightness;
    }
    if (r.kind == Kind::kClaim) {
      ++claims;
      evidence += report::record_passes(r);
      EXPECT_NE(report::outcome(r), report::Outcome::kFail) << "claim does not hold";
      if (r.verdict == report::Verdict::kVacuous)
        std::printf("[ vacuous  ] %s %s %s: tightness %.3g (not evidence)\n", r.claim.c_str(), r.instance.c_str(),
                    r.precision.c_str(), r.tightness);
      if (r.precision == "mp50" && r.form == report::Form::kIdentity) {
        const double rel = r.lhs * to_double(eps<mp50>());
        EXPECT_TRUE(std::isfinite(rel) && rel <= kMp50IdentityBound) << "mp50 relative error " << rel;
      }
    } else {
      ++controls;
      ++run_controls;
      injected += r.injected;
      no_rerun_why = no_rerun_why || r.note.find("no re-run control:") != std::string::npos;
      EXPECT_EQ(r.verdict, report::Verdict::kBroken) << "negative control is not broken";
      double delta = 0, delta_min = 0;
      if (stated_violation(r.note, delta, delta_min)) {
        EXPECT_NE(delta, 0.0) << "the control violates its hypothesis by 0";
        // δ_min is printed beside it; whether δ must exceed or stay below it depends on the control (a
        // count of draws violates more as it falls), so only δ ≠ 0 is asserted of every control.
        (void)delta_min;
      }
    }
  }
  EXPECT_GT(claims, 0);
  EXPECT_GT(controls, 0);
  // A claim whose every control is injected by the checker (ClaimRecord::injected) shows no change of
  // the library's behaviour under a violated hypothesis: it needs a control that re-runs the library,
  // or a note ("no re-run control: ...") saying why none can.
  if (run_controls > 0 && injected == run_controls) {
    EXPECT_TRUE(no_rerun_why) << GetParam() << ": every control is injected and no note says why none re-runs the library";
  }
  // Every claim shows evidence (a claim record that holds, not vacuous), unless its records were not
  // computed here (a data set not installed) or a note says why none is possible.
  if (skipped == 0 && !says_why) {
    EXPECT_GT(evidence, 0) << "no claim record of " << GetParam() << " is evidence";
  }
}

std::vector<std::string> all_ids() {
  std::vector<std::string> ids;
  for (const auto& c : Registry::instance().claims()) ids.push_back(c.id);
  return ids;
}

std::string test_name(const ::testing::TestParamInfo<std::string>& p) {
  std::string s = p.param;
  for (auto& ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(Registry, ClaimTest, ::testing::ValuesIn(all_ids()), test_name);

// Theorem 1 in its expected-variance form (docs/math.md §4.5, (14')): on every quick instance a record at
// T = 10, 100 and 1000 that holds as evidence (tightness at least the vacuous threshold: the bound is
// informative), and its control, the library with ĝ scaled down, broken.
TEST(Thm1Rate, ExpectedSigmaFormIsEvidenceAtEveryTAndItsControlBreaks) {
  const ClaimInfo* info = Registry::instance().find("thm1.rate");
  ASSERT_NE(info, nullptr);
  RunContext ctx;
  const auto recs = info->run(ctx);
  std::map<std::string, int> evidence, controls;
  for (const auto& r : recs) {
    const auto at = r.instance.find("/expected-sigma");
    if (at == std::string::npos) continue;
    SCOPED_TRACE(r.instance + " " + r.note);
    const std::string inst = r.instance.substr(0, r.instance.find('/'));
    if (r.kind == Kind::kControl) {
      EXPECT_EQ(r.verdict, report::Verdict::kBroken);
      ++controls[inst];
      continue;
    }
    EXPECT_EQ(r.verdict, report::Verdict::kHolds);
    EXPECT_GE(r.tightness, report::kVacuousTightness);
    EXPECT_GT(r.level, 0.0) << "a Monte Carlo record carries its level";
    ++evidence[inst];
  }
  ASSERT_EQ(evidence.size(), 2u) << "both quick instances";
  for (const auto& [inst, n] : evidence) {
    EXPECT_EQ(n, 3) << inst << ": T = 10, 100, 1000";
    EXPECT_EQ(controls[inst], 1) << inst;
  }
}

TEST(ClaimRegistry, GlobMatchingAndLookup) {
  const auto& reg = Registry::instance();
  EXPECT_EQ(reg.find("no.such.claim"), nullptr);
  EXPECT_TRUE(reg.match("no.such.*").empty());
  const auto lemma = reg.match("lemma*");
  ASSERT_FALSE(lemma.empty());
  for (const auto* c : lemma) EXPECT_EQ(c->id.rfind("lemma", 0), 0u);
  EXPECT_EQ(reg.match("*").size(), reg.claims().size());
}

}}  // namespace
}  // namespace ngvi::claims
