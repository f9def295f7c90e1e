// DESCRIPTION
// Claim lemma4.kl_bregman (Wu & Gardner 2024, Lemma 4; docs/math.md §1.3, tag [R]):
//   KL(q‖p) = D_A*(μ_q, μ_p) = D_A(η_p, η_q)   for q, p in one exponential family (Gaussians first).
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
// Every other family of the kit (diagonal and univariate Gaussian, Dirichlet, categorical, products;
// expfam_families.hpp) runs through one generic check body, instances named by family
// ("dirichlet/K=2"): the reference is the family's closed-form KL (categorical Σ q log(q/p); Dirichlet
// the lgamma/digamma form; diagonal and univariate Gaussian the moments form; products the sum over
// components), the two Bregman forms are evaluated from their definitions.
// Negative control (perturbed-gradient): the hypothesis that D_A(η_p, η_q) is linearised at the
// gradient μ_q = ∇A(η_q), violated by a relative δ on one flat coordinate i of μ_q:
// A(η_p) − A(η_q) − ⟨η_p − η_q, μ_q + δμ_{q,i}eᵢ⟩ differs from KL by exactly δ|μ_{q,i}(η_p − η_q)ᵢ|,
// i the coordinate where that product is largest, so δ_min = budget·scale/|μ_{q,i}(η_p − η_q)ᵢ|;
// the control runs at δ = kControlMultiple·δ_min.
#include "ngvi/claims/expfam_families.hpp"

namespace ngvi::claims {
namespace { namespace NGVI_UNITY_ID {

constexpr const char* kId = "lemma4.kl_bregman";

/// The generic check body for every family but the full Gaussian (whose body is run_impl's loop).
template <class F>
void check_family(const FamilyInstance<F>& in, std::vector<ClaimRecord>& out) {
  using Scalar = typename F::Scalar;
  using std::abs;
  using std::max;
  const F& f = in.family;
  Stopwatch sw;
  const typename F::Expectation mu_q = f.to_mean(in.eta_q);
  const typename F::Expectation mu_p = f.to_mean(in.eta_p);
  const Scalar kl = f.kl(in.eta_q, in.eta_p);
  const Scalar d_conj = f.bregman_conjugate(mu_q, mu_p);
  const Scalar d_lp = f.bregman_log_partition(in.eta_p, in.eta_q);
  const Scalar scale = abs(f.conjugate(mu_q)) + abs(f.conjugate(mu_p)) + abs(f.pairing(in.eta_p, mu_q)) +
                       abs(f.pairing(in.eta_p, mu_p)) + abs(f.log_partition(in.eta_p)) +
                       abs(f.log_partition(in.eta_q)) + abs(f.pairing(in.eta_q, mu_q));
  const Scalar budget = rounding_budget<Scalar>(in.ops, Scalar(in.cond));
  const Scalar err = max(Scalar(abs(kl - d_conj)), Scalar(abs(kl - d_lp))) / scale;
  out.push_back(identity_record<Scalar>(kId, in.name, Kind::kClaim, err, budget, sw.seconds(),
                                        "KL=" + std::to_string(to_double(kl)) + " (family's closed form)"));

  // Control: D_A(η_p, η_q) linearised at μ_q + δμ_{q,i}eᵢ instead of ∇A(η_q) = μ_q. The form
  // A(η_p) − A(η_q) − ⟨η_p − η_q, μ'⟩ is linear in μ', so it moves by exactly δ·μ_{q,i}(η_p − η_q)ᵢ
  // (the pairing is the flat dot product): δ_min = budget·scale/|μ_{q,i}(η_p − η_q)ᵢ|.
  Stopwatch sw2;
  const Vec<Scalar> mu_flat = f.flatten_expectation(mu_q);
  const Vec<Scalar> diff_flat = f.flatten_natural(in.eta_p) - f.flatten_natural(in.eta_q);
  const Vec<Scalar> prod = mu_flat.cwiseProduct(diff_flat);
  const Index i = largest_entry<Scalar>(prod);
  const Scalar cb = claim_budget<Scalar>(budget);
  const Scalar delta_min = cb * scale / abs(prod(i));
  const Scalar delta = Scalar(kControlMultiple) * delta_min;
  Vec<Scalar> mu_off = mu_flat;
  mu_off(i) += delta * mu_off(i);
  const Scalar d_off = f.log_partition(in.eta_p) - f.log_partition(in.eta_q) -
                       f.pairing(f.unflatten_natural(diff_flat), f.unflatten_expectation(mu_off));
  out.push_back(injected_control(identity_record<Scalar>(
      kId, in.name + "/perturbed-gradient", Kind::kControl, Scalar(abs(kl - d_off) / scale), cb, sw2.seconds(),
      violation_note("relative error delta of one coordinate of grad A(eta_q) in D_A(eta_p, eta_q)", to_double(delta),
                     to_double(delta_min)))));
}

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
    const auto maps = maps_for<Scalar>(ctx.variant());
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
  for_each_family_instance<Scalar>(ctx, [&out](const auto& in) { check_family(in, out); });
  return out;
}

std::vector<ClaimRecord> run(const RunContext& ctx) { return run_precisions(ctx, run_impl<double>, run_impl<mp50>); }

const Registrar kReg({kId, "KL(q||p) = D_A*(mu_q, mu_p) = D_A(eta_p, eta_q) for every exponential family of the kit",
                      "Wu & Gardner 2024, Lemma 4; docs/math.md §1.3", "[R]", run});

}}  // namespace
}  // namespace ngvi::claims
