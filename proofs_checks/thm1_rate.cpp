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
// count irrelevant).
// Verdict (a level-α test of the claim, α = kRecordLevel per record): a Monte Carlo record is broken
// when the one-sided lower Student-t bound mean − t_{1−α,R−1}·s/√R exceeds the bound, i.e. when the
// replicates are significant evidence that E KL is above it; lhs is that lower bound. KL is
// right-skewed, and for right-skewed replicates the sample mean and standard deviation are
// positively correlated, so the t statistic is left-skewed and P(t > t_{1−α}) ≤ α: the lower
// t-bound errs on the safe side for this test (docs/math.md §4.5). The note gives the 99% upper
// bound as well, and the power: E KL ≥ bound + (t_{1−α} + z_{0.9})·se is detected with
// probability ≥ 0.9.
// Also a claim: the least-squares log-log slope of the mean KL against T over the window T ∈ [300,
// 3000] (quick; [300, 10000] full), fixed in advance where the O(1/T) variance term dominates the
// faster-decaying transient of the averaged iterate, is compatible with [−1.2, −0.8]: its two-sided
// 1−α interval slope ± z_{1−α/2}·se (se by the delta method from the replicates' covariance of the
// KL means across T) meets the band.
// At T = 1 the expectation is exact when n^M ≤ kEnumerationLimit (the mean over all batches, each
// through the library's stepper): no draw, no level.
// The average itself is thm1.average's to check (the definition of μ̄_T, in about a hundred steps).
// Also (T = 10, 100, 1000) with σ² = lemma3.certified_sigma's interval-certified sup of σ_t² over the
// reachable hull (bounds/certified_sigma.hpp, docs/math.md §5.4): ".../certified-sigma", same lhs as
// ".../measured-sigma" and a larger rhs, so it adds no false-alarm probability (level 0).
// Also (T = 10, 100, 1000, every instance) Theorem 1's expected-variance form (14') (docs/math.md
// §4.5): E KL ≤ 4σ̄²_T/(T+1), σ̄²_T = (1/(2T)) Σ_{t<T} c_t E σ²(η_t) ≤ sup_{t<T} E σ²(η_t), with
// E σ²(η_t) estimated without bias from each run's own steps and the claim tested as one paired mean
// ("/expected-sigma"); its control scales ĝ down by 1 − δ.
// The σ² of the other records are labelled as what they are: Lemma 3's and the certified one are
// valid and vacuous; the measured one is informative and not valid (one reference trajectory).
// Negative control: an estimator biased by the scale factor 1 + δ (both components of ĝ of eq. (15)),
// which breaks the hypothesis of an unbiased ĝ. The iterates then converge to the tempered posterior
// η_p + (1 + δ)·∇_μE_qℓ, whose KL to the posterior is closed form; δ is solved for (bisection on
// that closed form) so that this KL is kControlExcess times the measured-σ bound at T = 1000, and the
// record reports δ_min, where the KL equals the bound: the smallest bias the claim can see there.
#include <string>
#include <tuple>

#include "ngvi/claims/blr_common.hpp"
#include "certified_sigma_common.hpp"
#include "ngvi/data/synthetic.hpp"
#include "ngvi/optim/ngd_lanes.hpp"
#include "ngvi/stats/normal.hpp"
#include "ngvi/stats/student_t.hpp"

