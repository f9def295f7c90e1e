// DESCRIPTION
// Claim paquet.alg2_option_a (Paquet 2014, App. B and Fig. 3; docs/systems.md B.3, B.8.5):
// Algorithm 2 (a global sample D of C_global ratings per iteration, node i updated from D_i with
// the factor N_i/|D_i|), option (a), converges from ρ₁ = 1 (ρ_t = t^(−0.6)) for C_global ∈
// {100, …, 1000}, on the B.7 generator. "Converges" is read as three facts about the run, each a
// record: (1) no divergence; (2) it has come most of the way: the ELBO closes at least 85% of the
// way from the initial point to full VB (lhs = (L_full − L_T)/(L_full − L_0) per rating, 1e300 when
// diverged; rhs = 0.15; over data seeds 1..50 the share is at most 0.095 at C_global = 100); and
// (3) it is still approaching full VB at the end: the gap to full VB after T iterations is at most
// that after T/2 (lhs = L_full − L_T, rhs = L_full − L_{T/2}, nats/rating; over seeds 1..50 the
// ratio is 0.27-0.77 at C_global = 100 and 0.20-0.53 at 1000, so a run that stalls at a worse
// point or drifts away breaks it). The sense of "converges" elsewhere, within 0.01
// nats/rating of full VB, is out of reach: Algorithm 2 converges slowly (the paper's Fig. 3), the
// gap is 0.10-0.44 nats/rating after T = 3000 iterations at C_global = 100 (seeds 1..50), and with
// a gap falling about as ρ_T ∝ T^(−0.6) it would take a few hundred times more iterations.
// Instances: quick, C_global ∈ {100, 1000} with the same number of ratings read (T = 3000 and 300
// iterations, 3·10⁵ ratings, 17 passes over the data); full, C_global = 100, 200, …, 1000 with
// T = 3000 iterations each.
// Reference: full VB (CAVI to 1e-6 relative; its shortfall e ≤ 1e-3 nats/rating is far below the
// 15% of the initial gap, about 0.7 nats/rating, and cancels from record (3), whose two sides both
// move by e).
// Negative control (record 2, C_global = 100): the first step lowered by a factor δ, ρ₁ = 1/δ
// (τ-shifted schedule), so that the same iterations cover too little of the way. δ_min = 1024
// (measured: at data seed 1101 the remaining share is 0.029, 0.023, 0.078, 0.086 and 0.215 for
// δ = 1, 128, 256, 512 and 1024); the control runs at kControlMultiple · δ_min = 4096 (share ≈ 0.5).
// Record (3) has no control of its own, because no small change of the hypothesis makes the gap
// grow over the second half (measured, data seeds 1101-1105 unless said, both quick instances; the
// ratio is lhs/rhs, 0.27-0.59 for the claim's own run). The gap after t iterations is a floor, set by
// the update's fixed point, plus a part that falls with ρ_t (the estimator's noise); a change that
// keeps ρ_t decreasing moves the floor, or the rate, but the gap still falls:
//  - the update biased, Algorithm 2's factor N_i/|D_i| times 1 + δ. The biased fixed point (the
//    deterministic biased update, all ratings, to 1e-6) lies g(δ) = 0.0006, 0.025, 0.10, 0.24, 0.40
//    and 0.57 nats/rating below full VB for δ = 0.1, 1, 4, 16, 64 and 256, so g(δ) reaches the
//    unbiased run's gap at T/2 (0.16-0.57) only for δ ≈ 8-256; but the bias scales the noise by
//    1 + δ as well, and the run's ratio rises with δ without reaching 1: 0.28-0.48, 0.42-0.61,
//    0.63-0.75, 0.72-0.82, 0.80-0.89 and 0.86-0.93 (at δ = 64 the gap at T/2 is 5.6-11 nats/rating
//    against g = 0.40). δ = −0.5 and −0.9 (seeds 1101-1103): 0.28-0.62 and 0.85-0.94; δ = −0.95:
//    0.94-0.98. Near δ = −1 the run stalls at its fixed point and the ratio sits at 1 ± 1e-4: δ =
//    −0.97 gives 1.00006-1.0006 (all 10 instances above 1), −0.98 and −0.99 0.99994-1.00002 (some
//    above, some below), so the sign is set by the rounding of a flat gap, not by the violation; a
//    control there (the data weighed 1/33) is neither small nor robust. The paquet-drop-scale
//    mutant (the factor dropped, δ ≈ −0.97 to −0.98 on these degrees) breaks (3) at C_global = 100
//    this way in the kill matrix. (The bias breaks record (2) instead, from a δ between 2 and 4 at
//    C_global = 100.)
//  - the schedule's exponent outside (0.5, 1], ρ_t = t^(−κ): κ = 0.45 and 0.4 give 0.20-0.59 and
//    0.21-0.64; κ = 1.05, 1.5, 2 and 3 give 0.81-0.95, 0.978-0.996, 0.997-0.9995 and 1 − 2e-6 to
//    1 − 4e-5 (the steps vanish, the iterate freezes, and what it still moves lowers the gap). Only a
//    constant step ρ ≡ 1 (κ = 0, not a small change) exceeds 1, on 5 of the 10 instances (0.70-1.87):
//    a coin toss, not a control.
//  - a first step above 1, ρ_t = a·t^(−0.6) (seeds 1101-1103): a = 1.1 and 1.5 give 0.27-0.54; from
//    a = 2 the run diverges, which is record (2)'s fact, not (3)'s.
// A control of (3) would need something that grows over the second half (a step or a bias growing
// with t), not a small change of the hypothesis.
// Error level (docs/systems.md B.9, "Levels"): given the seed the records are deterministic (the
// data, the initial point and every sample come from streams the seed fixes), but the seed is drawn
// by whoever runs the suite, so their false-alarm level is their failure probability over seeds:
// measured over quick seeds 1–200 by scripts/measure-seed-levels.py (no failure; normal fits of the
// relative margins below kSeedLevelFloor) and stated as kSeedLevelFloor on each quick record.
#include "paquet_common.hpp"
#include "seed_level.hpp"

