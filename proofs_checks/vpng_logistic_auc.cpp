// DESCRIPTION
// Claim vpng.logistic_auc (Tang & Ranganath 2019, slides "Bayesian Logistic regression AUC"; the
// finding is theirs, the generator, instances and thresholds the kit's: tag [D], docs/systems.md D.4,
// D.5 item 4): on correlated logistic regression from the kit's generator
// (data/correlated_logistic.hpp; the slides' generator was not recoverable), with a mean-field
// Gaussian q and a fixed iteration budget, VPNG's posterior-mean test AUC falls short of the AUC of
// the mean-field optimum by at most 0.01 on average over the seeds (a seed where VPNG is above the
// optimum counts as no shortfall), and the q-Fisher NG and the plain gradient each end at least 0.1
// below VPNG on average over the seeds.
// The runs are the `ngvi run vpng-logistic` runs (optim/vpng_runs.hpp): one PreconditionedStepper
// with three preconditioner parts, λ0 = 0, per method the constant step ρ of {1, 0.3, ..., 1e-4}
// with the best final ELBO estimate (the comparison's step-size rule, same draws for every
// candidate), seed k of the claim on data seed ctx.seed + k and draw stream 1 (the run's convention,
// so the full instance reproduces `ngvi run vpng-logistic --seed ctx.seed --seeds 10` seed by seed).
// Instances: quick D = 5, c = 0.996, n_train = n_test = 500, T = 50, 5 ε-draws for ∇̂L and 20 for
// F̂_r, 10 seeds (n(1 − c) = 2 as in the run: the curvature of the likelihood in the signal
// directions stays above the damping δ = 0.1); full (--full, besides quick) the run's size, D = 10,
// c = 0.999, n = 2000, T = 200, 10 and 20 draws, 10 seeds. F̂_r needs several draws per dimension:
// with K draws its ω-block is a sum of K rank-one-dominated terms, near-singular for K ≈ D, and
// VPNG then needs ρ ≤ 0.003 to stay finite (measured, throwaway: at the run's former 10 draws the
// full instance missed oracle − 0.03 on data seeds 4 and 6 of 1..10; at 20 draws none of them did).
// Reference: the test AUC of the mean of the mean-field optimum, the maximiser of the exact ELBO
// found by damped Newton with Gauss–Hermite quadrature per datum (logistic_mf_optimum.hpp: no
// sampling, no step-size rule, none of the parts under test), stopped at ‖∇ELBO‖ ≤ 64ε·Σ_n‖x_n‖, the
// rounding floor of a gradient that is a sum of n terms each at most ‖x_n‖ in norm (Newton reaches
// 1e-13 on both instances; the optimum's μ agrees to 12 digits with 32, 64 and 128 nodes, so the
// rule's error is not what is left). By strong concavity the Newton
// point is within r = s_p²‖∇ELBO‖ of the optimum, so a test pair's order can differ only where
// |s_i − s_j| ≤ r‖x_i − x_j‖: the record compares with the upper end of the AUC interval those pairs
// give (in the runs seen no pair is that close, and the interval is a point). Every AUC here is
// counted pair by pair (Mann–Whitney: P(score of a positive > score of a negative) + ½ P(tie)), not
// by the library's roc_auc.
// The oracle (the true w*) is not the reference: the data do not determine w* that well. On the
// quick instance the MAP (Newton on the log posterior) misses the oracle's AUC − 0.03 on 25 of data
// seeds 1..500, and the mean-field optimum on the same 25, so no algorithm could meet "oracle − 0.03
// on every seed" (measured, throwaway; VPNG missed it on 30, which made the suite fail on about 1
// seed in 8). On the full instance (n = 2000, the run's size) the data do pin w* down: the oracle's
// AUC is at most 0.010 above the optimum's over data seeds 1..20, and the oracle form is kept there
// as a second record.
// Records (deterministic given the seed: every draw comes from a counter-based stream; the suite seed
// chooses the data seeds, so each record's level is its miss rate over seeds, measured below and set
// on the record by set_seed_level; the full shortfall records have none measured):
//   mean over seeds of AUC(optimum) − 0.01 ≤ mean over seeds of min(VPNG, optimum) test AUC (each
//   seed's pair in the note); full only, the same with the oracle's AUC;
//   0.1 ≤ mean over seeds of (VPNG − NG) test AUC, and the same for the gradient.
// Why a mean shortfall and not "within 0.03 on every seed" (the kit's first form): VPNG's shortfall
// has a tail that a per-seed record meets every so often. Quick, over 555 data seeds (1..500,
// 751..975 and 90 more from random suite seeds; measured, throwaway): median 0.0001, 99th percentile
// 0.017, the largest 0.0213, 0.0217, 0.0235, 0.0258 and 0.031 (data seed 3155345858, where the suite
// failed), so 10 per-seed records miss together with probability about 1.8% (resampled). The mean of
// the positive part over 10 seeds is 0.002 on average and exceeded 0.01 with probability 1.9e-5
// (1000000 resamples of the 555); at 0.0075, 7.5e-4. 0.01 is a third of the per-seed 0.03.
// The mean gaps' miss rate (measured, throwaway; quick, data seeds 1..975, 455 of them): the per-seed
// gap is bimodal (the gradient at times reaches VPNG's AUC: gap < 0.05 on 8.6% of the seeds, mean
// 0.27, sd 0.13; NG: 5.1%, mean 0.26, sd 0.13). A mean over 5 seeds fell below 0.1 with probability
// 2.7e-3 (gradient) and 1.6e-3 (NG), resampling the 455 seeds, which matched the suite failing on 1 of
// 42 random seeds; over 10 seeds, 2.8e-5 and 1.5e-5 (400000 resamples), and the 45 disjoint windows of
// 10 consecutive data seeds had a least mean gap of 0.20. Full, data seeds 1..40 (`ngvi run
// vpng-logistic --seed 1 --seeds 40`): gradient gap < 0.05 on 5 of 40, mean 0.28, sd 0.14; NG on 1 of
// 40, mean 0.29, sd 0.11; a mean over 5 seeds below 0.1 with probability 3.8e-3 (gradient) and 1.2e-4
// (NG), over 10 seeds 5e-5 and < 1e-6 (1000000 resamples of the 40: rough figures, from 40 seeds).
// Hence 10 seeds on both instances.
// Full, data seeds 1..20 (measured, throwaway): VPNG at worst 0.002 below the optimum and 0.008
// below the oracle per seed; over data seeds 1..40 its mean test AUC is 0.982, the oracle's 0.984.
// Negative control: the hypothesis is a strongly correlated posterior (with the mean-field family,
// NG reduces to a rescaled gradient there, docs/systems.md D.3). The feature correlation lowered by
// δ, c − δ, on the first 5 of the seeds (AucInstance::control_seeds; quick, the control's min mean gap
// over 5 seeds was at most 0.066 over 91 windows, mean 0.029; measured, throwaway): the record
// 0.1 ≤ min(mean gap of NG, mean gap of the gradient) breaks once the gaps shrink below 0.1. δ_min
// (measured, not derived: the expected gap has no closed form) is where the seed-averaged min gap
// over data seeds 1..20 crosses 0.1, by bisection on c with linear interpolation of the last bracket
// (quick: 0.131 at c = 0.99, 0.089 at 0.985, δ_min = 0.0097; full, data seeds 1..5: 0.281 at
// c = 0.999, 0.099 at 0.995, 0.045 at 0.99, δ_min = 0.0040); the control runs at
// kControlMultiple·δ_min.
// Negative control of the shortfall record (quick instance): its hypothesis is an F̂_r estimated well
// enough for VPNG's preconditioner, which needs several ε-draws per dimension (above). F̂_r from K
// draws in place of 20, every one of the 10 seeds, the same data and optima: VPNG's mean shortfall
// (measured, throwaway: quick, data seeds 1..20, VPNG alone) is 0.0017 at K = 20, 0.0025 at 10,
// 0.0079 at 9, 0.0054 at 8, 0.037 at 7, 0.074 at 6, 0.060 at 5, 0.065 at 4 and 0.100 at 3, so the
// record breaks from K = 7 (the most draws at which the 20-seed mean exceeded 0.01; 7 = D + 2, where
// F̂_r's ω-block is a sum of barely more rank-one terms than its order); the control runs at
// ⌊7/2⌋ = 3 (the kit's rule for a count, as 4·δ_min is for a real violation). At K = 3, over data
// seeds 1..120: mean shortfall 0.097, under 0.01 on 20% of the seeds; the twelve disjoint 10-seed
// means 0.078 to 0.132; a 10-seed mean at most 0.01 in 1.7e-5 of 4e6 resamples. The full instance has
// no shortfall control of its own: there fewer draws cost less (20-seed means 0.0069 at 9, 0.0165 at
// 8, 0.0124 at 6, 0.0276 at 4 draws, data seeds 1..20), and a 10-seed mean at 4 draws fell to 0.01
// in 2.4e-3 of the resamples, a control that would fail about one suite seed in 400.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <tuple>
#include <utility>
#include <vector>

