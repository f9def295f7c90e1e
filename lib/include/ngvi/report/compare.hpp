#pragma once
/// @file
/// Comparison of two claim runs (a baseline and a new run), used by `ngvi verify --baseline` and
/// `ngvi diff`. Records are matched by (claim, instance, precision). Per matched record:
/// - a regression: a record of evidence (claim holds / control broken) that now fails, turned
///   vacuous or skipped; a vacuous or skipped record that now fails; a changed kind or unit; a
///   claim record that still holds but whose margin shrank by more than the tolerance of its unit
///   (a fraction of the baseline margin's magnitude);
/// - an improvement: a record that was not evidence (failed, vacuous, skipped) and now is, or one
///   that failed and now no longer fails; except a vacuous claim inequality that holds now because
///   its measured side grew more than its bound came down (a worse algorithm makes a bound look
///   tight): that row is a neutral change, listed with its reason and counted neither way.
/// A baseline record in scope (its claim matched by the new run's selection, its precision among
/// the new run's precisions or those of its records) that the new run lacks is a regression ("missing"); a new record
/// without a baseline counterpart is listed as new. Implemented in lib/src/compare.cpp.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ngvi/report/record.hpp"

namespace ngvi::report {

/// Margin-shrinkage tolerances by unit: a claim margin m (baseline m₀, both holding) regresses when
/// m < m₀ − f·|m₀|, with f = per_unit[unit] if the unit is listed, else default_fraction.
struct MarginTolerance {
  double default_fraction = 0.5;
  std::map<std::string, double> per_unit;  ///< unit name ("eps", "" for plain values, ...) -> fraction
  double for_unit(const std::string& unit) const;
};

/// Parses a --margin-tolerance value: "F" (every unit) or "UNIT=F" ("plain=F" names the empty unit),
/// F in [0, 1], into `tol`.
/// @throws std::invalid_argument naming the text and the violated condition.
void parse_margin_tolerance(const std::string& text, MarginTolerance* tol);

enum class Change { kUnchanged, kRegression, kImprovement, kNew, kMissing };
std::string to_string(Change c);

struct RecordChange {
  std::string claim, instance, precision;
  bool has_old = false, has_new = false;
  ClaimRecord old_record, new_record;  ///< valid when has_old / has_new
  Change change = Change::kUnchanged;
  std::string what;  ///< one line: what changed ("verdict holds -> broken", "margin shrank 3 -> 1 (...)")
};

struct Comparison {
  std::vector<RecordChange> rows;  ///< every record of either run in scope, sorted by key
  long compared = 0;               ///< records present in both runs
  long regressions = 0, improvements = 0, added = 0, missing = 0;
  long out_of_scope = 0;           ///< baseline records outside the new run's selection or precisions
  bool nothing_compared() const { return compared == 0; }
  bool regressed() const { return regressions > 0; }
};

/// Whether `id` matches one of the comma-separated shell globs `selection` ("" matches everything).
bool selection_matches(const std::string& selection, const std::string& id);

/// The meta fields a comparison requires to agree (seed, mode, precisions, claim selection, the
/// implementation under test and its version, the protocol and its version), as
/// one phrase per difference, e.g. "seed 1 (baseline) vs 20240601 (new)". Fields that an older
/// file does not record ("" or empty) are not counted as differences.
/// `labels` name the two runs in the phrases (ngvi merge: "first part", "this part").
std::vector<std::string> meta_differences(const RunMeta& baseline, const RunMeta& now,
                                          const std::pair<const char*, const char*>& labels = {"baseline", "new"});

/// Compares `now` with `baseline` (see the file comment).
Comparison compare_runs(const std::vector<ClaimRecord>& baseline, const std::vector<ClaimRecord>& now,
                        const RunMeta& now_meta, const MarginTolerance& tol);

/// Per-claim summary of a comparison (for the diff table and page).
struct ClaimDiffSummary {
  std::string claim;
  long old_records = 0, new_records = 0;
  long old_pass = 0, new_pass = 0;          ///< records of evidence
  long old_fail = 0, new_fail = 0;
  long old_vacuous = 0, new_vacuous = 0;
  long old_skipped = 0, new_skipped = 0;
  long regressions = 0, improvements = 0, added = 0, missing = 0;
  /// Smallest claim margin relative to its rhs (margin/|rhs|, unitless) and largest tightness of a
  /// claim inequality, old and new (NaN when none).
  double old_min_rel_margin, new_min_rel_margin, old_max_tightness, new_max_tightness;
};
std::vector<ClaimDiffSummary> summarize_by_claim(const Comparison& c);

/// Writes a self-contained HTML page of the comparison: the verdict, the meta of both runs, one row
/// per claim (records, evidence, failures, vacuous and skipped counts, smallest relative margin and
/// largest tightness, old -> new), then every changed record.
/// @throws std::runtime_error naming the path if it cannot be written.
void write_diff_html(const std::string& path, const Comparison& c, const std::string& old_path, const RunMeta& old_meta,
                     const std::string& new_path, const RunMeta& new_meta, const std::vector<std::string>& meta_diffs);

}  // namespace ngvi::report
