// DESCRIPTION
// The mutants of SVI (models/lda.hpp, svi_mutants()) registered in the kit's variant registry, so
// that `ngvi verify --mutants all` puts them in the kill matrix beside the NGD, Paquet and VPNG
// mutants. Their NGD parts are empty (the NGD claims run the library's algorithm under them); the
// svi.*, lda.* and gmm.* claims read the variant's name and run their bodies with the matching
// SviMutation (svi_common.hpp, mutation_for).
#include "svi_common.hpp"
#include "ngvi/claims/mutant_registration.hpp"

namespace ngvi::claims {
namespace { namespace NGVI_UNITY_ID {

[[maybe_unused]] const bool kRegistered = register_system_mutants(lda::svi_mutants(), kPartSystemSvi);

}}  // namespace
}  // namespace ngvi::claims
