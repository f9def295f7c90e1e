// ngvi bound: for a user's Bayesian linear regression, Lemma 3's variance bound σ² (derived,
// docs/math.md §5.4), Theorem 1's bound 4σ²/(T+1) at a given T or the T it needs for a KL target,
// and, next to them, the largest per-step variance σ_t² measured along a short NGD trajectory
// (diagnostics/step_variance.hpp, the routine the Theorem 1 claim uses: eq. (12) through the
// symmetrised-KL identity, exact over all n^M batches when there are at most 4096 of them, else
// Monte Carlo over batches), so the user sees how loose the derived bound is on their data.
#include "bound_cmd.hpp"

#include <fmt/core.h>

#include <cmath>
#include <memory>
#include <stdexcept>

#include "cli_common.hpp"
#include "ngvi/bounds/blr_constants.hpp"
#include "ngvi/data/loaders.hpp"
#include "ngvi/diagnostics/step_variance.hpp"
#include "ngvi/optim/ngd_driver.hpp"

namespace ngvi::cli {
namespace { namespace NGVI_UNITY_ID {

struct BoundOptions {
  std::string data;
  std::string target;
  long batch = 0;
  double noise = 0;
  double prior_var = 1;
  long iters = 0;
  double kl_target = 0;
  long steps = 200;
  long samples = 200;
  bool standardize = false;
  unsigned long long seed = 20240601ULL;
};

Dataset<double> load(const BoundOptions& o) {
  for (const auto& name : data::builtin_names())
    if (o.data == name) {
      if (!o.target.empty()) throw UsageError("--target is not used with the builtin data set '" + o.data + "'");
      return data::load_builtin(name);
    }
  if (o.target.empty()) throw UsageError("--target COLUMN is required with --data FILE");
  return data::table_to_dataset(data::read_csv(o.data), o.target);
}

int run_bound(const BoundOptions& o) {
  if ((o.iters > 0) == (o.kl_target > 0)) throw UsageError("give exactly one of --iters T and --kl-target EPS");
  Dataset<double> d = load(o);
  if (o.standardize) data::standardize(d);
  const Index dim = d.d();
  // Two estimators (the trajectory's and the probe's) each gather a d x M batch and M indices.
  check_allocation("--batch", 2.0 * static_cast<double>(o.batch) * static_cast<double>(dim + 2) * sizeof(double),
                   fmt::format("a batch of M = {} rows of {} features (the data have n = {} rows; batches are drawn with replacement)",
                               o.batch, dim, d.n()));
  const Mat<double> prior_cov = o.prior_var * Mat<double>::Identity(dim, dim);
  const auto c = blr_constants<double>(d, prior_cov, o.noise, o.batch);
  const double sigma2 = lemma3_sigma2(c);
  const double sigma2_max = lemma3_sigma2_max_form(c);
  // σ² scales as n²/(M s_e⁴): a tiny noise variance overflows it before anything is measured.
  if (!std::isfinite(sigma2) || !std::isfinite(sigma2_max))
    throw UsageError(fmt::format("--noise {}: Lemma 3's sigma^2 (which scales as n^2/(M s_e^4)) is not finite ({}) on this data; "
                                 "choose a larger --noise", o.noise, sigma2));
  fmt::print("data: {} (n = {}, d = {}), batch M = {}, noise variance s_e^2 = {}, prior N(0, {} I){}\n", o.data, d.n(), dim,
             o.batch, o.noise, o.prior_var, o.standardize ? ", features standardised" : "");
  fmt::print("Lemma 3 sigma^2, data-moment form (derived, docs/math.md §5.4): {:.6g}\n", sigma2);
  fmt::print("Lemma 3 sigma^2, data-maximum form (derived, docs/math.md §5.4): {:.6g}\n", sigma2_max);

  // Measured σ_t² along a short trajectory with γ_t = 2/(t+2), at log-spaced steps.
  const LinearRegression<double> model(d, prior_cov, o.noise);
  std::vector<long> grid;
  for (long t = 0; t < o.steps; ++t)
    if (t < 10 || (t & (t + 1)) == 0 || t + 1 == o.steps) grid.push_back(t);
  StepVarianceOptions vopt;
  vopt.samples = o.samples;
  vopt.confidence = 0.99;
  StatusLine feedback("ngvi bound", o.steps);
  feedback.begin(1, "trajectory (measuring sigma_t^2)");
  const auto prof = step_variance_along_trajectory(model, o.batch, standard_natural<double>(dim), StepSchedule<double>::theorem1(),
                                                   grid, random::Stream(o.seed, 0), random::Stream(o.seed, 1), vopt);
  feedback.finish();
  const double worst = prof.max_mean, worst_ucb = prof.max_upper;
  if (prof.exact)
    fmt::print("largest measured sigma_t^2 over {} steps: {:.6g} at t = {} (exact: all n^M batches enumerated)\n", o.steps,
               worst, prof.argmax_t);
  else
    fmt::print("largest measured sigma_t^2 over {} steps: {:.6g} at t = {} (largest 99% upper bound {:.6g}, {} batches per step)\n",
               o.steps, worst, prof.argmax_t, worst_ucb, o.samples);
  fmt::print("tightness: measured / derived sigma^2 = {:.3g}\n", worst / sigma2);
  if (o.iters > 0) {
    fmt::print("Theorem 1 (derived): E KL(q_avg_T || posterior) <= 4 sigma^2/(T+1) = {:.6g} at T = {}\n",
               thm1_kl_bound(sigma2, o.iters), o.iters);
    fmt::print("  with the measured sigma_t^2 in place of sigma^2: {:.6g}\n", thm1_kl_bound(worst_ucb, o.iters));
  } else {
    const double need = std::ceil(4 * sigma2 / o.kl_target - 1);
    const double need_measured = std::ceil(4 * worst_ucb / o.kl_target - 1);
    fmt::print("Theorem 1 (derived): T >= 4 sigma^2/eps - 1 = {:.6g} iterations for E KL <= {}\n", std::max(1.0, need), o.kl_target);
    fmt::print("  with the measured sigma_t^2 in place of sigma^2: {:.6g} iterations\n", std::max(1.0, need_measured));
  }
  return 0;
}

}}  // namespace

/// run_bound, with a numerical failure inside it (a domain or range error from the library)
/// reported as one line naming the options that set the problem's scale.
int run_bound_reported(const NGVI_UNITY_ID::BoundOptions& o) {
  const auto numerical = [&](const std::exception& ex) {
    return std::runtime_error(fmt::format("numerical failure inside the run ({}); change --noise (now {}), --prior-var (now {}) "
                                          "or --batch (now {})", ex.what(), o.noise, o.prior_var, o.batch));
  };
  try {
    return NGVI_UNITY_ID::run_bound(o);
  } catch (const UsageError&) {
    throw;
  } catch (const std::domain_error& ex) {
    throw numerical(ex);
  } catch (const std::range_error& ex) {
    throw numerical(ex);
  }
}

void add_bound(CLI::App& app, int* status) {
  auto o = std::make_shared<NGVI_UNITY_ID::BoundOptions>();
  auto* sub = app.add_subcommand("bound", "Lemma 3's sigma^2 and Theorem 1's bound (derived constants) for regression data, "
                                          "next to the per-step variance measured on a short trajectory");
  sub->add_option("--data", o->data, "CSV file (plain or gzip) or builtin data set (diabetes, randhie, ...)")->required()->check(non_empty_path());
  sub->add_option("--target", o->target, "Target column of the CSV file");
  sub->add_option("--batch", o->batch, "Mini-batch size M")->required()->check(integer_in(1, 1LL << 30));
  sub->add_option("--noise", o->noise, "Noise variance s_e^2")->required()->check(CLI::PositiveNumber);
  sub->add_option("--prior-var", o->prior_var, "Prior variance V (prior N(0, V I))")->capture_default_str()->check(CLI::PositiveNumber);
  sub->add_option("--iters", o->iters, "Evaluate Theorem 1's bound at this T")->check(integer_in(1, 1LL << 62));
  sub->add_option("--kl-target", o->kl_target, "Print the T Theorem 1 needs for E KL <= this value")->check(CLI::PositiveNumber);
  sub->add_option("--steps", o->steps, "Length of the trajectory on which sigma_t^2 is measured")->capture_default_str()->check(integer_in(1, 100000000));
  sub->add_option("--samples", o->samples, "Batches drawn per measured step (Monte Carlo; when n^M <= 4096 all batches are enumerated instead)")->capture_default_str()->check(integer_in(2, 100000000));
  sub->add_flag("--standardize", o->standardize, "Standardise the features first");
  sub->add_option("--seed", o->seed, "Random seed (also NGVI_SEED)")->envname("NGVI_SEED")->capture_default_str()->check(seed_value());
  sub->callback([o, status] { *status = run_bound_reported(*o); });
}

}  // namespace ngvi::cli
