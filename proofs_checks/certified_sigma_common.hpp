#pragma once
/// @file
/// The certified σ² of bounds/certified_sigma.hpp for the conjugate claims' instances. The interval
/// evaluation lives in lemma3_certified_sigma.cpp, the one claim translation unit compiled with
/// -frounding-math (scalar/interval.hpp); other claims call it through this declaration.
#include "ngvi/claims/blr_common.hpp"

namespace ngvi::claims {

/// The certified bound of bounds/certified_sigma.hpp on `inst` (upper end of its interval_d enclosure),
/// with the precision floor of its enclosure raised by `floor_factor` (the prior covariance passed to
/// the bound divided by it; 1: the valid bound, > 1: the lemma3.certified_sigma control).
double certified_sigma2_upper(const BlrInstance& inst, double floor_factor = 1.0);

}  // namespace ngvi::claims
