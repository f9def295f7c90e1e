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
// The bound is loose by construction (tightness ~1e-7 on the quick instances, so its records are
// `vacuous`): it bounds ‖η̃₁‖ by B, the worst vertex of C, and ‖S‖ by 1/λ although the data shrink
// S along every direction they touch (docs/math.md §5.4).
// Negative control: a prior mean with ‖S_p⁻¹m_p‖ = kB (the hypothesis m_p = 0 of Lemma 9, on which
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
#include "blr_common.hpp"
#include "ngvi/stats/normal.hpp"
#include "rounding_floor.hpp"

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

std::vector<ClaimRecord> run(const RunContext& ctx) {
  std::vector<ClaimRecord> out;
  if (!ctx.wants("double")) return out;
  const long T = ctx.full ? 2000 : 200;
  for (const auto& inst : blr_instances(ctx)) {
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
                                        " (loose by construction: B/lambda * sqrt(V2) bounds |eta1~| |Delta2| by the worst vertex "
                                        "and the curvature of S is ignored, see docs/math.md §5.4)" + floor_note + level_note));
    out.back().level = level;
    out.push_back(inequality_record(kId, inst.name + "/max-form", "double", Kind::kClaim, mv.max_sigma2, s2max, 0.0,
                                    "sigma^2 (max form) = " + fmt(s2max) + " " + kDerived + "; tightness " +
                                        fmt(mv.max_sigma2 / s2max) + level_note));
    out.back().level = level;
    Stopwatch sw2;
    const long tc = std::min(T, kControlSteps);
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
