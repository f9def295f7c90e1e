// ngvi report DIR: writes DIR/index.html from DIR/claims.json, DIR/mutants.json (the kill matrix) and DIR/runs/*/ (see
// ngvi/report/html_report.hpp), and prints the summary and the fitted slopes.
#include <fmt/core.h>

#include <memory>

#include "cli_common.hpp"
#include "experiment.hpp"
#include "ngvi/report/html_report.hpp"
#include "ngvi/claims/registry.hpp"

namespace ngvi::cli {
namespace { namespace NGVI_UNITY_ID {

struct ReportCmdOptions {
  std::string dir;
  std::string gnuplot = "gnuplot";
  bool quiet = false;
};

int run_report(const ReportCmdOptions& o) {
  report::ReportOptions ro;
  ro.dir = o.dir;
  ro.gnuplot = o.gnuplot;
  ro.generator = "ngvi report (commit " + git_commit() + ", " + utc_now() + ")";
  for (const auto& c : claims::Registry::instance().claims()) ro.claims[c.id] = {c.statement, c.source, c.tag};
  const auto res = report::write_report(ro);
  for (const auto& w : res.warnings) fmt::print(stderr, "ngvi report: warning: {}\n", w);
  if (!o.quiet) {
    for (const auto& s : res.slopes) {
      if (!s.ok) continue;
      fmt::print("slope {}/{} {}: {:.3f} (SE {:.3f}, 95% CI [{:.3f}, {:.3f}]) on {} in [{:g}, {:g}], {} points", s.run,
                 s.plot, s.series, s.fit.slope, s.fit.std_error, s.fit.ci_low, s.fit.ci_high, s.x, s.fit.x_from,
                 s.fit.x_to, s.fit.points);
      if (s.have_across_seeds)
        fmt::print("; per-seed mean {:.3f}, 95% CI [{:.3f}, {:.3f}] over {} seeds", s.across_seeds.mean,
                   s.across_seeds.ci_low, s.across_seeds.ci_high, s.across_seeds.count);
      fmt::print("\n");
    }
    if (res.have_claims)
      fmt::print("claims: {}/{} claim records hold, {}/{} negative controls broken ({} injected by the checker), {} vacuous "
                 "(not evidence), {} skipped, {} error(s) -> {}\n",
                 res.claims_hold, res.claims_total, res.controls_broken, res.controls_total, res.controls_injected, res.vacuous,
                 res.skipped, res.errors, res.claims_pass() ? "PASS" : "FAIL");
    if (res.have_mutants)
      fmt::print("mutants: {} killed of {}, {} gap(s) (survivors not marked equivalent) -> {}\n", res.mutants_killed, res.mutants,
                 res.mutant_gaps, res.mutant_gaps == 0 ? "PASS" : "FAIL");
    if (res.searches > 0)
      fmt::print("worst-case searches: {}, {} above their bound (findings)\n", res.searches, res.search_findings);
    fmt::print("wrote {} ({} run(s), {} figure(s){})\n", res.index_path, res.runs, res.figures,
               res.gnuplot_ok ? "" : "; figures missing: " + res.gnuplot_problem);
  }
  return 0;
}

}}  // namespace

void add_report(CLI::App& app, int* status) {
  auto o = std::make_shared<NGVI_UNITY_ID::ReportCmdOptions>();
  auto* sub = app.add_subcommand(
      "report", "Write DIR/index.html (self-contained) from DIR/claims.json and the runs in DIR/runs/, with plots");
  sub->add_option("DIR", o->dir, "Directory holding claims.json and/or runs/ (from ngvi verify --json, ngvi run --out)")
      ->required()
      ->check(non_empty_path());
  sub->add_option("--gnuplot", o->gnuplot, "gnuplot executable (a name on PATH or a path); without it the report says "
                                           "the figures are missing")
      ->capture_default_str();
  sub->add_flag("--quiet", o->quiet, "Print nothing on success (default: off)");
  sub->callback([o, status] { *status = NGVI_UNITY_ID::run_report(*o); });
}

}  // namespace ngvi::cli
