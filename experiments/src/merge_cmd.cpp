// `ngvi merge PART...`: joins the N shards of one sharded run (docs/cli.md) into what the one-process
// run with the same seed writes.
// - claims.json (`ngvi verify --shard I/N`): the records in the selection's order, value for value, the
//   replicates per rank summed (a claim's records depend on its own context only: seed, mode,
//   precisions, the implementation under test);
// - mutants.json (`--mutants ... --shard I/N`): the kill matrix of the whole selection
//   (report::join_kill_matrices);
// - a search's restart parts (`--search CLAIM --shard I/N`): the refinement runs here from the joined
//   scores (search_cmd.hpp, run_search_merge).
// It refuses parts of different kinds, parts that are not shards, shards of different runs (seed,
// mode, precisions, claim selection, commit, compiler, implementation, N), a shard given twice or
// missing, and a part whose claims are not its shard of the selection (recomputed with
// claims::Registry::shard) or whose records are not of its claims.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "cli_common.hpp"
#include "search_cmd.hpp"
#include "ngvi/claims/registry.hpp"
#include "ngvi/report/compare.hpp"
#include "ngvi/report/junit.hpp"
#include "ngvi/report/kill_matrix.hpp"
#include "ngvi/report/provenance.hpp"
#include "ngvi/report/record.hpp"

