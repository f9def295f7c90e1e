// DESCRIPTION
// Claim thm1.rate (Wu & Gardner 2024, Theorem 1, eq. (14); docs/math.md §4.5, constant tag [D]):
// for Bayesian linear regression with eq. (15) mini-batch gradients (with replacement), step sizes
// γ_t = 2/(t+2) and the t-weighted average μ̄_T of expectation parameters,
//   E KL(q_{μ̄_T} ‖ p(z|y)) ≤ 4σ²/(T+1),
// checked for T ∈ {1, 10, 100, 1000} (quick) and also 10000 (full), with σ² = Lemma 3's data-moment
// constant ("derived (docs/math.md §5.4)") and, much tighter, with σ² replaced by the measured
// max_t σ_t² along a reference trajectory (exact enumeration of all n^M batches when n^M ≤ 4096,
// else a 99% Monte Carlo upper bound per step).
// Reference: the posterior in closed form (models/linear_regression.hpp), KL by the closed-form
// Gaussian KL; the expectation by R = 200 independent replicates (counter-based streams, thread
// count irrelevant). The verdict uses the one-sided 99% Student-t upper confidence bound
// mean + t_{0.99,R−1}·s/√R. Justification: the replicate KLs are i.i.d. with finite variance (they
// are bounded by a polynomial in Gaussian-free, bounded mini-batch gradients), so the t statistic
// is asymptotically exact; at R = 200 the skewness of KL makes the bound slightly optimistic, which
// the margins here (the rhs exceeds the bound by orders of magnitude for the Lemma 3 σ², by ~3–30×
// for the measured σ²) absorb; the note prints mean, bound and R so a reader can redo it.
// Also a claim: the least-squares log-log slope of the mean KL against T over T ∈ [300, 3000] (quick;
// [300, 10000] full), where the O(1/T) variance term dominates the faster-decaying transient of the
// averaged iterate (on the ill-conditioned instance the fit over [100, 1000] gives −1.26) lies in [−1.2, −0.8].
// At T = 1 the expectation is exact when n^M ≤ kEnumerationLimit (the mean over all batches, each
// through the library's stepper), in place of the Monte Carlo bound.
// Also a claim: the average the run reports is Theorem 1's μ̄_T (its definition, recomputed in mp50
// from the iterates an observer saw), with control the uniform average of the same iterates.
// Negative control: a biased gradient with the wrong scale 1/(M s_e²) in place of n/(M s_e²) (the
// ĝ of eq. (15) divided by n): the iterates converge to the wrong point, and the 99% lower
// confidence bound of the mean KL at T = 1000 exceeds 4·max_t σ_t²/(T+1).
#include "blr_common.hpp"
#include "ngvi/data/synthetic.hpp"
#include "ngvi/optim/ngd_lanes.hpp"

