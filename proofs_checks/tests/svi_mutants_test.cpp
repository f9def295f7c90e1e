// Each registered SVI mutant (svi_mutants.cpp: the variants that file parts under kPartSystemSvi) run
// through the bodies of the SVI claims (double, quick instances), its parts read as the claims read
// them (mutation_for): at least one claim record must flip from holds (killed), and the library's
// parts must leave every claim record holding.
#include <gtest/gtest.h>

#include <algorithm>

#include "svi_claims.hpp"

namespace ngvi::claims {
namespace { namespace NGVI_UNITY_ID {

std::vector<ClaimRecord> all_svi_records(const Variant* v) {
  RunContext ctx;
  ctx.set_variant(v);
  const auto m = mutation_for<double>(ctx);
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

std::vector<const Variant*> svi_mutants() {
  std::vector<const Variant*> out;
  for (const Variant* v : VariantRegistry::instance().all())
    if (v->mutant && (v->replaced() & kPartSystemSvi) != 0) out.push_back(v);
  return out;
}

TEST(SviMutants, LibraryPartsHoldEveryClaim) { EXPECT_TRUE(flipped(all_svi_records(nullptr)).empty()); }

TEST(SviMutants, EachFilesPartsInBothScalars) {
  std::vector<std::string> names;
  for (const Variant* v : svi_mutants()) {
    names.push_back(v->name);
    const bool svi_d = system_parts_for<svi::SviParts<double>>(v, kPartSystemSvi) != nullptr;
    const bool lda_d = system_parts_for<lda::EStepParts<double>>(v, kPartSystemSvi) != nullptr;
    const bool svi_mp = system_parts_for<svi::SviParts<mp50>>(v, kPartSystemSvi) != nullptr;
    const bool lda_mp = system_parts_for<lda::EStepParts<mp50>>(v, kPartSystemSvi) != nullptr;
    const bool gmm_d = system_parts_for<gmm::GmmParts<double>>(v, kPartSystemSvi) != nullptr;
    const bool gmm_mp = system_parts_for<gmm::GmmParts<mp50>>(v, kPartSystemSvi) != nullptr;
    EXPECT_TRUE(svi_d || lda_d || gmm_d) << v->name;
    EXPECT_EQ(svi_d, svi_mp) << v->name;
    EXPECT_EQ(lda_d, lda_mp) << v->name;
    EXPECT_EQ(gmm_d, gmm_mp) << v->name;
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"gmm.phi_no_mean_variance", "lda.elog_beta_no_sum", "lda.estep_one_iteration", "lda.gamma_start_always_random", "lda.phi_unnormalised", "svi.kappa_default_half",
                                             "svi.replication_dropped", "svi.rho_from_zero", "svi.tau_plus_9"}));
}

TEST(SviMutants, EveryMutantIsKilled) {
  for (const Variant* v : svi_mutants()) {
    const auto f = flipped(all_svi_records(v));
    std::string list;
    for (const auto& s : f) list += s + "; ";
    EXPECT_FALSE(f.empty()) << v->name << " (" << v->description << ") survived";
    std::printf("mutant %s killed by: %s\n", v->name.c_str(), list.c_str());
  }
}

}}  // namespace
}  // namespace ngvi::claims
