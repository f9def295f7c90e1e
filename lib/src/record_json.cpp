#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "ngvi/report/provenance.hpp"
#include "ngvi/report/record.hpp"
#include "json_io.hpp"
#include "provenance_json.hpp"

namespace ngvi::report {

std::string to_string(Kind k) { return k == Kind::kClaim ? "claim" : "control"; }
std::string to_string(Verdict v) {
  switch (v) {
    case Verdict::kHolds: return "holds";
    case Verdict::kBroken: return "broken";
    case Verdict::kVacuous: return "vacuous";
    case Verdict::kSkipped: return "skipped";
    case Verdict::kError: return "error";
  }
  return "error";
}

std::string to_string(Form f) {
  switch (f) {
    case Form::kIdentity: return "identity";
    case Form::kDifference: return "difference";
    case Form::kInequality: break;
  }
  return "inequality";
}

Verdict verdict_from_string(const std::string& text) {
  for (Verdict v : {Verdict::kHolds, Verdict::kBroken, Verdict::kVacuous, Verdict::kSkipped, Verdict::kError})
    if (to_string(v) == text) return v;
  throw std::invalid_argument("verdict '" + text + "' is none of holds, broken, vacuous, skipped, error");
}

namespace {

// JSON has no NaN or infinity: such values are written as strings so they are never lost silently.
nlohmann::json number_or_text(double x) {
  if (std::isfinite(x)) return x;
  if (std::isnan(x)) return "nan";
  return x > 0 ? "inf" : "-inf";
}

double number_from(const nlohmann::json& j) {
  if (j.is_number()) return j.get<double>();
  if (j.is_string()) {
    const auto s = j.get<std::string>();
    if (s == "nan") return std::nan("");
    if (s == "inf") return INFINITY;
    if (s == "-inf") return -INFINITY;
  }
  throw std::runtime_error("expected a number");
}

}  // namespace

void write_claims_json(const std::string& path, const RunMeta& meta, const std::vector<ClaimRecord>& records) {
  write_claims_json(path, meta, records, Provenance{});
}

void write_claims_json(const std::string& path, const RunMeta& meta, const std::vector<ClaimRecord>& records,
                       const Provenance& provenance) {
  nlohmann::json j;
  j["meta"] = {{"commit", meta.commit},         {"compiler", meta.compiler}, {"seed", meta.seed},
               {"precisions", meta.precisions}, {"started", meta.started},   {"mode", meta.mode},
               {"command", meta.command},       {"threads", meta.threads},   {"variant", meta.variant},
               {"claims", meta.claims}};
  if (!provenance.kit_version.empty()) j["meta"]["provenance"] = detail::provenance_to_json(provenance);
  j["meta"]["ranks"] = meta.ranks;
  j["meta"]["replicates_per_rank"] = meta.replicates_per_rank;
  j["meta"]["implementation"] = meta.implementation;
  j["meta"]["implementation_version"] = meta.implementation_version;
  j["meta"]["protocol"] = meta.protocol;
  j["meta"]["protocol_version"] = meta.protocol_version;
  if (!meta.shard.empty()) j["meta"]["shard"] = {{"shard", meta.shard}, {"claims", meta.shard_claims}};
  auto& arr = j["records"] = nlohmann::json::array();
  for (const auto& r : records) {
    arr.push_back({{"claim", r.claim},
                   {"instance", r.instance},
                   {"precision", r.precision},
                   {"kind", to_string(r.kind)},
                   {"form", to_string(r.form)},
                   {"lhs", number_or_text(r.lhs)},
                   {"rhs", number_or_text(r.rhs)},
                   {"margin", number_or_text(r.margin)},
                   // null where undefined (identities, rhs <= 0): absent, not "nan", by design.
                   {"tightness", std::isfinite(r.tightness) ? nlohmann::json(r.tightness) : nlohmann::json(nullptr)},
                   {"resolution", std::isfinite(r.resolution) ? nlohmann::json(r.resolution) : nlohmann::json(nullptr)},
                   {"verdict", to_string(r.verdict)},
                   {"seconds", r.seconds},
                   {"unit", r.unit},
                   {"level", std::isfinite(r.level) ? nlohmann::json(r.level) : nlohmann::json(nullptr)},
                   // controls only: "injected" (the checker perturbs a computed value) or "rerun" (the
                   // library run under a violated hypothesis); null for claim records.
                   {"control_route", r.kind == Kind::kControl ? nlohmann::json(r.injected ? "injected" : "rerun") : nlohmann::json(nullptr)},
                   {"note", r.note}});
  }
  detail::write_json_file(path, j);
}

std::vector<ClaimRecord> read_claims_json(const std::string& path, RunMeta* meta) {
  const nlohmann::json j = detail::read_json_file(path);
  if (!j.is_object() || !j.contains("records") || !j["records"].is_array())
    throw std::runtime_error("'" + path + "' has no \"records\" array");
  std::vector<ClaimRecord> out;
  std::size_t i = 0;
  for (const auto& e : j["records"]) {
    try {
      ClaimRecord r;
      r.claim = e.at("claim").get<std::string>();
      r.instance = e.at("instance").get<std::string>();
      r.precision = e.at("precision").get<std::string>();
      r.kind = e.at("kind").get<std::string>() == "control" ? Kind::kControl : Kind::kClaim;
      r.lhs = number_from(e.at("lhs"));
      r.rhs = number_from(e.at("rhs"));
      r.margin = number_from(e.at("margin"));
      r.verdict = verdict_from_string(e.at("verdict").get<std::string>());
      r.seconds = e.value("seconds", 0.0);
      r.unit = e.value("unit", std::string());
      // null or absent (files written before levels existed): a deterministic record.
      if (e.contains("level") && e.at("level").is_number()) r.level = e.at("level").get<double>();
      // Files written before "form" existed: identities were exactly the records in eps.
      if (e.contains("form")) {
        const auto f = e.at("form").get<std::string>();
        if (f == "identity") r.form = Form::kIdentity;
        else if (f == "difference") r.form = Form::kDifference;
        else if (f == "inequality") r.form = Form::kInequality;
        else throw std::runtime_error("form '" + f + "' is none of inequality, identity, difference");
      } else {
        r.form = r.unit == "eps" ? Form::kIdentity : Form::kInequality;
      }
      // A difference's resolution is an input of the verdict rule (null or absent: undefined).
      if (e.contains("resolution") && e.at("resolution").is_number()) r.resolution = e.at("resolution").get<double>();
      // Absent (files written before it existed) or null: not known to be injected.
      if (e.contains("control_route") && e.at("control_route").is_string()) {
        const auto route = e.at("control_route").get<std::string>();
        if (route != "injected" && route != "rerun") throw std::runtime_error("control_route '" + route + "' is neither injected nor rerun");
        r.injected = route == "injected";
      }
      // Tightness and verdict are recomputed from the numbers by the current rule (a skipped record
      // stays skipped), so files written by older versions are judged alike: a NaN margin stored as
      // "broken" is an error, a record far inside its bound is vacuous.
      apply_verdict_rule(r);
      r.note = e.value("note", std::string());
      out.push_back(std::move(r));
    } catch (const std::exception& ex) {
      throw std::runtime_error("'" + path + "' record " + std::to_string(i) + " is malformed: " + ex.what());
    }
    ++i;
  }
  if (meta && j.contains("meta")) {
    try {
      const auto& m = j.at("meta");
      meta->commit = m.value("commit", std::string());
      meta->compiler = m.value("compiler", std::string());
      meta->seed = detail::integer_field(m, "seed", 0ULL);
      meta->started = m.value("started", std::string());
      meta->mode = m.value("mode", std::string());
      meta->command = m.value("command", std::string());
      meta->threads = detail::integer_field(m, "threads", 0);
      meta->variant = m.value("variant", std::string());
      meta->claims = m.value("claims", std::string());
      meta->ranks = detail::integer_field(m, "ranks", 1);
      // Files written before the implementation was recorded ran the library's algorithm or a variant.
      meta->implementation = m.value("implementation", meta->variant);
      meta->implementation_version = m.value("implementation_version", std::string());
      meta->protocol = m.value("protocol", std::string());
      meta->protocol_version = detail::integer_field(m, "protocol_version", 0);
      if (m.contains("replicates_per_rank")) {
        if (!m["replicates_per_rank"].is_array()) throw std::runtime_error("field 'replicates_per_rank' must be an array");
        for (const auto& v : m["replicates_per_rank"]) meta->replicates_per_rank.push_back(detail::integer_value<long>(v, "replicates_per_rank"));
      }
      if (m.contains("precisions")) meta->precisions = m["precisions"].get<std::vector<std::string>>();
      if (m.contains("shard")) {
        meta->shard = m["shard"].at("shard").get<std::string>();
        meta->shard_claims = m["shard"].at("claims").get<std::vector<std::string>>();
      }
    } catch (const std::exception& ex) {
      throw std::runtime_error("'" + path + "' has a malformed \"meta\" object: " + ex.what());
    }
  }
  return out;
}

Provenance read_claims_provenance(const std::string& path) {
  const nlohmann::json j = detail::read_json_file(path);
  try {
    if (j.is_object() && j.contains("meta") && j["meta"].is_object() && j["meta"].contains("provenance"))
      return detail::provenance_from_json(j["meta"]["provenance"]);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error("'" + path + "' has a malformed \"meta.provenance\" object: " + e.what());
  }
  return {};
}

std::string describe_implementation(const RunMeta& meta) {
  if (meta.implementation.empty()) return "the library's algorithm";
  if (meta.protocol.empty()) return "variant '" + meta.implementation + "'";
  std::string s = "implementation '" + meta.implementation + "'";
  if (!meta.implementation_version.empty()) s += " " + meta.implementation_version;
  return s + " (" + meta.protocol + " v" + std::to_string(meta.protocol_version) + ")";
}

std::string compiler_id() {
#if defined(__clang__)
  return std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  return std::string("g++ ") + __VERSION__;
#else
  return "unknown";
#endif
}

}  // namespace ngvi::report
