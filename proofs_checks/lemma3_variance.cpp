// DESCRIPTION
// Claim lemma3.variance (Wu & Gardner 2024, Lemma 3; docs/math.md §4.2, §5.4, constant tag [D]):
// for eq. (15) NGD on Bayesian linear regression with prior N(0, S_p) and γ_t ∈ (0, 1], the
// per-step variance of eq. (12) satisfies σ_t² ≤ σ², with σ² in the data-moment form
//   σ² = (n²/(M s_e⁴))[(1/λ)(√V1 + (B/λ)√V2)² + V2/(2λ²)]
// and (a weaker instance) in the data-maximum form. The constant is ours, derived along the
// paper's proof route ("derived (docs/math.md §5.4)").
// Reference: σ_t² computed exactly through the symmetrised-KL identity [X] of §4.2 by enumerating
// all n^M batches (when n^M ≤ 4096; the quick instances, deterministic records), otherwise (--full)
// a level-1e-4 test from 200 Monte Carlo batches per step: lhs = max_t (mean − z·se), z one-sided with
// Bonferroni over the steps, broken only on significant evidence of σ_t² > σ², with its power in the
// note; at every t < 30 and on a geometric grid to T along a trajectory; the bound is
// computed from the data by bounds/blr_constants.hpp, never from the trajectory. The tightness
// ratio max_t σ_t²/σ² is in the note.
// The bound is loose by construction on data that inform the posterior (tightness ~1e-7 on the quick
// instances, so those records are `vacuous`): it bounds ‖η̃₁‖ by B, the worst vertex of C, and ‖S‖ by
// 1/λ although the data shrink S along every direction they touch (docs/math.md §5.4). It is attained
// where neither simplification loses anything: the weak-design instance (S_p = I, features scaled by
// kWeakDesignScale) has S ≈ S_p = I = (1/λ)I at t = 0, where γ₀ = 1, and the step's error is the mean
// term alone, E‖Δm‖² = n²V1/(M s_e⁴), the bound's first term; the rest is (B/λ)√V2/√V1 ∝ n r_x²/s_e²
// relative, so the record's tightness is 1 − O(n r_x²/s_e²) (derived; 0.9992–0.9998 on seeds 1–40) and a
// constant a part in 1e3 too small breaks it. Its control runs the library with a prior 0.4% wider than
// the one the bound is computed from.
// Negative control (the other instances): a prior mean with ‖S_p⁻¹m_p‖ = kB (the hypothesis m_p = 0 of Lemma 9, on which
// Lemma 3's constant rests, is broken) at 3 times the smallest k the record sees, k_min, derived from
// the quadratic growth max_t σ_t²(k) ≈ σ_t²(0) + A k² with A measured on a probe trajectory at k = 10
// (k_min ≈ 20 on the well instance and ≈ 100 on the ill one at seed 1, at most 52 and 600 over
// seeds 1–50: the bound's looseness hides any smaller prior mean). The note gives "violation: ...; breaks from k_min".
// Runs in double (Monte Carlo claim).
// The note states the derived rounding floor of a computed σ_t² (rounding_floor.hpp, docs/math.md
// §5.4) at the grid's smallest γ, and says "below rounding floor" if the lhs is within it; the lhs is
// not reduced by it (an upper bound judged against σ²; the search subtracts it, for a lhs that could
// look like a violation).
// A far tighter σ², certified by interval arithmetic over the joint hull of the reachable states, is
// checked by lemma3.certified_sigma (bounds/certified_sigma.hpp, docs/math.md §5.4).
#include "ngvi/claims/blr_common.hpp"
#include "ngvi/data/synthetic_regression.hpp"
#include "ngvi/stats/normal.hpp"
#include "ngvi/claims/rounding_floor.hpp"

