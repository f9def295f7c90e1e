// DESCRIPTION
// Claim fig1.same_slope (Wu & Gardner 2024, Section 6, Figure 1, finding "both methods have the same
// log-log slope", i.e. the same O(1/T) complexity; docs/math.md §7.1, tag [R] for the finding, the
// instance, window, tolerance and SGD constants the kit's): on Bayesian linear regression the
// least-squares log-log slopes of mean KL(q_t ‖ posterior) against t over the fixed window
// t ∈ {500, 1000, 2000, 3000} agree to within kTolerance = 0.1 for stochastic NGD (Theorem 1's
// average μ̄_t, γ_t = 2/(t+2)) and the SGD baseline on (m, L) (optim/sgd_mL.hpp, γ_t = c/(t + t₀),
// c·μ_H = 2, t₀ = 2L_H/μ_H). Double only.
// Why a tolerance: on a finite window the slopes are not exactly equal. Over suite seeds 1000..1395
// (each its own data set, R = 160) the difference Δ = s_NGD − s_SGD averaged −0.038 (standard error
// 0.004; NGD −1.026, SGD −0.988), and Δ/se had mean −0.49 and sd 0.99 (no spread between data sets
// beyond the replicates'). The earlier record, "the 1 − α interval covers 0" at α = 4·10⁻⁴, thus
// failed at about 1.1·10⁻³ (normal reading of those moments), not α; it failed at random suite seed
// 852552591 (z = 3.72). kTolerance = 0.1 is about 3× the measured pre-asymptotic difference and a
// fifth of 0.5, the slope difference between O(1/T) and O(1/√T).
// Quick instance: synthetic, n = 100, d = 3, feature covariance condition 10, M = 5, s_e² = 1/2,
// prior and q₀ N(0, I); R = 256 independent replicates per method (streams (seed, 43000 + r) for NGD,
// (seed, 44000 + r) for SGD). The KL is closed form against the posterior.
// Records:
// * within-tolerance (level α = kLevel): Δ with its delta-method standard error (se² = se_NGD² +
//   se_SGD², independent replicates; each se from the replicates' linearised slope Σ_k w_k KL_rk/m_k,
//   w the least-squares weights, m_k the means); broken iff the two-sided 1−α interval Δ ± z_{1−α/2}·se
//   lies outside [−τ, τ], i.e. |Δ| > τ + z_{1−α/2}·se (significant evidence that the slopes differ by
//   more than τ). Level: if |Δ_true| ≤ τ, either way of breaking implies |Δ − Δ_true| > z_{1−α/2}·se,
//   so P(broken) ≤ α (to the normal approximation of Δ).
// * power (no level): (z_{1−α/2} + z_{0.9})·se ≤ kPowerDiff − τ, i.e. a difference of slopes
//   |Δ| ≥ kPowerDiff = 0.5 is detected with probability ≥ 0.9.
// Negative control: the NGD gradient biased by the scale 1 + δ (the unbiasedness premise of both rates
// violated). The average then converges to the tempered point η_p + (1+δ)∇_μE_qℓ, whose KL to the
// posterior, KL_∞(δ), is closed form; the mean KL flattens to KL_∞ and the slope over the window rises.
// δ is solved (bisection on the closed form) so that KL_∞ = kControlExcess × the claim run's NGD
// mean KL at the window's end; the excess from which the record breaks was measured on seeds 1..50
// (docs/math.md §7.1).
// Against a conjugate-ngd implementation (protocols/conjugate_ngd.hpp, double): its NGD runs in place
// of the library's through blr_replicate (the same batches from the same streams; its own schedule,
// estimate and, when it keeps one, average), one replicate after another; the SGD baseline is the
// kit's. The control's scale 1 + δ reaches it as the noise variance σ²/(1 + δ) it is handed
// (blr_problem), a re-run under the violated premise. About a million step calls in quick mode.
#include "fig_common.hpp"

