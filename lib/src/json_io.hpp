#pragma once
// Reading and writing whole JSON files with errors that name the file (internal to ngvi_core).
#include <cstdint>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace ngvi::report::detail {

/// @throws std::runtime_error naming the path if it cannot be opened or is not valid JSON.
inline nlohmann::json read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open '" + path + "'");
  nlohmann::json j;
  try {
    in >> j;
  } catch (const std::exception& e) {
    throw std::runtime_error("'" + path + "' is not valid JSON: " + e.what());
  }
  return j;
}

/// The integer `v` as a T: a JSON integer within T's range. nlohmann's get<T>() converts a
/// floating-point number (1e21) or an integer beyond T's range with a plain cast, undefined behaviour
/// that the claims.json fuzz target found; this throws std::runtime_error naming `what` instead.
template <class T>
T integer_value(const nlohmann::json& v, const std::string& what) {
  static_assert(std::is_integral_v<T>);
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u <= static_cast<std::uint64_t>(std::numeric_limits<T>::max())) return static_cast<T>(u);
  } else if (v.is_number_integer()) {
    const auto i = v.get<std::int64_t>();
    if (std::is_signed_v<T> ? (i >= static_cast<std::int64_t>(std::numeric_limits<T>::min()) &&
                               i <= static_cast<std::int64_t>(std::numeric_limits<T>::max()))
                            : i >= 0)
      return static_cast<T>(i);
  } else {
    throw std::runtime_error("field '" + what + "' must be an integer (got " + v.dump() + ")");
  }
  throw std::runtime_error("field '" + what + "' = " + v.dump() + " is out of range");
}

/// `j[key]` as an integer T (integer_value), or `fallback` when `j` has no `key`.
template <class T>
T integer_field(const nlohmann::json& j, const std::string& key, T fallback) {
  return j.contains(key) ? integer_value<T>(j.at(key), key) : fallback;
}

/// @throws std::runtime_error naming the path if it cannot be written.
inline void write_json_file(const std::string& path, const nlohmann::json& j) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write '" + path + "'");
  out << j.dump(2) << '\n';
  if (!out) throw std::runtime_error("error while writing '" + path + "'");
}

}  // namespace ngvi::report::detail