namespace ngvi::claims {
namespace { namespace NGVI_UNITY_ID {

constexpr const char* kId = "lemma3.variance";
/// Level of each --full Monte Carlo record (one-sided, Bonferroni over the grid's steps). The records
/// are vacuous by about twelve orders of magnitude against the derived σ² (reported vacuous), so a
/// small level costs them no evidence and keeps the --full suite's family-wise rate (the sum of its
/// records' levels) within the 1% budget.
constexpr double kMcLevel = 1e-5;
/// The control's prior mean has ‖S_p⁻¹m_p‖ = kB along the first axis (blr_common.hpp). σ_t² grows
/// with it: the exact step's mean m̃ carries the shift, and μ₁ − μ̃₁ ⊃ (S − S̃)η̃₁ = S(2γΔ₂)S̃η̃₁, so
/// the symmetrised KL gains (m − m̃)ᵀ(S⁻¹ + S̃⁻¹)(m − m̃)/2 ∝ k² and max_t σ_t²(k) ≈ σ_t²(0) + A k². A is
/// measured from one probe trajectory at k₀ = kProbeShift (large enough that A k₀² ≫ σ_t²(0) on the
/// instances, small enough to stay in the quadratic regime), and the record sees k from
/// k_min = √((σ² − max_t σ_t²(0))/A) (derived from the probe).
constexpr double kProbeShift = 10;
/// The control runs at this multiple of k_min (so max_t σ_t² ≈ 9σ²): on seeds 1–50 a bisection on
/// the multiple finds every seed broken from 1.01 (well) and 1.02 (ill), so the quadratic model's
/// k_min is within 2% of the measured one and the multiple keeps the control broken on every seed.
constexpr double kControlMultiple = 3;
/// Steps of the control trajectories (the largest σ_t² under the shift comes in the first steps).
constexpr long kControlSteps = 40;

/// The weak-design instance's feature scale: n r_x²/s_e² ≈ 12·(3e-3)²/0.5 ≈ 2e-4, the order of the
/// bound's relative excess over the attained σ_0² (see above).
constexpr double kWeakDesignScale = 1e-3;

/// The weak-design instance's name, and its control's prior excess δ: the run's prior covariance is
/// (1 + δ)S_p. The record breaks from δ_min = 1/tightness − 1, of order n r_x²/s_e² (1.6e-4 to 8.2e-4
/// on seeds 1–40); 2⁻⁸ ≈ 3.9e-3 is 4.8× the largest, a prior 0.4% too wide.
constexpr const char* kWeakDesign = "weak-design-n12-d3-M2";
constexpr double kWeakDesignPriorExcess = 0x1p-8;

/// The suite's instances plus the weak-design one, n = 12, d = 3, M = 2, S_p = I, s_e² = 0.5, the
/// well instance's generator with its features scaled by kWeakDesignScale (the targets unchanged).
std::vector<BlrInstance> lemma3_instances(const RunContext& ctx) {
  auto v = blr_instances(ctx);
  auto weak = data::synthetic_regression(12, 3, 1.0, 0.7, ctx.seed + 6);
  weak.X *= kWeakDesignScale;
  v.push_back({kWeakDesign, std::move(weak), Mat<double>::Identity(3, 3), 0.5, 2});
  return v;
}

std::vector<ClaimRecord> run(const RunContext& ctx) {
  std::vector<ClaimRecord> out;
  if (!ctx.wants("double")) return out;
  const long T = ctx.full ? 2000 : 200;
  for (const auto& inst : lemma3_instances(ctx)) {
    Stopwatch sw;
    const auto model = make_model<double>(inst);
    const auto c = blr_constants<double>(inst.data, inst.prior_cov, inst.noise_var, inst.batch);
    const double s2 = lemma3_sigma2(c), s2max = lemma3_sigma2_max_form(c);
    auto mv = measured_sigma2(model, inst.batch, T, ctx, 9100);
    std::string how = mv.exact ? "exact enumeration" : "99% MC upper bound";
    std::string level_note;
    double level = std::numeric_limits<double>::quiet_NaN();
    if (!mv.exact) {
      // Monte Carlo (--full): a level-kMcLevel test of "σ_t² ≤ σ² at every grid step". The same
      // trajectory and probe streams as measured_sigma2; lhs = max_t (mean − z·se), z = z_{1−α/P}
      // (one-sided, Bonferroni over the P grid steps), so the record is broken only on significant
      // evidence of some σ_t² > σ² (false alarm ≤ α); it is broken with probability ≥ 0.9 once some
      // σ_t² ≥ σ² + (z + z_0.9)·se_t (normal approximation).
      StepVarianceOptions opt;
      opt.enumeration_limit = kEnumerationLimit;
      opt.samples = kVarianceSamples;
      const auto prof = step_variance_along_trajectory(model, inst.batch, standard_natural<double>(model.d()), StepSchedule<double>::theorem1(),
                                                       variance_grid(T), random::Stream(ctx.seed, 9100), random::Stream(ctx.seed, 9101), opt);
      const double z = stats::normal_quantile<double>(1.0 - kMcLevel / static_cast<double>(prof.points.size()));
      double lhs = -std::numeric_limits<double>::infinity(), se_max = 0;
      for (const auto& p : prof.points) {
        lhs = std::max(lhs, p.mean - z * p.std_error);
        se_max = std::max(se_max, p.std_error);
      }
      mv.max_sigma2 = lhs;
      level = kMcLevel;
      how = "Monte Carlo (" + std::to_string(kVarianceSamples) + " batches per step; lhs = max_t of mean - z se, z = " + fmt(z) +
            ", largest mean " + fmt(prof.max_mean) + ")";
      level_note = "; level " + fmt(kMcLevel) + " (one-sided, Bonferroni over " + std::to_string(prof.points.size()) +
                   " steps); detects sigma_t^2 >= sigma^2 + " + fmt((z + stats::normal_quantile<double>(0.9)) * se_max) +
                   " at a step with probability >= 0.9 (derived: normal approximation)";
    }
    // The derived rounding floor of a computed σ_t² (rounding_floor.hpp, docs/math.md §5.4) at the
    // smallest step size of the grid, γ = 2/(T + 1), where it is largest: the record's lhs is an upper
    // bound judged against σ², so the floor is stated, not subtracted (subtracting it is the search's
    // conservative direction, for a lhs that could look like a violation).
    const double floor = sigma2_floor(reachable_bounds(inst), 2.0 / static_cast<double>(T + 1));
    const std::string floor_note = "; rounding floor of a computed sigma_t^2 <= " + fmt(floor) + " " + kDerived +
                                   (mv.max_sigma2 <= floor ? " (below rounding floor: not a measurement)" : "");
    out.push_back(inequality_record(kId, inst.name + "/moment-form", "double", Kind::kClaim, mv.max_sigma2, s2, sw.seconds(),
                                    "max_t sigma_t^2 (" + how + ", " + std::to_string(mv.points) + " steps) = " +
                                        fmt(mv.max_sigma2) + "; sigma^2 = " + fmt(s2) + " " + kDerived +
                                        "; tightness " + fmt(mv.max_sigma2 / s2) +
                                        (mv.max_sigma2 / s2 < report::kVacuousTightness
                                             ? " (loose by construction: B/lambda * sqrt(V2) bounds |eta1~| |Delta2| by the worst vertex "
                                               "and the curvature of S is ignored, see docs/math.md §5.4)"
                                             : " (near-extremal: S_p = I and a weak design, where the bound is attained up to "
                                               "O(n r_x^2/s_e^2), derived)") +
                                        floor_note + level_note));
    out.back().level = level;
    out.push_back(inequality_record(kId, inst.name + "/max-form", "double", Kind::kClaim, mv.max_sigma2, s2max, 0.0,
                                    "sigma^2 (max form) = " + fmt(s2max) + " " + kDerived + "; tightness " +
                                        fmt(mv.max_sigma2 / s2max) + level_note));
    out.back().level = level;
    Stopwatch sw2;
    const long tc = std::min(T, kControlSteps);
    if (inst.name == kWeakDesign) {
      // The prior the run uses is (1 + δ)S_p while σ² is computed from S_p (a prior slightly
      // misspecified): σ_0² grows by the factor 1 + δ (S ≈ S_p there), so the record breaks from
      // δ_min = 1/tightness − 1 (derived).
      BlrInstance wrong = inst;
      wrong.prior_cov *= 1 + kWeakDesignPriorExcess;
      const auto bad = measured_sigma2(make_model<double>(wrong), inst.batch, tc, ctx, 9100);
      out.push_back(inequality_record(kId, inst.name + "/prior-cov-(1+delta)", "double", Kind::kControl, bad.max_sigma2, s2, sw2.seconds(),
                                      "violation: the run's prior covariance (1 + delta) S_p, sigma^2 from S_p, delta = " +
                                          fmt(kWeakDesignPriorExcess) + "; breaks from " + fmt(s2 / mv.max_sigma2 - 1) +
                                          " (derived: 1/tightness - 1); sigma^2 " + kDerived));
      continue;
    }
    const auto probe = measured_sigma2(make_model<double>(inst, shifted_prior_mean(inst, kProbeShift)), inst.batch, tc, ctx, 9200);
    const double growth = (probe.max_sigma2 - mv.max_sigma2) / (kProbeShift * kProbeShift);
    const double kmin = growth > 0 ? std::sqrt((s2 - mv.max_sigma2) / growth) : std::numeric_limits<double>::quiet_NaN();
    const double k = kControlMultiple * kmin;
    const auto bad = measured_sigma2(make_model<double>(inst, shifted_prior_mean(inst, k)), inst.batch, tc, ctx, 9200);
    out.push_back(inequality_record(kId, inst.name + "/prior-mean", "double", Kind::kControl, bad.max_sigma2, s2, sw2.seconds(),
                                    "violation: |Sp^-1 m_p|/B = " + fmt(k) + "; breaks from " + fmt(kmin) +
                                        " (derived: quadratic growth from a probe at " + fmt(kProbeShift) +
                                        " B); a smaller prior mean is hidden by the bound's looseness; sigma^2 " + kDerived));
  }
  return out;
}

const Registrar kReg({kId, "sigma_t^2 (eq. 12) <= sigma^2 = (n^2/(M s^4))[(1/l)(sqrt V1 + (B/l) sqrt V2)^2 + V2/(2 l^2)]",
                      "Wu & Gardner 2024, Lemma 3; docs/math.md §4.2, §5.4", "[D]", run});

}}  // namespace
}  // namespace ngvi::claims
