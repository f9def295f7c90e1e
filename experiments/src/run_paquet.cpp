// ngvi run paquet-mf / paquet-threshold: stochastic VB with per-node child sampling on Bayesian
// matrix factorisation (Paquet 2014; docs/systems.md B), on a user's (user, item, rating) CSV or the
// B.7 synthetic generator.
//
// paquet-mf: one run per (option, C) (Algorithm 1) or (option, C_global) (Algorithm 2), plus full VB
// (all children, rho = 1); trace rows record the ELBO per rating against the ratings accessed, and a
// run whose parameters or ELBO became non-finite is marked diverged at that sweep.
// paquet-threshold: for each C and option, the largest stable rho_1 = 2^-k (k = 0..kmax): the first k
// of the scan whose run does not diverge within --iters sweeps.
#include <fmt/core.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include "cli_common.hpp"
#include "experiment.hpp"
#include "ngvi/data/loaders.hpp"
#include "ngvi/data/ratings.hpp"
#include "ngvi/optim/schedule.hpp"
#include "ngvi/optim/steppers/paquet_svb.hpp"

namespace ngvi::cli {
namespace { namespace NGVI_UNITY_ID {

struct Params {
  std::string data;
  bool synthetic = false;
  long users = 300, items = 600;
  double density = 0.1, noise = 1.0, zipf = 0.0;
  long K = 5;
  std::string children = "1,2,5,20";
  std::string global_batch = "100,1000";
  std::string option = "both";
  int algorithm = 1;
  std::string schedule = "delay";
  double kappa = 0.6;
  double rho1 = 1.0;
  bool centre = false;
  bool full_vb = true;
  int kmax = 9;
};

Params& params() {
  static Params p;
  return p;
}

std::vector<long> parse_longs(const std::string& s, const std::string& what) {
  std::vector<long> out;
  std::stringstream ss(s);
  std::string tok;
  while (std::getline(ss, tok, ',')) {
    try {
      std::size_t pos = 0;
      const long v = std::stol(tok, &pos);
      if (pos != tok.size() || v < 0) throw std::invalid_argument(tok);
      out.push_back(v);
    } catch (const std::exception&) {
      throw UsageError(fmt::format("{} must be a comma-separated list of integers >= 0, got '{}'", what, s));
    }
  }
  if (out.empty()) throw UsageError(fmt::format("{} is empty", what));
  return out;
}

std::vector<PaquetOption> options_of(const std::string& s) {
  if (s == "a") return {PaquetOption::kSequential};
  if (s == "b") return {PaquetOption::kSimultaneous};
  if (s == "both") return {PaquetOption::kSequential, PaquetOption::kSimultaneous};
  throw UsageError("--option must be a, b or both, got '" + s + "'");
}

struct Loaded {
  RatingMatrix ratings;
  report::DatasetInfo info;
  std::string description;
};

Loaded load(const ExperimentContext& ctx) {
  const Params& p = params();
  Loaded out;
  if (!p.data.empty() && p.synthetic) throw UsageError("give either --data FILE or --synthetic, not both");
  if (!p.data.empty()) {
    auto t = data::read_ratings_csv(p.data, p.centre);
    out.ratings = std::move(t.ratings);
    out.info.name = p.data.substr(p.data.find_last_of('/') + 1);
    out.info.path = p.data;
    out.info.crc32 = data::file_crc32(p.data);
    out.info.preprocessing = p.centre ? fmt::format("ratings centred (mean {:.6g} subtracted)", t.centre) : "ratings not centred";
    out.description = fmt::format("{}: {} ratings, {} users, {} items; {}", p.data, out.ratings.size(), out.ratings.users, out.ratings.items,
                                  out.info.preprocessing);
  } else {
    data::SyntheticRatingsOptions so;
    so.users = p.users;
    so.items = p.items;
    so.density = p.density;
    so.noise = p.noise;
    so.zipf = p.zipf;
    so.rank = p.K;
    out.ratings = data::synthetic_ratings(so, ctx.options().seed);
    std::string pre = "ratings not centred";
    if (p.centre) pre = fmt::format("ratings centred (mean {:.6g} subtracted)", data::centre_ratings(out.ratings));
    out.info.name = "synthetic-b7";
    out.info.preprocessing = pre;
    out.description = fmt::format("synthetic (docs/systems.md B.7): {} users, {} items, density {}, noise {}, zipf {}, rank {}, seed {}: {} ratings; {}",
                                  p.users, p.items, p.density, p.noise, p.zipf, p.K, ctx.options().seed, out.ratings.size(), pre);
  }
  out.info.rows = out.ratings.size();
  out.info.cols = 3;
  return out;
}

StepSchedule<double> schedule_of(const Params& p, double rho1) {
  if (p.schedule == "delay") return StepSchedule<double>::polynomial(p.kappa, std::pow(rho1, -1 / p.kappa) - 1);
  if (p.schedule == "scale") return StepSchedule<double>::polynomial(p.kappa, 0, rho1);
  throw UsageError("--schedule must be delay or scale, got '" + p.schedule + "'");
}

MfNatural<double> init_of(const RatingMatrix& d, long K, std::uint64_t seed) {
  random::Stream rs(seed, 1000);
  return MfNatural<double>::init(d.users, d.items, K, [&] { return rs.normal() / 10; });
}

struct Outcome {
  bool diverged = false;
  long sweeps = 0;
  std::string why;
  long accesses = 0;  ///< ratings read up to the end (for a diverged run: up to the failed sweep)
  double last_elbo = std::numeric_limits<double>::quiet_NaN();  ///< the last finite ELBO per rating
};

/// One run; `row` is called at the recorded sweeps with (sweep, accesses, rho, elbo/rating).
template <class Row>
Outcome run_one(const RatingMatrix& d, const MfNatural<double>& q0, PaquetOptions o, const StepSchedule<double>& sched, long T,
                std::uint64_t seed, std::uint64_t stream, const std::vector<long>& record, Row&& row) {
  PaquetStepper<double> s(d, o, q0);
  PaquetSampler sampler(seed, stream);
  NoAverage avg;
  const double n = static_cast<double>(d.size());
  row(0L, 0L, 0.0, s.elbo() / n);
  std::size_t next = 0;
  const auto tr = run_trajectory(s, sampler, sched, avg, sweep_options(T), OnStep{[&](const auto& e) {
                                   while (next < record.size() && record[next] < e.t + 1) ++next;
                                   if (next < record.size() && record[next] == e.t + 1)
                                     row(e.t + 1, static_cast<long>(s.accesses()), e.gamma, s.elbo() / n);
                                 }});
  Outcome out;
  out.sweeps = tr.steps;
  out.accesses = static_cast<long>(s.accesses());
  out.last_elbo = s.elbo() / n;
  if (!tr.ok()) {
    out.diverged = true;
    out.why = tr.failure->message();
  }
  return out;
}

void run_mf(ExperimentContext& ctx) {
  const Params& p = params();
  const auto& o = ctx.options();
  if (p.algorithm != 1 && p.algorithm != 2) throw UsageError("--algorithm must be 1 or 2");
  const Loaded L = load(ctx);
  const auto opts = options_of(p.option);
  const auto sizes = parse_longs(p.algorithm == 1 ? p.children : p.global_batch, p.algorithm == 1 ? "--children" : "--global-batch");
  const long T = o.iters;
  const auto record = record_iterations(T);
  auto out = ctx.open_run("paquet-mf", {"series", "option", "size", "seed", "sweep", "accesses", "rho", "elbo_per_rating", "diverged"});
  out.set_dataset(L.info);
  ctx.say(L.description);
  const auto q0 = init_of(L.ratings, p.K, o.seed);
  const double start = mf_elbo(L.ratings, q0) / static_cast<double>(L.ratings.size());
  double best = start;  // full VB's last ELBO per rating when it runs
  auto emit = [&](const std::string& series, const std::string& opt, long size, long seed, const Outcome& oc, auto& rows) {
    for (auto& r : rows) out.trace().add(series).add(opt).add(size).add(seed).add(r[0]).add(r[1]).add(r[2]).add(r[3]).add(0L).end_row();
    // The divergence: the ratings read up to the failed sweep, at the last finite ELBO (the failed
    // sweep's own is not finite), flagged so that the figure marks it.
    if (oc.diverged && !rows.empty())
      out.trace().add(series).add(opt).add(size).add(seed).add(static_cast<double>(oc.sweeps + 1)).add(static_cast<double>(oc.accesses)).add(rows.back()[2]).add(oc.last_elbo).add(1L).end_row();
  };
  if (p.full_vb) {
    PaquetOptions po;
    std::vector<std::array<double, 4>> rows;
    const auto oc = run_one(L.ratings, q0, po, StepSchedule<double>::constant(1.0), T, o.seed, 0, record,
                            [&](long t, long a, double rho, double e) { rows.push_back({double(t), double(a), rho, e}); });
    emit("full-vb", "a", 0, 0, oc, rows);
    if (std::isfinite(rows.back()[3])) best = std::max(best, rows.back()[3]);
    ctx.say(fmt::format("full VB: ELBO per rating {:.6f} after {} sweeps", rows.back()[3], oc.sweeps));
    out.note(fmt::format("full VB (all children, rho = 1): ELBO per rating {:.8g} after {} sweeps", rows.back()[3], oc.sweeps));
  }
  for (auto opt : opts)
    for (long size : sizes)
      for (long r = 0; r < o.seeds; ++r) {
        PaquetOptions po;
        po.option = opt;
        po.algorithm = p.algorithm == 1 ? PaquetAlgorithm::kPerNode : PaquetAlgorithm::kGlobal;
        if (p.algorithm == 1) po.children = size;
        else po.global_batch = std::min<long>(size, L.ratings.size());
        std::vector<std::array<double, 4>> rows;
        const auto oc = run_one(L.ratings, q0, po, schedule_of(p, p.rho1), T, o.seed, static_cast<std::uint64_t>(r + 1), record,
                                [&](long t, long a, double rho, double e) { rows.push_back({double(t), double(a), rho, e}); });
        // A diverged run says so in its series name, so that the figure's legend marks it.
        const std::string series = fmt::format("{}-{}{}{}", to_string(opt), p.algorithm == 1 ? "C" : "Cg", size,
                                               oc.diverged ? fmt::format(" DIVERGED at sweep {}", oc.sweeps + 1) : std::string());
        emit(series, to_string(opt), size, r, oc, rows);
        ctx.say(fmt::format("option {} {} = {} seed {}: {}", to_string(opt), p.algorithm == 1 ? "C" : "C_global", size, r,
                            oc.diverged ? fmt::format("DIVERGED at sweep {} ({})", oc.sweeps + 1, oc.why)
                                        : fmt::format("ELBO per rating {:.6f} after {} sweeps", rows.back()[3], oc.sweeps)));
      }
  report::PlotSpec plot;
  plot.id = "elbo";
  plot.title = fmt::format("Paquet SVB, Algorithm {}, K = {}, {} schedule rho_1 = {:g}, kappa = {:g}", p.algorithm, p.K, p.schedule, p.rho1, p.kappa);
  plot.x = "accesses";
  plot.y = "elbo_per_rating";
  plot.series = "series";
  plot.xlabel = "ratings accessed";
  plot.ylabel = "ELBO per rating";
  plot.logx = true;
  plot.logy = false;
  plot.reference_series = "full-vb";
  plot.mark_column = "diverged";
  plot.mark_label = "diverged (last finite ELBO; at the axis when below it)";
  // The axis starts a quarter of the way from full VB down below the initial point, so that the
  // plunges of diverging runs (to −1e200 and beyond) do not flatten the other curves.
  plot.ymin = start - std::max((best - start) / 4, 0.5);
  out.add_plot(plot);
  out.note(L.description);
  out.note("one access = one rating read in the update of one hidden node; rows with diverged = 1 mark the sweep at which a parameter or the ELBO became non-finite");
  out.note(fmt::format("schedule: {} (delay: rho_t = (t + tau)^-kappa, tau = rho_1^(-1/kappa) - 1; scale: rho_t = rho_1 t^-kappa)", p.schedule));
  const std::string dir = out.finish();
  ctx.say("paquet-mf -> " + dir);
}

void run_threshold(ExperimentContext& ctx) {
  const Params& p = params();
  const auto& o = ctx.options();
  const Loaded L = load(ctx);
  const auto opts = options_of(p.option);
  const auto sizes = parse_longs(p.children, "--children");
  auto out = ctx.open_run("paquet-threshold", {"option", "children", "seed", "k", "rho1", "diverged", "sweeps"});
  out.set_dataset(L.info);
  ctx.say(L.description);
  const auto q0 = init_of(L.ratings, p.K, o.seed);
  std::string summary;
  // The headline numbers (the report shows *_table.csv files as tables): per C, option and seed,
  // the largest stable rho_1 as a fraction and its k (empty where none is stable up to k = kmax).
  std::string table = "children,option,seed,largest_stable_rho_1,k\n";
  for (long C : sizes)
    for (auto opt : opts)
      for (long r = 0; r < o.seeds; ++r) {
        double stable = 0;
        int k_stable = -1;
        for (int k = 0; k <= p.kmax; ++k) {
          PaquetOptions po;
          po.option = opt;
          po.children = C;
          po.check_elbo = true;
          const double rho1 = std::ldexp(1.0, -k);
          const auto oc = run_one(L.ratings, q0, po, schedule_of(p, rho1), o.iters, o.seed, static_cast<std::uint64_t>(100 * r + k + 1), {},
                                  [](long, long, double, double) {});
          out.trace().add(to_string(opt)).add(C).add(r).add(static_cast<long>(k)).add(rho1).add(oc.diverged ? 1L : 0L).add(oc.sweeps).end_row();
          if (!oc.diverged) {
            stable = rho1;
            k_stable = k;
            break;
          }
        }
        const std::string line = stable > 0 ? fmt::format("C = {} option {} seed {}: largest stable rho_1 = 1/{:g}", C, to_string(opt), r, 1 / stable)
                                            : fmt::format("C = {} option {} seed {}: no stable rho_1 >= 2^-{}", C, to_string(opt), r, p.kmax);
        ctx.say(line);
        out.note(line);
        table += stable > 0 ? fmt::format("{},{},{},1/{:g},{}\n", C, to_string(opt), r, 1 / stable, k_stable)
                            : fmt::format("{},{},{},none up to 2^-{},\n", C, to_string(opt), r, p.kmax);
      }
  out.note(L.description);
  out.note(fmt::format("stable = no divergence within {} sweeps; scan rho_1 = 2^-k, k = 0..{}; schedule {}", o.iters, p.kmax, p.schedule));
  const std::string dir = out.finish();
  std::ofstream(dir + "/threshold_table.csv") << table;
  ctx.say("paquet-threshold -> " + dir);
}

void add_common(CLI::App& app, bool mf) {
  auto& p = params();
  app.add_option("--data", p.data, "CSV of (user, item, rating) triples (default: none, use --synthetic)");
  app.add_flag("--synthetic", p.synthetic, "Use the docs/systems.md B.7 generator (the default when --data is not given)");
  app.add_option("--users", p.users, "Synthetic: users")->capture_default_str()->check(CLI::Range(1L, 10000000L));
  app.add_option("--items", p.items, "Synthetic: items")->capture_default_str()->check(CLI::Range(1L, 10000000L));
  app.add_option("--density", p.density, "Synthetic: mean probability a pair is observed")->capture_default_str()->check(CLI::Range(1e-9, 1.0));
  app.add_option("--noise", p.noise, "Synthetic: rating noise standard deviation")->capture_default_str()->check(CLI::Range(0.0, 1e6));
  app.add_option("--zipf", p.zipf, "Synthetic: Zipf exponent of user/item activity (0 = uniform)")->capture_default_str()->check(CLI::Range(0.0, 10.0));
  app.add_option("--K", p.K, "Latent dimensions K (also the synthetic rank)")->capture_default_str()->check(CLI::Range(1L, 1000L));
  app.add_option("--children", p.children, "At most C children per node, comma-separated list (0 = all)")->capture_default_str();
  app.add_option("--option", p.option, "Update option: a (sequential, in place), b (simultaneous) or both")->capture_default_str();
  app.add_option("--schedule", p.schedule, "delay: rho_t = (t + tau)^-kappa with tau = rho_1^(-1/kappa) - 1; scale: rho_t = rho_1 t^-kappa")
      ->capture_default_str();
  app.add_option("--kappa", p.kappa, "Schedule exponent kappa")->capture_default_str()->check(CLI::Range(0.0, 1.0));
  app.add_flag("--centre", p.centre, "Subtract the mean rating (stated in the output; default: off)");
  if (mf) {
    app.add_option("--algorithm", p.algorithm, "1 (per-node child sampling) or 2 (global sample of C_global ratings)")->capture_default_str();
    app.add_option("--global-batch", p.global_batch, "Algorithm 2: C_global, comma-separated list")->capture_default_str();
    app.add_option("--rho1", p.rho1, "First step rho_1")->capture_default_str()->check(CLI::Range(1e-12, 1.0));
    app.add_flag("!--no-full-vb", p.full_vb, "Leave out the full-VB reference run (default: included)");
  } else {
    app.add_option("--kmax", p.kmax, "Scan rho_1 = 2^-k for k = 0..kmax")->capture_default_str()->check(CLI::Range(0, 30));
  }
}

const ExperimentRegistrar reg_mf({
    .id = "paquet-mf",
    .description = "Stochastic VB with per-node child sampling (Paquet 2014) on Bayesian matrix factorisation: ELBO per rating "
                   "against ratings accessed, options (a)/(b), per C, with full VB; divergences marked",
    .default_iters = 1000,
    .default_seeds = 1,
    .uses_data = false,
    .data_help = "",
    .add_options = [](CLI::App& app) { add_common(app, true); },
    .numeric_options = {"--rho1", "--kappa", "--noise"},
    .run = run_mf,
});

const ExperimentRegistrar reg_threshold({
    .id = "paquet-threshold",
    .description = "Largest stable first step rho_1 = 2^-k of Paquet's Algorithm 1 per C and option (no divergence within --iters sweeps)",
    .default_iters = 400,
    .default_seeds = 1,
    .uses_data = false,
    .data_help = "",
    .add_options = [](CLI::App& app) { add_common(app, false); },
    .numeric_options = {"--kappa", "--noise"},
    .run = run_threshold,
});

}}  // namespace
}  // namespace ngvi::cli
