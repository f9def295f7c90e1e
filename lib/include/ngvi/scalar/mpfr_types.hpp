#pragma once
/// @file
/// MPFR-backed 50-digit floating point and MPFI-backed 50-digit intervals. Both use fixed precision
/// (`mpfr_float_backend<50, allocate_stack>`, `mpfi_float_backend<50>`) and expression templates off.
/// `mpfr50` keeps its digits inside the object (`allocate_stack`): no value or temporary touches
/// the heap, which saves the allocation per value and temporary of MPFR's default (bench/README.md
/// has the measurements).
/// Link libmpfr, libmpfi and libgmp (done by `ngvi::ngvi`). Kept apart from `types.hpp` because each of these types
/// costs seconds and hundreds of MB to compile: instantiate each in its own translation unit.
#include <boost/multiprecision/mpfi.hpp>
#include <boost/multiprecision/mpfr.hpp>

#include "ngvi/scalar/types.hpp"

namespace ngvi {

using mpfr50 = boost::multiprecision::number<
    boost::multiprecision::mpfr_float_backend<50, boost::multiprecision::allocate_stack>, boost::multiprecision::et_off>;
using mpfi50 = boost::multiprecision::number<boost::multiprecision::mpfi_float_backend<50>,
                                             boost::multiprecision::et_off>;

}  // namespace ngvi
