// ngvi run ngd-gaussian-target: stochastic NGD towards a Gaussian target with injected noise.
//
// The target is p = N(m*, S*) with natural parameter η* and precision Λ = S*⁻¹ = L Lᵀ. Minimising
// KL(q_μ ‖ p) over the expectation parameter μ has the exact gradient ∇_μ KL = η − η*
// (docs/math.md §1.3, the Bregman form of the KL), so the NGD / mirror-descent step (optim/natural_update.hpp,
// with η* in the place of the prior and a zero-mean estimate ĝ of the zero "likelihood" gradient) is
//   η_{t+1} = (1 − γ_t) η_t + γ_t (η* + ĝ_t),     ĝ_t = (ε₁, ε₂),
//   ε₁ = σ L z,  z ~ N(0, I_d)                    (so E[½ ε₁ᵀ S* ε₁] = ½ σ² d: σ is dimensionless),
//   ε₂ = −½ (Λ' − Λ),  Λ' = L (W/ν) Lᵀ,  W = Σ_{k≤ν} z_k z_kᵀ   (ν = --dof; 0 means ε₂ = 0).
// E[ε₂] = 0 and η*₂ + ε₂ = −½Λ' ≺ 0 whenever ν ≥ d, so every iterate stays in Ω (Remark 2) without a
// projection. With γ_t = 2/(t+2) (optim/schedule.hpp) the error unrolls to
// η_T − η* = −2/(T(T+1)) Σ_{t<T} (t+1) ĝ_t, whose covariance is O(σ²/T): E KL(q_T ‖ p) = O(1/T), and
// the same holds for the t-weighted average μ̄_T of Theorem 1 (optim/averaging.hpp). A constant step
// γ (the "ngd-const" series) instead levels off at E KL = O(γ σ²): its fitted slope is near 0, which
// shows that the fit can tell a rate from a plateau.
#include <fmt/core.h>

#include <atomic>
#include <mutex>

#include "cli_common.hpp"
#include "experiment.hpp"
#include "ngvi/data/synthetic.hpp"
#include "ngvi/expfam/gaussian_maps.hpp"
#include "ngvi/expfam/kl.hpp"
#include "ngvi/linalg/spd.hpp"
#include "ngvi/optim/averaging.hpp"
#include "ngvi/optim/steppers/ngd_gaussian.hpp"
#include "ngvi/optim/schedule.hpp"
#include "ngvi/parallel/replicates.hpp"
#include "ngvi/random/stream.hpp"

