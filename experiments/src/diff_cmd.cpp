// ngvi diff OLD.json NEW.json: the baseline comparison of `ngvi verify --baseline` between two saved
// runs, as a table on the terminal, an HTML page (--html) and JUnit XML (--junit).
#include "diff_cmd.hpp"

#include <fmt/core.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "ngvi/report/junit.hpp"
#include "ngvi/report/record.hpp"

namespace ngvi::cli {

void print_changes(const report::Comparison& c) {
  for (const auto& rc : c.rows) {
    const std::string key = rc.claim + " " + rc.instance + " " + rc.precision;
    switch (rc.change) {
      case report::Change::kRegression:
      case report::Change::kMissing: fmt::print(stderr, "REGRESSION {}: {}\n", key, rc.what); break;
      case report::Change::kImprovement: fmt::print("IMPROVEMENT {}: {}\n", key, rc.what); break;
      case report::Change::kNew: fmt::print("NEW {}: {}\n", key, rc.what); break;
      case report::Change::kUnchanged:  // neither better nor worse, but worth a line (e.g. vacuous -> holds by a larger lhs)
        if (!rc.what.empty()) fmt::print("CHANGED {}: {}\n", key, rc.what);
        break;
    }
  }
  std::fflush(stdout);
}

namespace { namespace NGVI_UNITY_ID {

struct DiffOptions {
  std::string old_path, new_path;
  std::string html, junit;
  std::vector<std::string> margin_tolerances;
  bool allow_meta_mismatch = false;
};

std::string num(double x) {
  if (std::isnan(x)) return "-";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return fmt::format("{:.3g}", x);
}

std::string pair(long a, long b) { return a == b ? std::to_string(a) : fmt::format("{}->{}", a, b); }
std::string pair(double a, double b) {
  const std::string x = num(a), y = num(b);
  return x == y ? x : x + "->" + y;
}

int run_diff(const DiffOptions& o) {
  report::MarginTolerance tol;
  for (const auto& t : o.margin_tolerances) {
    try {
      report::parse_margin_tolerance(t, &tol);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  report::RunMeta old_meta, new_meta;
  const auto old_recs = report::read_claims_json(o.old_path, &old_meta);
  const auto new_recs = report::read_claims_json(o.new_path, &new_meta);
  fmt::print("{}: {}; {}: {}\n", o.old_path, report::describe_implementation(old_meta), o.new_path,
             report::describe_implementation(new_meta));
  std::fflush(stdout);  // before any warning on stderr
  const auto diffs = report::meta_differences(old_meta, new_meta);
  std::string joined;
  for (const auto& d : diffs) joined += (joined.empty() ? "" : "; ") + d;
  if (!diffs.empty() && !o.allow_meta_mismatch)
    throw UsageError("'" + o.old_path + "' and '" + o.new_path + "' are not comparable: " + joined +
                     " (pass --allow-meta-mismatch to compare anyway)");
  if (!diffs.empty()) fmt::print(stderr, "ngvi diff: warning: comparing despite {}\n", joined);

  const auto cmp = report::compare_runs(old_recs, new_recs, new_meta, tol);
  fmt::print("{:<30} {:>9} {:>9} {:>9} {:>9} {:>9} {:>17} {:>17} {:>5} {:>5} {:>5}\n", "claim", "records", "evidence",
             "failing", "vacuous", "skipped", "min rel. margin", "max tightness", "regr", "impr", "new");
  for (const auto& s : report::summarize_by_claim(cmp))
    fmt::print("{:<30} {:>9} {:>9} {:>9} {:>9} {:>9} {:>17} {:>17} {:>5} {:>5} {:>5}\n", s.claim,
               pair(s.old_records, s.new_records), pair(s.old_pass, s.new_pass), pair(s.old_fail, s.new_fail),
               pair(s.old_vacuous, s.new_vacuous), pair(s.old_skipped, s.new_skipped),
               pair(s.old_min_rel_margin, s.new_min_rel_margin), pair(s.old_max_tightness, s.new_max_tightness),
               s.regressions, s.improvements, s.added);
  print_changes(cmp);
  if (!o.html.empty()) {
    report::write_diff_html(o.html, cmp, o.old_path, old_meta, o.new_path, new_meta, diffs);
    fmt::print("wrote {}\n", o.html);
  }
  if (!o.junit.empty()) {
    report::write_junit_comparison(o.junit, "ngvi diff", cmp);
    fmt::print("wrote {}\n", o.junit);
  }
  const auto n = report::count_records(new_recs);
  // Nothing in common is its own outcome (exit 3), checked first: the missing records it implies are not regressions.
  int status = cmp.nothing_compared() ? 3 : (cmp.regressed() || n.failures > 0) ? 1 : 0;
  fmt::print("diff {} -> {}: {} compared, {} regression(s) ({} missing), {} improvement(s), {} new, {} failing in the new "
             "run -> {}\n",
             o.old_path, o.new_path, cmp.compared, cmp.regressions, cmp.missing, cmp.improvements, cmp.added, n.failures,
             status == 0 ? "PASS" : status == 3 ? "NOTHING COMPARED" : "FAIL");
  std::fflush(stdout);
  if (status == 3) fmt::print(stderr, "ngvi diff: nothing compared: no (claim, instance, precision) is in both files\n");
  return status;
}

}}  // namespace

void add_diff(CLI::App& app, int* status) {
  auto o = std::make_shared<NGVI_UNITY_ID::DiffOptions>();
  auto* sub = app.add_subcommand("diff", "Compare two claims.json files (baseline OLD, candidate NEW) record by record");
  sub->add_option("OLD", o->old_path, "The baseline claims.json")->required();
  sub->add_option("NEW", o->new_path, "The new claims.json")->required();
  sub->add_option("--html", o->html, "Also write the comparison as an HTML page to this file (default: none)");
  sub->add_option("--junit", o->junit, "Write JUnit XML, one test case per record (default: none)");
  sub->add_option("--margin-tolerance", o->margin_tolerances,
                  "A claim margin may shrink by this fraction of its baseline magnitude; F for every unit or UNIT=F "
                  "for one (eps=F, plain=F), repeatable (default: 0.5)")
      ->allow_extra_args(false);
  sub->add_flag("--allow-meta-mismatch", o->allow_meta_mismatch,
                "Compare even if seed, mode, precisions, claim selection or the implementation under test differ, "
                "naming the differences "
                "(default: refuse, exit 2)");
  sub->callback([o, status] { *status = NGVI_UNITY_ID::run_diff(*o); });
}

}  // namespace ngvi::cli
