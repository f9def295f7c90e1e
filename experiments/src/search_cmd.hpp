#pragma once
// ngvi verify --search CLAIM / --instance FILE: the worst-case search over Bayesian-linear-regression
// instances and the re-run of an instance file (docs/cli.md "Worst-case search").
#include <cstdint>
#include <string>
#include <vector>

#include "ngvi/report/record.hpp"
#include "search_claims.hpp"

namespace ngvi::cli {

struct SearchCliOptions {
  std::string claim;             ///< --search
  std::string out = "report";    ///< --out DIR: DIR/search/<claim>.json and <claim>.instance.json
  long budget = 200;             ///< --search-budget
  long restarts = 0;             ///< --search-restarts (0: half the budget)
  std::string shard;             ///< --shard I/N: only the I-th of N parts of the restarts ("" for all)
  std::uint64_t seed = 20240601;
  std::string sigma2 = "lemma3"; ///< --sigma2-source (thm1)
};

/// Runs the search, writes the worst instance and the summary JSON, prints the one-line summary.
/// Exit status 0 if the worst instance found still satisfies the claim (tightness <= 1 + allowance), 1
/// if it breaks it (a finding).
int run_search_command(const SearchCliOptions& o);

/// `ngvi merge` of the N restart parts of one sharded search (`--search CLAIM --shard I/N`): checks they
/// are the N shards of one search, runs its refinement from their scores and writes into `out`
/// what the one-process search writes (DIR/search/<stem>.json and .instance.json). Exit status as
/// run_search_command. Throws UsageError naming the part for parts that are not the shards of one search.
int run_search_merge(const std::vector<std::string>& parts, const std::string& out);

/// The "kind" of a restart part of a sharded search (`ngvi merge` tells the parts apart by it).
inline constexpr const char* kSearchPartKind = "search-restarts";

/// Reads and validates an instance file; throws UsageError naming the file and the field.
claims::search::SearchInstance read_instance_file(const std::string& path, double* expected_tightness = nullptr);

/// Re-runs the instance file's claim on it: one claim record; `summary` gets the tightness line.
std::vector<report::ClaimRecord> run_instance_command(const std::string& path, std::string* summary);

}  // namespace ngvi::cli
