// The mutants of the VPNG claims (optim/steppers/preconditioned.hpp, vpng_mutants()): each one,
// swapped into the parts the claims build, flips at least one claim record of vpng.fr_closed_form or
// vpng.one_step (killed), while the unmutated configuration holds every claim record.
#include <gtest/gtest.h>

#include "vpng_common.hpp"

namespace ngvi::claims::vpng {
namespace {

int broken_claims(const std::vector<ClaimRecord>& recs) {
  int n = 0;
  for (const auto& r : recs)
    if (r.kind == Kind::kClaim && r.verdict != report::Verdict::kHolds) ++n;
  return n;
}

std::vector<ClaimRecord> bodies(const VpngConfig& cfg) {
  RunContext ctx;
  ctx.precisions = {"double"};
  auto a = fr_closed_form_records(ctx, cfg);
  const auto b = one_step_records(ctx, cfg);
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(VpngMutants, UnmutatedHolds) { EXPECT_EQ(broken_claims(bodies(VpngConfig{})), 0); }

TEST(VpngMutants, EachMutantIsKilled) {
  const auto mutants = vpng_mutants();
  ASSERT_EQ(mutants.size(), 3u);
  for (const auto& m : mutants) {
    VpngConfig cfg;
    m.apply(cfg);
    const auto recs = bodies(cfg);
    EXPECT_GT(broken_claims(recs), 0) << m.name << " (" << m.description << ") survives";
    for (const auto& r : recs)
      if (r.kind == Kind::kClaim && r.verdict != report::Verdict::kHolds) std::printf("  %s kills %s %s\n", m.name.c_str(), r.claim.c_str(), r.instance.c_str());
  }
}

}  // namespace
}  // namespace ngvi::claims::vpng
