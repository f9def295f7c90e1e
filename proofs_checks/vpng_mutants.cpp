// DESCRIPTION
// The mutants of VPNG (optim/steppers/preconditioned.hpp, vpng_mutants()) registered in the kit's
// variant registry, so that `ngvi verify --mutants all` puts them in the kill matrix beside the NGD
// mutants. Their NGD parts are empty (the NGD claims run the library's algorithm under them); the
// vpng.* claims read the variant's name and apply the mutant to their VPNG configuration
// (vpng_common.hpp, config_for).
#include "vpng_common.hpp"
#include "ngvi/claims/mutant_registration.hpp"

namespace ngvi::claims::vpng {
namespace { namespace NGVI_UNITY_ID {

[[maybe_unused]] const bool kRegistered = register_system_mutants(vpng_mutants(), kPartSystemVpng);

}}  // namespace
}  // namespace ngvi::claims::vpng
