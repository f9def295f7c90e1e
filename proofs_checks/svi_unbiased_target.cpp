// DESCRIPTION
// Claim svi.unbiased_target (Hoffman et al. 2013, §2.4; docs/systems.md A.2, A.5 1; tag [R]): for a
// partition of the N documents into B minibatches of equal size N/B, the mean over the partition of
// λ̂_b = η + (N/|S_b|) sstats(S_b) equals the full-batch target η + sstats(all) at the same λ, exactly
// (the E-step of a document does not depend on its minibatch). Reference: the full-batch target,
// the same routine on all documents (the identity is about the replication factor and the partition).
// Budget: Higham's γ_{D+B+4} (reassociation of non-negative sums and two scalings), relative.
// Negative control: one document moved between minibatches (sizes 4, 2, 3, 3): the plain mean of the
// λ̂'s is then biased. The violation is discrete (moving one of the 12 documents is the smallest
// unequal partition); its margin, error/budget ≈ 1e13, is printed in the note.
#include "svi_claims.hpp"

namespace ngvi::claims {
namespace { namespace NGVI_UNITY_ID {

std::vector<ClaimRecord> run(const RunContext& ctx) { return run_precisions(ctx, [](const RunContext& c) { return unbiased_target<double>(c, mutation_for<double>(c)); }, [](const RunContext& c) { return unbiased_target<mp50>(c, mutation_for<mp50>(c)); }); }

const Registrar kReg({"svi.unbiased_target", "the mean of lambda-hat over a partition into equal minibatches equals the full-batch CAVI target", "Hoffman et al. 2013, Sec. 2.4 (N/|S| replication); systems.md A.2, A.5 1", "[R]", run});

}}  // namespace
}  // namespace ngvi::claims
