#pragma once
/// @file
/// A claim record: one verdict of one claim on one instance in one precision (design.md, "The claim
/// registry"). `margin` is positive when the statement holds: rhs − lhs for an inequality lhs ≤ rhs,
/// budget − error for an identity. Records are written to claims.json by `write_claims_json`.
#include <string>
#include <vector>

namespace ngvi::report {

enum class Kind { kClaim, kControl };
enum class Verdict { kHolds, kBroken };

struct ClaimRecord {
  std::string claim;       ///< registry id, e.g. "lemma4.kl_bregman"
  std::string instance;    ///< instance name, e.g. "d6-cond1e8"
  std::string precision;   ///< "double", "mp50", ...
  Kind kind = Kind::kClaim;
  double lhs = 0;          ///< observed side (an error for identities)
  double rhs = 0;          ///< bound side (a budget for identities)
  double margin = 0;       ///< > 0 iff the statement holds on this instance
  Verdict verdict = Verdict::kBroken;
  double seconds = 0;
  std::string unit;        ///< unit of lhs/rhs/margin, e.g. "eps" or "" (plain value)
  std::string note;        ///< one line of context (tightness, interval, replicates, ...)
};

/// The verdict rule: holds iff the margin is positive and finite (NaN is broken).
inline Verdict verdict_from_margin(double margin) {
  return (margin > 0 && margin <= 1.7976931348623157e308) ? Verdict::kHolds : Verdict::kBroken;
}

/// A record passes the suite when a claim holds or a control is broken.
inline bool record_passes(const ClaimRecord& r) {
  return r.kind == Kind::kClaim ? r.verdict == Verdict::kHolds : r.verdict == Verdict::kBroken;
}

std::string to_string(Kind k);
std::string to_string(Verdict v);

struct RunMeta {
  std::string commit;
  std::string compiler;
  unsigned long long seed = 0;
  std::vector<std::string> precisions;
  std::string started;
  std::string mode;  ///< "quick" or "full"
  std::string command;  ///< the command line that produced the records ("" in older files)
  int threads = 0;      ///< worker threads (0 when unknown; results do not depend on it)
  int ranks = 1;        ///< processes the replicates were split across (1 without MPI)
  std::vector<long> replicates_per_rank;  ///< replicates each rank computed, in rank order ({} when unknown)
};

/// Writes {"meta": {...}, "records": [...]} to `path`.
/// @throws std::runtime_error naming the path if it cannot be written.
void write_claims_json(const std::string& path, const RunMeta& meta, const std::vector<ClaimRecord>& records);

/// Reads a claims.json written by write_claims_json.
/// @throws std::runtime_error naming the path and the problem on a missing file or malformed JSON.
std::vector<ClaimRecord> read_claims_json(const std::string& path, RunMeta* meta = nullptr);

/// Compiler name and version this library was built with.
std::string compiler_id();

}  // namespace ngvi::report
