// The svi-lda protocol (protocols/svi_lda.hpp) as the claims run it (svi_lda_protocol.hpp): the kit's own
// implementation behind the protocol holds every claim that accepts it and breaks every control; two
// deliberately wrong ones (a schedule counted from t = 0 while declaring Hoffman's origin 1; the
// replication D/|S| dropped) fail the claims that read what they got wrong and only those; an
// implementation that throws or returns a wrong shape gives one error record naming the call and step;
// a claim that does not accept the protocol writes "not applicable".
#include <gtest/gtest.h>

#include <string>

#include "ngvi/claims/registry.hpp"
#include "ngvi/optim/steppers/protocol_svi_lda.hpp"

namespace ngvi::claims {
namespace { namespace NGVI_UNITY_ID {

std::vector<ClaimRecord> run_one(const std::string& id, const Variant& v) {
  const ClaimInfo* c = Registry::instance().find(id);
  EXPECT_NE(c, nullptr) << id;
  if (c == nullptr) return {};
  RunContext ctx;
  ctx.precisions = {"double"};
  ctx.set_variant(&v);
  return run_claim(*c, ctx);
}

// Every record as expected of a correct implementation: claims hold, controls broken, no errors.
// Skipped records are allowed (svi.schedule's ρ₀ ≠ 1 setting) and counted.
int expect_all_pass(const std::vector<ClaimRecord>& recs) {
  int skipped = 0;
  EXPECT_FALSE(recs.empty());
  for (const auto& r : recs) {
    if (r.verdict == report::Verdict::kSkipped) {
      ++skipped;
      continue;
    }
    const auto want = r.kind == Kind::kClaim ? report::Verdict::kHolds : report::Verdict::kBroken;
    EXPECT_EQ(r.verdict, want) << r.claim << " " << r.instance << " lhs " << r.lhs << " rhs " << r.rhs << ": " << r.note;
  }
  return skipped;
}

// True when some claim record of `recs` fails (broken or error).
bool some_claim_fails(const std::vector<ClaimRecord>& recs) {
  for (const auto& r : recs)
    if (r.kind == Kind::kClaim && (r.verdict == report::Verdict::kBroken || r.verdict == report::Verdict::kError)) return true;
  return false;
}

TEST(SviLdaProtocol, KitReferenceHoldsTheAcceptingClaims) {
  const Variant v = svi_lda_variant(kit_svi_lda());
  EXPECT_EQ(v.protocol, protocols::kSviLda);
  EXPECT_EQ(expect_all_pass(run_one("svi.schedule", v)), 1);  // ρ₀ = 1/2 is not a protocol parameter
  EXPECT_EQ(expect_all_pass(run_one("lda.sstats_mass", v)), 0);
  EXPECT_EQ(expect_all_pass(run_one("lda.gamma_mass", v)), 0);
}

TEST(SviLdaProtocol, KitReferenceRecoversTheTopics) {
  const Variant v = svi_lda_variant(kit_svi_lda());
  EXPECT_EQ(expect_all_pass(run_one("lda.topic_recovery", v)), 0);
}

TEST(SviLdaProtocol, ScheduleFromZeroFailsTheSchedule) {
  // ρ at update t is (τ₀ + t)^(−κ) while the implementation declares origin 1.
  svi::SviParts<double> parts;
  parts.schedule = [](long t, const std::function<double(long)>& library) { return library(t - 1); };
  auto impl = kit_svi_lda(parts);
  impl.name = "rho from t = 0";
  const Variant v = svi_lda_variant(impl);
  EXPECT_TRUE(some_claim_fails(run_one("svi.schedule", v)));
  // The mass of λ̂ read with the declared ρ_t fails with it: λ̂ is recovered through ρ_t.
  EXPECT_TRUE(some_claim_fails(run_one("lda.sstats_mass", v)));
  // γ does not depend on the schedule.
  expect_all_pass(run_one("lda.gamma_mass", v));
}

TEST(SviLdaProtocol, ReplicationDroppedFailsTheMassOnly) {
  svi::SviParts<double> parts;
  parts.replication = [](long, long) { return 1.0; };
  auto impl = kit_svi_lda(parts);
  impl.name = "no D/|S|";
  const Variant v = svi_lda_variant(impl);
  EXPECT_TRUE(some_claim_fails(run_one("lda.sstats_mass", v)));
  expect_all_pass(run_one("svi.schedule", v));  // absent words carry no statistics
  expect_all_pass(run_one("lda.gamma_mass", v));
}

TEST(SviLdaProtocol, ThrowingImplementationIsOneErrorRecord) {
  protocols::SviLda impl = kit_svi_lda();
  impl.name = "throws";
  const auto kit_start = impl.start;
  impl.start = [kit_start](const protocols::LdaProblem& p) {
    auto traj = kit_start(p);
    const auto kit_update = traj.update;
    traj.update = [kit_update](long t, const Mat<double>& l, const lda::Corpus& b) {
      if (t == 2) throw std::runtime_error("boom");
      return kit_update(t, l, b);
    };
    return traj;
  };
  const auto recs = run_one("svi.schedule", svi_lda_variant(impl));
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].verdict, report::Verdict::kError);
  EXPECT_NE(recs[0].note.find("svi-lda call 'update' at step t = 2 of implementation 'throws': threw: boom"), std::string::npos) << recs[0].note;
}

TEST(SviLdaProtocol, WrongShapeIsOneErrorRecord) {
  protocols::SviLda impl;
  impl.name = "transposed";
  impl.start = [](const protocols::LdaProblem& p) {
    protocols::SviLdaTrajectory traj;
    traj.update = [p](long, const Mat<double>& l, const lda::Corpus&) { return protocols::LdaUpdate{Mat<double>(l.transpose()), std::nullopt}; };
    return traj;
  };
  const auto recs = run_one("lda.sstats_mass", svi_lda_variant(impl));
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].verdict, report::Verdict::kError);
  EXPECT_NE(recs[0].note.find("returned lambda of shape (12, 3), expected (3, 12)"), std::string::npos) << recs[0].note;
}

TEST(SviLdaProtocol, NoGammaIsSkippedByGammaMass) {
  protocols::SviLda impl = kit_svi_lda();
  impl.name = "no gamma";
  const auto kit_start = impl.start;
  impl.start = [kit_start](const protocols::LdaProblem& p) {
    auto traj = kit_start(p);
    const auto kit_update = traj.update;
    traj.update = [kit_update](long t, const Mat<double>& l, const lda::Corpus& b) {
      auto r = kit_update(t, l, b);
      r.gamma.reset();
      return r;
    };
    return traj;
  };
  const auto recs = run_one("lda.gamma_mass", svi_lda_variant(impl));
  ASSERT_EQ(recs.size(), 2u);
  for (const auto& r : recs) {
    EXPECT_EQ(r.verdict, report::Verdict::kSkipped);
    EXPECT_NE(r.note.find("returns no gamma"), std::string::npos) << r.note;
  }
}

TEST(SviLdaProtocol, OtherSviClaimsAreNotApplicable) {
  const Variant v = svi_lda_variant(kit_svi_lda());
  for (const char* id : {"svi.unbiased_target", "svi.natural_gradient", "svi.cavi_equivalence", "svi.batch_monotone", "gmm.recovery", "thm1.rate"}) {
    const auto recs = run_one(id, v);
    ASSERT_EQ(recs.size(), 1u) << id;
    EXPECT_EQ(recs[0].verdict, report::Verdict::kSkipped) << id;
    EXPECT_NE(recs[0].note.find("not applicable"), std::string::npos) << recs[0].note;
  }
}

}}  // namespace
}  // namespace ngvi::claims
