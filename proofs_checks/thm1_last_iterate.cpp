// DESCRIPTION
// Claim thm1.last_iterate ([X], docs/math.md §4.5 "Last iterate"): step 5 of Theorem 1's proof also
// bounds a_T = (T(T+1)/2) E D(μ*, μ_T), so with γ_t = 2/(t+2)
//   E KL(p(z|y) ‖ q_{μ_T}) = E D_A*(μ*, μ_T) ≤ 4σ²/(T+1)
// for the last iterate (the reverse KL). Checked exactly at every T = 1..T_max by enumerating every
// mini-batch path (lib/include/ngvi/claims/path_enumeration.hpp; thm1.exact's instances, posterior by Gaussian
// conditioning in data space), σ² the exact max of σ_t² over every reachable state; the record is
// the T of largest lhs/rhs (deterministic, double and mp50). Also from a start far from μ* in
// D(μ*, μ₀), q₀ = N(0, 1e-6 I) (the bound does not depend on the start: γ₀ = 1 erases it).
// Control: the schedule γ_t = 2/(t+2+δ') from that start, a violation of γ₀ = 1 by δ' (γ₀ =
// 2/(2+δ') < 1): the start keeps the weight δ'(1+δ')/((T+δ')(T+1+δ')) in η_T, and its term
// (1/γ₀ − 1)D(μ*, μ₀) enters step 5, so the bound with σ² from the states reached fails (the leftover
// precision shrinks every reachable covariance, so σ² falls while KL(p ‖ q_T) grows). A far start in
// the mean (‖m₀‖ = 1e6) does not break the last-iterate bound: σ_t² at the states reached grows like
// the squared leftover mean, as the KL does. δ'_min is measured by a log bisection on the exact enumeration (depth kControlDepth), and
// the control runs at 4δ'_min.
#include "ngvi/claims/expfam_common.hpp"
#include "ngvi/claims/path_enumeration.hpp"

namespace ngvi::claims {
namespace { namespace NGVI_UNITY_ID {

constexpr const char* kId = "thm1.last_iterate";
constexpr long kControlDepth = 3;
// A start far from the posterior in D(μ*, μ₀): q₀ = N(0, kStartVar·I), a precision 1e6 times the prior's.
constexpr double kStartVar = 1e-6;

ExactInstance concentrated(const ExactInstance& inst) {
  ExactInstance f = inst;
  f.blr.name += "/start-N(0,1e-6I)";
  f.start_var = kStartVar;
  return f;
}

std::vector<ClaimRecord> run(const RunContext& ctx) {
  std::vector<ClaimRecord> out;
  bool first = true;
  for (const auto& [inst, depth] : theorem1_exact_instances(ctx)) {
    if (ctx.wants("double")) out.push_back(every_t_record<double>(kId, inst, depth.dbl, ctx, Kind::kClaim, true, {}, ""));
    if (ctx.wants("mp50")) out.push_back(every_t_record<mp50>(kId, inst, depth.mp, ctx, Kind::kClaim, true, {}, ""));
    if (!first || !ctx.wants("double")) continue;
    first = false;
    const ExactInstance f = concentrated(inst);
    out.push_back(every_t_record<double>(kId, f, depth.dbl, ctx, Kind::kClaim, true, {}, "start q_0 = N(0, 1e-6 I)"));
    Stopwatch sw;
    const double shift_min = smallest_breaking_shift(f, kControlDepth, true, ctx);
    // NaN (no δ' ≤ 1 breaks it) would make the schedule NaN: the control then runs at δ' = 1 and holds.
    const double shift = std::isnan(shift_min) ? 1.0 : kControlMultiple * shift_min;
    auto r = every_t_record<double>(kId, f, kControlDepth, ctx, Kind::kControl, true, shifted_theorem1<double>(shift),
                                    violation_note("gamma_t = 2/(t+2+delta'), gamma_0 = 2/(2+delta') < 1 from q_0 = N(0, 1e-6 I); delta'",
                                                   shift, shift_min, "the start is not erased"));
    r.note = measured_note(r.note);
    r.seconds += sw.seconds();
    out.push_back(std::move(r));
  }
  return out;
}

const Registrar kReg({kId, "last iterate: E KL(posterior || q_{mu_T}) <= 4 sigma^2/(T+1) at every T (exact enumeration)",
                      "Wu & Gardner 2024, Theorem 1, proof step 5; docs/math.md §4.5 (Last iterate)", "[X]", run});

}}  // namespace
}  // namespace ngvi::claims
