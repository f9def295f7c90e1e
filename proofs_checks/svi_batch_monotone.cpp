// DESCRIPTION
// Claim svi.batch_monotone (Hoffman et al. 2013, §2.3; docs/systems.md A.4; tag [R]): coordinate
// ascent never decreases the ELBO. With |S| = N, ρ ≡ 1 and each document's γ started from its previous
// value (GammaInit::kWarm), the bound of docs/systems.md A.4 (φ optimised out) evaluated after each
// step at (λ_{t+1}, γ_t) is non-decreasing: each γ update given φ*(γ) and the λ update given φ are
// coordinate maxima. ε₀ = 0. Reference: lda_bound, an expression independent of the update code.
// The run takes at least 40 steps (80 full) and continues until the bound's increase falls below
// budget/16 (at most 1000 steps), so that the control starts from a converged λ.
// Budget: 4 |bound| γ_n, n = K (nnz + V). Negative control: one more step from the converged λ whose
// update uses the prior (1 + δ)η (not the coordinate optimum), δ = 2⁻¹³: the bound loses cδ² (c ≈ 24
// nats measured) less the last increase, so it breaks from δ_min = √(budget/c) ≈ 1.5e-5; δ ≈ 8δ_min.
#include "svi_claims.hpp"

namespace ngvi::claims {
namespace { namespace NGVI_UNITY_ID {

std::vector<ClaimRecord> run(const RunContext& ctx) { return ctx.wants("double") ? batch_monotone(ctx, mutation_for<double>(ctx)) : std::vector<ClaimRecord>{}; }

const Registrar kReg({"svi.batch_monotone", "batch CAVI (|S| = N, rho = 1, gamma warm-started) never decreases the LDA bound", "Hoffman et al. 2013, Sec. 2.3 (coordinate ascent); Blei et al. 2003; systems.md A.4", "[R]", run});

}}  // namespace
}  // namespace ngvi::claims
