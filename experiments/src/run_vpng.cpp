// ngvi run vpng-logistic, ngvi run vpng-bivariate: the variational predictive natural gradient
// (Tang & Ranganath 2019; docs/systems.md D) against the q-Fisher NG and the plain gradient, all
// three the same PreconditionedStepper with a different preconditioner part.
//
// vpng-logistic (docs/systems.md D.4): correlated logistic regression from the kit's generator (the
// slides' generator was not recoverable), per seed one data set; per method the constant step ρ of
// {1, 0.3, …, 1e−4} with the best final ELBO estimate (docs/systems.md D.4's rule), then the chosen
// run again with ELBO and AUC recorded against iterations; train and test AUC as mean ± sd over seeds
// in the slides' layout, the slides' numbers beside ours (theirs on their data).
//
// vpng-bivariate (docs/systems.md D.3): iterations to ‖μ − μ*‖ ≤ tol‖μ*‖ for the plain gradient at
// the optimal constant step 2/(L + m), the q-Fisher NG at the mean-field optimum with the rescaled
// step 2/((L + m) s*²), and VPNG with δ = σ0⁻², ρ = 1, all with exact expectations.
#include <fmt/core.h>

#include <cmath>
#include <fstream>
#include <optional>

#include "experiment.hpp"
#include "cli_common.hpp"
#include "ngvi/data/correlated_logistic.hpp"
#include "ngvi/data/loaders.hpp"
#include "ngvi/optim/vpng_runs.hpp"

