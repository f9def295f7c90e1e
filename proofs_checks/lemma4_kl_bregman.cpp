// DESCRIPTION
// Claim lemma4.kl_bregman (Wu & Gardner 2024, Lemma 4; docs/math.md §1.3, tag [R]):
//   KL(q‖p) = D_A*(μ_q, μ_p) = D_A(η_p, η_q)   for Gaussians q, p.
// Reference: the closed-form Gaussian KL (trace, quadratic and log-determinant terms), an independent
// route from the two Bregman divergences, which are evaluated from their definitions through A, A*,
// ∇A and ∇A*. The error is measured relative to the size of the terms the Bregman forms cancel, in
// units of eps, against the budget 4·γ_ops·κ with ops = expfam_ops(d) and κ = map_condition(q, p).
// Negative control: the reversed divergence D_A*(μ_p, μ_q) = KL(p‖q) put in place of KL(q‖p).
#include "expfam_common.hpp"

namespace ngvi::claims {
namespace {

constexpr const char* kId = "lemma4.kl_bregman";

template <class Scalar>
std::vector<ClaimRecord> run_impl(const RunContext& ctx) {
  using std::abs;
  using std::max;
  std::vector<ClaimRecord> out;
  for (const auto& inst : expfam_instances(ctx.full)) {
    Stopwatch sw;
    const auto [qd, pd] = instance_pair<double>(inst, ctx.seed);
    const auto [q, p] = instance_pair<Scalar>(inst, ctx.seed);
    const auto mu_q = moments_to_expectation(q);
    const auto mu_p = moments_to_expectation(p);
    // The maps and the KL under test: the library's, or the context's variant of them.
    const auto maps = maps_for<Scalar>(ctx.variant);
    const auto eta_q = maps.moments_to_natural(q);
    const auto eta_p = maps.moments_to_natural(p);

    const Scalar kl = maps.kl(q, p);
    const Scalar d_conj = bregman_conjugate(mu_q, mu_p);
    const Scalar d_lp = bregman_log_partition(eta_p, eta_q);
    const Scalar scale = abs(conjugate_log_partition(mu_q)) + abs(conjugate_log_partition(mu_p)) +
                         abs(pairing<Scalar>(eta_p, mu_q)) + abs(pairing<Scalar>(eta_p, mu_p)) +
                         abs(log_partition(eta_p)) + abs(log_partition(eta_q)) + abs(pairing<Scalar>(mu_q, eta_q));
    const double cond = std::max(map_condition(qd), map_condition(pd));
    const Scalar budget = rounding_budget<Scalar>(expfam_ops(inst.d), Scalar(cond));
    const Scalar err = max(abs(kl - d_conj), abs(kl - d_lp)) / scale;
    out.push_back(identity_record<Scalar>(kId, inst.name, Kind::kClaim, err, budget, sw.seconds(),
                                          "KL=" + std::to_string(to_double(kl))));

    Stopwatch sw2;
    const Scalar reversed = bregman_conjugate(mu_p, mu_q);
    const Scalar err_rev = abs(kl - reversed) / scale;
    out.push_back(identity_record<Scalar>(kId, inst.name + "/reversed", Kind::kControl, err_rev, budget,
                                          sw2.seconds(), "KL(p||q)=" + std::to_string(to_double(reversed))));
  }
  return out;
}

std::vector<ClaimRecord> run(const RunContext& ctx) { return run_precisions(ctx, run_impl<double>, run_impl<mp50>); }

const Registrar kReg({kId, "KL(q||p) = D_A*(mu_q, mu_p) = D_A(eta_p, eta_q) for Gaussians",
                      "Wu & Gardner 2024, Lemma 4; docs/math.md §1.3", "[R]", run});

}  // namespace
}  // namespace ngvi::claims