namespace ngvi::cli {
namespace { namespace NGVI_UNITY_ID {

struct MergeOptions {
  std::vector<std::string> parts;
  std::string json;
  std::string junit;
  std::string out;  ///< the parts of a search: the directory the merged search writes into (DIR/search/...)
};

struct Part {
  std::string path;
  report::RunMeta meta;
  std::vector<report::ClaimRecord> records;
  int index = 0, count = 0;
};

// What differs between two parts' runs, in words ({} when they are shards of one run): the fields a
// baseline must share (report::meta_differences), and the commit, the compiler and N.
std::vector<std::string> run_differences(const Part& a, const Part& b) {
  auto d = report::meta_differences(a.meta, b.meta, {"first part", "this part"});
  if (a.meta.commit != b.meta.commit) d.push_back(fmt::format("commit {} vs {}", a.meta.commit, b.meta.commit));
  if (a.meta.compiler != b.meta.compiler) d.push_back(fmt::format("compiler {} vs {}", a.meta.compiler, b.meta.compiler));
  if (a.count != b.count) d.push_back(fmt::format("shard count N = {} vs {}", a.count, b.count));
  return d;
}

// What a part is: the claims.json of a shard of the suite, the mutants.json of a shard of a kill
// matrix, or the restart scores of a shard of a search (by its top-level fields).
enum class PartKind { kClaims, kKillMatrix, kSearch };

PartKind kind_of(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError("'" + path + "' cannot be opened");
  const auto j = nlohmann::json::parse(in, nullptr, false);
  if (!j.is_object()) return PartKind::kClaims;  // its reader says what is wrong with it
  if (j.contains("kind") && j["kind"] == kSearchPartKind) return PartKind::kSearch;
  return j.contains("mutants") && !j.contains("records") ? PartKind::kKillMatrix : PartKind::kClaims;
}

// Parts of the suite and of a kill matrix: parsed shard, checked to be the N shards of one run (the
// same seed, mode, precisions, selection, commit, compiler, implementation and N; every shard once)
// whose claims are each its shard of the selection as this kit splits it. Returns the selection.
std::vector<const claims::ClaimInfo*> check_shards(std::vector<Part>& parts) {
  for (auto& p : parts) {
    if (p.meta.shard.empty())
      throw UsageError("'" + p.path + "' is not a shard (its meta has no shard: write the parts with ngvi verify --shard I/N)");
    try {
      std::tie(p.index, p.count) = claims::Registry::parse_shard(p.meta.shard);
    } catch (const std::invalid_argument& e) {
      throw UsageError("'" + p.path + "' has a malformed shard: " + e.what());
    }
  }
  const Part& first = parts.front();
  std::map<int, const Part*> by_index;
  for (const auto& p : parts) {
    const auto d = run_differences(first, p);
    if (!d.empty()) {
      std::string what;
      for (const auto& x : d) what += (what.empty() ? "" : "; ") + x;
      throw UsageError("'" + p.path + "' is not a shard of the run of '" + first.path + "': " + what);
    }
    if (const auto it = by_index.find(p.index); it != by_index.end())
      throw UsageError("shard " + p.meta.shard + " given twice ('" + it->second->path + "' and '" + p.path + "')");
    by_index[p.index] = &p;
  }
  std::string missing;
  for (int i = 1; i <= first.count; ++i)
    if (!by_index.count(i)) missing += (missing.empty() ? "" : ", ") + std::to_string(i) + "/" + std::to_string(first.count);
  if (!missing.empty()) throw UsageError("shard(s) " + missing + " missing");
  const auto& reg = claims::Registry::instance();
  std::vector<const claims::ClaimInfo*> whole;
  try {
    whole = reg.select(first.meta.claims);
  } catch (const std::invalid_argument& e) {
    throw UsageError("'" + first.path + "': its claim selection " + e.what() + " in this kit");
  }
  for (const auto& p : parts) {
    std::vector<std::string> want;
    for (const auto* c : claims::Registry::shard(whole, p.index, p.count, p.meta.mode == "full")) want.push_back(c->id);
    if (want != p.meta.shard_claims)
      throw UsageError("'" + p.path + "': its claims are not shard " + p.meta.shard + " of the selection '" + first.meta.claims +
                       "' as this kit splits it");
  }
  return whole;
}

// ngvi merge of the shards of a kill matrix (ngvi verify --mutants ... --shard I/N).
int merge_kill_matrices(const MergeOptions& o) {
  if (o.json.empty()) throw UsageError("--json OUT is required (the merged mutants.json)");
  if (!o.junit.empty()) throw UsageError("--junit does not apply to the shards of a kill matrix");
  if (!o.out.empty()) throw UsageError("--out applies to the parts of a search; the shards of a kill matrix merge into --json OUT");
  std::vector<Part> parts;
  std::vector<report::KillMatrix> matrices;
  for (const auto& path : o.parts) {
    try {
      matrices.push_back(report::read_kill_matrix_json(path));
    } catch (const std::exception& e) {
      throw UsageError(e.what());
    }
    Part p;
    p.path = path;
    p.meta = matrices.back().meta;
    if (!p.meta.shard.empty() && p.meta.shard_claims != matrices.back().claims)
      throw UsageError("'" + path + "': its claims are not those its shard names");
    parts.push_back(std::move(p));
  }
  const auto whole = check_shards(parts);
  // Every part against the same mutants (join_kill_matrices checks it too; here the error names the file).
  auto names = [](const report::KillMatrix& m) {
    std::vector<std::string> v;
    for (const auto& mu : m.mutants) v.push_back(mu.name);
    return v;
  };
  auto named = [](const std::vector<std::string>& v) {
    return v.size() <= 4 ? fmt::format("{} mutant(s): {}", v.size(), fmt::join(v, ",")) : fmt::format("{} mutants", v.size());
  };
  const auto first_names = names(matrices.front());
  for (std::size_t p = 1; p < parts.size(); ++p)
    if (const auto these = names(matrices[p]); these != first_names)
      throw UsageError(fmt::format("'{}' is not a shard of the kill matrix of '{}': it ran {}, that one {}", parts[p].path, parts[0].path,
                                   named(these), named(first_names)));
  std::vector<std::string> ids;
  for (const auto* c : whole) ids.push_back(c->id);
  report::KillMatrix m;
  try {
    m = report::join_kill_matrices(matrices, ids);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("the shards of '") + parts.front().path + "' do not join: " + e.what());
  }
  for (const auto& p : parts)
    if (!p.meta.started.empty() && p.meta.started < m.meta.started) m.meta.started = p.meta.started;
  m.meta.command = command_line();
  check_writable(o.json, "--json");
  report::write_kill_matrix_json(o.json, m);
  fmt::print("merged {} shard(s) of the kill matrix of '{}' ({} claim(s), {} mutant(s)) into {}: {} killed, {} equivalent, {} survived "
             "or falsely marked equivalent; library run: {} record(s), {} failure(s) -> {}\n",
             parts.front().count, m.meta.claims, m.claims.size(), m.mutants.size(), o.json, m.killed(), m.equivalent(), m.gaps(),
             m.library.records, m.library.failures, m.pass() ? "PASS" : "FAIL");
  return m.pass() ? 0 : 1;
}

int run_merge(const MergeOptions& o) {
  std::vector<PartKind> kinds;
  for (const auto& path : o.parts) kinds.push_back(kind_of(path));
  for (std::size_t i = 1; i < kinds.size(); ++i)
    if (kinds[i] != kinds[0])
      throw UsageError("'" + o.parts[i] + "' is not the same kind of part as '" + o.parts[0] +
                       "' (the shards of a claim run, of a kill matrix or of a search merge separately)");
  if (kinds[0] == PartKind::kSearch) {
    if (!o.json.empty() || !o.junit.empty())
      throw UsageError(std::string(o.json.empty() ? "--junit" : "--json") + " does not apply to the parts of a search: it writes into --out DIR");
    return run_search_merge(o.parts, o.out);
  }
  if (kinds[0] == PartKind::kKillMatrix) return merge_kill_matrices(o);
  if (o.json.empty()) throw UsageError("--json OUT is required (the merged claims.json)");
  if (!o.out.empty()) throw UsageError("--out applies to the parts of a search; the shards of a claim run merge into --json OUT");
  std::vector<Part> parts;
  for (const auto& path : o.parts) {
    Part p;
    p.path = path;
    try {
      p.records = report::read_claims_json(path, &p.meta);
    } catch (const std::exception& e) {
      throw UsageError(e.what());
    }
    parts.push_back(std::move(p));
  }
  const auto whole = check_shards(parts);
  const Part& first = parts.front();
  std::map<std::string, const Part*> owner;
  for (const auto& p : parts) {
    for (const auto& id : p.meta.shard_claims) owner[id] = &p;
    for (const auto& r : p.records)
      if (std::find(p.meta.shard_claims.begin(), p.meta.shard_claims.end(), r.claim) == p.meta.shard_claims.end())
        throw UsageError("'" + p.path + "' has a record of claim '" + r.claim + "', which is not in its shard " + p.meta.shard);
  }
  // The records in the selection's order, each claim's in the order its shard wrote them.
  std::vector<report::ClaimRecord> merged;
  for (const auto* c : whole)
    for (const auto& r : owner.at(c->id)->records)
      if (r.claim == c->id) merged.push_back(r);

  report::RunMeta meta = first.meta;
  meta.shard.clear();
  meta.shard_claims.clear();
  // The earliest start, and the replicates each rank computed summed over the parts (when every part
  // ran on the same number of ranks; otherwise not known for the whole run).
  for (const auto& p : parts) {
    if (!p.meta.started.empty() && (meta.started.empty() || p.meta.started < meta.started)) meta.started = p.meta.started;
    if (&p == &first) continue;
    if (p.meta.replicates_per_rank.size() != meta.replicates_per_rank.size()) {
      meta.replicates_per_rank.clear();
    } else {
      for (std::size_t k = 0; k < meta.replicates_per_rank.size(); ++k) meta.replicates_per_rank[k] += p.meta.replicates_per_rank[k];
    }
  }
  meta.command = command_line();
  check_writable(o.json, "--json");
  if (!o.junit.empty()) check_writable(o.junit, "--junit");
  report::write_claims_json(o.json, meta, merged, report::read_claims_provenance(first.path));
  if (!o.junit.empty()) report::write_junit_records(o.junit, "ngvi verify", merged);
  const auto n = report::count_records(merged);
  const int status = n.failures > 0 ? 1 : (n.pass() ? 0 : 3);
  fmt::print("merged {} shard(s) of '{}' ({} claim(s), {} record(s)) into {}: {}/{} claim records hold, {}/{} negative controls broken, "
             "{} vacuous, {} skipped, {} error(s) -> {}\n",
             first.count, first.meta.claims, whole.size(), merged.size(), o.json, n.claims_hold, n.claims, n.controls_broken, n.controls,
             n.vacuous, n.skipped, n.errors, status == 0 ? "PASS" : status == 1 ? "FAIL" : "NOTHING CHECKED");
  return status;
}

}}  // namespace

void add_merge(CLI::App& app, int* status) {
  auto o = std::make_shared<NGVI_UNITY_ID::MergeOptions>();
  auto* sub = app.add_subcommand("merge", "Join the N shards of a sharded run (ngvi verify --shard I/N: claims.json, a kill matrix's "
                                 "mutants.json, or a search's restart parts) into the one-process run's output");
  sub->add_option("PART", o->parts, "The N shards' files (claims.json, mutants.json or a search's .part-I-of-N.json), in any order")
      ->required();
  sub->add_option("--json", o->json, "The merged claims.json or mutants.json to write (required for the shards of a claim run or of a kill matrix)");
  sub->add_option("--out", o->out, "The parts of a search (ngvi verify --search CLAIM --shard I/N): the directory the refined search "
                  "writes into, DIR/search/CLAIM.json and CLAIM.instance.json (required for them)");
  sub->add_option("--junit", o->junit, "Also write JUnit XML, one test case per record (default: none)");
  sub->callback([o, status] { *status = NGVI_UNITY_ID::run_merge(*o); });
}

}  // namespace ngvi::cli
