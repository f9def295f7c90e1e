#pragma once
// Reading and writing whole JSON files with errors that name the file (internal to ngvi_core).
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

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

/// @throws std::runtime_error naming the path if it cannot be written.
inline void write_json_file(const std::string& path, const nlohmann::json& j) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write '" + path + "'");
  out << j.dump(2) << '\n';
  if (!out) throw std::runtime_error("error while writing '" + path + "'");
}

}  // namespace ngvi::report::detail
