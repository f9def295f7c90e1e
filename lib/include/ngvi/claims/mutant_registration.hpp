#pragma once
/// @file
/// Registration of a related system's mutants in the kit's variant registry, so that
/// `ngvi verify --mutants all` puts them in the kill matrix beside the NGD mutants. Each is a variant
/// with empty NGD parts (the NGD claims run the library's algorithm under it); the system's own
/// claims read the variant's name and run their update under test with the matching mutation.
#include <utility>

#include "ngvi/optim/variant.hpp"

namespace ngvi::claims {

/// Adds one mutant variant per element of `mutants` (anything with `name` and `description`
/// members), of the system `system` (a kPartSystem* bit, which its claims read through
/// system_mutant); returns true, for use in a namespace-scope initialiser.
template <class Range>
bool register_system_mutants(const Range& mutants, std::uint32_t system) {
  auto& reg = VariantRegistry::instance();
  for (const auto& m : mutants) {
    Variant v;
    v.name = m.name;
    v.description = m.description;
    v.mutant = true;
    v.system = system;
    reg.add(std::move(v));
  }
  return true;
}

}  // namespace ngvi::claims