namespace ngvi::claims {
namespace { namespace NGVI_UNITY_ID {

constexpr const char* kId = "fig1.same_slope";
constexpr long kReplicates = 256;
// The control reruns NGD only, on fewer replicates (it is broken by a wide margin).
constexpr long kControlReplicates = 80;
constexpr double kLevel = 4e-4;
constexpr double kPowerDiff = 0.5;
// The slopes "agree" when they differ by at most this (see the description).
constexpr double kTolerance = 0.1;
constexpr double kControlExcess = 4.0;
// Measured (throwaway runs at other excesses, seeds 1..50, the within-tolerance record): broken on
// 0/50 seeds at 0.5x, 11/50 at 1x, 49/50 at 2x, 50/50 at 3x (at 4x the smallest lhs/rhs over seeds
// 1..150 was 1.46).
constexpr double kControlExcessMin = 2.0;

const std::vector<long> kWindow{500, 1000, 2000, 3000};

struct Diff {
  SlopeFit ngd, sgd;
  double delta = 0, se = 0;
};
Diff slope_difference(const LossTable& ngd, const LossTable& sgd) {
  Diff d;
  d.ngd = window_slope_fit(ngd, kWindow);
  d.sgd = window_slope_fit(sgd, kWindow);
  d.delta = d.ngd.slope - d.sgd.slope;
  d.se = std::sqrt(d.ngd.se * d.ngd.se + d.sgd.se * d.sgd.se);
  return d;
}

std::string describe(const Diff& d) {
  return "slopes over t in {500,1000,2000,3000}: ngd " + fmt(d.ngd.slope) + " (se " + fmt(d.ngd.se) + "), sgd " + fmt(d.sgd.slope) +
         " (se " + fmt(d.sgd.se) + "); difference " + fmt(d.delta) + " (se " + fmt(d.se) + ", R=" + std::to_string(kReplicates) +
         " each)";
}

std::vector<ClaimRecord> run(const RunContext& ctx) {
  std::vector<ClaimRecord> out;
  if (!ctx.wants("double")) return out;
  const auto inst = fig1_instance(ctx, 10.0);
  const auto model = make_model<double>(inst);
  Stopwatch sw;
  const auto ngd = ngd_average_kls(model, inst.batch, kReplicates, ctx.seed, 43000, StepSchedule<double>::theorem1(), kWindow,
                                   ctx.variant(), ctx.threads);
  const auto sgd = sgd_kls(model, inst.batch, kReplicates, ctx.seed, 44000, sgd_baseline_schedule(model), kWindow, kFig1Clamp,
                           ctx.threads);
  const auto d = slope_difference(ngd, sgd);
  const double z = stats::normal_quantile<double>(1.0 - kLevel / 2), z9 = stats::normal_quantile<double>(0.9);
  ClaimRecord r = inequality_record(kId, inst.name + "/within-tolerance", "double", Kind::kClaim, std::abs(d.delta),
                                    kTolerance + z * d.se, sw.seconds(),
                                    describe(d) + "; holds iff the " + fmt(100 * (1 - kLevel)) + "% interval [" +
                                        fmt(d.delta - z * d.se) + ", " + fmt(d.delta + z * d.se) + "] meets [-" + fmt(kTolerance) +
                                        ", " + fmt(kTolerance) + "] (tolerance: the finite window's difference of slopes); power: a difference " +
                                        fmt(kTolerance + (z + z9) * d.se) + " is detected with probability >= 0.9",
                                    "|slope diff|");
  r.level = kLevel;
  out.push_back(std::move(r));
  out.push_back(inequality_record(kId, inst.name + "/power", "double", Kind::kClaim, (z + z9) * d.se, kPowerDiff - kTolerance, 0.0,
                                  "(z_{1-alpha/2} + z_0.9) se <= " + fmt(kPowerDiff) + " - " + fmt(kTolerance) +
                                      " <=> a slope difference of " + fmt(kPowerDiff) +
                                      " is detected with probability >= 0.9 (the check's power)",
                                  "|slope diff|"));
  // Control: NGD's gradient biased by 1 + δ.
  Stopwatch sw2;
  const double end_kl = mean_of(column(ngd, kWindow.size() - 1));
  const double delta = bias_for_kl(model, kControlExcess * end_kl);
  const auto biased = ngd_average_kls(model, inst.batch, kControlReplicates, ctx.seed, 43000, StepSchedule<double>::theorem1(), kWindow,
                                      ctx.variant(), ctx.threads, 1.0 + delta);
  const auto dc = slope_difference(biased, sgd);
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "violation: gradient scale 1 + delta, delta = %.3g (limit KL %.3g x the NGD mean KL at t = 3000); breaks from %.3g x "
                "(measured)",
                delta, kControlExcess, kControlExcessMin);
  out.push_back(inequality_record(kId, inst.name + "/within-tolerance/ngd-biased-scale", "double", Kind::kControl, std::abs(dc.delta),
                                  kTolerance + z * dc.se,
                                  sw2.seconds(), std::string(buf) + "; " + describe(dc), "|slope diff|"));
  return out;
}

const Registrar kReg({kId, "Figure 1: NGD (Theorem 1 average) and SGD on (m, L) have the same log-log slope of mean KL over t in [500, 3000], within 0.1; double only",
                      "Wu & Gardner 2024, Section 6, Figure 1; docs/math.md §7.1", "[R]", run,
                      CostHint{0.4, 0.6}, {protocols::kConjugateNgd}});

}}  // namespace
}  // namespace ngvi::claims
