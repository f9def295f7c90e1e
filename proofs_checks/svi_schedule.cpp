// DESCRIPTION
// Claim svi.schedule (Hoffman et al. 2013, §2.4; docs/systems.md A.4 step-size indexing, A.5 2; tag
// [R]): the ρ that the engine hands the SVI stepper at its steps 0, 1, … is ρ₀ (t + τ)^(−κ) at t = 1, 2, …
// (onlineldavb's (τ₀ + 1 + updatect)^(−κ), scikit-learn's (learning_offset + n_batch_iter_)^(−decay)).
// Reference: the formula in mp100 with t counted from 1. Budget: Higham's γ_8 (pow within a few ulps).
// Negative control: the run with τ + δ instead of τ, δ = 2⁻⁴² (double) and 2⁻¹⁵⁷ (mp50): ρ₁ moves by
// κδ/(1 + τ) relative, so the record breaks from δ_min = γ_8(1 + τ)/κ (5.6e-14 and 1.3e-48); δ ≈ 4δ_min.
// Against an svi-lda implementation (protocols/svi_lda.hpp; svi_lda_protocol.hpp): ρ_t read off 4 words absent
// from every minibatch (λ̂ = η there), against (τ₀ + t + origin)^(−κ) with the implementation's declared origin;
// the control hands τ₀ + δ; ρ₀ ≠ 1 is not a protocol parameter, and a setting outside the declared schedule's
// domain (τ₀ + origin = 0) or refused by the implementation at start is skipped (skipped records).
#include "svi_lda_protocol.hpp"

namespace ngvi::claims {
namespace { namespace NGVI_UNITY_ID {

std::vector<ClaimRecord> run(const RunContext& ctx) {
  if (const auto* impl = svi_lda_for(ctx.variant())) return schedule_protocol(ctx, *impl);
  return run_precisions(ctx, [](const RunContext& c) { return schedule_claim<double>(c, mutation_for<double>(c)); }, [](const RunContext& c) { return schedule_claim<mp50>(c, mutation_for<mp50>(c)); }); }

const Registrar kReg({"svi.schedule", "the step sizes are rho_t = rho0 (t + tau)^-kappa with t = 1, 2, ... (engine step t uses t + 1)", "Hoffman et al. 2013, Sec. 2.4; onlineldavb; scikit-learn; systems.md A.4, A.5 2", "[R]", run, CostHint{}, {protocols::kSviLda}});

}}  // namespace
}  // namespace ngvi::claims
