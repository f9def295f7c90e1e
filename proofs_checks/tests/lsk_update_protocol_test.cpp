// The lsk-update protocol (protocols/lsk_update.hpp) as lsk.posdef_always runs it
// (protocol_lsk_update.hpp): the library's update behind the protocol gives the library's records; two
// deliberately wrong implementations (one that ignores ensure_posdef, one that loses the factor ½ of
// WᵀW) fail the records that read what they got wrong; an implementation that throws or returns a wrong
// shape gives one error record naming the call and step; a claim that does not accept the protocol
// writes "not applicable".
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "ngvi/claims/registry.hpp"
#include "run_one.hpp"
#include "ngvi/optim/steppers/protocol_lsk_update.hpp"

namespace ngvi::claims {
namespace { namespace NGVI_UNITY_ID {

using test::run_one;

// An implementation from a precision update `f(S, H̄, η, ensure_posdef)` (mean step m' = m + ηS'⁻¹ḡ).
template <class F>
protocols::LskUpdate from_update(std::string name, F f) {
  protocols::LskUpdate impl;
  impl.name = std::move(name);
  impl.start = [f](const protocols::LskProblem& p) {
    protocols::LskUpdateTrajectory traj;
    traj.step = [f, p](long, const Vec<double>& m, const Mat<double>& s, const Vec<double>& g, const Mat<double>& h) {
      protocols::LskStepResult r;
      r.precision = f(s, h, p.eta, p.ensure_posdef);
      r.mean = m + p.eta * Eigen::LDLT<Mat<double>>(r.precision).solve(g);
      return r;
    };
    return traj;
  };
  return impl;
}

TEST(LskUpdateProtocol, KitReferenceGivesTheLibrarysRecords) {
  const Variant v = lsk_update_variant(kit_lsk_update());
  EXPECT_EQ(v.protocol, protocols::kLskUpdate);
  for (const char* id : {"lsk.posdef_always", "lsk.gaussian_target", "lsk.matches_conjugate_ngd"}) {
    const auto lib = run_one(id, nullptr);
    const auto got = run_one(id, &v);
    ASSERT_EQ(got.size(), lib.size()) << id;
    ASSERT_FALSE(got.empty());
    for (std::size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].instance, lib[i].instance);
      EXPECT_EQ(got[i].verdict, lib[i].verdict) << got[i].instance << ": " << got[i].note;
      // posdef_always: the same arithmetic, bit for bit. The trajectory claims: the library's trajectory
      // solves for the mean with its Cholesky factor, the reference with LDLᵀ: the records agree in
      // verdict, and their values within the claim's budget (the record's rhs).
      if (std::string(id) == "lsk.posdef_always") {
        EXPECT_EQ(got[i].lhs, lib[i].lhs) << got[i].instance;
      } else if (got[i].kind == Kind::kClaim && (got[i].instance.find("/trajectory") != std::string::npos ||
                                                 got[i].instance.find("/iterates") != std::string::npos)) {
        EXPECT_LE(std::fabs(got[i].lhs - lib[i].lhs), got[i].rhs) << got[i].instance;
      }
    }
  }
}

// In mp50: the library's update behind the protocol in mp50 gives the library's mp50 verdicts; an
// implementation with a double form only writes one skipped record per claim (never the library's
// records in its name); the same update computed in double behind the mp50 protocol (an implementation
// that rounds to double inside) breaks the mp50 identities, which the double records cannot see.
TEST(LskUpdateProtocol, Mp50FormRunsInMp50AndADoubleOnlyOneIsSkipped) {
  const Variant both = lsk_update_variant(kit_lsk_update<double>(), kit_lsk_update<mp50>());
  const Variant double_only = lsk_update_variant(kit_lsk_update<double>());
  protocols::LskUpdateOf<mp50> rounds = kit_lsk_update<mp50>();
  rounds.name = "rounds to double";
  rounds.start = [](const protocols::LskProblemOf<mp50>& p) {
    protocols::LskUpdateTrajectoryOf<mp50> traj;
    traj.step = [kit = kit_lsk_update<double>().start(protocols::LskProblem{p.d, static_cast<double>(p.eta), p.ensure_posdef})](
                    long t, const Vec<mp50>& m, const Mat<mp50>& s, const Vec<mp50>& g, const Mat<mp50>& h) {
      const protocols::LskStepResult r = kit.step(t, m.cast<double>(), s.cast<double>(), g.cast<double>(), h.cast<double>());
      return protocols::LskStepResultOf<mp50>{r.mean.cast<mp50>(), r.precision.cast<mp50>()};
    };
    return traj;
  };
  const Variant rounding = lsk_update_variant(kit_lsk_update<double>(), rounds);
  for (const char* id : {"lsk.posdef_always", "lsk.gaussian_target", "lsk.matches_conjugate_ngd"}) {
    const auto lib = run_one(id, nullptr, {"mp50"});
    const auto got = run_one(id, &both, {"mp50"});
    ASSERT_EQ(got.size(), lib.size()) << id;
    ASSERT_FALSE(got.empty());
    for (std::size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].precision, "mp50");
      EXPECT_EQ(got[i].instance, lib[i].instance);
      EXPECT_EQ(got[i].verdict, lib[i].verdict) << got[i].instance << ": " << got[i].note;
    }
    const auto skipped = run_one(id, &double_only, {"mp50"});
    ASSERT_EQ(skipped.size(), 1u) << id;
    EXPECT_EQ(skipped[0].verdict, report::Verdict::kSkipped);
    EXPECT_NE(skipped[0].note.find("no mp50 form"), std::string::npos) << skipped[0].note;
    bool claim_broken = false;
    for (const auto& r : run_one(id, &rounding, {"mp50"})) claim_broken |= r.kind == Kind::kClaim && r.verdict == report::Verdict::kBroken;
    EXPECT_TRUE(claim_broken) << id;
  }
}

