#include "ngvi/report/provenance.hpp"

#include <gmp.h>
#include <mpfr.h>
#include <openssl/opensslv.h>
#include <openssl/crypto.h>
#include <zlib.h>

#include <Eigen/Core>
#include <algorithm>
#include <boost/version.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "ngvi/data/file_digest.hpp"
#include "json_io.hpp"
#include "provenance_json.hpp"

namespace ngvi::report {

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const auto b = line.find_first_not_of(" \t", colon + 1);
    return b == std::string::npos ? "unknown" : line.substr(b);
  }
  return "unknown";
}

std::vector<std::pair<std::string, std::string>> library_versions() {
  const std::string eigen = std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
                            std::to_string(EIGEN_MINOR_VERSION);
  const std::string boost = std::to_string(BOOST_VERSION / 100000) + "." + std::to_string(BOOST_VERSION / 100 % 1000) + "." +
                            std::to_string(BOOST_VERSION % 100);
  return {{"Eigen", eigen},
          {"Boost", boost},
          {"MPFR", mpfr_get_version()},
          {"GMP", gmp_version},
          {"zlib", zlibVersion()},
          {"OpenSSL", OpenSSL_version(OPENSSL_VERSION)}};
}

std::vector<DataFileDigest> digest_files(const std::vector<std::string>& paths, const std::vector<std::string>& read_by) {
  std::vector<DataFileDigest> out;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    auto it = std::find_if(out.begin(), out.end(), [&](const DataFileDigest& d) { return d.path == paths[i]; });
    if (it == out.end()) {
      DataFileDigest d;
      d.path = paths[i];
      d.sha256 = data::file_sha256(paths[i], &d.bytes);
      out.push_back(std::move(d));
      it = out.end() - 1;
    }
    if (i < read_by.size() && !read_by[i].empty() &&
        std::find(it->read_by.begin(), it->read_by.end(), read_by[i]) == it->read_by.end())
      it->read_by.push_back(read_by[i]);
  }
  return out;
}

namespace detail {

nlohmann::json provenance_to_json(const Provenance& p) {
  nlohmann::json libs = nlohmann::json::object();
  for (const auto& [name, version] : p.libraries) libs[name] = version;
  nlohmann::json files = nlohmann::json::array();
  for (const auto& f : p.data_files)
    files.push_back({{"path", f.path}, {"sha256", f.sha256}, {"bytes", f.bytes}, {"read_by", f.read_by}});
  return {{"kit_version", p.kit_version}, {"commit", p.commit},     {"dirty", p.dirty},
          {"build_type", p.build_type},   {"compiler", p.compiler}, {"cxx_flags", p.cxx_flags},
          {"cpu_model", p.cpu_model},     {"libraries", libs},      {"started", p.started},
          {"finished", p.finished},       {"data_files", files}};
}

Provenance provenance_from_json(const nlohmann::json& j) {
  Provenance p;
  p.kit_version = j.value("kit_version", std::string());
  p.commit = j.value("commit", std::string());
  p.dirty = j.value("dirty", false);
  p.build_type = j.value("build_type", std::string());
  p.compiler = j.value("compiler", std::string());
  p.cxx_flags = j.value("cxx_flags", std::string());
  p.cpu_model = j.value("cpu_model", std::string());
  if (j.contains("libraries"))
    for (const auto& [name, version] : j.at("libraries").items()) p.libraries.emplace_back(name, version.get<std::string>());
  p.started = j.value("started", std::string());
  p.finished = j.value("finished", std::string());
  if (j.contains("data_files"))
    for (const auto& f : j.at("data_files")) {
      DataFileDigest d;
      d.path = f.value("path", std::string());
      d.sha256 = f.value("sha256", std::string());
      d.bytes = detail::integer_field(f, "bytes", 0ULL);
      if (f.contains("read_by")) d.read_by = f.at("read_by").get<std::vector<std::string>>();
      p.data_files.push_back(std::move(d));
    }
  return p;
}

}  // namespace detail
}  // namespace ngvi::report