namespace ngvi::claims {
namespace {

constexpr const char* kId = "thm1.rate";
constexpr long kReplicates = 200;
// The biased control is evaluated at T = 1000 (in both modes): its KL has converged to the wrong
// limit long before, so a longer run would add cost, not evidence.
constexpr long kControlT = 1000;
// The average's definition is checked on one run of this length.
constexpr long kAverageT = 100;

std::vector<std::vector<double>> replicate_kls(const BlrInstance& inst, const RunContext& ctx, const std::vector<long>& cps,
                                               double bias) {
  const auto model = make_model<double>(inst);
  const auto post = model.posterior_moments();
  NgdOptions opt;
  opt.steps = cps.back();
  opt.checkpoints = cps;
  // Replicate r draws from Stream(seed, r) and runs in lane r mod L of group ⌊r/L⌋
  // (optim/ngd_lanes.hpp): a lane's result does not depend on the other lanes, so the records are
  // the same for any thread count and any number of processes (ranks split whole groups). The schedule
  // is the library's 2/(t+2) or the context's variant.
  const auto schedule = schedule_for<double>(ctx.variant, StepSchedule<double>::theorem1());
  if (changes_estimator<double>(ctx.variant) || averaging_for<double>(ctx.variant) != AverageWeights::kLinear) {
    // A variant of the estimator or of the averager: the one-replicate route, replicate r on Stream(seed, r).
    const auto per_rep = parallel::run_replicates(kReplicates, ctx.threads, [&](long r) {
      random::Stream rng(ctx.seed, static_cast<std::uint64_t>(r));
      const auto res = blr_replicate<double>(model, inst.batch, rng, StepSchedule<double>::theorem1(), cps, ctx.variant, bias);
      std::vector<double> kl;
      for (const auto& a : res.checkpoint_averages) kl.push_back(kl_gaussian(expectation_to_moments(a), post));
      if (!res.ok()) kl.assign(cps.size(), std::numeric_limits<double>::quiet_NaN());
      return kl;
    });
    return per_rep;
  }
  const auto per_group = parallel::run_replicate_groups(kReplicates, kNgdLanes, ctx.threads, [&](long first, long n) {
    std::vector<random::Stream> streams;
    for (long r = first; r < first + n; ++r) streams.emplace_back(ctx.seed, static_cast<std::uint64_t>(r));
    const auto res = run_ngd_minibatch_lanes(model, standard_natural<double>(model.d()), inst.batch, streams, schedule, opt, bias);
    std::vector<std::vector<double>> kls;
    for (const auto& one : res) {
      std::vector<double> kl;
      for (const auto& a : one.checkpoint_averages) kl.push_back(kl_gaussian(expectation_to_moments(a), post));
      if (!one.ok()) kl.assign(cps.size(), std::numeric_limits<double>::quiet_NaN());
      kls.push_back(std::move(kl));
    }
    return kls;
  });
  std::vector<std::vector<double>> out;
  for (const auto& g : per_group) out.insert(out.end(), g.begin(), g.end());
  return out;
}

// E KL(q_{μ̄_1} ‖ p) exactly: at T = 1 the run depends on one batch only, so the expectation is the mean
// over all n^M equally likely batches (with replacement), each run through the library's stepper,
// schedule and averager (or the context's variant of them). Returns NaN when n^M is above the
// enumeration limit or the variant changes the sampling scheme.
double exact_kl_t1(const BlrInstance& inst, const RunContext& ctx) {
  if (batch_count(inst.data.n(), inst.batch, kEnumerationLimit) < 0 ||
      sampling_for<double>(ctx.variant) != Sampling::kWithReplacement)
    return std::numeric_limits<double>::quiet_NaN();
  const auto model = make_model<double>(inst);
  const auto post = model.posterior_moments();
  MinibatchGradient<double> est(model, inst.batch);
  // ĝ of the batch set by set_indices before each run.
  FunctionEstimator fixed{[&est](long, const GaussianNatural<double>&, GaussianPair<double>& g) { est.evaluate(g); }};
  double sum = 0;
  long count = 0;
  bool failed = false;
  for_each_batch(inst.data.n(), inst.batch, kEnumerationLimit, [&](const std::vector<Index>& idx) {
    est.set_indices(idx);
    VariantEstimator<decltype(fixed), double> estimator{fixed, parts_of<double>(ctx.variant)};
    NgdStepper<double> stepper(model.prior_natural(), standard_natural<double>(model.d()));
    MeanAverage<NgdStepper<double>> avg(averaging_for<double>(ctx.variant));
    const auto schedule = schedule_for<double>(ctx.variant, StepSchedule<double>::theorem1());
    const auto res = run_trajectory(stepper, estimator, schedule, avg, RunOptions{1, true, {1}});
    if (res.failure || res.checkpoint_averages.empty()) {
      failed = true;
      return;
    }
    sum += kl_gaussian(expectation_to_moments(res.checkpoint_averages[0]), post);
    ++count;
  });
  return failed || count == 0 ? std::numeric_limits<double>::quiet_NaN() : sum / static_cast<double>(count);
}

// The averaged iterate the run reports against Theorem 1's definition μ̄_T = (2/(T(T+1))) Σ_{t=1}^T t μ_t,
// recomputed in mp50 from the iterates μ_t = ∇A(η_t) an observer saw (not from the averager).
// Returns the relative errors of the run's average against the definition and, for the control, of
// the uniform average (1/T) Σ μ_t against it (the smallest plausible change of the weights).
struct AverageCheck {
  double error = 0, uniform_error = 0, budget = 0;
  bool ok = true;
};

AverageCheck average_check(const BlrInstance& inst, const RunContext& ctx) {
  const auto model = make_model<double>(inst);
  std::vector<GaussianPair<mp50>> mus;
  random::Stream rng(ctx.seed, 9500);
  OnStep record{[&](const auto& e) { mus.push_back(data::cast_pair<mp50>(GaussianPair<double>(natural_to_expectation(e.stepper.point())))); }};
  const std::vector<long> cps{kAverageT};
  const auto res = blr_replicate<double>(model, inst.batch, rng, StepSchedule<double>::theorem1(), cps, ctx.variant, 1.0, record);
  AverageCheck out;
  if (res.failure || res.checkpoint_averages.empty() || static_cast<long>(mus.size()) != kAverageT) {
    out.ok = false;
    return out;
  }
  const mp50 T(kAverageT);
  GaussianPair<mp50> linear = mp50(0) * mus[0], uniform = mp50(0) * mus[0];
  mp50 scale(0);
  for (long t = 1; t <= kAverageT; ++t) {
    const auto& mu = mus[static_cast<std::size_t>(t - 1)];
    linear += (mp50(2 * t) / (T * (T + 1))) * mu;
    uniform += (mp50(1) / T) * mu;
    scale = std::max(scale, mp50(mu.first.cwiseAbs().maxCoeff()));
    scale = std::max(scale, mp50(mu.second.cwiseAbs().maxCoeff()));
  }
  const GaussianPair<mp50> got = data::cast_pair<mp50>(GaussianPair<double>(*res.checkpoint_averages.begin()));
  out.error = to_double(relative_pair_error<mp50>(got, linear));
  out.uniform_error = to_double(relative_pair_error<mp50>(uniform, linear));
  // Budget (derived): each of the T running updates v += w(a − v) and each moment map
  // (η ↦ (m, S + mmᵀ), through one Cholesky factor of −2η₂) rounds by a few eps relative to the
  // largest |μ_t| entry: γ_{4T+ops(d)} relative to that size, with the map's κ(S) factor bounded by
  // the size ratio max_t |μ_t| / |μ̄_T| that the relative error already carries.
  const double size_ratio = to_double(scale) / std::max(to_double(linear.first.cwiseAbs().maxCoeff()),
                                                        to_double(linear.second.cwiseAbs().maxCoeff()));
  const double kappa = spd_condition(natural_to_moments(res.last).cov);
  out.budget = to_double(rounding_budget<double>(4 * kAverageT + 8 * static_cast<long>(model.d() * model.d()), std::max(1.0, size_ratio * kappa)));
  return out;
}

std::vector<ClaimRecord> run(const RunContext& ctx) {
  std::vector<ClaimRecord> out;
  if (!ctx.wants("double")) return out;
  std::vector<long> claim_t{1, 10, 100, 1000};
  std::vector<long> fit_t{300, 500, 1000, 2000, 3000};
  if (ctx.full) {
    claim_t = {1, 10, 100, 1000, 10000};
    fit_t = {300, 500, 1000, 2000, 3000, 5000, 10000};
  }
  std::vector<long> cps = claim_t;
  cps.insert(cps.end(), fit_t.begin(), fit_t.end());
  std::sort(cps.begin(), cps.end());
  cps.erase(std::unique(cps.begin(), cps.end()), cps.end());
  for (const auto& inst : blr_instances(ctx)) {
    Stopwatch sw;
    const auto model = make_model<double>(inst);
    const auto c = blr_constants<double>(inst.data, inst.prior_cov, inst.noise_var, inst.batch);
    const double s2 = lemma3_sigma2(c);
    const auto mv = measured_sigma2(model, inst.batch, cps.back(), ctx, 9300);
    const auto kls = replicate_kls(inst, ctx, cps, 1.0);
    const double secs = sw.seconds();
    std::vector<double> fx, fy;  // (T, mean KL) on the fit window
    for (std::size_t k = 0; k < cps.size(); ++k) {
      std::vector<double> x(kls.size());
      for (std::size_t r = 0; r < kls.size(); ++r) x[r] = kls[r][k];
      double mean = mean_of(x), ucb = t_bound99(x);
      const long T = cps[k];
      // T = 1: the exact expectation by enumeration replaces the Monte Carlo bound (one-step KLs are
      // heavily skewed: at seed 13 the 99% t upper bound exceeded 4 max_t sigma_t^2/2).
      bool exact_t1 = false;
      if (T == 1) {
        const double e = exact_kl_t1(inst, ctx);
        if (!std::isnan(e)) {
          mean = ucb = e;
          exact_t1 = true;
        }
      }
      if (std::find(fit_t.begin(), fit_t.end(), T) != fit_t.end()) {
        fx.push_back(static_cast<double>(T));
        fy.push_back(mean);
      }
      if (std::find(claim_t.begin(), claim_t.end(), T) == claim_t.end()) continue;
      const double rhs = thm1_kl_bound(s2, T), rhs_m = thm1_kl_bound(mv.max_sigma2, T);
      const std::string base = exact_t1 ? "E KL exact by enumeration of all n^M batches = " + fmt(mean)
                                        : "R=" + std::to_string(kReplicates) + " mean KL " + fmt(mean) + ", 99% t-UCB " + fmt(ucb);
      out.push_back(inequality_record(kId, inst.name + "/T=" + std::to_string(T) + "/lemma3-sigma", "double", Kind::kClaim, ucb,
                                      rhs, T == claim_t.front() ? secs : 0.0, base + "; 4 sigma^2/(T+1) = " + fmt(rhs) + " " + kDerived +
                                                     "; tightness " + fmt(ucb / rhs)));
      out.push_back(inequality_record(kId, inst.name + "/T=" + std::to_string(T) + "/measured-sigma", "double", Kind::kClaim,
                                      ucb, rhs_m, 0.0,
                                      base + "; 4 max_t sigma_t^2/(T+1) = " + fmt(rhs_m) + " (" +
                                          (mv.exact ? "exact" : "99% MC") + " max_t sigma_t^2 = " + fmt(mv.max_sigma2) +
                                          "); tightness " + fmt(ucb / rhs_m)));
    }
    const double slope = stats::fit_loglog(fx, fy, static_cast<double>(fit_t.front()), static_cast<double>(fit_t.back())).slope;
    out.push_back(inequality_record(kId, inst.name + "/slope", "double", Kind::kClaim, std::abs(slope + 1.0), 0.2, 0.0,
                                    "log-log slope of mean KL vs T over T in [" + std::to_string(fit_t.front()) + ", " +
                                        std::to_string(fit_t.back()) + "] = " + fmt(slope) + " (must lie in [-1.2, -0.8])",
                                    "|slope+1|"));
    Stopwatch sw3;
    const auto avg = average_check(inst, ctx);
    if (!avg.ok) {
      ClaimRecord r = inequality_record(kId, inst.name + "/average-is-mubar/T=" + std::to_string(kAverageT), "double", Kind::kClaim,
                                        std::nan(""), avg.budget, sw3.seconds(), "the run failed or reported no average at T");
      out.push_back(r);
    } else {
      out.push_back(identity_record<double>(kId, inst.name + "/average-is-mubar/T=" + std::to_string(kAverageT), Kind::kClaim,
                                            avg.error, avg.budget, sw3.seconds(),
                                            "the run's average vs (2/(T(T+1))) sum_t t mu_t recomputed in mp50 from the iterates"));
      out.push_back(identity_record<double>(kId, inst.name + "/average-is-mubar/T=" + std::to_string(kAverageT) + "/uniform-weights",
                                            Kind::kControl, avg.uniform_error, avg.budget, 0.0,
                                            "the uniform average (1/T) sum_t mu_t of the same iterates in place of mubar_T"));
    }
    Stopwatch sw2;
    const std::vector<long> last{kControlT};
    const auto bad = replicate_kls(inst, ctx, last, 1.0 / static_cast<double>(inst.data.n()));
    std::vector<double> x;
    for (const auto& v : bad) x.push_back(v[0]);
    const double lcb = t_bound99(x, -1.0);
    out.push_back(inequality_record(kId, inst.name + "/biased-scale/T=" + std::to_string(kControlT), "double", Kind::kControl,
                                    lcb, thm1_kl_bound(mv.max_sigma2, kControlT), sw2.seconds(),
                                    "gradient scale 1/(M s2) instead of n/(M s2); lhs = 99% t lower bound of mean KL"));
  }
  return out;
}

const Registrar kReg({kId, "E KL(q_{mubar_T} || posterior) <= 4 sigma^2/(T+1) with gamma_t = 2/(t+2); log-log slope in [-1.2,-0.8]",
                      "Wu & Gardner 2024, Theorem 1, eq. (14); docs/math.md §4.5", "[D]", run});

}  // namespace
}  // namespace ngvi::claims
