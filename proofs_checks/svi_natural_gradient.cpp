// DESCRIPTION
// Claim svi.natural_gradient (Hoffman et al. 2013, eqs. (13)-(14); docs/systems.md A.2; tag [R]): with
// the local parameters φ fixed at the E-step's, the natural gradient of the minibatch ELBO (minibatch
// replicated N/|S| times) in the Dirichlet parameters λ is λ̂ − λ. Reference: the ELBO's λ-dependent
// part written here, f(λ) = Σ (η + (N/|S|) s − λ) E log β(λ) + Σ_k [Σ_w lnΓ(λ_kw) − lnΓ(Σ_w λ_kw)], its
// gradient by central differences in mp100 (h = 1e−30), premultiplied by the inverse Fisher of each
// Dir(λ_k), diag ψ'(λ_kw) − ψ'(Σλ_k) 11ᵀ, solved by LU in mp100. Budget: the kit's subtraction λ̂ − λ,
// γ_4 times the cancellation factor (‖λ̂‖ + ‖λ‖)/‖λ̂ − λ‖.
// Negative control: the Fisher taken at (1 + δ)λ instead of λ, δ = 2⁻⁴⁶ (double) and 2⁻¹⁶¹ (mp50),
// about 7× the smallest δ that breaks the budget (budget/σ, σ ≈ 1.4 the relative sensitivity).
#include "svi_claims.hpp"

namespace ngvi::claims {
namespace { namespace NGVI_UNITY_ID {

std::vector<ClaimRecord> run(const RunContext& ctx) { return run_precisions(ctx, [](const RunContext& c) { return natural_gradient<double>(c, mutation_for<double>(c)); }, [](const RunContext& c) { return natural_gradient<mp50>(c, mutation_for<mp50>(c)); }); }

const Registrar kReg({"svi.natural_gradient", "lambda-hat - lambda equals the natural gradient of the minibatch ELBO in lambda (Fisher^-1 times an mp100 finite-difference gradient)", "Hoffman et al. 2013, eqs. (13)-(14); systems.md A.2", "[R]", run,
                      CostHint{0.38, 0.8}});

}}  // namespace
}  // namespace ngvi::claims
