// The svi-gmm protocol (protocols/svi_gmm.hpp) as the claims run it (svi_claims.hpp gmm_fit,
// gmm_cavi_equivalence): the kit's own implementation behind the protocol gives the library's records
// value for value (same minibatches, same λ₀, the schedule handed in its counting); a deliberately
// wrong one (the replication N/|S| dropped) breaks gmm.recovery and, being invisible at |S| = N, not
// svi.cavi_equivalence; one that ignores the handed ρ₀ leaves svi.cavi_equivalence's control unbroken;
// an implementation that throws or returns a wrong shape gives one error record naming the call and
// the step; a claim that does not accept the protocol writes "not applicable".
#include <gtest/gtest.h>

#include <string>

#include "ngvi/claims/registry.hpp"
#include "run_one.hpp"
#include "ngvi/optim/steppers/protocol_svi_gmm.hpp"

namespace ngvi::claims {
namespace { namespace NGVI_UNITY_ID {

using test::run_one;

// The instance name of the library's record: the implementation's, without its " [name]" suffix.
std::string library_instance(const std::string& inst) {
  const auto at = inst.find(" [");
  return at == std::string::npos ? inst : inst.substr(0, at);
}

// True when some record of `recs` of `kind` has a verdict other than `want`.
bool some_differs(const std::vector<ClaimRecord>& recs, Kind kind, report::Verdict want) {
  for (const auto& r : recs)
    if (r.kind == kind && r.verdict != want) return true;
  return false;
}

TEST(SviGmmProtocol, KitReferenceGivesTheLibrarysRecords) {
  const Variant v = svi_gmm_variant(kit_svi_gmm());
  EXPECT_EQ(v.protocol, protocols::kSviGmm);
  for (const char* id : {"gmm.recovery", "svi.cavi_equivalence"}) {
    const auto lib = run_one(id, nullptr);
    const auto impl = run_one(id, &v);
    // The library's svi.cavi_equivalence also has LDA records; the protocol route writes the mixture's.
    std::size_t matched = 0;
    for (const auto& r : impl) {
      EXPECT_NE(r.instance.find(" [ngvikit gmm::GmmModel"), std::string::npos) << r.instance;
      for (const auto& l : lib) {
        if (l.instance != library_instance(r.instance) || l.precision != r.precision) continue;
        ++matched;
        EXPECT_EQ(r.verdict, l.verdict) << id << " " << r.instance;
        EXPECT_EQ(r.lhs, l.lhs) << id << " " << r.instance;  // the same arithmetic in the same order
        EXPECT_EQ(r.rhs, l.rhs) << id << " " << r.instance;
      }
      const auto want = r.kind == Kind::kClaim ? report::Verdict::kHolds : report::Verdict::kBroken;
      EXPECT_EQ(r.verdict, want) << id << " " << r.instance << ": " << r.note;
    }
    EXPECT_EQ(matched, impl.size()) << id;
    EXPECT_GE(matched, 2u) << id;
  }
}

TEST(SviGmmProtocol, Mp50IsSkippedForAnImplementation) {
  const Variant v = svi_gmm_variant(kit_svi_gmm());
  const auto recs = run_one("svi.cavi_equivalence", &v, {"mp50"});
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].verdict, report::Verdict::kSkipped);
  EXPECT_NE(recs[0].note.find("runs in double"), std::string::npos) << recs[0].note;
}

TEST(SviGmmProtocol, ReplicationDroppedBreaksTheRecovery) {
  svi::SviParts<double> parts;
  parts.replication = [](long, long) { return 1.0; };
  auto impl = kit_svi_gmm(parts);
  impl.name = "no N/|S|";
  const Variant v = svi_gmm_variant(impl);
  EXPECT_TRUE(some_differs(run_one("gmm.recovery", &v), Kind::kClaim, report::Verdict::kHolds));
  // At |S| = N the factor is 1: the batch step cannot see it.
  EXPECT_FALSE(some_differs(run_one("svi.cavi_equivalence", &v), Kind::kClaim, report::Verdict::kHolds));
}

TEST(SviGmmProtocol, IgnoringTheHandedRho0LeavesTheControlUnbroken) {
  svi::SviParts<double> parts;
  parts.schedule = [](long, const std::function<double(long)>&) { return 1.0; };
  auto impl = kit_svi_gmm(parts);
  impl.name = "rho = 1 always";
  const Variant v = svi_gmm_variant(impl);
  EXPECT_TRUE(some_differs(run_one("svi.cavi_equivalence", &v), Kind::kControl, report::Verdict::kBroken));
}

TEST(SviGmmProtocol, ThrowingImplementationIsOneErrorRecord) {
  protocols::SviGmm impl = kit_svi_gmm();
  impl.name = "throws";
  const auto kit_start = impl.start;
  impl.start = [kit_start](const protocols::GmmProblem& p) {
    auto traj = kit_start(p);
    const auto kit_update = traj.update;
    traj.update = [kit_update](long t, const Mat<double>& l, std::span<const long> b) {
      if (t == 3) throw std::runtime_error("boom");
      return kit_update(t, l, b);
    };
    return traj;
  };
  const Variant v = svi_gmm_variant(impl);
  const auto recs = run_one("gmm.recovery", &v);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].verdict, report::Verdict::kError);
  EXPECT_NE(recs[0].note.find("svi-gmm call 'update' at step t = 3 of implementation 'throws': threw: boom"), std::string::npos) << recs[0].note;
}

TEST(SviGmmProtocol, WrongShapeAndDomainAreOneErrorRecord) {
  for (int which = 0; which < 2; ++which) {
    protocols::SviGmm impl;
    impl.name = which == 0 ? "transposed" : "positive eta2";
    impl.start = [which](const protocols::GmmProblem&) {
      protocols::SviGmmTrajectory traj;
      traj.update = [which](long, const Mat<double>& l, std::span<const long>) {
        if (which == 0) return Mat<double>(l.transpose());
        Mat<double> r = l;
        r(0, r.cols() - 1) = 1.0;
        return r;
      };
      return traj;
    };
    const Variant v = svi_gmm_variant(impl);
    const auto recs = run_one("svi.cavi_equivalence", &v);
    ASSERT_EQ(recs.size(), 1u);
    EXPECT_EQ(recs[0].verdict, report::Verdict::kError);
    EXPECT_NE(recs[0].note.find(which == 0 ? "returned lambda of shape (4, 3), expected (3, 4)" : "outside the family's domain"), std::string::npos)
        << recs[0].note;
  }
}

TEST(SviGmmProtocol, OtherSviClaimsAreNotApplicable) {
  const Variant v = svi_gmm_variant(kit_svi_gmm());
  for (const char* id : {"svi.schedule", "lda.sstats_mass", "svi.unbiased_target", "thm1.rate"}) {
    const auto recs = run_one(id, &v);
    ASSERT_EQ(recs.size(), 1u) << id;
    EXPECT_EQ(recs[0].verdict, report::Verdict::kSkipped) << id;
    EXPECT_NE(recs[0].note.find("not applicable"), std::string::npos) << recs[0].note;
  }
}

}}  // namespace
}  // namespace ngvi::claims