namespace ngvi::claims::paquet {
namespace { namespace NGVI_UNITY_ID {

constexpr const char* kId = "paquet.alg2_option_a";
constexpr double kShare = 0.15;
constexpr long kIters = 3000;
constexpr double kDeltaMin = 1024;  ///< measured (DESCRIPTION)

std::vector<ClaimRecord> run_claim(const RunContext& ctx) {
  std::vector<ClaimRecord> out;
  if (!ctx.wants("double")) return out;
  const std::uint64_t seed = ctx.seed + 1100;
  const auto d = b7_data(seed);
  const auto q0 = b7_init(d, 5, seed);
  const double full = full_vb_elbo_per_rating(d, q0);
  const double start = mf_elbo(d, q0) / static_cast<double>(d.size());
  std::vector<long> batches = ctx.full ? std::vector<long>{100, 200, 300, 400, 500, 600, 700, 800, 900, 1000} : std::vector<long>{100, 1000};
  const double delta = kControlMultiple * kDeltaMin;
  for (long cg : batches)
    for (int control = 0; control < 2; ++control) {
      if (control == 1 && cg != batches.front()) continue;
      Stopwatch sw;
      PaquetOptions o;
      o.algorithm = PaquetAlgorithm::kGlobal;
      o.global_batch = cg;
      o.option = PaquetOption::kSequential;
      const long iters = ctx.full ? kIters : kIters * batches.front() / cg;
      const auto r = run(d, q0, o, parts_for(ctx), delayed_schedule(control ? 1 / delta : 1.0), iters, seed, 20 + static_cast<std::uint64_t>(cg), iters / 2);
      const double share = r.diverged ? kDivergedGap : (full - r.elbo_per_rating) / (full - start);
      std::string note = "remaining share of the ELBO gap (full VB " + fmt_double(full) + ", start " + fmt_double(start) + " per rating) after " +
                         std::to_string(r.sweeps) + " iterations, option (a); deterministic given the seed";
      if (control) note = violation_note("first step rho_1 = 1/delta, delta", delta, kDeltaMin, "measured") + "; " + note;
      const std::string inst = "b7/Cglobal=" + std::to_string(cg) + (control ? "/control-rho1=2^-12" : "/rho1=1");
      out.push_back(inequality_record(kId, inst, "double", control ? Kind::kControl : Kind::kClaim, share, kShare, sw.seconds(), note, "share"));
      if (control) continue;
      // Still converging at the end: the gap to full VB over the second half of the run shrinks
      // (DESCRIPTION). The reference's tail e ∈ [0, kFullVbTail] cancels from this comparison (both
      // sides move by e).
      const double gap_t = r.diverged ? kDivergedGap : full - r.elbo_per_rating;
      const double gap_half = full - r.mid_elbo_per_rating;
      out.push_back(inequality_record(kId, "b7/Cglobal=" + std::to_string(cg) + "/rho1=1/second-half", "double", Kind::kClaim, gap_t,
                                      std::isfinite(gap_half) ? gap_half : -kDivergedGap, 0.0,
                                      "ELBO gap to full VB (nats/rating) after " + std::to_string(iters) + " iterations (lhs) and after " +
                                          std::to_string(iters / 2) + " (rhs): the run still approaches full VB; deterministic given the seed",
                                      "nats/rating"));
    }
  set_quick_seed_level(out, ctx.full);  // the file's head: "Error level"
  return out;
}

const Registrar kReg({kId, "Algorithm 2, option (a), converges from rho_1 = 1 for C_global in {100, ..., 1000}",
                      "Paquet 2014, App. B, Fig. 3; docs/systems.md B.3, B.8", "[R]", run_claim,
                      CostHint{0.26, 8}});

}}  // namespace
}  // namespace ngvi::claims::paquet
