// `ngvi merge PART... --json OUT`: joins the claims.json files of the N shards of one sharded run
// (`ngvi verify --shard I/N`, docs/cli.md) into the claims.json the one-process run with the same seed
// writes: its records in the selection's order, value for value, the replicates per rank summed (a claim's records depend on its own
// context only: seed, mode, precisions, the implementation under test). It refuses parts that are
// not shards, shards of different runs (seed, mode, precisions, claim selection, commit, compiler,
// implementation, N), a shard given twice or missing, and a part whose claims are not its shard of the
// selection (recomputed with claims::Registry::shard) or whose records are not of its claims.
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "cli_common.hpp"
#include "ngvi/claims/registry.hpp"
#include "ngvi/report/compare.hpp"
#include "ngvi/report/junit.hpp"
#include "ngvi/report/provenance.hpp"
#include "ngvi/report/record.hpp"

namespace ngvi::cli {
namespace { namespace NGVI_UNITY_ID {

struct MergeOptions {
  std::vector<std::string> parts;
  std::string json;
  std::string junit;
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

int run_merge(const MergeOptions& o) {
  if (o.json.empty()) throw UsageError("--json OUT is required (the merged claims.json)");
  std::vector<Part> parts;
  for (const auto& path : o.parts) {
    Part p;
    p.path = path;
    try {
      p.records = report::read_claims_json(path, &p.meta);
    } catch (const std::exception& e) {
      throw UsageError(e.what());
    }
    if (p.meta.shard.empty()) throw UsageError("'" + path + "' is not a shard (its meta has no shard: write the parts with ngvi verify --shard I/N)");
    try {
      std::tie(p.index, p.count) = claims::Registry::parse_shard(p.meta.shard);
    } catch (const std::invalid_argument& e) {
      throw UsageError("'" + path + "' has a malformed shard: " + e.what());
    }
    parts.push_back(std::move(p));
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

  // Each part's claims must be its shard of the selection, as this kit computes it.
  const auto& reg = claims::Registry::instance();
  std::vector<const claims::ClaimInfo*> whole;
  try {
    whole = reg.select(first.meta.claims);
  } catch (const std::invalid_argument& e) {
    throw UsageError("'" + first.path + "': its claim selection " + e.what() + " in this kit");
  }
  std::map<std::string, const Part*> owner;
  for (const auto& [i, p] : by_index) {
    std::vector<std::string> want;
    for (const auto* c : claims::Registry::shard(whole, i, p->count, p->meta.mode == "full")) want.push_back(c->id);
    if (want != p->meta.shard_claims)
      throw UsageError("'" + p->path + "': its claims are not shard " + p->meta.shard + " of the selection '" + first.meta.claims +
                       "' as this kit splits it");
    for (const auto& id : want) owner[id] = p;
    for (const auto& r : p->records)
      if (std::find(want.begin(), want.end(), r.claim) == want.end())
        throw UsageError("'" + p->path + "' has a record of claim '" + r.claim + "', which is not in its shard " + p->meta.shard);
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
  auto* sub = app.add_subcommand("merge", "Join the claims.json files of the N shards of a sharded run (ngvi verify --shard I/N) into one");
  sub->add_option("PART", o->parts, "The N shards' claims.json files, in any order")->required();
  sub->add_option("--json", o->json, "The merged claims.json to write (required)");
  sub->add_option("--junit", o->junit, "Also write JUnit XML, one test case per record (default: none)");
  sub->callback([o, status] { *status = NGVI_UNITY_ID::run_merge(*o); });
}

}  // namespace ngvi::cli
