// The conjugate-ngd protocol (protocols/conjugate_ngd.hpp) as thm1.first_step, fig1.same_slope and the
// trajectory lemmas (Lemma 9, Corollaries 1–2, Lemmas 10–11) run it: an implementation of eq. (15) NGD written here as a value gives the library's verdicts on every
// record (the same batches from the same streams), and the claims called it (its step count); the same
// implementation with its schedule indexed from t = 1 breaks thm1.first_step's zero-variance identity;
// in mp50 thm1.first_step writes one skipped record for it, never the library's records in its name.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>

#include "ngvi/claims/registry.hpp"
#include "ngvi/optim/variant.hpp"
#include "ngvi/protocols/conjugate_ngd.hpp"

namespace ngvi::claims {
namespace { namespace NGVI_UNITY_ID {

std::vector<ClaimRecord> run_one(const std::string& id, const Variant* v, const std::string& precision = "double") {
  const ClaimInfo* c = Registry::instance().find(id);
  EXPECT_NE(c, nullptr) << id;
  if (c == nullptr) return {};
  RunContext ctx;
  ctx.precisions = {precision};
  ctx.set_variant(v);
  return run_claim(*c, ctx);
}

// Eq. (15) NGD with γ_t = 2/(t + offset + 2), counting its step calls in `calls`.
protocols::ConjugateNgd<double> ngd(long offset, std::shared_ptr<std::atomic<long>> calls) {
  protocols::ConjugateNgd<double> impl;
  impl.name = "test-ngd";
  impl.version = "0";
  impl.start = [offset, calls](const protocols::BlrProblem<double>& p) {
    protocols::ConjugateNgdTrajectory<double> run;
    run.step = [&p, offset, calls](long t, const GaussianNatural<double>& eta, std::span<const Index> batch) {
      ++*calls;
      const double gamma = 2.0 / static_cast<double>(t + offset + 2);
      const double scale = static_cast<double>(p.X.rows()) / static_cast<double>(batch.size()) / p.noise_var;
      GaussianNatural<double> target = p.prior_natural;
      for (Index i : batch) {
        target.first += scale * p.y(i) * p.X.row(i).transpose();
        target.second -= (scale / 2) * p.X.row(i).transpose() * p.X.row(i);
      }
      return (1 - gamma) * eta + gamma * target;
    };
    return run;
  };
  return impl;
}

TEST(ConjugateNgdProtocol, AnImplementationGetsTheLibrarysVerdicts) {
  auto calls = std::make_shared<std::atomic<long>>(0);
  const Variant v = Variant::conjugate_ngd(ngd(0, calls));
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
  const Variant v = Variant::conjugate_ngd(ngd(1, calls));
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
  const Variant v = Variant::conjugate_ngd(ngd(0, calls));
  const auto recs = run_one("thm1.first_step", &v, "mp50");
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].verdict, report::Verdict::kSkipped);
  EXPECT_EQ(calls->load(), 0);
}

}}  // namespace
}  // namespace ngvi::claims
