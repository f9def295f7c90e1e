// DESCRIPTION
// The mutants of Paquet's update (optim/steppers/paquet_svb.hpp, paquet_mutants(): the factor N_i/C
// dropped; option (b) reading values updated earlier in the sweep, i.e. secretly option (a); Var_q[v]
// left out of the precision term; the co-parent sum including k' = k) registered in the kit's variant
// registry, so that `ngvi verify --mutants all` puts them in the kill matrix beside the NGD and VPNG
// mutants. Their NGD parts are empty (the NGD claims run the library's algorithm under them); the
// paquet.* claims read the variant's name and run the update under test with the mutant
// (paquet_common.hpp, mutant_of).
#include "paquet_common.hpp"
#include "ngvi/claims/mutant_registration.hpp"

namespace ngvi::claims::paquet {
namespace { namespace NGVI_UNITY_ID {

[[maybe_unused]] const bool kRegistered = register_system_mutants(paquet_mutants(), kPartSystemPaquet);

}}  // namespace
}  // namespace ngvi::claims::paquet