#include "ngvi/claims/expfam_common.hpp"
#include "logistic_mf_optimum.hpp"
#include "ngvi/data/correlated_logistic.hpp"
#include "ngvi/optim/vpng_runs.hpp"
#include "vpng_common.hpp"
#include "seed_level.hpp"

namespace ngvi::claims::vpng {
namespace { namespace NGVI_UNITY_ID {

constexpr const char* kId = "vpng.logistic_auc";
// The finding's thresholds (docs/systems.md D.5 item 4): VPNG's mean shortfall from the reference's
// test AUC, and the least mean gap to NG and to the gradient.
constexpr double kMeanSlack = 0.01;
constexpr double kMinGap = 0.1;

struct AucInstance {
  const char* name;
  long dim;
  double correlation;
  long n;  ///< n_train = n_test
  long steps;
  long grad_draws;
  long fisher_draws;
  long seeds;
  long control_seeds;        ///< the first this many of the seeds run the correlation control
  double control_delta_min;  ///< measured, see the DESCRIPTION
  bool oracle_record;        ///< also the mean shortfall from the oracle's AUC (n large enough to pin w* down)
  long fisher_break;         ///< the most F̂_r draws at which VPNG's mean shortfall exceeded the slack (measured);
                             ///< the shortfall control runs at half of it; 0: no shortfall control (see the DESCRIPTION)
};

// Both use the run's signal √(1 − c)‖w*‖ = 8 and damping δ = 0.1 (VpngRunOptions).
constexpr AucInstance kQuick{"D5-c0.996-n500-T50", 5, 0.996, 500, 50, 5, 20, 10, 5, 0.0097, false, 7};
constexpr AucInstance kFull{"D10-c0.999-n2000-T200", 10, 0.999, 2000, 200, 10, 20, 10, 5, 0.0040, true, 0};
constexpr double kSignal = 8;

// The AUC of the scores xw as an interval, counting pairs: over positives i and negatives j, a pair
// is won when s_i − s_j > radius·‖x_i − x_j‖ and uncertain when |s_i − s_j| ≤ that (ties always):
// [won, won + uncertain] / (n₊ n₋). With radius > 0 it is the AUC of a maximiser z* known only to
// within radius of w (an uncertain pair's order may differ there).
std::pair<double, double> auc_interval(const Mat<double>& x, const Vec<double>& y, const Vec<double>& w, double radius) {
  const Vec<double> s = x * w;
  std::vector<Index> pos, neg;
  for (Index k = 0; k < y.size(); ++k) (y(k) == 1.0 ? pos : neg).push_back(k);
  if (pos.empty() || neg.empty()) return {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN()};
  double won = 0, uncertain = 0;
  for (Index i : pos)
    for (Index j : neg) {
      const double gap = s(i) - s(j);
      if (gap == 0 || (radius > 0 && std::abs(gap) <= radius * (x.row(i) - x.row(j)).norm()))
        uncertain += 1;
      else if (gap > 0)
        won += 1;
    }
  const double pairs = static_cast<double>(pos.size()) * static_cast<double>(neg.size());
  return {won / pairs, (won + uncertain) / pairs};
}

// AUC by counting pairs (Mann–Whitney): (#{s_i > s_j} + ½#{s_i = s_j}) / (n₊ n₋), the midpoint of the
// radius-0 interval (its uncertain pairs are the ties).
double auc_by_pairs(const Mat<double>& x, const Vec<double>& y, const Vec<double>& w) {
  const auto [lo, hi] = auc_interval(x, y, w, 0);
  return (lo + hi) / 2;
}

struct SeedResult {
  std::uint64_t seed = 0;
  double oracle = 0, optimum_lo = 0, optimum = 0, auc[3] = {0, 0, 0}, rho[3] = {0, 0, 0};
};

constexpr VpngMethod kMethods[3] = {VpngMethod::kGradient, VpngMethod::kNg, VpngMethod::kVpng};

// One data seed at correlation c: the three methods under the step-size rule, test AUCs.
// fisher_draws overrides the instance's (0: the instance's); vpng_only runs VPNG alone (the others' AUCs stay 0).
SeedResult run_seed(const AucInstance& inst, double correlation, std::uint64_t seed, const VpngParts<double>& cfg, bool with_optimum,
                    long fisher_draws = 0, bool vpng_only = false) {
  const data::CorrelatedLogisticOptions go{inst.dim, correlation, inst.n, inst.n, kSignal};
  const auto d = data::correlated_logistic_data(go, seed);
  const LogisticModel<double> model(d.x_train, d.y_train);
  VpngRunOptions<double> ro;
  ro.steps = inst.steps;
  ro.grad_draws = inst.grad_draws;
  ro.fisher_draws = fisher_draws > 0 ? fisher_draws : inst.fisher_draws;
  ro.parts = cfg;  // the analytic route of VpngRunOptions, VPNG's parts under test
  const Vec<double> l0 = Vec<double>::Zero(2 * inst.dim);
  SeedResult r;
  r.seed = seed;
  r.oracle = auc_by_pairs(d.x_test, d.y_test, d.w_star);
  if (with_optimum) {
    // Newton's stopping rule: the gradient's rounding floor (see the DESCRIPTION).
    const double grad_tol = 64 * std::numeric_limits<double>::epsilon() * d.x_train.rowwise().norm().sum();
    const auto opt = logistic_mean_field_optimum(d.x_train, d.y_train, model.prior_variance(), grad_tol);
    // Not converged: the reference is unknown, and NaN makes the record an error, not a verdict.
    if (!opt.converged) {
      r.optimum_lo = r.optimum = std::numeric_limits<double>::quiet_NaN();
    } else {
      std::tie(r.optimum_lo, r.optimum) = auc_interval(d.x_test, d.y_test, opt.mu, model.prior_variance() * opt.grad_norm);
    }
  }
  for (int m = vpng_only ? 2 : 0; m < 3; ++m) {
    const auto sel = select_step<double>(model, kMethods[m], ro, vpng_step_grid(), l0, seed, 1);
    r.rho[m] = sel.rho;
    // Every candidate failed: the method has no iterate; its AUC counts as chance (a score of 0).
    r.auc[m] = sel.rho == 0 ? 0.5 : auc_by_pairs(d.x_test, d.y_test, mf_mu(sel.lambda));
  }
  return r;
}

double mean_gap(const std::vector<SeedResult>& rs, int method) {
  double g = 0;
  for (const auto& r : rs) g += (r.auc[2] - r.auc[method]) / static_cast<double>(rs.size());
  return g;
}

std::string measured_violation(const std::string& what, double delta, double delta_min) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "violation: %s = %.3g; breaks from %.3g (measured)", what.c_str(), delta, delta_min);
  return buf;
}

// min(VPNG's AUC, the reference's): VPNG counts as short of the reference only where it is below it,
// so a seed where it does better cannot hide a seed where it does worse. NaN stays NaN (an unknown
// reference makes the record an error; std::min would drop it).
double capped(double vpng, double ref) { return std::isnan(ref) || std::isnan(vpng) ? std::numeric_limits<double>::quiet_NaN() : std::min(vpng, ref); }

// The mean-shortfall record: mean over seeds of reference − kMeanSlack ≤ mean over seeds of
// min(VPNG, reference), with each seed's "reference/vpng (rho)" in the note.
ClaimRecord shortfall_record(const AucInstance& inst, const std::vector<SeedResult>& rs, bool oracle, double seconds,
                             Kind kind = Kind::kClaim, const std::string& suffix = "", const std::string& violation = "") {
  double ref = 0, got = 0;
  std::string by_seed;
  for (const auto& r : rs) {
    const double x = oracle ? r.oracle : r.optimum;
    ref += x / static_cast<double>(rs.size());
    got += capped(r.auc[2], x) / static_cast<double>(rs.size());
    // The optimum's AUC interval (see auc_interval) is shown whole when it is not a point.
    const std::string xs = oracle || r.optimum_lo == r.optimum ? fmt(x) : "[" + fmt(r.optimum_lo) + ", " + fmt(r.optimum) + "]";
    by_seed += (by_seed.empty() ? "" : ", ") + xs + "/" + fmt(r.auc[2]) + (oracle ? "" : " (rho " + fmt(r.rho[2]) + ")");
  }
  const std::string what = oracle ? "oracle w*" : "mean-field optimum (upper end)";
  const std::string note = "lhs = mean " + what + " test AUC - " + fmt(kMeanSlack) + ", rhs = mean of min(vpng, " + what +
                           "); by seed from " + std::to_string(rs.front().seed) + ", " + what + "/vpng: " + by_seed;
  return inequality_record(kId,
                           std::string(inst.name) + (oracle ? "/vpng-vs-oracle/mean-shortfall" : "/vpng-vs-mf-optimum/mean-shortfall") + suffix,
                           "double", kind, ref - kMeanSlack, got, seconds, violation.empty() ? note : join_notes(violation, note), "AUC");
}

void run_instance(const AucInstance& inst, const RunContext& ctx, const VpngParts<double>& cfg, std::vector<ClaimRecord>& out) {
  std::vector<SeedResult> rs;
  Stopwatch sw_runs;
  for (long k = 0; k < inst.seeds; ++k) rs.push_back(run_seed(inst, inst.correlation, ctx.seed + static_cast<std::uint64_t>(k), cfg, true));
  out.push_back(shortfall_record(inst, rs, false, sw_runs.seconds()));
  if (inst.oracle_record) out.push_back(shortfall_record(inst, rs, true, 0.0));
  const char* names[2] = {"gradient", "ng"};
  for (int m = 0; m < 2; ++m) {
    const double g = mean_gap(rs, m);
    std::string by_seed;
    for (const auto& r : rs) by_seed += (by_seed.empty() ? "" : ", ") + fmt(r.auc[2] - r.auc[m]);
    out.push_back(inequality_record(kId, std::string(inst.name) + "/mean-gap-" + names[m], "double", Kind::kClaim, kMinGap, g, 0.0,
                                    "mean over " + std::to_string(rs.size()) + " seeds of test AUC (vpng - " + names[m] + ") = " + fmt(g) +
                                        " (rhs) vs 0.1; by seed: " + by_seed,
                                    "AUC"));
  }
  // Control: the correlation lowered by δ = kControlMultiple·δ_min, the first control_seeds seeds, same draws.
  Stopwatch sw;
  const double delta = kControlMultiple * inst.control_delta_min, c = inst.correlation - delta;
  std::vector<SeedResult> cs;
  for (long k = 0; k < inst.control_seeds; ++k) cs.push_back(run_seed(inst, c, ctx.seed + static_cast<std::uint64_t>(k), cfg, false));
  const double gg = mean_gap(cs, 0), gn = mean_gap(cs, 1);
  out.push_back(inequality_record(kId, std::string(inst.name) + "/min-mean-gap/correlation-lowered", "double", Kind::kControl, kMinGap,
                                  std::min(gg, gn), sw.seconds(),
                                  join_notes(measured_violation("feature correlation lowered by", delta, inst.control_delta_min),
                                             "c = " + fmt(c) + ": mean gaps gradient " + fmt(gg) + ", ng " + fmt(gn) + " (rhs = min) vs 0.1"),
                                  "AUC"));
  // Control of the shortfall record: F̂_r from ⌊fisher_break/2⌋ ε-draws, every seed of the claim, same data.
  if (inst.fisher_break == 0) return;
  const long control_draws = inst.fisher_break / 2;
  Stopwatch swf;
  std::vector<SeedResult> fs;
  for (long k = 0; k < inst.seeds; ++k) {
    // The same data as the claim's seed k: its optimum and oracle AUCs are the claim's.
    SeedResult r = run_seed(inst, inst.correlation, ctx.seed + static_cast<std::uint64_t>(k), cfg, false, control_draws, true);
    const auto& claim_seed = rs[static_cast<std::size_t>(k)];
    r.oracle = claim_seed.oracle;
    r.optimum_lo = claim_seed.optimum_lo;
    r.optimum = claim_seed.optimum;
    fs.push_back(r);
  }
  const std::string violation = measured_violation("F_r eps-draws (in place of " + std::to_string(inst.fisher_draws) + ")",
                                                   static_cast<double>(control_draws), static_cast<double>(inst.fisher_break));
  out.push_back(shortfall_record(inst, fs, false, swf.seconds(), Kind::kControl, "/fisher-draws-reduced", violation));
}

}}  // namespace

