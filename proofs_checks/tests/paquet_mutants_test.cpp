// The mutants of the Paquet update (optim/steppers/paquet_svb.hpp, paquet_mutants()) are killed:
// with each one, at least one claim record of paquet.unbiased or paquet.cavi_monotone that holds
// for the real update comes out broken.
#include <gtest/gtest.h>

#include "paquet_common.hpp"

namespace ngvi::claims::paquet {
namespace {

int broken_claim_records(const std::vector<ClaimRecord>& recs) {
  int n = 0;
  for (const auto& r : recs)
    if (r.kind == Kind::kClaim && (r.verdict == report::Verdict::kBroken || r.verdict == report::Verdict::kError)) ++n;
  return n;
}

TEST(PaquetMutants, EveryMutantIsKilled) {
  RunContext ctx;
  ASSERT_EQ(broken_claim_records(unbiased_records(ctx, PaquetMutant::kNone)), 0);
  ASSERT_EQ(broken_claim_records(cavi_records(ctx, PaquetMutant::kNone)), 0);
  const auto mutants = paquet_mutants();
  ASSERT_EQ(mutants.size(), 4u);
  for (const auto& m : mutants) {
    const int killed = broken_claim_records(unbiased_records(ctx, m.mutant)) + broken_claim_records(cavi_records(ctx, m.mutant));
    EXPECT_GT(killed, 0) << m.name << " (" << m.description << ") survives";
  }
}

}  // namespace
}  // namespace ngvi::claims::paquet
