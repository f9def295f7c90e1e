// The instance files of the worst-case search (`ngvi verify --instance FILE`, docs/cli.md): read and
// validated field by field, every error naming the file and the field. Apart from the CLI so that the
// fuzz target of fuzz/fuzz_instance.cpp reads files exactly as the command does.
#include <fmt/core.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

#include "search_claims.hpp"

namespace ngvi::claims::search {
namespace { namespace NGVI_UNITY_ID {
using nlohmann::json;

struct Reader {
  const std::string& path;
  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw std::invalid_argument("instance file '" + path + "': field '" + field + "' " + what);
  }
  const json& need(const json& j, const std::string& field, const std::string& prefix = "") const {
    if (!j.contains(field)) fail(prefix + field, "is missing");
    return j.at(field);
  }
  double finite(const json& v, const std::string& field) const {
    if (!v.is_number()) fail(field, "must be a number");
    const double x = v.get<double>();
    if (!std::isfinite(x)) fail(field, "must be finite");
    return x;
  }
  long integer(const json& v, const std::string& field, long lo, long hi) const {
    if (!v.is_number_integer()) fail(field, "must be an integer");
    if (v.is_number_unsigned() && v.get<unsigned long long>() > static_cast<unsigned long long>(hi))
      fail(field, fmt::format("must be in [{}, {}]", lo, hi));
    const long long x = v.get<long long>();
    if (x < lo || x > hi) fail(field, fmt::format("must be in [{}, {}] (got {})", lo, hi, x));
    return static_cast<long>(x);
  }
  std::uint64_t seed(const json& v, const std::string& field) const {
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<long long>() >= 0))
      fail(field, "must be an integer in [0, 2^64 - 1]");
    return v.get<std::uint64_t>();
  }
  std::string text(const json& v, const std::string& field) const {
    if (!v.is_string()) fail(field, "must be a string");
    return v.get<std::string>();
  }
  Mat<double> matrix(const json& v, const std::string& field, long rows, long cols) const {
    if (!v.is_array() || static_cast<long>(v.size()) != rows)
      fail(field, fmt::format("must be an array of {} rows", rows));
    Mat<double> a(rows, cols);
    for (long i = 0; i < rows; ++i) {
      const json& row = v[static_cast<std::size_t>(i)];
      if (!row.is_array() || static_cast<long>(row.size()) != cols)
        fail(field, fmt::format("row {} must be an array of {} numbers", i, cols));
      for (long k = 0; k < cols; ++k) a(i, k) = finite(row[static_cast<std::size_t>(k)], fmt::format("{}[{}][{}]", field, i, k));
    }
    return a;
  }
  Vec<double> vector(const json& v, const std::string& field, long size) const {
    if (!v.is_array() || static_cast<long>(v.size()) != size) fail(field, fmt::format("must be an array of {} numbers", size));
    Vec<double> a(size);
    for (long i = 0; i < size; ++i) a(i) = finite(v[static_cast<std::size_t>(i)], fmt::format("{}[{}]", field, i));
    return a;
  }
};

const std::set<std::string> kFields = {"schema_version", "claim", "n", "d", "M", "T", "noise_var", "schedule", "seed",
                                       "sigma2_source", "X", "y", "prior_cov", "prior_mean", "generator", "expected"};
const std::set<std::string> kGeneratorFields = {"n", "d", "seed", "kappa", "noise_sd", "x_scale", "y_scale", "prior_kappa",
                                                "prior_scale"};

}}  // namespace