std::vector<ClaimRecord> logistic_auc_records(const RunContext& ctx) {
  std::vector<ClaimRecord> out;
  const VpngParts<double> cfg = vpng_parts_for<double>(ctx);
  // Double only: a finding about the methods' statistics on data, not about rounding.
  if (!ctx.wants("double")) return out;
  NGVI_UNITY_ID::run_instance(NGVI_UNITY_ID::kQuick, ctx, cfg, out);
  if (ctx.full) NGVI_UNITY_ID::run_instance(NGVI_UNITY_ID::kFull, ctx, cfg, out);
  // The records' levels over seeds (see the file's head): the resampled miss rates of the means.
  const std::string quick = std::string(NGVI_UNITY_ID::kQuick.name), full = std::string(NGVI_UNITY_ID::kFull.name);
  set_seed_level(out, 1.9e-5, "resampled, quick data seeds of 555", quick + "/vpng-vs-mf-optimum/mean-shortfall");
  set_seed_level(out, 2.8e-5, "resampled, quick data seeds 1..975", quick + "/mean-gap-gradient");
  set_seed_level(out, 1.5e-5, "resampled, quick data seeds 1..975", quick + "/mean-gap-ng");
  set_seed_level(out, 5e-5, "resampled, full data seeds 1..40", full + "/mean-gap-gradient");
  set_seed_level(out, 1e-6, "resampled, full data seeds 1..40: below 1e-6", full + "/mean-gap-ng");
  note_unmeasured_seed_level(out, "no resampling of this record's seeds");
  return out;
}

namespace { namespace NGVI_UNITY_ID {
const Registrar kReg({kId,
                      "Correlated logistic regression, mean-field q, fixed budget: VPNG's mean shortfall from the mean-field optimum's test AUC <= 0.01 "
                      "(and from the oracle's on the full instance); NG and the gradient "
                      "each >= 0.1 below VPNG on average; double only",
                      "Tang & Ranganath 2019 (slides: Bayesian logistic regression AUC); docs/systems.md D.4, D.5 item 4", "[D]",
                      logistic_auc_records,
                      CostHint{2.0, 65}});
}}  // namespace

}  // namespace ngvi::claims::vpng
