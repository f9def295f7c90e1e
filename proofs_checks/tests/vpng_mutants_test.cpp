// The mutants of VPNG (proofs_checks/vpng_mutants.cpp: registered variants that each replace one of
// VpngParts): each one, run as the context's variant, flips at least one claim record of
// vpng.fr_closed_form or vpng.one_step (killed), while the library's parts hold every claim record.
// Also: the no-epsilon Jacobian mutant's exact F_r is J_mᵀ G J_m (the form the claims must detect).
#include <gtest/gtest.h>

#include <algorithm>

#include "vpng_common.hpp"

namespace ngvi::claims::vpng {
namespace { namespace NGVI_UNITY_ID {

int broken_claims(const std::vector<ClaimRecord>& recs) {
  int n = 0;
  for (const auto& r : recs)
    if (r.kind == Kind::kClaim && r.verdict != report::Verdict::kHolds) ++n;
  return n;
}

std::vector<ClaimRecord> bodies(const Variant* v) {
  RunContext ctx;
  ctx.precisions = {"double"};
  ctx.set_variant(v);
  auto a = fr_closed_form_records(ctx);
  const auto b = one_step_records(ctx);
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::vector<const Variant*> vpng_variants() {
  std::vector<const Variant*> out;
  for (const Variant* v : VariantRegistry::instance().all())
    if ((v->replaced() & kPartSystemVpng) != 0) out.push_back(v);
  return out;
}

TEST(VpngMutants, UnmutatedHolds) { EXPECT_EQ(broken_claims(bodies(nullptr)), 0); }

TEST(VpngMutants, RegisteredUnderTodaysNamesWithOnePartEach) {
  std::vector<std::string> names;
  for (const Variant* v : vpng_variants()) {
    names.push_back(v->name);
    EXPECT_TRUE(v->mutant) << v->name;
    const auto* d = system_parts_for<VpngParts<double>>(v, kPartSystemVpng);
    ASSERT_NE(d, nullptr) << v->name;
    ASSERT_NE((system_parts_for<VpngParts<mp50>>(v, kPartSystemVpng)), nullptr) << v->name;
    EXPECT_EQ(int(static_cast<bool>(d->fisher)) + int(static_cast<bool>(d->damping)), 1) << v->name;
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"vpng-damp-gradient", "vpng-fr-sum", "vpng-no-eps-jacobian", "vpng-q-fisher"}));
}

TEST(VpngMutants, EachMutantIsKilled) {
  const auto mutants = vpng_variants();
  ASSERT_EQ(mutants.size(), 4u);
  for (const Variant* m : mutants) {
    const auto recs = bodies(m);
    EXPECT_GT(broken_claims(recs), 0) << m->name << " (" << m->description << ") survives";
    for (const auto& r : recs)
      if (r.kind == Kind::kClaim && r.verdict != report::Verdict::kHolds) std::printf("  %s kills %s %s\n", m->name.c_str(), r.claim.c_str(), r.instance.c_str());
  }
}

// The no-epsilon mutant's exact route is J_mᵀ G J_m = [[G, G diag σ], [diag σ G, diag σ G diag σ]],
// written out here entry by entry.
TEST(VpngMutants, NoEpsilonJacobianExactFormIsJtGJ) {
  const Variant* v = VariantRegistry::instance().find("vpng-no-eps-jacobian");
  ASSERT_NE(v, nullptr);
  const auto* parts = system_parts_for<VpngParts<double>>(v, kPartSystemVpng);
  ASSERT_TRUE(parts != nullptr && parts->fisher);
  Mat<double> g(2, 2);
  g << 4, 1, 1, 3;
  Vec<double> lambda(4);
  lambda << 0.25, -1, std::log(0.5), std::log(2.0);
  const double s[2] = {0.5, 2};
  FisherRequest<double> r;
  r.lambda = &lambda;
  r.route = FisherRoute::kExact;
  r.g = [&](const Vec<double>&) { return g; };
  const Mat<double> f = parts->fisher(r);
  ASSERT_EQ(f.rows(), 4);
  double worst = 0;
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b) {
      const double expect = g(a % 2, b % 2) * (a >= 2 ? s[a % 2] : 1.0) * (b >= 2 ? s[b % 2] : 1.0);
      worst = std::max(worst, std::abs(f(a, b) - expect));
    }
  EXPECT_LE(worst, rounding_budget<double>(8) * g.norm() * 4);
}

}}  // namespace
}  // namespace ngvi::claims::vpng
