// DESCRIPTION
// Claim paquet.small_step_cures (Paquet 2014, Sec. 3; docs/systems.md B.6-B.8.4): with at most C = 1
// child per node, a small first step ρ₁ = 1/64 (ρ_t = (t + τ)^(−0.6), τ = 64^(1/0.6) − 1) cures the
// divergence that ρ₁ = 1 causes: both options converge.
// Reference: full VB = CAVI (all children, ρ ≡ 1) until the ELBO changes by < 1e-6 relative; its
// measured shortfall from the optimum (≤ 1e-3 nats/rating on the B.7 instances) is subtracted from the
// bound of the full instance.
// Instances:
//  * full (the issue's): the B.7 generator (300 users × 600 items, density 0.1, K = 5), 20000 sweeps;
//    record lhs = ELBO/rating of full VB − that of the run (a diverged run counts as 1e300),
//    rhs = 0.01 − 1e-3 nats/rating.
//  * quick: a small network that still diverges at ρ₁ = 1 (60 users × 120 items, density 0.5, so
//    N_i ≈ 60 per user and 30 per item as in B.7, K = 5), 3 data seeds, T = 1000 sweeps: no
//    divergence and the runs close at least 95% of the ELBO gap between the initial point and full
//    VB on average, lhs = mean over the data seeds of (L_full − L_T)/(L_full − L_0) per rating (a
//    diverged run counts as 1e300), rhs = 0.05; each seed's share in the note. The quick instance
//    cannot state the "within 0.01 nats/rating of full VB" in the quick suite's time: the gap after T sweeps is set by the step ρ_T (the noise
//    floor of the C = 1 estimate), not by the size of the network. Measured (throwaway runs, data
//    seeds 1-3): on this network 0.027, 0.015 and 0.009 nats/rating after 10³, 3·10³ and 10⁴ sweeps
//    (as (T + τ)^(−0.6) predicts from the first: 0.027 · (2023/11023)^0.6 = 0.0097); 30 × 60 at
//    density 1 (the same degrees) 0.015 after 3·10³; smaller degrees are noisier per rating
//    (10 × 20: 0.015-0.055 after 3·10³) and stop diverging at ρ₁ = 1 on some seeds. So the bound
//    with the full-VB tail subtracted (0.009) needs about 1.2·10⁴ sweeps on any network that still
//    diverges at ρ₁ = 1: about 0.7 s per option here, against the ~0.3 s the quick suite allows for
//    it. The quick record shows the cure (no divergence, 95% of the gap closed), the full one the bound.
// Negative control: the first step raised by a factor δ: ρ₁ = δ/64 with δ = 64 (ρ₁ = 1, τ = 0): the run
// diverges. δ_min (measured, the C = 1 stability scan ρ₁ = 2^(−k) of paquet.option_a_fragile, 400
// sweeps): on the quick network (data seeds 801-804) the largest stable ρ₁ is 1/8-1/16 for (a) and 1/4
// for (b), so every seed diverges from δ = 16 (a) and 32 (b); on B.7 (docs/systems.md B.7) from 1/8
// (a) and 1/4 (b), δ = 8 and 16. The control runs at δ = 64, the largest first step (ρ₁ ≤ 1): 4 δ_min
// for (a), 2 δ_min for (b) on the quick network.
// Error level (docs/systems.md B.9, "Levels"): given the seed the records are deterministic (the
// data, the initial point and every sample come from streams the seed fixes), but the seed is drawn
// by whoever runs the suite, so their false-alarm level is their failure probability over seeds:
// measured over quick seeds 1–200 by scripts/measure-seed-levels.py (no failure; normal fits of the
// relative margins below kSeedLevelFloor) and stated as kSeedLevelFloor on each quick record.
// With one data seed per
// run (the kit's first form) the quick record failed on suite seed 123 of 1..500 (data seed 923,
// option (a): share 0.0526), about 1 run in 500. Hence the mean over 3 data seeds: over data seeds
// 801..1700 (suite seeds 1, 4, ..., 898) the share per data seed has median 0.0053 (a) and 0.0050
// (b), 99th percentile 0.017 and 0.025, largest 0.0526 and 0.044; the largest mean of 3 was 0.021,
// and in 1e6 resampled triples none exceeded 0.05 (0.03: 1.2e-4 for (a)).
// Margins: quick, mean share ≈ 0.005 against 0.05; full, ≈ 0.005 nats/rating against 0.009.
// The control runs on the first data seed only (it diverges within 400 sweeps).
#include "paquet_common.hpp"
#include "seed_level.hpp"

