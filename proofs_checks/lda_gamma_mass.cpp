// DESCRIPTION
// Claim lda.gamma_mass (docs/systems.md A.5 2; tag [R]): after every E-step each document's
// Σ_k γ_dk = Kα + Σ_w n_dw, because φ_dw· is a distribution over topics. Checked at every iterate of a
// short SVI run (|S| = 4, 2 passes, random γ initialisation, stopping rule 1e−3/100 updates), with
// ε₀ = 0; reference: the document's token count, read from the corpus. Budget: Higham's γ_n with
// n = K·max_nnz + K + D + 4 (see svi_claims.hpp).
// Negative control: ε₀ = δ added to phinorm (φ normalised only up to that floor), δ = 2⁻⁴⁷ (double) and
// 2⁻¹⁶² (mp50): each token's mass becomes 1 − δ/phinorm, so the record breaks from δ_min = budget/σ,
// σ the token average of 1/phinorm (≈ 19): 1e-15 and 2e-50; δ is about 7× that. scikit-learn's
// ε₀ = eps lies below the double limit.
// Against an svi-lda implementation (svi_lda_protocol.hpp): the γ it returns (skipped when it returns none),
// at the library's iterates; the control hands α(1 + δ).
#include "svi_lda_protocol.hpp"

namespace ngvi::claims {
namespace { namespace NGVI_UNITY_ID {

std::vector<ClaimRecord> run(const RunContext& ctx) {
  if (const auto* impl = svi_lda_for(ctx.variant())) return mass_protocol(ctx, *impl, true);
  return run_precisions(ctx, [](const RunContext& c) { return mass_claims<double>(c, mutation_for<double>(c), true); }, [](const RunContext& c) { return mass_claims<mp50>(c, mutation_for<mp50>(c), true); }); }

const Registrar kReg({"lda.gamma_mass", "after every E-step, sum_k gamma_dk = K alpha + sum_w n_dw", "Hoffman et al. 2010, Algorithm 2 (E-step); systems.md A.5 2", "[R]", run,
                      CostHint{0.48, 1.0}, {protocols::kSviLda}});

}}  // namespace
}  // namespace ngvi::claims
