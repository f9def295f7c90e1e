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
  std::uint64_t seed = 20240601;
  std::string sigma2 = "lemma3"; ///< --sigma2-source (thm1)
};

/// Runs the search, writes the worst instance and the summary JSON, prints the one-line summary.
/// Exit status 0 if the worst instance found still satisfies the claim (tightness <= 1 + allowance), 1
/// if it breaks it (a finding).
int run_search_command(const SearchCliOptions& o);

/// Reads and validates an instance file; throws UsageError naming the file and the field.
claims::search::SearchInstance read_instance_file(const std::string& path, double* expected_tightness = nullptr);

/// Re-runs the instance file's claim on it: one claim record; `summary` gets the tightness line.
std::vector<report::ClaimRecord> run_instance_command(const std::string& path, std::string* summary);

}  // namespace ngvi::cli
