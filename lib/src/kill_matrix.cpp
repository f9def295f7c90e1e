#include "ngvi/report/kill_matrix.hpp"

#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <tuple>

#include "json_io.hpp"

namespace ngvi::report {

namespace {

using Key = std::tuple<std::string, std::string, std::string, int>;
Key key_of(const ClaimRecord& r) { return {r.claim, r.instance, r.precision, static_cast<int>(r.kind)}; }

bool is_failure(const ClaimRecord& r) { return outcome(r) == Outcome::kFail; }

}  // namespace

std::string MutantOutcome::status() const {
  if (equivalent.empty()) return killed() ? "killed" : "survived";
  return killed() ? "equivalent-killed" : "equivalent";
}

std::string MutantOutcome::cell(const std::string& claim) const {
  long kills = 0, flipped = 0;
  for (const auto& f : flips)
    if (f.claim == claim) {
      ++flipped;
      kills += f.kills;
    }
  return kills > 0 ? std::to_string(kills) : flipped > 0 ? std::string("~") : std::string(".");
}

long KillMatrix::killed() const {
  long k = 0;
  for (const auto& m : mutants) k += m.killed();
  return k;
}
long KillMatrix::equivalent() const {
  long k = 0;
  for (const auto& m : mutants) k += !m.equivalent.empty();
  return k;
}
long KillMatrix::gaps() const {
  long k = 0;
  for (const auto& m : mutants) k += m.gap();
  return k;
}

std::vector<RecordFlip> record_flips(const std::vector<ClaimRecord>& library, const std::vector<ClaimRecord>& mutant) {
  std::map<Key, const ClaimRecord*> by_key;
  for (const auto& r : mutant) by_key.emplace(key_of(r), &r);
  std::vector<RecordFlip> out;
  std::map<Key, bool> seen;
  for (const auto& r : library) {
    const Key k = key_of(r);
    seen[k] = true;
    const auto it = by_key.find(k);
    RecordFlip f{r.claim, r.instance, r.precision, r.kind, to_string(r.verdict), "missing", false};
    if (it == by_key.end()) {
      // A record the mutant's run did not produce: the suite shows it only against a baseline.
      out.push_back(f);
      continue;
    }
    if (it->second->verdict == r.verdict) continue;
    f.mutant = to_string(it->second->verdict);
    f.kills = is_failure(*it->second) && !is_failure(r);
    out.push_back(f);
  }
  for (const auto& r : mutant) {
    if (seen.count(key_of(r)) != 0) continue;
    out.push_back({r.claim, r.instance, r.precision, r.kind, "missing", to_string(r.verdict), is_failure(r)});
  }
  return out;
}

void write_kill_matrix_json(const std::string& path, const KillMatrix& m) {
  nlohmann::json j;
  j["meta"] = {{"commit", m.meta.commit}, {"compiler", m.meta.compiler}, {"seed", m.meta.seed},
               {"precisions", m.meta.precisions}, {"started", m.meta.started}, {"mode", m.meta.mode},
               {"command", m.meta.command}, {"threads", m.meta.threads}, {"claims", m.meta.claims}};
  j["library"] = {{"records", m.library.records}, {"claims", m.library.claims}, {"claims_hold", m.library.claims_hold},
                  {"controls", m.library.controls}, {"controls_broken", m.library.controls_broken},
                  {"vacuous", m.library.vacuous}, {"skipped", m.library.skipped}, {"errors", m.library.errors},
                  {"failures", m.library.failures}};
  j["claims"] = m.claims;
  j["not_rerun"] = m.not_rerun;
  j["reads"] = m.reads;
  j["summary"] = {{"mutants", m.mutants.size()}, {"killed", m.killed()}, {"equivalent", m.equivalent()}, {"gaps", m.gaps()},
                  {"pass", m.pass()}};
  auto& arr = j["mutants"] = nlohmann::json::array();
  for (const auto& mu : m.mutants) {
    nlohmann::json flips = nlohmann::json::array();
    for (const auto& f : mu.flips)
      flips.push_back({{"claim", f.claim}, {"instance", f.instance}, {"precision", f.precision}, {"kind", to_string(f.kind)},
                       {"library", f.library}, {"mutant", f.mutant}, {"kills", f.kills}});
    arr.push_back({{"name", mu.name}, {"description", mu.description}, {"equivalent", mu.equivalent}, {"replaces", mu.replaces},
                   {"status", mu.status()}, {"records", mu.records}, {"seconds", mu.seconds}, {"not_rerun", mu.not_rerun},
                   {"flips", flips}});
  }
  detail::write_json_file(path, j);
}

KillMatrix read_kill_matrix_json(const std::string& path) {
  const nlohmann::json j = detail::read_json_file(path);
  if (!j.is_object() || !j.contains("mutants") || !j["mutants"].is_array())
    throw std::runtime_error("'" + path + "' has no \"mutants\" array");
  KillMatrix m;
  try {
    if (j.contains("meta")) {
      const auto& me = j.at("meta");
      m.meta.commit = me.value("commit", std::string());
      m.meta.seed = me.value("seed", 0ULL);
      m.meta.mode = me.value("mode", std::string());
      m.meta.command = me.value("command", std::string());
      m.meta.claims = me.value("claims", std::string());
      if (me.contains("precisions")) m.meta.precisions = me["precisions"].get<std::vector<std::string>>();
    }
    if (j.contains("library")) {
      const auto& l = j.at("library");
      m.library.records = l.value("records", 0L);
      m.library.claims = l.value("claims", 0L);
      m.library.claims_hold = l.value("claims_hold", 0L);
      m.library.controls = l.value("controls", 0L);
      m.library.controls_broken = l.value("controls_broken", 0L);
      m.library.vacuous = l.value("vacuous", 0L);
      m.library.skipped = l.value("skipped", 0L);
      m.library.errors = l.value("errors", 0L);
      m.library.failures = l.value("failures", 0L);
    }
    if (j.contains("claims")) m.claims = j["claims"].get<std::vector<std::string>>();
    if (j.contains("not_rerun")) m.not_rerun = j["not_rerun"].get<std::vector<std::string>>();
    if (j.contains("reads")) m.reads = j["reads"].get<std::vector<std::string>>();
    for (const auto& e : j["mutants"]) {
      MutantOutcome mu;
      mu.name = e.at("name").get<std::string>();
      mu.description = e.value("description", std::string());
      mu.equivalent = e.value("equivalent", std::string());
      mu.records = e.value("records", 0L);
      mu.seconds = e.value("seconds", 0.0);
      mu.replaces = e.value("replaces", std::string());
      if (e.contains("not_rerun")) mu.not_rerun = e["not_rerun"].get<std::vector<std::string>>();
      for (const auto& f : e.at("flips")) {
        RecordFlip r;
        r.claim = f.at("claim").get<std::string>();
        r.instance = f.at("instance").get<std::string>();
        r.precision = f.at("precision").get<std::string>();
        r.kind = f.at("kind").get<std::string>() == "control" ? Kind::kControl : Kind::kClaim;
        r.library = f.at("library").get<std::string>();
        r.mutant = f.at("mutant").get<std::string>();
        r.kills = f.at("kills").get<bool>();
        mu.flips.push_back(std::move(r));
      }
      m.mutants.push_back(std::move(mu));
    }
  } catch (const std::exception& ex) {
    throw std::runtime_error("'" + path + "' is malformed: " + ex.what());
  }
  return m;
}

}  // namespace ngvi::report