TEST(LskUpdateProtocol, DroppingTheTermLeavesTheGaussianRecursion) {
  const Variant v = lsk_update_variant(from_update("plain always", [](const Mat<double>& s, const Mat<double>& h, double eta, bool) {
    return Mat<double>((1 - eta) * s - eta * h);
  }));
  bool trajectory_broken = false;
  for (const auto& r : run_one("lsk.gaussian_target", &v))
    trajectory_broken |= r.instance.find("/trajectory") != std::string::npos && r.verdict == report::Verdict::kBroken;
  EXPECT_TRUE(trajectory_broken);
}

TEST(LskUpdateProtocol, IgnoringEnsurePosdefBreaksTheClaim) {
  const Variant v = lsk_update_variant(from_update("plain always", [](const Mat<double>& s, const Mat<double>& h, double eta, bool) {
    return Mat<double>((1 - eta) * s - eta * h);
  }));
  bool broken = false;
  for (const auto& r : run_one("lsk.posdef_always", &v))
    broken |= r.kind == Kind::kClaim && r.verdict == report::Verdict::kBroken && r.instance.find('/') == std::string::npos;
  EXPECT_TRUE(broken);
}

TEST(LskUpdateProtocol, ALostHalfBreaksTheWhitenedIdentity) {
  // S' = ½S + WᵀW: still ⪰ ½S (λ_min ≥ ½ whitened), but not ½I + ½(I − ηA)².
  const Variant v = lsk_update_variant(from_update("lost half", [](const Mat<double>& s, const Mat<double>& h, double eta, bool pd) {
    const Mat<double> b = (1 - eta) * s - eta * h;
    if (!pd) return b;
    const Mat<double> l = SpdFactor<double>(s, "test", "S").lower();
    const Mat<double> w = l.triangularView<Eigen::Lower>().solve(b);
    return Mat<double>(0.5 * s + w.transpose() * w);
  }));
  bool identity_broken = false;
  for (const auto& r : run_one("lsk.posdef_always", &v))
    identity_broken |= r.instance.find("whitened-identity") != std::string::npos && r.verdict == report::Verdict::kBroken;
  EXPECT_TRUE(identity_broken);
}

TEST(LskUpdateProtocol, AThrowingOrMisshapenImplementationIsOneErrorRecord) {
  auto impl = kit_lsk_update();
  const auto inner = impl.start;
  impl.name = "throws at 3";
  impl.start = [inner](const protocols::LskProblem& p) {
    auto traj = inner(p);
    const auto step = traj.step;
    traj.step = [step](long t, const Vec<double>& m, const Mat<double>& s, const Vec<double>& g, const Mat<double>& h) {
      if (t == 3) throw std::runtime_error("boom");
      return step(t, m, s, g, h);
    };
    return traj;
  };
  const Variant v = lsk_update_variant(impl);
  const auto recs = run_one("lsk.posdef_always", &v);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].verdict, report::Verdict::kError);
  EXPECT_NE(recs[0].note.find("lsk-update call 'step' at step t = 3 of implementation 'throws at 3': threw: boom"), std::string::npos)
      << recs[0].note;

  protocols::LskUpdate misshapen;
  misshapen.name = "wrong shape";
  misshapen.start = [](const protocols::LskProblem&) {
    protocols::LskUpdateTrajectory traj;
    traj.step = [](long, const Vec<double>& m, const Mat<double>& s, const Vec<double>&, const Mat<double>&) {
      return protocols::LskStepResult{m, Mat<double>(s.topLeftCorner(s.rows() - 1, s.cols() - 1))};
    };
    return traj;
  };
  const Variant bad = lsk_update_variant(misshapen);
  const auto r2 = run_one("lsk.posdef_always", &bad);
  ASSERT_EQ(r2.size(), 1u);
  EXPECT_EQ(r2[0].verdict, report::Verdict::kError);
  EXPECT_NE(r2[0].note.find("returned a precision of shape (4, 4), expected (5, 5)"), std::string::npos) << r2[0].note;
}

TEST(LskUpdateProtocol, IgnoringEnsurePosdefFalseLeavesConjugateNgd) {
  // The positive-definite update whatever ensure_posdef says: the iterates leave NGD's.
  const Variant v = lsk_update_variant(from_update("posdef always", [](const Mat<double>& s, const Mat<double>& h, double eta, bool) {
    const Mat<double> l = SpdFactor<double>(s, "test", "S").lower();
    return lsk_precision_update(s, l, h, eta, true);
  }));
  bool broken = false;
  for (const auto& r : run_one("lsk.matches_conjugate_ngd", &v))
    broken |= r.instance.find("/iterates") != std::string::npos && r.verdict == report::Verdict::kBroken;
  EXPECT_TRUE(broken);
}

TEST(LskUpdateProtocol, OtherClaimsAreNotApplicable) {
  const Variant v = lsk_update_variant(kit_lsk_update());
  const auto recs = run_one("thm1.rate", &v);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].verdict, report::Verdict::kSkipped);
  EXPECT_NE(recs[0].note.find("not applicable"), std::string::npos);
}

}}  // namespace
}  // namespace ngvi::claims
