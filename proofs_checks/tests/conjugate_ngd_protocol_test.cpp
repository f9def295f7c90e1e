// The conjugate-ngd protocol (protocols/conjugate_ngd.hpp) as thm1.first_step, fig1.same_slope and the
// trajectory lemmas (Lemma 9, Corollaries 1–2, Lemmas 10–11) run it: an implementation of eq. (15) NGD
// written from the formulas (lib/tests/protocols/hand_ngd.hpp) gives the library's verdicts on every
// record (the same batches from the same streams), and the claims called it (its step count); the same
// implementation with its schedule indexed from t = 1 breaks thm1.first_step's zero-variance identity
// and Lemmas 10–11 on their extremal instance; in mp50 thm1.first_step writes one skipped record for it,
// never the library's records in its name.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>

#include "ngvi/claims/registry.hpp"
#include "ngvi/optim/variant.hpp"
#include "ngvi/protocols/conjugate_ngd.hpp"
#include "protocols/hand_ngd.hpp"
#include "run_one.hpp"

namespace ngvi::claims {
namespace { namespace NGVI_UNITY_ID {

using test::run_one;

using ngvi::test::hand_ngd;

TEST(ConjugateNgdProtocol, AnImplementationGetsTheLibrarysVerdicts) {
  auto calls = std::make_shared<std::atomic<long>>(0);
  const Variant v = Variant::conjugate_ngd(hand_ngd(0, calls));
  for (const char* id : {"thm1.first_step", "fig1.same_slope", "lemma9.convex_hull", "cor1.eta1_bound", "cor2.mu1_bound",
                         "lemma10.mu1_gap", "lemma11.mu2_gap"}) {
    calls->store(0);
    const auto lib = run_one(id, nullptr);
    const auto got = run_one(id, &v);
    EXPECT_GT(calls->load(), 0) << id << ": the implementation was not called";
    ASSERT_EQ(got.size(), lib.size()) << id;
    ASSERT_FALSE(got.empty());
    for (std::size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].instance, lib[i].instance);
      EXPECT_EQ(got[i].kind, lib[i].kind);
      EXPECT_EQ(got[i].verdict, lib[i].verdict) << got[i].instance << ": " << got[i].note;
    }
  }
}

TEST(ConjugateNgdProtocol, AScheduleIndexedFromOneBreaksTheFirstStepAndTheGapLemmas) {
  auto calls = std::make_shared<std::atomic<long>>(0);
  const Variant v = Variant::conjugate_ngd(hand_ngd(1, calls));
  bool broken = false;
  for (const auto& r : run_one("thm1.first_step", &v))
    broken |= r.kind == Kind::kClaim && r.instance.find("/zero-variance") != std::string::npos && r.verdict == report::Verdict::kBroken;
  EXPECT_TRUE(broken);
  for (const char* id : {"lemma10.mu1_gap", "lemma11.mu2_gap"}) {
    bool gap_broken = false;
    for (const auto& r : run_one(id, &v)) gap_broken |= r.kind == Kind::kClaim && r.verdict == report::Verdict::kBroken;
    EXPECT_TRUE(gap_broken) << id;
  }
}

TEST(ConjugateNgdProtocol, Mp50IsOneSkippedRecord) {
  auto calls = std::make_shared<std::atomic<long>>(0);
  const Variant v = Variant::conjugate_ngd(hand_ngd(0, calls));
  const auto recs = run_one("thm1.first_step", &v, {"mp50"});
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].verdict, report::Verdict::kSkipped);
  EXPECT_EQ(calls->load(), 0);
}

}}  // namespace
}  // namespace ngvi::claims
