#include "ngvi/report/kill_matrix.hpp"

#include <algorithm>
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
               {"command", m.meta.command}, {"threads", m.meta.threads}, {"claims", m.meta.claims},
               // The algorithm under test: "" for the library's; a program's (--algorithm) name, version and protocol.
               {"implementation", m.meta.implementation}, {"implementation_version", m.meta.implementation_version},
               {"protocol", m.meta.protocol}, {"protocol_version", m.meta.protocol_version}};
  if (!m.meta.shard.empty()) j["meta"]["shard"] = {{"shard", m.meta.shard}, {"claims", m.meta.shard_claims}};
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

KillMatrix join_kill_matrices(const std::vector<KillMatrix>& parts, const std::vector<std::string>& claims) {
  if (parts.empty()) throw std::invalid_argument("no part to join");
  std::map<std::string, std::pair<std::size_t, std::size_t>> where;  // claim -> (part, its index there)
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const auto& m = parts[p];
    if (m.reads.size() != m.claims.size()) throw std::invalid_argument("part " + std::to_string(p + 1) + " has reads for " +
                                                                        std::to_string(m.reads.size()) + " of its " +
                                                                        std::to_string(m.claims.size()) + " claims");
    if (m.mutants.size() != parts[0].mutants.size())
      throw std::invalid_argument("part " + std::to_string(p + 1) + " ran " + std::to_string(m.mutants.size()) + " mutant(s), part 1 ran " +
                                  std::to_string(parts[0].mutants.size()));
    for (std::size_t k = 0; k < m.mutants.size(); ++k)
      if (m.mutants[k].name != parts[0].mutants[k].name)
        throw std::invalid_argument("part " + std::to_string(p + 1) + "'s mutant " + std::to_string(k + 1) + " is '" + m.mutants[k].name +
                                    "', part 1's is '" + parts[0].mutants[k].name + "'");
    for (std::size_t i = 0; i < m.claims.size(); ++i)
      if (!where.emplace(m.claims[i], std::make_pair(p, i)).second)
        throw std::invalid_argument("claim '" + m.claims[i] + "' is in two parts");
  }
  std::map<std::string, std::size_t> order;
  for (std::size_t i = 0; i < claims.size(); ++i) {
    order[claims[i]] = i;
    if (where.count(claims[i]) == 0) throw std::invalid_argument("claim '" + claims[i] + "' is in no part");
  }
  if (where.size() != claims.size()) throw std::invalid_argument("the parts hold a claim outside the selection");
  auto in_order = [&](const std::vector<std::string>& ids) {  // ids of all parts, in the order of `claims`
    std::vector<std::string> out;
    for (const auto& c : claims)
      if (std::find(ids.begin(), ids.end(), c) != ids.end()) out.push_back(c);
    return out;
  };
  KillMatrix out;
  out.meta = parts[0].meta;
  out.meta.shard.clear();
  out.meta.shard_claims.clear();
  out.claims = claims;
  std::vector<std::string> not_rerun;
  for (const auto& c : claims) {
    const auto [p, i] = where.at(c);
    out.reads.push_back(parts[p].reads[i]);
  }
  for (const auto& m : parts) {
    not_rerun.insert(not_rerun.end(), m.not_rerun.begin(), m.not_rerun.end());
    SuiteCounts& l = out.library;
    l.records += m.library.records;
    l.claims += m.library.claims;
    l.claims_hold += m.library.claims_hold;
    l.controls += m.library.controls;
    l.controls_broken += m.library.controls_broken;
    l.vacuous += m.library.vacuous;
    l.skipped += m.library.skipped;
    l.errors += m.library.errors;
    l.failures += m.library.failures;
  }
  out.not_rerun = in_order(not_rerun);
  for (std::size_t k = 0; k < parts[0].mutants.size(); ++k) {
    MutantOutcome mu = parts[0].mutants[k];
    mu.records = 0;
    mu.seconds = 0;
    mu.flips.clear();
    std::vector<std::string> mu_not_rerun;
    for (const auto& m : parts) {
      const auto& x = m.mutants[k];
      mu.records += x.records;
      mu.seconds += x.seconds;
      mu_not_rerun.insert(mu_not_rerun.end(), x.not_rerun.begin(), x.not_rerun.end());
      mu.flips.insert(mu.flips.end(), x.flips.begin(), x.flips.end());
    }
    mu.not_rerun = in_order(mu_not_rerun);
    // record_flips' order: the library's records (by claim: a run's records follow its claims), then
    // the mutant's own; a part keeps that order within each claim.
    std::stable_sort(mu.flips.begin(), mu.flips.end(), [&](const RecordFlip& a, const RecordFlip& b) {
      const bool a_own = a.library == "missing", b_own = b.library == "missing";
      if (a_own != b_own) return !a_own;
      return order.at(a.claim) < order.at(b.claim);
    });
    out.mutants.push_back(std::move(mu));
  }
  return out;
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
      m.meta.compiler = me.value("compiler", std::string());
      m.meta.started = me.value("started", std::string());
      m.meta.threads = detail::integer_field(me, "threads", 0);
      m.meta.seed = detail::integer_field(me, "seed", 0ULL);
      m.meta.mode = me.value("mode", std::string());
      m.meta.command = me.value("command", std::string());
      m.meta.claims = me.value("claims", std::string());
      m.meta.implementation = me.value("implementation", std::string());
      m.meta.implementation_version = me.value("implementation_version", std::string());
      m.meta.protocol = me.value("protocol", std::string());
      m.meta.protocol_version = detail::integer_field(me, "protocol_version", 0);
      if (me.contains("precisions")) m.meta.precisions = me["precisions"].get<std::vector<std::string>>();
      if (me.contains("shard")) {
        m.meta.shard = me["shard"].at("shard").get<std::string>();
        m.meta.shard_claims = me["shard"].at("claims").get<std::vector<std::string>>();
      }
    }
    if (j.contains("library")) {
      const auto& l = j.at("library");
      m.library.records = detail::integer_field(l, "records", 0L);
      m.library.claims = detail::integer_field(l, "claims", 0L);
      m.library.claims_hold = detail::integer_field(l, "claims_hold", 0L);
      m.library.controls = detail::integer_field(l, "controls", 0L);
      m.library.controls_broken = detail::integer_field(l, "controls_broken", 0L);
      m.library.vacuous = detail::integer_field(l, "vacuous", 0L);
      m.library.skipped = detail::integer_field(l, "skipped", 0L);
      m.library.errors = detail::integer_field(l, "errors", 0L);
      m.library.failures = detail::integer_field(l, "failures", 0L);
    }
    if (j.contains("claims")) m.claims = j["claims"].get<std::vector<std::string>>();
    if (j.contains("not_rerun")) m.not_rerun = j["not_rerun"].get<std::vector<std::string>>();
    if (j.contains("reads")) m.reads = j["reads"].get<std::vector<std::string>>();
    for (const auto& e : j["mutants"]) {
      MutantOutcome mu;
      mu.name = e.at("name").get<std::string>();
      mu.description = e.value("description", std::string());
      mu.equivalent = e.value("equivalent", std::string());
      mu.records = detail::integer_field(e, "records", 0L);
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
