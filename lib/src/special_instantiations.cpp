// ψ, ψ' and log Γ of a double (special/gamma_functions.hpp), compiled once for every in-tree target
// so that each translation unit gets the same bits whatever its optimisation level.
#include "ngvi/special/gamma_functions.hpp"

namespace ngvi::special {

double digamma_double(double x) { return boost::math::digamma(x, NoPromoteDouble()); }
double trigamma_double(double x) { return boost::math::trigamma(x, NoPromoteDouble()); }
double lgamma_double(double x) { return boost::math::lgamma(x, NoPromoteDouble()); }

}  // namespace ngvi::special
