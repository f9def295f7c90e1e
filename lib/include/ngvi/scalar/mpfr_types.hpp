#pragma once
/// @file
/// MPFR-backed 50-digit floating point and MPFI-backed 50-digit intervals. Both use fixed precision
/// (`mpfr_float_backend<50>`, `mpfi_float_backend<50>`) and expression templates off. Link libmpfr,
/// libmpfi and libgmp (done by `ngvi::ngvi`). Kept apart from `types.hpp` because each of these types
/// costs seconds and hundreds of MB to compile: instantiate each in its own translation unit.
#include <boost/multiprecision/mpfi.hpp>
#include <boost/multiprecision/mpfr.hpp>

#include "ngvi/scalar/types.hpp"

namespace ngvi {

using mpfr50 = boost::multiprecision::number<boost::multiprecision::mpfr_float_backend<50>,
                                             boost::multiprecision::et_off>;
using mpfi50 = boost::multiprecision::number<boost::multiprecision::mpfi_float_backend<50>,
                                             boost::multiprecision::et_off>;

}  // namespace ngvi
