// The mutants of Paquet's sweep (proofs_checks/paquet_mutants.cpp: registered variants that each
// replace one of PaquetParts) are killed: with each one's parts, at least one claim record of
// paquet.unbiased or paquet.cavi_monotone that holds for the library's parts comes out broken.
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

/// The registered variants that replace Paquet's parts.
std::vector<const Variant*> paquet_variants() {
  std::vector<const Variant*> out;
  for (const Variant* v : VariantRegistry::instance().all())
    if ((v->replaced() & kPartSystemPaquet) != 0) out.push_back(v);
  return out;
}

TEST(PaquetMutants, RegisteredUnderTodaysNamesWithOnePartEach) {
  std::vector<std::string> names;
  for (const Variant* v : paquet_variants()) {
    names.push_back(v->name);
    EXPECT_TRUE(v->mutant) << v->name;
    const auto* d = system_parts_for<PaquetParts<double>>(v, kPartSystemPaquet);
    const auto* m = system_parts_for<PaquetParts<mp50>>(v, kPartSystemPaquet);
    ASSERT_NE(d, nullptr) << v->name;
    ASSERT_NE(m, nullptr) << v->name;
    const int replaced = int(static_cast<bool>(d->scale)) + int(static_cast<bool>(d->reads)) + int(static_cast<bool>(d->precision)) +
                         int(static_cast<bool>(d->coparents));
    EXPECT_EQ(replaced, 1) << v->name;
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"paquet-b-reads-updated", "paquet-drop-scale", "paquet-no-variance", "paquet-self-in-coparents"}));
}

TEST(PaquetMutants, EveryMutantIsKilled) {
  RunContext ctx;
  ASSERT_EQ(broken_claim_records(unbiased_records(ctx, PaquetParts<double>{})), 0);
  ASSERT_EQ(broken_claim_records(cavi_records(ctx, PaquetParts<double>{})), 0);
  const auto mutants = paquet_variants();
  ASSERT_EQ(mutants.size(), 4u);
  for (const Variant* m : mutants) {
    const auto* parts = system_parts_for<PaquetParts<double>>(m, kPartSystemPaquet);
    ASSERT_NE(parts, nullptr) << m->name;
    const int killed = broken_claim_records(unbiased_records(ctx, *parts)) + broken_claim_records(cavi_records(ctx, *parts));
    EXPECT_GT(killed, 0) << m->name << " (" << m->description << ") survives";
  }
}

}  // namespace
}  // namespace ngvi::claims::paquet