namespace ngvi::claims::paquet {
namespace { namespace NGVI_UNITY_ID {

constexpr const char* kId = "paquet.small_step_cures";
constexpr double kGap = 0.01;         ///< the issue's bound (nats/rating), full instance
constexpr double kQuickShare = 0.05;  ///< quick instance: largest mean remaining share of the initial ELBO gap
constexpr int kQuickSeeds = 3;        ///< quick instance: data seeds the share is averaged over (DESCRIPTION)
/// δ_min of option (a) and (b) on the instance run (measured, DESCRIPTION).
double delta_min(bool full, PaquetOption opt) {
  const bool a = opt == PaquetOption::kSequential;
  return full ? (a ? 8 : 16) : (a ? 16 : 32);
}

std::vector<ClaimRecord> run_claim(const RunContext& ctx) {
  std::vector<ClaimRecord> out;
  if (!ctx.wants("double")) return out;
  data::SyntheticRatingsOptions so;
  if (!ctx.full) {
    so.users = 60;
    so.items = 120;
    so.density = 0.5;
  }
  const long sweeps = ctx.full ? 20000 : 1000;
  const int seeds = ctx.full ? 1 : kQuickSeeds;
  const double delta = 64;  // ρ₁ = 1, the largest first step (DESCRIPTION)
  const std::string inst = ctx.full ? "b7" : "mf60x120";
  // Each data seed's network, initial point, full-VB ELBO and initial ELBO (per rating), shared by
  // both options and the control.
  struct Instance {
    std::uint64_t seed;
    RatingMatrix d;
    MfNatural<double> q0;
    double full, start;
  };
  std::vector<Instance> nets;
  for (int sd = 0; sd < seeds; ++sd) {
    const std::uint64_t seed = ctx.seed + 800 + static_cast<std::uint64_t>(sd);
    auto d = data::synthetic_ratings(so, seed);
    auto q0 = b7_init(d, 5, seed);
    const double full = full_vb_elbo_per_rating(d, q0);
    const double start = mf_elbo(d, q0) / static_cast<double>(d.size());
    nets.push_back({seed, std::move(d), std::move(q0), full, start});
  }
  // A run's measure: its gap to full VB (full) or the share of the initial gap it leaves (quick);
  // a diverged run counts as kDivergedGap. The bound and unit of both the claim and the control.
  auto measure = [&](const Instance& net, const auto& r) {
    const double gap = net.full - r.elbo_per_rating;
    return r.diverged ? kDivergedGap : ctx.full ? gap : gap / (net.full - net.start);
  };
  const double rhs = ctx.full ? kGap - kFullVbTail : kQuickShare;
  const char* unit = ctx.full ? "nats/rating" : "share";
  const PaquetParts<double> parts = parts_for(ctx);
  for (auto opt : {PaquetOption::kSequential, PaquetOption::kSimultaneous}) {
    PaquetOptions o;
    o.children = 1;
    o.option = opt;
    // The claim: over the data seeds, the mean of the run's gap (full) or remaining share (quick).
    Stopwatch sw;
    double lhs = 0;
    std::string by_seed;
    for (const auto& net : nets) {
      const auto r = run(net.d, net.q0, o, parts, delayed_schedule(1.0 / 64), sweeps, net.seed, 2);
      const double v = measure(net, r);
      lhs += v / static_cast<double>(seeds);
      by_seed += (by_seed.empty() ? "" : ", ") + (r.diverged ? std::string("diverged") : fmt_double(v)) +
                 (ctx.full ? " (full-VB ELBO/rating " + fmt_double(net.full) + ")"
                           : " (gap " + fmt_double(net.full - r.elbo_per_rating) + " nats/rating)");
    }
    const std::string what = ctx.full ? "full-VB ELBO/rating minus the run's" : "mean over " + std::to_string(seeds) + " data seeds of the remaining share of the ELBO gap";
    out.push_back(inequality_record(kId, inst + "/option-" + to_string(opt) + "/rho1=1/64", "double", Kind::kClaim, lhs, rhs, sw.seconds(),
                                    what + " after " + std::to_string(sweeps) + " sweeps, C = 1; by seed from " + std::to_string(nets.front().seed) +
                                        ": " + by_seed + "; deterministic given the seed",
                                    unit));
    // The control: ρ₁ = δ/64 on the first data seed, 400 sweeps.
    Stopwatch sw2;
    const auto& net = nets.front();
    const auto r = run(net.d, net.q0, o, parts, delayed_schedule(delta / 64), 400, net.seed, 2);
    out.push_back(inequality_record(kId, inst + "/option-" + to_string(opt) + "/control-rho1=1", "double", Kind::kControl, measure(net, r), rhs,
                                    sw2.seconds(),
                                    violation_note("first step rho_1 = delta/64, delta", delta, delta_min(ctx.full, opt), "measured") + "; " +
                                        (r.diverged ? "diverged" : "did not diverge") + "; deterministic given the seed",
                                    unit));
  }
  set_quick_seed_level(out, ctx.full);  // the file's head: "Error level"
  return out;
}

const Registrar kReg({kId, "C = 1 with rho_1 = 1/64 converges for both options (full instance: to within 0.01 nats/rating of full VB)",
                      "Paquet 2014, Sec. 3; docs/systems.md B.6-B.8", "[R]", run_claim,
                      CostHint{0.15, 9.7}});

}}  // namespace
}  // namespace ngvi::claims::paquet