namespace ngvi::cli {
namespace { namespace NGVI_UNITY_ID {

// ---------------------------------------------------------------------------------------------
// vpng-logistic

struct LogisticParams {
  long dim = 10;
  double correlation = 0.999;
  long n_train = 2000;
  long n_test = 2000;
  double signal = 8;
  long grad_draws = 10;
  long fisher_draws = 20;
  double delta = 0.1;
  long elbo_draws = 20;
  double test_fraction = 0.5;  // with --data: the share of rows held out, per seed
  bool save_params = false;    // write every fitted (mu, sigma) to params.csv
  std::vector<const CLI::Option*> generator_options;  // --dim ... --signal: the generator's, refused with --data
  const CLI::Option* test_fraction_option = nullptr;
};
LogisticParams& lparams() {
  static LogisticParams p;
  return p;
}

constexpr VpngMethod kMethods[] = {VpngMethod::kGradient, VpngMethod::kNg, VpngMethod::kVpng};
// The slides' table (Tang & Ranganath 2019, "Bayesian Logistic regression AUC", their data):
// train mean, sd, test mean, sd.
constexpr double kSlides[3][4] = {{0.734, 0.017, 0.718, 0.022}, {0.744, 0.043, 0.751, 0.047}, {0.972, 0.011, 0.967, 0.011}};

double auc_of(const Mat<double>& x, const Vec<double>& y, const Vec<double>& w) {
  const Vec<double> sc = x * w;
  std::vector<int> lab(static_cast<std::size_t>(y.size()));
  for (Index k = 0; k < y.size(); ++k) lab[static_cast<std::size_t>(k)] = y(k) == 1.0 ? 1 : 0;
  return roc_auc(std::vector<double>(sc.data(), sc.data() + sc.size()), lab);
}

std::pair<double, double> mean_sd(const std::vector<double>& v) {
  double m = 0, s = 0;
  for (double x : v) m += x / static_cast<double>(v.size());
  for (double x : v) s += (x - m) * (x - m);
  return {m, v.size() > 1 ? std::sqrt(s / static_cast<double>(v.size() - 1)) : 0.0};
}

void run_logistic(ExperimentContext& ctx) {
  const auto& o = ctx.options();
  const LogisticParams p = lparams();
  const long T = o.iters;
  const auto record = record_iterations(T);
  // --data FILE --target COLUMN: the user's table (features standardised, the target's labels 0 or 1),
  // split per seed into train and test rows; else the kit's generator.
  std::optional<LoadedData> user;
  if (!o.data.empty()) {
    for (const auto* opt : p.generator_options)
      if (opt->count() > 0) throw UsageError(opt->get_name() + " sets the kit's generator and does not apply with --data");
    if (!(p.test_fraction > 0 && p.test_fraction < 1)) throw UsageError(fmt::format("--test-fraction must lie in (0, 1), got {}", p.test_fraction));
    auto sets = ctx.datasets({}, true);
    user = std::move(sets.front());
    const auto& y = user->data.y;
    for (Index i = 0; i < y.size(); ++i)
      if (!(y(i) == 0.0 || y(i) == 1.0))
        throw UsageError(fmt::format("--target '{}' must hold the labels 0 or 1 of a logistic regression (row {} has {})", user->info.target, i + 1, y(i)));
    const long n_test = std::lround(p.test_fraction * static_cast<double>(y.size()));
    if (n_test < 2 || static_cast<long>(y.size()) - n_test < 2)
      throw UsageError(fmt::format("--test-fraction {} of the {} rows of --data leaves fewer than 2 rows to train or to test", p.test_fraction, y.size()));
  } else if (!o.target.empty()) {
    throw UsageError("--target needs --data FILE");
  } else if (p.test_fraction_option != nullptr && p.test_fraction_option->count() > 0) {
    throw UsageError("--test-fraction applies only with --data (the generator draws its own test set: --n-test)");
  }
  auto out = ctx.open_run("vpng-logistic", {"method", "seed", "iter", "rho", "elbo", "train_auc", "test_auc"});
  if (user) out.set_dataset(user->info);
  std::vector<double> train[3], test[3], oracle_test;
  std::string params_csv = "method,seed,coordinate,mean,sd\n";
  auto progress = ctx.progress("seeds", o.seeds);
  for (long k = 0; k < o.seeds; ++k) {
    const std::uint64_t seed = o.seed + static_cast<std::uint64_t>(k);
    data::CorrelatedLogisticData d;
    if (user) {
      const auto [tr, te] = data::train_test_split(user->data, p.test_fraction, seed);
      d.x_train = tr.X;
      d.y_train = tr.y;
      d.x_test = te.X;
      d.y_test = te.y;
    } else {
      data::CorrelatedLogisticOptions go{p.dim, p.correlation, p.n_train, p.n_test, p.signal};
      d = data::correlated_logistic_data(go, seed);
      oracle_test.push_back(auc_of(d.x_test, d.y_test, d.w_star));
    }
    const LogisticModel<double> model(d.x_train, d.y_train);
    VpngRunOptions<double> ro;
    ro.steps = T;
    ro.grad_draws = p.grad_draws;
    ro.fisher_draws = p.fisher_draws;
    ro.delta = p.delta;
    const Vec<double> l0 = Vec<double>::Zero(2 * model.dim());
    for (int mi = 0; mi < 3; ++mi) {
      const auto sel = select_step<double>(model, kMethods[mi], ro, vpng_step_grid(), l0, seed, 1);
      if (sel.rho == 0) {
        out.note(fmt::format("seed {}: {} failed at every step size", seed, to_string(kMethods[mi])));
        continue;
      }
      std::size_t next = 0;
      // The chosen run again (same draws, so the same iterates), recorded.
      const auto tr = run_vpng_method<double>(model, kMethods[mi], ro, sel.rho, l0, seed, 1, OnStep{[&](const auto& ev) {
        if (next < record.size() && record[next] == ev.t + 1) {
          ++next;
          const Vec<double>& l = ev.stepper.point();
          random::Stream r(seed, 0xE1B0ULL);
          const Vec<double> mu = mf_mu(l);
          out.trace().add(to_string(kMethods[mi])).add(static_cast<long>(seed)).add(ev.t + 1).add(sel.rho)
              .add(static_cast<double>(elbo_estimate<double>(model, l, p.elbo_draws, r)))
              .add(auc_of(d.x_train, d.y_train, mu)).add(auc_of(d.x_test, d.y_test, mu)).end_row();
        }
      }});
      train[mi].push_back(auc_of(d.x_train, d.y_train, mf_mu(tr.last)));
      test[mi].push_back(auc_of(d.x_test, d.y_test, mf_mu(tr.last)));
      const Vec<double> mu = mf_mu(tr.last), sd = mf_sigma(tr.last);
      for (Index i = 0; i < mu.size(); ++i)
        params_csv += fmt::format("{},{},{},{:.17g},{:.17g}\n", to_string(kMethods[mi]), seed, i + 1, mu(i), sd(i));
    }
    progress->advance(1);
  }
  progress->finish();
  report::PlotSpec elbo;
  elbo.id = "elbo";
  elbo.y = "elbo";
  elbo.title = "ELBO estimate, correlated logistic regression (kit generator)";
  elbo.ylabel = "ELBO";
  elbo.xlabel = "iteration t";
  elbo.logy = false;
  out.add_plot(elbo);
  report::PlotSpec auc = elbo;
  auc.id = "test_auc";
  auc.y = "test_auc";
  auc.title = "Test AUC of the posterior mean, correlated logistic regression (kit generator)";
  auc.ylabel = "test AUC";
  out.add_plot(auc);
  if (user)
    out.note(fmt::format("data: {} (target '{}', {} rows, D = {}; features standardised), per seed a random {} of the rows held out; T = {}; "
                         "{} eps-draws for the gradient, {} for F_r (inner expectation analytic), delta = {}; rho per method and seed by "
                         "the best final ELBO estimate over {{1, 0.3, ..., 1e-4}}",
                         user->info.name, user->info.target, user->data.n(), user->data.d(), p.test_fraction, T, p.grad_draws,
                         p.fisher_draws, p.delta));
  else
    out.note(fmt::format("kit generator (the slides' was not recoverable): D = {}, correlation c = {}, n_train = {}, n_test = {}, "
                         "sqrt(1-c)||w*|| = {}; T = {}; {} eps-draws for the gradient, {} for F_r (inner expectation analytic), "
                         "delta = {}; rho per method and seed by the best final ELBO estimate over {{1, 0.3, ..., 1e-4}}",
                         p.dim, p.correlation, p.n_train, p.n_test, p.signal, T, p.grad_draws, p.fisher_draws, p.delta));
  if (p.save_params) out.note("params.csv: every method's and seed's fitted q(w) = N(mean, diag(sd^2)), coordinate by coordinate");
  // The AUC table in the slides' layout.
  const std::string dir = out.finish();
  std::ofstream csv(dir + "/auc_table.csv");
  csv << "method,train_ours_mean,train_ours_sd,test_ours_mean,test_ours_sd,train_slides_on_their_data_mean,train_slides_on_their_data_sd,"
         "test_slides_on_their_data_mean,test_slides_on_their_data_sd,seeds\n";
  std::string md = "| Method | Train AUC (ours) | Test AUC (ours) | Train AUC (slides, their data) | Test AUC (slides, their data) |\n|---|---|---|---|---|\n";
  for (int mi = 0; mi < 3; ++mi) {
    const auto [trm, trs] = mean_sd(train[mi]);
    const auto [tem, tes] = mean_sd(test[mi]);
    csv << fmt::format("{},{:.4f},{:.4f},{:.4f},{:.4f},{},{},{},{},{}\n", to_string(kMethods[mi]), trm, trs, tem, tes, kSlides[mi][0], kSlides[mi][1],
                       kSlides[mi][2], kSlides[mi][3], test[mi].size());
    md += fmt::format("| {} | {:.3f} ± {:.3f} | {:.3f} ± {:.3f} | {:.3f} ± {:.3f} | {:.3f} ± {:.3f} |\n", to_string(kMethods[mi]), trm, trs, tem, tes,
                      kSlides[mi][0], kSlides[mi][1], kSlides[mi][2], kSlides[mi][3]);
  }
  if (!oracle_test.empty()) {  // the generator's true w* (none for --data)
    const auto [om, os] = mean_sd(oracle_test);
    md += fmt::format("| oracle (true w*) | | {:.3f} ± {:.3f} | | |\n", om, os);
    csv << fmt::format("oracle,,,{:.4f},{:.4f},,,,,{}\n", om, os, oracle_test.size());
  }
  std::ofstream(dir + "/auc_table.md") << md;
  if (p.save_params) {
    std::ofstream pf(dir + "/params.csv");
    pf << params_csv;
    if (!pf) throw std::runtime_error("cannot write '" + dir + "/params.csv'");
  }
  ctx.say("vpng-logistic -> " + dir);
  ctx.say(md);
}

const ExperimentRegistrar logistic_registrar({
    .id = "vpng-logistic",
    .description = "VPNG vs q-Fisher NG vs gradient on correlated logistic regression: ELBO and AUC, the AUC table",
    .default_iters = 200,
    .default_seeds = 5,
    .uses_data = true,
    .data_help = "the kit's correlated-logistic generator: --dim, --correlation, --n-train, --n-test, --signal",
    .add_options =
        [](CLI::App& app) {
          auto& p = lparams();
          p.generator_options = {
              app.add_option("--dim", p.dim, "Dimension D of the weights (the generator)")->capture_default_str()->check(CLI::Range(2L, 1000L)),
              app.add_option("--correlation", p.correlation, "Correlation c of every feature pair, in [0, 1) (the generator)")
                  ->capture_default_str()->check(CLI::Range(0.0, 0.999999)),
              app.add_option("--n-train", p.n_train, "Training points (the generator)")->capture_default_str()->check(CLI::Range(2L, 10000000L)),
              app.add_option("--n-test", p.n_test, "Test points (the generator)")->capture_default_str()->check(CLI::Range(2L, 10000000L)),
              app.add_option("--signal", p.signal, "sqrt(1-c) ||w*||, the logit scale of the signal (the generator)")
                  ->capture_default_str()->check(CLI::PositiveNumber)};
          p.test_fraction_option = app.add_option("--test-fraction", p.test_fraction,
                                                  "With --data: the share of rows held out for the test AUC, a new random split per seed")
                                       ->capture_default_str();
          app.add_flag("--save-params", p.save_params,
                       "Write every method's and seed's fitted mean and sd per coordinate to params.csv in the run folder (default: off)");
          app.add_option("--grad-draws", p.grad_draws, "eps-draws per step for the ELBO gradient")->capture_default_str()->check(CLI::Range(1L, 100000L));
          app.add_option("--fisher-draws", p.fisher_draws, "eps-draws per step for F_r (VPNG)")->capture_default_str()->check(CLI::Range(1L, 100000L));
          app.add_option("--delta", p.delta, "VPNG damping delta > 0")->capture_default_str()->check(CLI::PositiveNumber);
          app.add_option("--elbo-draws", p.elbo_draws, "eps-draws of each recorded ELBO estimate")->capture_default_str()->check(CLI::Range(1L, 100000L));
        },
    .numeric_options = {"--delta", "--signal"},
    .run = run_logistic,
});

// ---------------------------------------------------------------------------------------------
// vpng-bivariate

struct BivariateParams {
  double eps = 0.01;
  long n = 100;
  double sigma0 = 10;
  double tol = 1e-6;
};
BivariateParams& bparams() {
  static BivariateParams p;
  return p;
}

void run_bivariate(ExperimentContext& ctx) {
  const auto& o = ctx.options();
  const BivariateParams p = bparams();
  auto out = ctx.open_run("vpng-bivariate", {"method", "seed", "iter", "mu_rel_err", "elbo"});
  const char* names[] = {"gradient", "ng-at-optimum", "vpng"};
  std::vector<long> counts[3];
  const double big = static_cast<double>(p.n) / p.eps + 1 / (p.sigma0 * p.sigma0);
  const double small = static_cast<double>(p.n) / (2 - p.eps) + 1 / (p.sigma0 * p.sigma0);
  const double kappa = big / small, r = (kappa - 1) / (kappa + 1), rho = 2 / (big + small);
  const long predicted = static_cast<long>(std::ceil(std::log(1 / p.tol) / std::log(1 / r)));
  for (long k = 0; k < o.seeds; ++k) {
    const std::uint64_t seed = o.seed + static_cast<std::uint64_t>(k);
    random::Stream rng(seed, 29);
    const auto model = bivariate_example<double>(p.eps, p.n, p.sigma0, rng);
    const Vec<double> star = model.optimum();
    const Vec<double> mu_star = mf_mu(star);
    const double s2 = std::exp(2 * star(2));
    for (int mi = 0; mi < 3; ++mi) {
      PredictiveFisherOptions eo;
      eo.grad_draws = 0;
      eo.route = mi == 2 ? FisherRoute::kExact : FisherRoute::kNone;
      PredictiveFisherEstimator<GaussianMeanModel<double>, random::Stream> est(model, eo, random::Stream(seed, 1));
      Vec<double> l0 = Vec<double>::Zero(4);
      if (mi == 1) l0.tail(2) = star.tail(2);
      NoAverage avg;
      long reached = -1;
      auto obs = OnStep{[&](const auto& ev) {
        const double err = (mf_mu(ev.stepper.point()) - mu_star).norm() / mu_star.norm();
        out.trace().add(names[mi]).add(static_cast<long>(seed)).add(ev.t + 1).add(err).add(model.elbo(ev.stepper.point())).end_row();
        if (reached < 0 && err <= p.tol) reached = ev.t + 1;
      }};
      StopWhen stop([&](const auto&) { return reached > 0; });
      const RunOptions ropt{std::max(o.iters, 1L), false, {}};
      if (mi == 0) {
        PreconditionedStepper<double, PlainGradient> s(l0, PlainGradient{});
        run_trajectory(s, est, StepSchedule<double>::constant(rho), avg, ropt, obs, stop);
      } else if (mi == 1) {
        PreconditionedStepper<double, QFisherNatural<double>> s(l0, QFisherNatural<double>());
        run_trajectory(s, est, StepSchedule<double>::constant(rho / s2), avg, ropt, obs, stop);
      } else {
        PreconditionedStepper<double, PredictiveFisherNatural<double>> s(l0, PredictiveFisherNatural<double>(1 / (p.sigma0 * p.sigma0)));
        run_trajectory(s, est, StepSchedule<double>::constant(1.0), avg, ropt, obs, stop);
      }
      counts[mi].push_back(reached);
    }
  }
  report::PlotSpec err;
  err.id = "mu_rel_err";
  err.y = "mu_rel_err";
  err.title = "Bivariate Gaussian (eps = " + fmt::format("{}", p.eps) + "): ||mu_t - mu*|| / ||mu*||";
  err.ylabel = "relative error of mu";
  err.xlabel = "iteration t";
  out.add_plot(err);
  out.note(fmt::format("eps = {}, N = {}, sigma0 = {}, tol = {}; L = {:.6g}, m = {:.6g}, kappa = {:.6g}; gradient rho = 2/(L+m) = {:.6g}; "
                       "NG at the mean-field optimum with rho/s*^2; VPNG delta = sigma0^-2, rho = 1",
                       p.eps, p.n, p.sigma0, p.tol, big, small, kappa, rho));
  out.note(fmt::format("predicted gradient count ceil(ln(1/tol)/ln((kappa+1)/(kappa-1))) = {}; (kappa/2) ln(1/tol) = {:.2f}", predicted,
                       kappa / 2 * std::log(1 / p.tol)));
  std::string summary;
  for (int mi = 0; mi < 3; ++mi) {
    std::string c;
    for (long v : counts[mi]) c += (c.empty() ? "" : " ") + std::to_string(v);
    summary += fmt::format("{}: {}; ", names[mi], c);
  }
  out.note("iterations to tol per seed (-1: not reached in --iters): " + summary);
  const std::string dir = out.finish();
  std::ofstream js(dir + "/counts.json");
  js << "{\"predicted_gradient\": " << predicted << ", \"kappa\": " << fmt::format("{:.17g}", kappa);
  for (int mi = 0; mi < 3; ++mi) {
    js << ", \"" << names[mi] << "\": [";
    for (std::size_t i = 0; i < counts[mi].size(); ++i) js << (i ? ", " : "") << counts[mi][i];
    js << "]";
  }
  js << "}\n";
  ctx.say("vpng-bivariate -> " + dir);
  ctx.say(fmt::format("iterations to ||mu - mu*|| <= {} ||mu*||: {}(predicted gradient: {})", p.tol, summary, predicted));
}

const ExperimentRegistrar bivariate_registrar({
    .id = "vpng-bivariate",
    .description = "The bivariate Gaussian of the VPNG slides: iterations of the gradient, q-Fisher NG and VPNG",
    .default_iters = 5000,
    .default_seeds = 5,
    .uses_data = false,
    .data_help = {},
    .add_options =
        [](CLI::App& app) {
          auto& p = bparams();
          app.add_option("--eps", p.eps, "Sigma = [[1, 1-eps], [1-eps, 1]], eps in (0, 2)")->capture_default_str()->check(CLI::Range(1e-12, 1.999999));
          app.add_option("--n", p.n, "Observations N")->capture_default_str()->check(CLI::Range(1L, 100000000L));
          app.add_option("--sigma0", p.sigma0, "Prior standard deviation sigma0")->capture_default_str()->check(CLI::PositiveNumber);
          app.add_option("--tol", p.tol, "Stop when ||mu - mu*|| <= tol ||mu*||, tol in (0, 1)")->capture_default_str()->check(CLI::Range(1e-300, 0.999999));
        },
    .numeric_options = {"--eps", "--sigma0"},
    .run = run_bivariate,
});

}}  // namespace
}  // namespace ngvi::cli
