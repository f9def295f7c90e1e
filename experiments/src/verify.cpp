// ngvi verify: runs the claim registry and prints the claims table.
#include "verify.hpp"

#include <fmt/core.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <thread>
#include <tuple>

#include "cli_common.hpp"
#include "mpi_group.hpp"
#include "ngvi/parallel/replicates.hpp"
#include "ngvi/report/record.hpp"
#include "registry.hpp"

namespace ngvi::cli {
namespace {

struct VerifyOptions {
  std::string claims = "*";
  std::string precision = "all";
  bool quick = false;
  bool full = false;
  std::string json;
  std::string baseline;
  double margin_tolerance = 0.5;
  unsigned long long seed = 20240601ULL;
  int threads = 0;
  bool list = false;
};

std::string fmt_num(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return fmt::format("{:.4g}", x);
}

void print_table(const std::vector<report::ClaimRecord>& recs) {
  fmt::print("{:<28} {:<34} {:<7} {:<7} {:>11} {:>11} {:>11} {:<6} {:<7} {:>8}\n", "claim", "instance", "prec",
             "kind", "lhs", "rhs", "margin", "unit", "verdict", "seconds");
  for (const auto& r : recs) {
    fmt::print("{:<28} {:<34} {:<7} {:<7} {:>11} {:>11} {:>11} {:<6} {:<7} {:>8.3f}{}\n", r.claim, r.instance,
               r.precision, report::to_string(r.kind), fmt_num(r.lhs), fmt_num(r.rhs), fmt_num(r.margin), r.unit,
               report::to_string(r.verdict), r.seconds, report::record_passes(r) ? "" : "  <-- FAIL");
  }
}

// Compares with a baseline: a verdict that changed, or a margin that shrank by more than
// `tol` of its baseline magnitude, is a regression.
int compare_baseline(const std::vector<report::ClaimRecord>& now, const std::vector<report::ClaimRecord>& base,
                     const std::string& path, double tol) {
  using Key = std::tuple<std::string, std::string, std::string, int>;
  std::map<Key, const report::ClaimRecord*> old;
  for (const auto& r : base) old[{r.claim, r.instance, r.precision, static_cast<int>(r.kind)}] = &r;
  int regressions = 0;
  for (const auto& r : now) {
    const auto it = old.find({r.claim, r.instance, r.precision, static_cast<int>(r.kind)});
    if (it == old.end()) continue;
    const auto& b = *it->second;
    if (b.verdict != r.verdict) {
      fmt::print("REGRESSION {} {} {} {}: verdict {} -> {}\n", r.claim, r.instance, r.precision,
                 report::to_string(r.kind), report::to_string(b.verdict), report::to_string(r.verdict));
      ++regressions;
    } else if (r.kind == report::Kind::kClaim && !(r.margin >= b.margin - tol * std::fabs(b.margin))) {
      fmt::print("REGRESSION {} {} {}: margin shrank {} -> {} (tolerance {} of |baseline margin|)\n", r.claim,
                 r.instance, r.precision, fmt_num(b.margin), fmt_num(r.margin), tol);
      ++regressions;
    }
  }
  fmt::print("baseline {}: {} regression(s)\n", path, regressions);
  return regressions;
}

int run_verify(const VerifyOptions& o) {
  auto& reg = claims::Registry::instance();
  if (o.list) {
    for (const auto& c : reg.claims()) fmt::print("{:<28} {:<4} {}  ({})\n", c.id, c.tag, c.statement, c.source);
    return 0;
  }
  if (o.quick && o.full) throw UsageError("--quick and --full are exclusive");
  const auto selected = reg.match(o.claims);
  if (selected.empty()) throw UsageError("--claims '" + o.claims + "' matches no claim (see ngvi verify --list)");

  // Inputs and outputs are checked before the (possibly long) claim run, so bad input fails fast.
  std::vector<report::ClaimRecord> baseline;
  if (!o.baseline.empty()) baseline = report::read_claims_json(o.baseline);
  if (!o.json.empty()) {
    const auto parent = std::filesystem::path(o.json).parent_path();
    std::error_code ec;
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    if (ec) throw std::runtime_error("cannot create the directory of --json file '" + o.json + "': " + ec.message());
    std::ofstream probe(o.json, std::ios::app);
    if (!probe) throw std::runtime_error("cannot write --json file '" + o.json + "'");
  }

  claims::RunContext ctx;
  ctx.full = o.full;
  ctx.seed = o.seed;
  ctx.threads = o.threads > 0 ? o.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (o.precision == "all") ctx.precisions = {"double", "mp50"};
  else if (o.precision == "double" || o.precision == "mp50") ctx.precisions = {o.precision};
  else throw UsageError("--precision must be double, mp50 or all (got '" + o.precision + "')");

  report::RunMeta meta;
  meta.commit = git_commit();
  meta.compiler = report::compiler_id();
  meta.seed = o.seed;
  meta.precisions = ctx.precisions;
  meta.started = utc_now();
  meta.mode = o.full ? "full" : "quick";
  meta.command = command_line();
  meta.threads = ctx.threads;

  std::vector<report::ClaimRecord> all;
  parallel::reset_replicate_tally();
  for (const auto* c : selected) {
    auto recs = c->run(ctx);
    all.insert(all.end(), recs.begin(), recs.end());
  }
  meta.replicates_per_rank = parallel::replicates_per_rank();  // collective under MPI: every rank calls it
  meta.ranks = static_cast<int>(meta.replicates_per_rank.size());
  print_table(all);
  int claims_ok = 0, claims_n = 0, controls_ok = 0, controls_n = 0;
  for (const auto& r : all) {
    if (r.kind == report::Kind::kClaim) {
      ++claims_n;
      claims_ok += report::record_passes(r);
    } else {
      ++controls_n;
      controls_ok += report::record_passes(r);
    }
  }
  const bool pass = claims_ok == claims_n && controls_ok == controls_n;
  fmt::print("summary: {} claim(s) from {} record(s): {}/{} claim records hold, {}/{} negative controls broken -> {}\n",
             selected.size(), all.size(), claims_ok, claims_n, controls_ok, controls_n, pass ? "PASS" : "FAIL");
  if (!o.json.empty()) {
    if (is_output_rank()) report::write_claims_json(o.json, meta, all);
    fmt::print("wrote {}\n", o.json);
  }
  int status = pass ? 0 : 1;
  if (!o.baseline.empty() && compare_baseline(all, baseline, o.baseline, o.margin_tolerance) > 0) status = 1;
  return status;
}

}  // namespace

void add_verify(CLI::App& app, int* status) {
  auto opts = std::make_shared<VerifyOptions>();
  auto* sub = app.add_subcommand("verify", "Run the claim suite: every claim must hold, every negative control must be broken");
  sub->add_option("--claims", opts->claims, "Comma-separated globs of claim ids to run")->capture_default_str();
  sub->add_option("--precision", opts->precision, "double, mp50 or all")->capture_default_str();
  sub->add_flag("--quick", opts->quick, "Fast instances only (the default mode)");
  sub->add_flag("--full", opts->full, "The full instance set (default: off, i.e. quick)");
  sub->add_option("--json", opts->json, "Write the records to this claims.json file, creating its directory (default: none)");
  sub->add_option("--baseline", opts->baseline, "Compare with an earlier claims.json; exit 1 on a changed verdict or shrunk margin (default: none)");
  sub->add_option("--margin-tolerance", opts->margin_tolerance,
                  "With --baseline: a claim margin may shrink by this fraction of its baseline magnitude")
      ->capture_default_str()->check(CLI::Range(0.0, 1.0));
  sub->add_option("--seed", opts->seed, "Base random seed (also NGVI_SEED)")->envname("NGVI_SEED")->capture_default_str();
  sub->add_option("--threads", opts->threads, "Worker threads for Monte Carlo claims (0 = all cores)")
      ->capture_default_str()->check(CLI::Range(0, 4096));
  sub->add_flag("--list", opts->list, "List the registered claims and exit (default: off)");
  sub->callback([opts, status] { *status = run_verify(*opts); });
}

}  // namespace ngvi::cli
