#pragma once
/// @file
/// `ngvi report DIR`: reads DIR/claims.json and every DIR/runs/<run>/{run.json, trace.csv}, and
/// writes DIR/index.html, a self-contained page (inline CSS, figures as inline SVG, no external
/// resource) for a reader: the summary and a legend, one overview row per claim, the records that
/// are not evidence (vacuous, skipped), the experiments (headline tables, figures rendered by
/// gnuplot with one colour per series across figures, fitted log-log slopes with intervals), then
/// every record in a collapsible block per claim, and the provenance of every number. The per-figure plot
/// data go to DIR/plots/<run>--<plot>.csv (x, then the seed-averaged y of each series) next to the
/// gnuplot script and SVG. Implemented in lib/src/report_html.cpp.
#include <map>
#include <string>
#include <vector>

#include "ngvi/stats/loglog_fit.hpp"

namespace ngvi::report {

/// What the claim registry says about a claim id (shown next to its records).
struct ClaimDescription {
  std::string statement;
  std::string source;
  std::string tag;  ///< [R], [D] or [X]
};

struct ReportOptions {
  std::string dir;                 ///< directory holding claims.json and/or runs/
  std::string gnuplot = "gnuplot"; ///< gnuplot executable (a name looked up on PATH, or a path)
  std::string generator;           ///< who wrote the report, e.g. "ngvi report (commit abc)"
  std::map<std::string, ClaimDescription> claims;  ///< statements by claim id (optional)
};

/// One fitted slope: the least-squares line through the seed-averaged curve on its window, and,
/// with two or more seeds, the t-interval of the per-seed slopes.
struct SlopeResult {
  std::string run;
  std::string plot;
  std::string series;
  std::string x;
  std::string y;
  bool ok = false;
  std::string problem;               ///< why no fit was possible (when !ok)
  stats::LogLogFit<double> fit;
  bool have_across_seeds = false;
  stats::MeanInterval<double> across_seeds;
};

struct ReportResult {
  std::string index_path;
  bool have_claims = false;
  long claim_records = 0;
  long claims_hold = 0, claims_total = 0;       ///< claim records, and those that hold (evidence)
  long controls_broken = 0, controls_total = 0;
  long controls_injected = 0;                    ///< controls whose violation the checker injects
  long vacuous = 0, skipped = 0, errors = 0;     ///< records that are not evidence; non-finite records
  long failures = 0;                             ///< claims broken, controls holding, errors
  long runs = 0;
  long figures = 0;
  bool have_mutants = false;        ///< DIR/mutants.json (ngvi verify --mutants all --json) was found
  long mutants = 0, mutants_killed = 0, mutant_gaps = 0;  ///< its totals (gaps: survivors not marked equivalent)
  long searches = 0, search_findings = 0;  ///< DIR/search/CLAIM.json summaries, and those above their bound
  bool gnuplot_ok = true;
  std::string gnuplot_problem;       ///< set when gnuplot is missing or failed
  std::vector<SlopeResult> slopes;
  std::vector<std::string> warnings; ///< also shown in the report
  /// No record fails: every claim record holds (or is vacuous or skipped, which are not evidence)
  /// and every control is broken (true when there is no claims.json).
  bool claims_pass() const { return failures == 0; }
};

/// Writes DIR/index.html and DIR/plots/.
/// @throws std::runtime_error naming the file and the problem: DIR is not a directory, DIR holds
///         neither claims.json nor runs/, or claims.json, a run.json or a trace.csv is unreadable
///         or malformed. A missing or failing gnuplot is not an error: the report says so where the
///         figures would be, and ReportResult::gnuplot_problem is set.
ReportResult write_report(const ReportOptions& options);

/// Escapes &, <, >, " and ' for HTML text and attributes.
std::string html_escape(const std::string& text);

/// The number in a note of the form "... tightness <number> ..." (also "tightness=", "tightness:"),
/// or NaN when the note has none.
double tightness_from_note(const std::string& note);

}  // namespace ngvi::report
