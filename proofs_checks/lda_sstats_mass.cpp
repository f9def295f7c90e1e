// DESCRIPTION
// Claim lda.sstats_mass (docs/systems.md A.5 2; tag [R]): the sufficient statistics of an E-step carry
// every token once: Σ_k sstats_kw = Σ_{d∈S} n_dw. Checked at every iterate of a short SVI run, ε₀ = 0;
// reference: the word counts summed from the corpus. Budget: as lda.gamma_mass.
// Negative control: ε₀ = δ, δ = 2⁻⁴⁷ (double) and 2⁻¹⁶² (mp50), about 7× the detection limit
// budget/σ (σ the token average of 1/phinorm), as lda.gamma_mass.
// Against an svi-lda implementation (svi_lda_protocol.hpp): λ̂ = (λ_{t+1} − (1 − ρ_t)λ_t)/ρ_t with the declared ρ_t,
// at the library's iterates; the control hands η(1 + δ).
#include "svi_lda_protocol.hpp"

namespace ngvi::claims {
namespace { namespace NGVI_UNITY_ID {

std::vector<ClaimRecord> run(const RunContext& ctx) {
  if (const auto* impl = svi_lda_for(ctx.variant())) return mass_protocol(ctx, *impl, false);
  return run_precisions(ctx, [](const RunContext& c) { return mass_claims<double>(c, mutation_for<double>(c), false); }, [](const RunContext& c) { return mass_claims<mp50>(c, mutation_for<mp50>(c), false); }); }

const Registrar kReg({"lda.sstats_mass", "sum_k sstats_kw = sum over the minibatch of n_dw, for every word w", "Hoffman et al. 2010, Algorithm 2; systems.md A.5 2", "[R]", run,
                      CostHint{0.48, 1.0}, {protocols::kSviLda}});

}}  // namespace
}  // namespace ngvi::claims
