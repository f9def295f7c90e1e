// Each named SVI mutant (lda::svi_mutants(), built by svi_mutations()) run through the bodies of the
// SVI claims (double, quick instances): at least one claim record must flip from holds (killed), and
// the library's parts must leave every claim record holding.
#include <gtest/gtest.h>

#include "svi_claims.hpp"

namespace ngvi::claims {
namespace {

std::vector<ClaimRecord> all_svi_records(const SviMutation& m) {
  RunContext ctx;
  std::vector<ClaimRecord> out;
  auto add = [&](std::vector<ClaimRecord> r) { out.insert(out.end(), r.begin(), r.end()); };
  add(cavi_equivalence<double>(ctx, m));
  add(gmm_cavi_equivalence<double>(ctx, m));
  add(unbiased_target<double>(ctx, m));
  add(natural_gradient<double>(ctx, m));
  add(mass_claims<double>(ctx, m, true));
  add(mass_claims<double>(ctx, m, false));
  add(schedule_claim<double>(ctx, m));
  add(batch_monotone(ctx, m));
  return out;
}

std::vector<std::string> flipped(const std::vector<ClaimRecord>& recs) {
  std::vector<std::string> f;
  for (const auto& r : recs)
    if (r.kind == Kind::kClaim && (r.verdict == report::Verdict::kBroken || r.verdict == report::Verdict::kError))
      f.push_back(r.claim + " " + r.instance);
  return f;
}

TEST(SviMutants, LibraryPartsHoldEveryClaim) { EXPECT_TRUE(flipped(all_svi_records(SviMutation{})).empty()); }

TEST(SviMutants, EveryMutantIsKilled) {
  const auto mutants = svi_mutations();
  ASSERT_EQ(mutants.size(), 5u);
  for (const auto& [info, mutation] : mutants) {
    const auto f = flipped(all_svi_records(mutation));
    std::string list;
    for (const auto& s : f) list += s + "; ";
    EXPECT_FALSE(f.empty()) << info.name << " (" << info.description << ") survived";
    std::printf("mutant %s killed by: %s\n", info.name, list.c_str());
  }
}

}  // namespace
}  // namespace ngvi::claims
