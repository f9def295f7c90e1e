// DESCRIPTION
// Claim expfam.fenchel_young (docs/math.md §1.1–1.2, eq. (4), tag [R]):
//   A(η) + A*(μ) = ⟨η, μ⟩ when μ = ∇A(η), and A(η) + A*(μ') > ⟨η, μ'⟩ when μ' ≠ ∇A(η).
// Reference: the identity is checked on the dual pairs (η_q, μ_q) and (η_p, μ_p), each side computed
// from its own formula (A from η through the precision, A* from μ through the covariance); the error
// is relative to |A| + |A*| + |⟨η, μ⟩|, in eps, against 4·γ_ops·κ. Off the pairs the gap
// A(η_q) + A*(μ_p) − ⟨η_q, μ_p⟩ must exceed that rounding budget (in absolute terms).
// Negative control: equality asserted off the dual pair (η_q, μ_p).
#include "expfam_common.hpp"

namespace ngvi::claims {
namespace {

constexpr const char* kId = "expfam.fenchel_young";

template <class Scalar>
std::vector<ClaimRecord> run_impl(const RunContext& ctx) {
  using std::abs;
  using std::max;
  std::vector<ClaimRecord> out;
  for (const auto& inst : expfam_instances(ctx.full)) {
    Stopwatch sw;
    const auto [qd, pd] = instance_pair<double>(inst, ctx.seed);
    const auto [q, p] = instance_pair<Scalar>(inst, ctx.seed);
    const auto eta_q = moments_to_natural(q);
    const auto eta_p = moments_to_natural(p);
    const auto mu_q = natural_to_expectation(eta_q);
    const auto mu_p = natural_to_expectation(eta_p);
    const double cond = std::max(map_condition(qd), map_condition(pd));
    const Scalar budget = rounding_budget<Scalar>(expfam_ops(inst.d), Scalar(cond));

    auto residual = [](const GaussianNatural<Scalar>& eta, const GaussianExpectation<Scalar>& mu, Scalar* scale) {
      const Scalar a = log_partition(eta);
      const Scalar ac = conjugate_log_partition(mu);
      const Scalar pr = pairing<Scalar>(eta, mu);
      *scale = abs(a) + abs(ac) + abs(pr);
      return a + ac - pr;
    };
    Scalar s_q, s_p, s_off;
    const Scalar r_q = residual(eta_q, mu_q, &s_q);
    const Scalar r_p = residual(eta_p, mu_p, &s_p);
    const Scalar err = max(abs(r_q) / s_q, abs(r_p) / s_p);
    out.push_back(identity_record<Scalar>(kId, inst.name + "/dual-pair", Kind::kClaim, err, budget, sw.seconds()));

    Stopwatch sw2;
    const Scalar gap = residual(eta_q, mu_p, &s_off);
    const Scalar rounding = budget * s_off;
    out.push_back(inequality_record(kId, inst.name + "/strict-off-pair", scalar_name<Scalar>(), Kind::kClaim,
                                    to_double(rounding), to_double(gap), sw2.seconds(),
                                    "lhs = rounding budget (absolute), rhs = A(eta_q)+A*(mu_p)-<eta_q,mu_p>"));
    out.push_back(identity_record<Scalar>(kId, inst.name + "/equality-off-pair", Kind::kControl, abs(gap) / s_off,
                                          budget, sw2.seconds()));
  }
  return out;
}

std::vector<ClaimRecord> run(const RunContext& ctx) { return run_precisions(ctx, run_impl<double>, run_impl<mp50>); }

const Registrar kReg({kId, "A(eta) + A*(mu) = <eta, mu> at dual pairs, strictly greater off them",
                      "Wu & Gardner 2024, eq. (4); docs/math.md §1.2", "[R]", run});

}  // namespace
}  // namespace ngvi::claims
