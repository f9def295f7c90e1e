// DESCRIPTION
// Claim lemma4.kl_bregman (Wu & Gardner 2024, Lemma 4; docs/math.md §1.3, tag [R]):
//   KL(q‖p) = D_A*(μ_q, μ_p) = D_A(η_p, η_q)   for Gaussians q, p.
// Reference: the closed-form Gaussian KL (trace, quadratic and log-determinant terms), an independent
// route from the two Bregman divergences, which are evaluated from their definitions through A, A*,
// ∇A and ∇A*. The error is measured relative to the size of the terms the Bregman forms cancel, in
// units of eps, against the budget 4·γ_ops·κ with ops = expfam_ops(d) and κ = map_condition(q, p).
// Where κ puts the double budget above 1e-6 relative (the κ = 1e8 instance) the note says so.
// Negative control (pair-off-duality): the hypothesis that μ_q is the expectation parameter of q,
// μ_q = ∇A(η_q), violated by a relative δ: D_A*(μ', μ_p) with μ' the expectation parameter of
// N(m_q, (1+δ)S_q). Its excess over KL(q‖p) is h(δ) = ½δ(t − d) + (d/2)(δ − log(1+δ)),
// t = tr(S_p⁻¹S_q), linear where t ≠ d and quadratic where t ≈ d; δ takes the sign of t − d so both
// terms add, and |δ_min| is the root of (|t − d|/2)|δ| + (d/4)δ² = budget·scale. The control runs at
// δ = kControlMultiple·δ_min (expfam_common.hpp).
#include "expfam_common.hpp"

namespace ngvi::claims {
namespace {

constexpr const char* kId = "lemma4.kl_bregman";

template <class Scalar>
std::vector<ClaimRecord> run_impl(const RunContext& ctx) {
  using std::abs;
  using std::max;
  using std::sqrt;
  std::vector<ClaimRecord> out;
  for (const auto& inst : expfam_claim_instances(ctx.full)) {
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
                                          join_notes("KL=" + std::to_string(to_double(kl)), conditioning_note(budget, cond))));

    // Control: D_A*(μ', μ_p) with μ' the dual of η_q only up to a relative δ: μ' the expectation
    // parameter of N(m_q, (1+δ)S_q), in M for every δ > −1. From the closed-form KL,
    //   D_A*(μ', μ_p) − KL(q‖p) = h(δ) = ½δ(t − d) + (d/2)(δ − log(1+δ)),  t = tr(S_p⁻¹S_q),
    // and with δ of the sign of t − d both terms are ≥ 0: h(δ) ≥ a|δ| + bδ²(1 − 2|δ|/3) with
    // a = |t − d|/2, b = d/4. The record sees h once h > budget·scale, so
    //   |δ_min| = 2τ/(a + √(a² + 4bτ)),  τ = budget·scale  (the root of a|δ| + bδ² = τ),
    // and at 4δ_min, h ≥ 4τ up to the O(δ³) term.
    Stopwatch sw2;
    const double t_tr = (pd.cov.llt().solve(qd.cov)).trace();
    const double a_lin = std::abs(t_tr - static_cast<double>(inst.d)) / 2, b_quad = static_cast<double>(inst.d) / 4;
    const Scalar cb = claim_budget<Scalar>(budget);
    const Scalar tau = cb * scale;
    const Scalar delta_min = Scalar(2) * tau / (Scalar(a_lin) + sqrt(Scalar(a_lin * a_lin) + Scalar(4 * b_quad) * tau));
    const Scalar delta = (t_tr >= static_cast<double>(inst.d) ? 1 : -1) * Scalar(kControlMultiple) * delta_min;
    const GaussianMoments<Scalar> q_off{q.mean, (Scalar(1) + delta) * q.cov};
    const Scalar off = bregman_conjugate(moments_to_expectation(q_off), mu_p);
    const Scalar err_off = abs(kl - off) / scale;
    out.push_back(identity_record<Scalar>(
        kId, inst.name + "/pair-off-duality", Kind::kControl, err_off, cb, sw2.seconds(),
        violation_note("relative error delta of the covariance of mu' = grad A(eta_q)", to_double(delta),
                       to_double(delta_min))));
  }
  return out;
}

std::vector<ClaimRecord> run(const RunContext& ctx) { return run_precisions(ctx, run_impl<double>, run_impl<mp50>); }

const Registrar kReg({kId, "KL(q||p) = D_A*(mu_q, mu_p) = D_A(eta_p, eta_q) for Gaussians",
                      "Wu & Gardner 2024, Lemma 4; docs/math.md §1.3", "[R]", run});

}  // namespace
}  // namespace ngvi::claims
