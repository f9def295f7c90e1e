// DESCRIPTION
// Claim svi.cavi_equivalence (Hoffman et al. 2013, §2.4 and eq. (10); docs/systems.md A.2 and A.5 1,
// tag [R]): one SVI step with |S| = N and ρ = 1 is one batch CAVI step: λ_new = η + Σ_d Σ_w n_dw φ_dwk
// for LDA, and γ_k = α₀ + Σφ_nk, η1_k = m₀/s₀² + Σφ_nk x_n/σ², η2_k = −1/(2s₀²) − Σφ_nk/(2σ²) for the Gaussian mixture.
// Kit: run_svi (engine, SviStepper = NaturalStepper of the model's family, SviEstimator, SviSchedule::batch_cavi) on the whole corpus, one pass.
// Reference (GMM): the CAVI step in moment form (s_k², m_k) mapped to natural parameters, written in
// svi_claims.hpp. Reference (LDA): reference_cavi_step (svi_common.hpp): φ stored per (document, word, topic), normalised by
// log-sum-exp, γ and φ alternated for the same number of updates from γ = 1, λ = η + Σ n φ. Relative
// Frobenius error against the acceptance bounds: 1e−10 (double), 1e−40 (mp50).
// Negative control: the same comparison with ρ = 1 − δ instead of 1, δ = 2⁻³⁰ (double) and 2⁻¹³⁰
// (mp50): the step misses CAVI by δ‖λ̂ − λ₀‖/‖λ̂‖ relative, which breaks the bound from δ_min ≈ 1.1e-10
// (double) and 1.1e-40 (mp50); δ is about 7× that (cavi_control_delta in svi_claims.hpp).
// Against an svi-gmm implementation (protocols/svi_gmm.hpp; double): the mixture records, its update 0 handed
// |S| = N, κ = 0, ρ₀ = 1 (control ρ₀ = 1 − δ); the LDA records read an LDA step the protocol does not have and
// are not written; mp50 is a skipped record (an implementation runs in double).
#include "svi_claims.hpp"

namespace ngvi::claims {
namespace { namespace NGVI_UNITY_ID {

std::vector<ClaimRecord> run(const RunContext& ctx) {
  if (const auto* impl = svi_gmm_for(ctx.variant())) {
    std::vector<ClaimRecord> out;
    if (ctx.wants("double")) out = gmm_cavi_equivalence<double>(ctx, mutation_for<double>(ctx), impl);
    if (ctx.wants("mp50")) out.push_back(skipped_record("svi.cavi_equivalence", protocol_instance("gmm-K3-d2-N30", impl), "mp50", Kind::kClaim, "an svi-gmm implementation runs in double"));
    return out;
  }
  return run_precisions(
      ctx,
      [](const RunContext& c) {
        auto r = cavi_equivalence<double>(c, mutation_for<double>(c));
        auto g = gmm_cavi_equivalence<double>(c, mutation_for<double>(c));
        r.insert(r.end(), g.begin(), g.end());
        return r;
      },
      [](const RunContext& c) {
        auto r = cavi_equivalence<mp50>(c, mutation_for<mp50>(c));
        auto g = gmm_cavi_equivalence<mp50>(c, mutation_for<mp50>(c));
        r.insert(r.end(), g.begin(), g.end());
        return r;
      });
}

const Registrar kReg({"svi.cavi_equivalence", "one SVI step with |S| = N and rho = 1 equals one batch CAVI step (LDA, GMM)",
                      "Hoffman et al. 2013, Sec. 2.4, eq. (10); systems.md A.2, A.5 1", "[R]", run, CostHint{}, {protocols::kSviGmm}});

}}  // namespace
}  // namespace ngvi::claims