namespace ngvi::claims {
namespace { namespace NGVI_UNITY_ID {

constexpr const char* kId = "thm1.rate";
constexpr long kReplicates = 200;
// The biased control is evaluated at T = 1000 (in both modes): its KL has converged to the wrong
// limit long before, so a longer run would add cost, not evidence.
constexpr long kControlT = 1000;
// False-alarm level of each Monte Carlo record (the suite's 1% family-wise budget, docs/math.md
// §4.5: 14 records of this claim at 2e-4 each).
constexpr double kRecordLevel = 2e-4;
// The claim's share of the full suite's budget: 14 × kRecordLevel. Full mode (more instances and T)
// splits it over an upper bound of its level-carrying records, 2|claim_t| + 1 + 3 per instance
// (lemma3-sigma and measured-sigma per T, the slope, the three expected-sigma records), so the full
// suite's sum stays within the 1% (at 2e-4 per record the full mode's 66 records alone would take
// 1.3%). Quick mode spends kRecordLevel on each of its 20 (docs/math.md §8.1).
constexpr double kClaimShare = 14 * kRecordLevel;
// The control's bias is chosen so that the limit's KL is this multiple of the bound (breaks from 1).
constexpr double kControlExcess = 2.0;
// The expected-sigma control scales ĝ down, by 1 − δ: its σ² is measured on the biased runs' own
// steps, and an estimator scaled up by 1 + δ also scales its noise up, which raised σ̄²_T ~5x on
// diabetes at the δ ≈ 4 needed there and left the control holding. Scaled down, the noise shrinks
// with the scale while the tempered limit η_p + (1 − δ)∇ℓ moves away from the posterior.
constexpr double kExpectedControlExcess = 2.0;

// Level-α test of E X ≤ rhs from replicates x: the lower bound mean − t_{1−α,R−1}·se.
double lower_bound(const std::vector<double>& x, double level) {
  return stats::t_confidence_bound(x, 1.0 - level, stats::Side::kLower);
}

// The smallest excess over rhs that the test detects with probability ≥ 0.9.
double detectable_excess(const std::vector<double>& x, double level) {
  const auto me = stats::mean_and_error(x);
  return (stats::student_t_quantile<double>(me.count - 1, 1.0 - level) + stats::normal_quantile<double>(0.9)) * me.std_error;
}

// The slope of log(mean KL) on log T over the window and its standard error by the delta method:
// slope = Σ_k w_k log m_k with least-squares weights w_k, so Var = Σ_jk w_j w_k C_jk /(R m_j m_k),
// C the replicates' covariance of the KLs at the window's T.
struct SlopeEstimate {
  double slope = 0, se = 0;
};
SlopeEstimate window_slope(const std::vector<std::vector<double>>& kls, const std::vector<std::size_t>& cols,
                           const std::vector<double>& ts) {
  const std::size_t k = cols.size();
  const double R = static_cast<double>(kls.size());
  std::vector<double> u(k), m(k, 0.0), w(k);
  double ubar = 0;
  for (std::size_t j = 0; j < k; ++j) {
    u[j] = std::log(ts[j]);
    ubar += u[j] / static_cast<double>(k);
    for (const auto& rep : kls) m[j] += rep[cols[j]] / R;
  }
  double suu = 0;
  for (std::size_t j = 0; j < k; ++j) suu += (u[j] - ubar) * (u[j] - ubar);
  SlopeEstimate out;
  for (std::size_t j = 0; j < k; ++j) {
    w[j] = (u[j] - ubar) / suu;
    out.slope += w[j] * std::log(m[j]);
  }
  double var = 0;
  for (std::size_t a = 0; a < k; ++a)
    for (std::size_t b = 0; b < k; ++b) {
      double c = 0;
      for (const auto& rep : kls) c += (rep[cols[a]] - m[a]) * (rep[cols[b]] - m[b]);
      c /= R - 1;
      var += w[a] * w[b] * c / (R * m[a] * m[b]);
    }
  out.se = std::sqrt(var);
  return out;
}

// Whether the claim runs the algorithm one replicate at a time (blr_replicate) rather than in the
// library's lanes (optim/ngd_lanes.hpp): a variant of the estimator, the averager or the update's prior
// term, or an implementation given as a value. Replicate r draws from Stream(seed, r) either way.
bool one_replicate_route(const RunContext& ctx) {
  return changes_estimator<double>(ctx.variant()) || averaging_for<double>(ctx.variant()) != AverageWeights::kLinear ||
         conjugate_ngd_for<double>(ctx.variant()) != nullptr || replaces<double>(ctx.variant(), kPartPrior);
}

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
  const auto schedule = schedule_for<double>(ctx.variant(), StepSchedule<double>::theorem1());
  if (one_replicate_route(ctx)) {
    // A variant of the estimator, the averager or the update's prior term, or an implementation
    // given as a value: the one-replicate route, replicate r on Stream(seed, r).
    const auto per_rep = parallel::run_replicates(kReplicates, ctx.threads, [&](long r) {
      random::Stream rng(ctx.seed, static_cast<std::uint64_t>(r));
      const auto res = blr_replicate<double>(model, inst.batch, rng, StepSchedule<double>::theorem1(), cps, ctx.variant(), bias);
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
      sampling_for<double>(ctx.variant()) != Sampling::kWithReplacement)
    return std::numeric_limits<double>::quiet_NaN();
  const auto model = make_model<double>(inst);
  const auto post = model.posterior_moments();
  double sum = 0;
  long count = 0;
  bool failed = false;
  for_each_batch(inst.data.n(), inst.batch, kEnumerationLimit, [&](const std::vector<Index>& idx) {
    // One step on the batch idx, through the algorithm under test (blr_run: the library's, the
    // variant's or an implementation's).
    const auto set = [&idx](long, MinibatchGradient<double>& e) { e.set_indices(idx); };
    const auto res = blr_run(model, inst.batch, set, StepSchedule<double>::theorem1(), ctx.variant(), 1.0,
                             Sampling::kWithReplacement, averaging_for<double>(ctx.variant()), RunOptions{1, true, {1}});
    if (res.failure || res.checkpoint_averages.empty()) {
      failed = true;
      return;
    }
    sum += kl_gaussian(expectation_to_moments(res.checkpoint_averages[0]), post);
    ++count;
  });
  return failed || count == 0 ? std::numeric_limits<double>::quiet_NaN() : sum / static_cast<double>(count);
}

// Theorem 1 in its expected-variance form (docs/math.md §4.5): the proof takes the total expectation of
// step 3, so σ_t² enters as E σ²(η_t), the variance at the iterates averaged over the runs, and steps
// 4–6 give E KL(q_{μ̄_T} ‖ p) ≤ 4σ̄²_T/(T+1) with σ̄²_T = (1/(2T)) Σ_{t<T} c_t E σ²(η_t),
// c_t = 2(t+1)/(t+2), and σ̄²_T ≤ sup_{t<T} E σ²(η_t). An unbiased estimate of E σ²(η_t) from one run
// is its own step: s_t = [KL(q_{t+1} ‖ q̃_{t+1}) + KL(q̃_{t+1} ‖ q_{t+1})]/γ_t², q_{t+1} the run's next
// iterate and q̃_{t+1} the exact-gradient step (1 − γ_t)η_t + γ_tη* from the same η_t, η* the
// posterior's natural parameter and γ_t = 2/(t+2) the claim's schedule. Given η_t the run's batch is a
// draw of eq. (15)'s distribution, so E_t s_t = σ²(η_t) (§4.2's symmetrised-KL form) and
// E s_t = E σ²(η_t).
constexpr long kExpectedT[] = {10, 100, 1000};

struct ExpectedRun {
  std::vector<double> kl;  ///< KL(q_{μ̄_T} ‖ p) at each checkpoint the runs were asked for (⊇ kExpectedT)
  std::vector<double> s;   ///< s_t, t = 0..max kExpectedT − 1
};
auto serial_fields(ExpectedRun& r) { return std::tie(r.kl, r.s); }  // replicates may run in other processes

// The runs of the expected-variance form: replicate r on Stream(seed, r), its KLs at the checkpoints
// cps (sorted, ⊇ kExpectedT; by default kExpectedT) and its s_t for t < max kExpectedT. On the
// one-replicate route the claim's other records take their KLs from these same runs (cps then the
// claim's checkpoints): an implementation's steps are its cost, and a run with more checkpoints draws
// the same batches (the stream is read by the steps only), so the records are those of separate runs.
std::vector<ExpectedRun> expected_sigma_runs(const BlrInstance& inst, const RunContext& ctx, double scale,
                                             std::vector<long> cps = {std::begin(kExpectedT), std::end(kExpectedT)}) {
  const auto model = make_model<double>(inst);
  const auto post = model.posterior_moments();
  const GaussianNatural<double> star = model.posterior_natural();
  const long steps = kExpectedT[std::size(kExpectedT) - 1];
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Replicate r on Stream(seed, r), the streams of the other records: results independent of the
  // thread count.
  return parallel::run_replicates(kReplicates, ctx.threads, [&](long r) {
    random::Stream rng(ctx.seed, static_cast<std::uint64_t>(r));
    ExpectedRun out;
    out.s.reserve(static_cast<std::size_t>(steps));
    GaussianNatural<double> prev = standard_natural<double>(model.d());  // q₀ = N(0, I), every run's start
    OnStep step{[&](const auto& e) {
      if (e.t >= steps) return;  // past the expected-variance form's last T: the KLs' checkpoints only
      const double g = 2.0 / (static_cast<double>(e.t) + 2.0);
      GaussianNatural<double> exact = prev, toward = star;
      exact *= 1.0 - g;
      toward *= g;
      exact += toward;
      const GaussianNatural<double>& next = e.stepper.point();
      try {
        // KL(a‖b) + KL(b‖a) = ⟨η_a − η_b, μ_a − μ_b⟩ (the log-partitions cancel; docs/math.md §4.5):
        // one factorisation per iterate, and no difference of O(1) log-determinants for an O(γ²) sum.
        const GaussianPair<double> dmu = natural_to_expectation(next) - natural_to_expectation(exact);
        const GaussianPair<double> deta = next - exact;
        out.s.push_back(pairing(deta, dmu) / (g * g));
      } catch (const std::domain_error&) {
        out.s.push_back(nan);  // an iterate outside Ω: the records say NaN, an error
      }
      prev = next;
    }};
    const auto res = blr_replicate<double>(model, inst.batch, rng, StepSchedule<double>::theorem1(), cps, ctx.variant(), scale, step);
    for (const auto& a : res.checkpoint_averages) out.kl.push_back(kl_gaussian(expectation_to_moments(a), post));
    if (!res.ok() || out.kl.size() != cps.size() || static_cast<long>(out.s.size()) != steps) {
      out.kl.assign(cps.size(), nan);
      out.s.assign(static_cast<std::size_t>(steps), nan);
    }
    return out;
  });
}

// The paired test of E KL ≤ E B_T, B_T = 4σ̂²_T/(T+1) with σ̂²_T = (1/(2T)) Σ_{t<T} c_t s_t of the same
// run (an unbiased estimate of σ̄²_T): D = KL − B per run, broken iff mean D > t_{1−α,R−1}·se(D). As a
// record: lhs = mean KL, rhs = mean B + t_{1−α}·se(D) (so tightness = mean KL over the bound's upper
// confidence value).
struct ExpectedSigmaTest {
  double mean_kl = 0, mean_b = 0, sigma2 = 0, sup_sigma2 = 0, allowance = 0, power = 0;
};

// k: the index of T in kExpectedT; column: the index of T in the runs' checkpoints.
ExpectedSigmaTest expected_sigma_test(const std::vector<ExpectedRun>& runs, std::size_t k, std::size_t column, double level) {
  const long T = kExpectedT[k];
  std::vector<double> d, kl, b;
  for (const auto& run : runs) {
    double sum = 0;
    for (long t = 0; t < T; ++t) sum += 2.0 * static_cast<double>(t + 1) / static_cast<double>(t + 2) * run.s[static_cast<std::size_t>(t)];
    const double sigma2 = sum / (2.0 * static_cast<double>(T));
    kl.push_back(run.kl[column]);
    b.push_back(thm1_kl_bound(sigma2, T));
    d.push_back(kl.back() - b.back());
  }
  ExpectedSigmaTest out;
  out.mean_kl = mean_of(kl);
  out.mean_b = mean_of(b);
  out.sigma2 = out.mean_b * static_cast<double>(T + 1) / 4.0;
  // The point estimate of sup_{t<T} E σ²(η_t): the largest per-t mean over the runs.
  out.sup_sigma2 = 0;
  for (long t = 0; t < T; ++t) {
    double m = 0;
    for (const auto& run : runs) m += run.s[static_cast<std::size_t>(t)] / static_cast<double>(runs.size());
    out.sup_sigma2 = std::max(out.sup_sigma2, m);
  }
  const auto me = stats::mean_and_error(d);
  out.allowance = stats::student_t_quantile<double>(me.count - 1, 1.0 - level) * me.std_error;
  out.power = detectable_excess(d, level);
  return out;
}

ClaimRecord expected_sigma_record(const std::string& instance, Kind kind, const ExpectedSigmaTest& e, double level,
                                  double secs, const std::string& prefix) {
  ClaimRecord r = inequality_record(
      kId, instance, "double", kind, e.mean_kl, e.mean_b + e.allowance, secs,
      prefix + "R=" + std::to_string(kReplicates) + " runs; lhs = mean KL(q_mubar_T || p) = " + fmt(e.mean_kl) +
          "; rhs = mean of 4 sigma2hat_T/(T+1) = " + fmt(e.mean_b) + " plus t_{1-a}*se(KL - B) = " + fmt(e.allowance) +
          " (broken iff the paired test at level " + fmt(level) + " finds E KL > 4 sigmabar_T^2/(T+1)); sigmabar_T^2 = (1/(2T)) sum_{t<T} 2(t+1)/(t+2) E sigma^2(eta_t), estimated " +
          fmt(e.sigma2) + " from each run's own steps (docs/math.md §4.5), <= sup_{t<T} E sigma^2(eta_t), estimated " +
          fmt(e.sup_sigma2) + " (largest per-t mean); mean KL / mean bound = " + fmt(e.mean_kl / e.mean_b) +
          "; power: E KL >= E B + " + fmt(e.power) + " is detected with probability >= 0.9");
  if (kind == Kind::kClaim) r.level = level;
  return r;
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
  cps.insert(cps.end(), std::begin(kExpectedT), std::end(kExpectedT));  // already in claim_t; the shared runs need them
  std::sort(cps.begin(), cps.end());
  cps.erase(std::unique(cps.begin(), cps.end()), cps.end());
  const auto instances = blr_instances(ctx);
  // Full mode: the claim's share over its level-carrying records per instance, lemma3-sigma and
  // measured-sigma per T, the slope and the expected-sigma records.
  const std::size_t n_expected = std::size(kExpectedT);
  const double level =
      ctx.full ? kClaimShare / static_cast<double>(instances.size() * (2 * claim_t.size() + 1 + n_expected)) : kRecordLevel;
  for (const auto& inst : instances) {
    Stopwatch sw;
    const auto model = make_model<double>(inst);
    const auto c = blr_constants<double>(inst.data, inst.prior_cov, inst.noise_var, inst.batch);
    const double s2 = lemma3_sigma2(c);
    const double s2_cert = certified_sigma2_upper(inst);  // lemma3.certified_sigma's interval-certified sup
    const auto mv = measured_sigma2(model, inst.batch, cps.back(), ctx, 9300);
    // On the one-replicate route (an implementation's steps are the claim's cost) the expected-variance
    // form's runs are these runs, with their s_t observed; on the library's lanes they are separate.
    const bool shared_runs = one_replicate_route(ctx);
    std::vector<ExpectedRun> runs;
    std::vector<std::vector<double>> kls;
    if (shared_runs) {
      runs = expected_sigma_runs(inst, ctx, 1.0, cps);
      for (const auto& run : runs) kls.push_back(run.kl);
    } else {
      kls = replicate_kls(inst, ctx, cps, 1.0);
    }
    const double secs = sw.seconds();
    std::vector<double> fx;            // the fit window's T
    std::vector<std::size_t> fcols;    // and their columns in kls
    for (std::size_t k = 0; k < cps.size(); ++k) {
      std::vector<double> x(kls.size());
      for (std::size_t r = 0; r < kls.size(); ++r) x[r] = kls[r][k];
      double mean = mean_of(x), ucb = t_bound99(x), lcb = lower_bound(x, level), power = detectable_excess(x, level);
      const long T = cps[k];
      // T = 1: the exact expectation by enumeration replaces the Monte Carlo bound (one-step KLs are
      // heavily skewed: at seed 13 the 99% t upper bound exceeded 4 max_t sigma_t^2/2).
      bool exact_t1 = false;
      if (T == 1) {
        const double e = exact_kl_t1(inst, ctx);
        if (!std::isnan(e)) {
          mean = ucb = lcb = e;
          exact_t1 = true;
        }
      }
      if (std::find(fit_t.begin(), fit_t.end(), T) != fit_t.end()) {
        fx.push_back(static_cast<double>(T));
        fcols.push_back(k);
      }
      if (std::find(claim_t.begin(), claim_t.end(), T) == claim_t.end()) continue;
      const double rhs = thm1_kl_bound(s2, T), rhs_m = thm1_kl_bound(mv.max_sigma2, T);
      const std::string base =
          exact_t1 ? "E KL exact by enumeration of all n^M batches = " + fmt(mean)
                   : "R=" + std::to_string(kReplicates) + " mean KL " + fmt(mean) + ", 99% t-UCB " + fmt(ucb) +
                         "; lhs = lower t-bound at level " + fmt(level) + " (broken iff significant evidence E KL > rhs)";
      auto power_note = [&](double bound) {
        return exact_t1 ? std::string()
                        : "; power: E KL >= " + fmt(bound + power) + " (bound + " + fmt(power) + ") is detected with probability >= 0.9";
      };
      ClaimRecord r3 = inequality_record(kId, inst.name + "/T=" + std::to_string(T) + "/lemma3-sigma", "double", Kind::kClaim, lcb,
                                         rhs, T == claim_t.front() ? secs : 0.0,
                                         base + "; 4 sigma^2/(T+1) = " + fmt(rhs) + " " + kDerived + power_note(rhs));
      ClaimRecord rm = inequality_record(kId, inst.name + "/T=" + std::to_string(T) + "/measured-sigma", "double", Kind::kClaim,
                                         lcb, rhs_m, 0.0,
                                         base + "; 4 max_t sigma_t^2/(T+1) = " + fmt(rhs_m) + " (" +
                                             (mv.exact ? "exact" : "99% MC") + " max_t sigma_t^2 = " + fmt(mv.max_sigma2) +
                                             " over a grid of one reference trajectory's states: informative, not a valid sigma^2 "
                                             "for the theorem; .../expected-sigma is the valid form)" +
                                             power_note(rhs_m));
      if (!exact_t1) r3.level = rm.level = level;
      out.push_back(std::move(r3));
      out.push_back(std::move(rm));
      if (T == 10 || T == 100 || T == 1000) {
        // σ² = the certified sup of σ_t² over the reachable hull (lemma3.certified_sigma, docs/math.md §5.4):
        // a valid σ² for Assumption 1 (iii), unlike the measured one. Same lhs as .../measured-sigma,
        // and rhs ≥ that record's, so its false alarm {lcb > rhs} lies inside {lcb > E KL}, the event
        // .../measured-sigma already counts at level α: it adds 0 to the suite's sum.
        const double rhs_c = thm1_kl_bound(s2_cert, T);
        ClaimRecord rc = inequality_record(kId, inst.name + "/T=" + std::to_string(T) + "/certified-sigma", "double", Kind::kClaim,
                                           lcb, rhs_c, 0.0,
                                           base + "; 4 sigma^2_cert/(T+1) = " + fmt(rhs_c) + ", sigma^2_cert = " + fmt(s2_cert) +
                                               " (interval-certified sup over the reachable hull) " + kDerived + power_note(rhs_c) +
                                               "; level 0 added: its false alarm implies lcb > E KL, counted by .../measured-sigma");
        if (!exact_t1) rc.level = 0.0;
        out.push_back(std::move(rc));
      }
    }
    // The slope over the window fixed in advance, with its two-sided 1−α interval; the record holds
    // when the interval meets [−1.2, −0.8], i.e. |slope + 1| < 0.2 + z_{1−α/2}·se.
    const auto sl = window_slope(kls, fcols, fx);
    const double zc = stats::normal_quantile<double>(1.0 - level / 2);
    ClaimRecord rs = inequality_record(
        kId, inst.name + "/slope", "double", Kind::kClaim, std::abs(sl.slope + 1.0), 0.2 + zc * sl.se, 0.0,
        "log-log slope of mean KL vs T over the fixed window T in [" + std::to_string(fit_t.front()) + ", " +
            std::to_string(fit_t.back()) + "] = " + fmt(sl.slope) + ", se " + fmt(sl.se) + " (delta method, R=" +
            std::to_string(kReplicates) + "); holds iff the " + fmt(100 * (1 - level)) + "% interval [" +
            fmt(sl.slope - zc * sl.se) + ", " + fmt(sl.slope + zc * sl.se) + "] meets [-1.2, -0.8]; power: a slope " +
            fmt(0.2 + (zc + stats::normal_quantile<double>(0.9)) * sl.se) + " from -1 is detected with probability >= 0.9",
        "|slope+1|");
    rs.level = level;
    out.push_back(std::move(rs));
    // The expected-variance form at T = 10, 100, 1000, and its control: the same biased estimator as
    // .../biased-scale, its scale solved so that the limit's KL is kControlExcess times the unbiased
    // runs' mean bound at T = 1000 (δ_min: the limit's KL equal to it).
    {
      Stopwatch swe;
      if (!shared_runs) runs = expected_sigma_runs(inst, ctx, 1.0);
      const double secs_e = swe.seconds();
      // The column of each T of kExpectedT in the runs' checkpoints (cps when shared, else kExpectedT).
      auto column = [&](std::size_t k) {
        return shared_runs ? static_cast<std::size_t>(std::find(cps.begin(), cps.end(), kExpectedT[k]) - cps.begin()) : k;
      };
      double bound_1000 = 0;
      for (std::size_t k = 0; k < n_expected; ++k) {
        const auto e = expected_sigma_test(runs, k, column(k), level);
        bound_1000 = e.mean_b;
        out.push_back(expected_sigma_record(inst.name + "/T=" + std::to_string(kExpectedT[k]) + "/expected-sigma", Kind::kClaim, e,
                                            level, k == 0 ? secs_e : 0.0, ""));
      }
      Stopwatch swc;
      const double delta = deficit_for_kl(model, kExpectedControlExcess * bound_1000), delta_min = deficit_for_kl(model, bound_1000);
      const std::string control_name =
          inst.name + "/biased-scale/T=" + std::to_string(kExpectedT[n_expected - 1]) + "/expected-sigma";
      if (std::isnan(delta)) {
        // Not the library's case on any instance: a bound so large (an algorithm whose steps are far
        // from Theorem 1's, e.g. on another schedule) that even the prior is within 2x of it.
        out.push_back(skipped_record(kId, control_name, "double", Kind::kControl,
                                     "no gradient scale 1-delta, delta in (0,1), puts the tempered limit at KL " +
                                         fmt(kExpectedControlExcess) + "x the mean bound " + fmt(bound_1000) +
                                         ": even the prior is within it"));
      } else {
        const auto bad = expected_sigma_runs(inst, ctx, 1.0 - delta);
        const auto e = expected_sigma_test(bad, n_expected - 1, n_expected - 1, level);
        out.push_back(expected_sigma_record(control_name, Kind::kControl, e, level, swc.seconds(),
                                            "violation: gradient scale 1-delta (a biased g), delta = " + fmt(delta) +
                                                " (the limit's KL is " + fmt(kExpectedControlExcess) +
                                                "x the unbiased runs' mean bound); breaks from delta_min = " + fmt(delta_min) +
                                                " (the limit's KL equals it; derived); sigma^2 measured on the biased runs' own steps; "));
      }
    }
    Stopwatch sw2;
    const std::vector<long> last{kControlT};
    const double bound_c = thm1_kl_bound(mv.max_sigma2, kControlT);
    const double delta = bias_for_kl(model, kControlExcess * bound_c), delta_min = bias_for_kl(model, bound_c);
    const auto bad = replicate_kls(inst, ctx, last, 1.0 + delta);
    std::vector<double> x;
    for (const auto& v : bad) x.push_back(v[0]);
    out.push_back(inequality_record(kId, inst.name + "/biased-scale/T=" + std::to_string(kControlT), "double", Kind::kControl,
                                    lower_bound(x, level), bound_c, sw2.seconds(),
                                    "violation: gradient scale 1+delta (a biased g), delta = " + fmt(delta) +
                                        " (the limit's KL is " + fmt(kControlExcess) + "x the bound); breaks from delta_min = " +
                                        fmt(delta_min) + " (the limit's KL equals the bound; derived); lhs = lower t-bound at level " +
                                        fmt(level)));
  }
  return out;
}

const Registrar kReg({kId, "E KL(q_{mubar_T} || posterior) <= 4 sigma^2/(T+1) with gamma_t = 2/(t+2); log-log slope in [-1.2,-0.8]",
                      "Wu & Gardner 2024, Theorem 1, eq. (14); docs/math.md §4.5", "[D]", run,
                      CostHint{0.08, 4.6}, {protocols::kConjugateNgd}});

}}  // namespace
}  // namespace ngvi::claims
