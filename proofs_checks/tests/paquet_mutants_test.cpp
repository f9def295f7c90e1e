// The mutants of Paquet's sweep (proofs_checks/paquet_mutants.cpp: registered variants that each
// replace one of PaquetParts) are killed: with each one's parts, claim records of the paquet.* claims
// (quick, double, run through the registry as `ngvi verify --variant` runs them) that hold for the
// library's parts come out broken, in at least two records.
#include <gtest/gtest.h>

#include <cstdio>

#include "paquet_common.hpp"

namespace ngvi::claims::paquet {
namespace { namespace NGVI_UNITY_ID {

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
    const int replaced = int(static_cast<bool>(d->scale)) + int(static_cast<bool>(d->global_scale)) + int(static_cast<bool>(d->reads)) +
                         int(static_cast<bool>(d->precision)) + int(static_cast<bool>(d->coparents)) + int(static_cast<bool>(d->schedule));
    EXPECT_EQ(replaced, 1) << v->name;
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"paquet-alg2-scale-over-sample", "paquet-b-reads-updated", "paquet-drop-scale", "paquet-no-variance",
                                             "paquet-rho-delay-dropped", "paquet-self-in-coparents"}));
}

/// The claim records of every paquet.* claim in quick mode and double, under variant `v` (null: the library).
std::vector<ClaimRecord> paquet_claim_records(const Variant* v) {
  RunContext ctx;
  ctx.precisions = {"double"};
  ctx.set_variant(v);
  std::vector<ClaimRecord> out;
  for (const ClaimInfo* c : Registry::instance().match("paquet.*"))
    for (auto& r : run_claim(*c, ctx))
      if (r.kind == Kind::kClaim) out.push_back(std::move(r));
  return out;
}

TEST(PaquetMutants, EveryMutantIsKilledInTwoRecords) {
  const auto lib = paquet_claim_records(nullptr);
  ASSERT_FALSE(lib.empty());
  ASSERT_EQ(broken_claim_records(lib), 0);
  const auto mutants = paquet_variants();
  ASSERT_EQ(mutants.size(), 6u);
  for (const Variant* m : mutants) {
    const auto recs = paquet_claim_records(m);
    std::string list;
    for (const auto& r : recs)
      if (r.verdict == report::Verdict::kBroken || r.verdict == report::Verdict::kError) list += r.claim + " " + r.instance + "; ";
    EXPECT_GE(broken_claim_records(recs), 2) << m->name << " (" << m->description << "): " << list;
    std::printf("mutant %s killed by: %s\n", m->name.c_str(), list.c_str());
  }
}

// Algorithm 2's scale on its own: the global_scale part changes Algorithm 2's sweep and leaves
// Algorithm 1's (whose scale it is not) bit for bit.
TEST(PaquetMutants, GlobalScaleIsAlgorithmTwosOnly) {
  const auto* m = VariantRegistry::instance().find("paquet-alg2-scale-over-sample");
  ASSERT_NE(m, nullptr);
  const auto* parts = system_parts_for<PaquetParts<double>>(m, kPartSystemPaquet);
  ASSERT_NE(parts, nullptr);
  const auto d = small_data(3);
  const auto q0 = spread_init(d, 2, 4);
  for (PaquetAlgorithm alg : {PaquetAlgorithm::kPerNode, PaquetAlgorithm::kGlobal}) {
    PaquetOptions o;
    o.algorithm = alg;
    o.children = 2;
    o.global_batch = 7;
    const auto lib = run(d, q0, o, PaquetParts<double>{}, delayed_schedule(0.5), 5, 11, 1);
    const auto mut = run(d, q0, o, *parts, delayed_schedule(0.5), 5, 11, 1);
    ASSERT_FALSE(lib.diverged);
    const bool same = (lib.last.u == mut.last.u).all() && (lib.last.v == mut.last.v).all();
    EXPECT_EQ(same, alg == PaquetAlgorithm::kPerNode) << "algorithm " << static_cast<int>(alg);
  }
}

}}  // namespace
}  // namespace ngvi::claims::paquet