namespace ngvi::cli {
namespace { namespace NGVI_UNITY_ID {

struct Params {
  int dim = 5;
  double kappa = 100;
  double noise = 1.0;
  int dof = 0;
  double const_step = 0.05;
};

Params& params() {
  static Params p;
  return p;
}

struct Row {
  int method;  // 0 ngd-last, 1 ngd-avg, 2 ngd-const
  long iter;
  double gamma;
  double kl;
};

constexpr const char* kMethods[] = {"ngd-last", "ngd-avg", "ngd-const"};

struct Problem {
  GaussianMoments<double> target;
  GaussianNatural<double> eta_star;
  Mat<double> lambda;    // Λ = S*⁻¹
  Mat<double> lambda_l;  // L, Λ = L Lᵀ
};

GaussianPair<double> draw_noise(const Problem& pb, const Params& p, random::Stream& rs) {
  const Index d = pb.target.dim();
  GaussianPair<double> g{Vec<double>(d), Mat<double>::Zero(d, d)};
  Vec<double> z(d);
  for (Index i = 0; i < d; ++i) z(i) = rs.normal();
  g.first = p.noise * (pb.lambda_l * z);
  if (p.dof > 0) {
    Mat<double> w = Mat<double>::Zero(d, d);
    for (int k = 0; k < p.dof; ++k) {
      for (Index i = 0; i < d; ++i) z(i) = rs.normal();
      w.selfadjointView<Eigen::Lower>().rankUpdate(z);
    }
    w = w.selfadjointView<Eigen::Lower>();
    const Mat<double> lambda_prime = pb.lambda_l * (w / static_cast<double>(p.dof)) * pb.lambda_l.transpose();
    g.second = -0.5 * (symmetrise(lambda_prime) - pb.lambda);
  }
  return g;
}

/// One seed: the 2/(t+2) trajectory (last and averaged iterate) and the constant-step trajectory.
std::vector<Row> run_seed(const Problem& pb, const Params& p, std::uint64_t seed, long replicate, long T,
                          const std::vector<long>& record, const std::function<void(long)>& tick) {
  std::vector<Row> rows;
  rows.reserve(record.size() * 3);
  const Index d = pb.target.dim();
  const GaussianNatural<double> eta0 = moments_to_natural(GaussianMoments<double>{Vec<double>::Zero(d), Mat<double>::Identity(d, d)});
  const auto schedule = StepSchedule<double>::theorem1();
  const auto constant = StepSchedule<double>::constant(p.const_step);
  for (int pass = 0; pass < 2; ++pass) {
    // The same noise sequence drives both schedules (stream `replicate`, replayed from draw 0).
    random::Stream rs(seed, static_cast<std::uint64_t>(replicate));
    NgdStepper<double> stepper(pb.eta_star, eta0);
    FunctionEstimator noise{[&](long, const GaussianNatural<double>&, GaussianPair<double>& g) { g = draw_noise(pb, p, rs); }};
    MeanAverage<NgdStepper<double>> avg(IterateAverage<double>::Weights::kLinear, /*enabled=*/pass == 0);
    std::size_t next = 0;
    auto rows_at_record_points = OnStep{[&](const auto& e) {
      const long iter = e.t + 1;
      if (next < record.size() && record[next] == iter) {
        ++next;
        const double kl_last = kl_gaussian(natural_to_moments(e.stepper.point()), pb.target);
        if (pass == 0) {
          rows.push_back({0, iter, e.gamma, kl_last});
          rows.push_back({1, iter, e.gamma, kl_gaussian(expectation_to_moments(*e.averager.value()), pb.target)});
        } else {
          rows.push_back({2, iter, e.gamma, kl_last});
        }
      }
      if ((e.t & 1023) == 1023) tick(1024);
    }};
    const RunOptions run{T, /*theorem_steps=*/true, {}};
    const auto tr = pass == 0 ? run_trajectory(stepper, noise, schedule, avg, run, rows_at_record_points)
                              : run_trajectory(stepper, noise, constant, avg, run, rows_at_record_points);
    tr.value_or_throw("ngd-gaussian-target");
  }
  return rows;
}

void run(ExperimentContext& ctx) {
  const auto& o = ctx.options();
  const Params p = params();
  if (p.dof != 0 && p.dof < p.dim)
    throw UsageError(fmt::format("--dof must be 0 or at least --dim ({}), got {}", p.dim, p.dof));
  Problem pb;
  data::Rng rng(o.seed);
  pb.target = data::random_gaussian(p.dim, p.kappa, rng);
  pb.eta_star = moments_to_natural(pb.target);
  pb.lambda = inverse_spd<double>(pb.target.cov, "ngd-gaussian-target", "target.cov");
  pb.lambda_l = SpdFactor<double>(pb.lambda, "ngd-gaussian-target", "lambda").lower();
  const long T = o.iters;
  const auto record = record_iterations(T);

  auto progress = ctx.progress("", 2L * T * o.seeds);
  auto tick = [&](long n) { progress->advance(n); };
  const auto per_seed = parallel::run_replicates(o.seeds, ctx.threads(), [&](long r) {
    return run_seed(pb, p, o.seed, r, T, record, tick);
  });
  progress->finish();

  auto out = ctx.open_run("ngd-gaussian-target", {"method", "seed", "iter", "gamma", "kl"});
  for (long r = 0; r < o.seeds; ++r)
    for (const auto& row : per_seed[static_cast<std::size_t>(r)])
      out.trace().add(kMethods[row.method]).add(r).add(row.iter).add(row.gamma).add(row.kl).end_row();
  report::PlotSpec plot;
  plot.id = "kl";
  plot.title = fmt::format("NGD to a Gaussian target (d = {}, cond {:g}, noise {:g}, dof {})", p.dim, p.kappa, p.noise, p.dof);
  plot.x = "iter";
  plot.y = "kl";
  plot.series = "method";
  plot.xlabel = "iteration t";
  plot.ylabel = "KL(q_t || target)";
  plot.fit_from = T >= 1000 ? static_cast<double>(T) / 10 : 1;
  plot.fit_to = static_cast<double>(T);
  out.add_plot(plot);
  out.note("target N(m*, S*): m* ~ N(0, I), S* with eigenvalues log-spaced in [1, cond], drawn from --seed; "
           "q_0 = N(0, I); seed k uses random stream (seed, k) for the noise");
  out.note("ngd-last: KL(q_t || p) for gamma_t = 2/(t+2); ngd-avg: KL of the t-weighted average of mu_1..mu_t "
           "(Theorem 1); ngd-const: last iterate for the constant step --const-step (expected to level off)");
  out.note(fmt::format("fit window: iterations in [{:g}, {:g}] (the last decade when T >= 1000)", plot.fit_from, plot.fit_to));
  const std::string dir = out.finish();
  ctx.say(fmt::format("ngd-gaussian-target: {} seed(s) x {} iteration(s) -> {}", o.seeds, T, dir));
}

const ExperimentRegistrar registrar({
    .id = "ngd-gaussian-target",
    .description = "Stochastic NGD (gamma_t = 2/(t+2)) towards a Gaussian target with injected zero-mean noise: "
                   "KL of the last and the t-weighted averaged iterate, and of a constant-step control",
    .default_iters = 10000,
    .default_seeds = 32,
    .uses_data = false,
    .data_help = "",
    .add_options =
        [](CLI::App& app) {
          auto& p = params();
          app.add_option("--dim", p.dim, "Dimension d of the Gaussian")->capture_default_str()->check(integer_in(1, 200));
          app.add_option("--cond", p.kappa, "Condition number of the target covariance")
              ->capture_default_str()
              ->check(CLI::Range(1.0, 1e12));
          app.add_option("--noise", p.noise, "Scale sigma of the noise in eta_1 (relative to the target precision)")
              ->capture_default_str()
              ->check(CLI::Range(0.0, 1e6));
          app.add_option("--dof", p.dof, "Degrees of freedom nu of the Wishart-type noise in eta_2 (0 = none; else >= d)")
              ->capture_default_str()
              ->check(integer_in(0, 1000000));
          app.add_option("--const-step", p.const_step, "Step size of the constant-step control series, in (0, 1]")
              ->capture_default_str()
              ->check(CLI::Range(1e-12, 1.0));
        },
    .numeric_options = {"--cond", "--noise", "--dof", "--const-step"},
    .run = run,
});

}}  // namespace
}  // namespace ngvi::cli
