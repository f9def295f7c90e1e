#pragma once
// JSON form of ngvi::report::Provenance (internal to the compiled library).
#include <nlohmann/json.hpp>

#include "ngvi/report/provenance.hpp"

namespace ngvi::report::detail {

nlohmann::json provenance_to_json(const Provenance& p);
/// @throws nlohmann::json::exception on a mistyped field.
Provenance provenance_from_json(const nlohmann::json& j);

}  // namespace ngvi::report::detail