SearchInstance read_instance_file(const std::string& path, double* expected_tightness) {
  using nlohmann::json;
  const NGVI_UNITY_ID::Reader r{path};
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("instance file '" + path + "' cannot be opened");
  json j;
  try {
    in >> j;
  } catch (const std::exception& e) {
    throw std::invalid_argument("instance file '" + path + "' is not valid JSON: " + std::string(e.what()));
  }
  if (!j.is_object()) throw std::invalid_argument("instance file '" + path + "' must hold a JSON object");
  for (const auto& [k, v] : j.items())
    if (NGVI_UNITY_ID::kFields.count(k) == 0) r.fail(k, "is not a field of the instance format (docs/cli.md)");
  const long version = r.integer(r.need(j, "schema_version"), "schema_version", 0, 1L << 30);
  if (version != claims::search::kInstanceSchema)
    r.fail("schema_version", fmt::format("is {}; this ngvi reads version {}", version, claims::search::kInstanceSchema));
  SearchInstance s;
  s.claim = r.text(r.need(j, "claim"), "claim");
  if (claims::search::find_searched_claim(s.claim) == nullptr)
    r.fail("claim", "must be one of " + claims::search::searched_claim_names() + " (got '" + s.claim + "')");
  s.claim = claims::search::find_searched_claim(s.claim)->name;
  const long n = r.integer(r.need(j, "n"), "n", 2, 100000);
  const long d = r.integer(r.need(j, "d"), "d", 1, 64);
  s.blr.batch = r.integer(r.need(j, "M"), "M", 1, 1L << 20);
  s.steps = r.integer(r.need(j, "T"), "T", 1, 1L << 24);
  s.blr.noise_var = r.finite(r.need(j, "noise_var"), "noise_var");
  if (!(s.blr.noise_var > 0)) r.fail("noise_var", "must be > 0 (s_e^2)");
  s.schedule = r.text(r.need(j, "schedule"), "schedule");
  s.seed = r.seed(r.need(j, "seed"), "seed");
  if (j.contains("sigma2_source")) s.sigma2_source = r.text(j["sigma2_source"], "sigma2_source");
  if (j.contains("generator")) {
    const json& g = j["generator"];
    if (!g.is_object()) r.fail("generator", "must be an object");
    for (const auto& [k, v] : g.items())
      if (NGVI_UNITY_ID::kGeneratorFields.count(k) == 0) r.fail("generator." + k, "is not a field of the generator");
    Generator gen;
    gen.n = r.integer(r.need(g, "n", "generator."), "generator.n", 2, 100000);
    gen.d = r.integer(r.need(g, "d", "generator."), "generator.d", 1, 64);
    if (gen.n != n) r.fail("generator.n", fmt::format("must equal n = {}", n));
    if (gen.d != d) r.fail("generator.d", fmt::format("must equal d = {}", d));
    gen.seed = r.seed(r.need(g, "seed", "generator."), "generator.seed");
    gen.kappa = r.finite(r.need(g, "kappa", "generator."), "generator.kappa");
    gen.noise_sd = r.finite(r.need(g, "noise_sd", "generator."), "generator.noise_sd");
    gen.x_scale = r.finite(r.need(g, "x_scale", "generator."), "generator.x_scale");
    gen.y_scale = r.finite(r.need(g, "y_scale", "generator."), "generator.y_scale");
    gen.prior_kappa = r.finite(r.need(g, "prior_kappa", "generator."), "generator.prior_kappa");
    gen.prior_scale = r.finite(r.need(g, "prior_scale", "generator."), "generator.prior_scale");
    try {
      s.blr = claims::search::instance_from(gen, s.blr.noise_var, s.blr.batch, "");
    } catch (const std::exception& e) {
      // instance_from names the field as "instance field 'generator.x' ..."
      throw std::invalid_argument("instance file '" + path + "': " + std::string(e.what()).substr(std::string("instance ").size()));
    }
    s.generator = gen;
  } else if (!j.contains("X") || !j.contains("y") || !j.contains("prior_cov")) {
    r.fail(!j.contains("X") ? "X" : !j.contains("y") ? "y" : "prior_cov", "is missing (give X, y and prior_cov, or a generator)");
  }
  // Explicit X, y, prior_cov take precedence over the generator's (the file's exact numbers).
  if (j.contains("X")) s.blr.data.X = r.matrix(j["X"], "X", n, d);
  if (j.contains("y")) s.blr.data.y = r.vector(j["y"], "y", n);
  if (j.contains("prior_cov")) s.blr.prior_cov = r.matrix(j["prior_cov"], "prior_cov", d, d);
  s.prior_mean = j.contains("prior_mean") ? r.vector(j["prior_mean"], "prior_mean", d) : Vec<double>::Zero(d);
  if (j.contains("expected")) {
    const json& e = j["expected"];
    if (!e.is_object() || !e.contains("tightness")) r.fail("expected", "must be an object with a number 'tightness'");
    const double t = r.finite(e["tightness"], "expected.tightness");
    if (expected_tightness != nullptr) *expected_tightness = t;
  }
  try {
    claims::search::check_instance(*claims::search::find_searched_claim(s.claim), s);
  } catch (const std::invalid_argument& e) {
    // check_instance says "instance field 'F' ...".
    throw std::invalid_argument("instance file '" + path + "': " + std::string(e.what()).substr(std::string("instance ").size()));
  }
  s.blr.name = "instance:" + std::filesystem::path(path).filename().string();
  return s;
}

}  // namespace ngvi::claims::search
