// DESCRIPTION
// Claim fig2.price_improves_sgd (Wu & Gardner 2024, Section 6, Figure 2, finding "switching SGD to
// the Price gradient improves it markedly"; docs/math.md §7.2, tag [R] for the finding, the instance,
// step size and threshold the kit's): on Bayesian logistic regression, SGD in (m, L)
// (optim/sgd_mL_nonconjugate.hpp) with the Price gradient ("SGD (p)": ∇_m = ḡ, ∇_L = tril(H̄L)) ends
// T steps with a negative-ELBO gap f(q_T) − f* less than half that of the same SGD with the
// reparameterisation gradient ("SGD"), same K, same step sizes, same draws:
//   E gap_P(T) / E gap_R(T) ≤ kMarked = 1/2.
// Double only (a statement about the estimators' statistics, not about rounding).
// Quick instance: synthetic logistic regression, n = 150 rows of four N(0, 1) features (dyadic-
// rounded) plus a bias column (d = 5), labels Bernoulli-logit from a fixed z, one fixed data set
// (kQuickDataSeed, the same for every suite seed), prior and q₀ N(0, I),
// K = 1, T = 400, γ_t = c/(t + t₀) with c·μ_H = 2 and t₀ = 50·L_H/μ_H (μ_H, L_H the extreme
// eigenvalues of S*⁻¹, the Hessian of f in m at the optimum; γ₀ = 1/(25L_H)), diagonal clamp 10⁻⁴
// (the runner's). Full mode adds the breast-cancer table (standardised, bias column, T = 1000) when
// installed, a skipped record otherwise. R = 64 replicates, PAIRED: replicate r runs both estimators
// on the stream (seed, 52000 + r), so both draw the same ε (the library's routine for both).
// Reference: f* = f(q*), q* the stationary point of f by NGD with the exact gradient ∇_μ E_q ℓ
// (Gauss–Hermite per datum, models/glm_variational.hpp; no Monte Carlo, no estimator), damped (ρ = ½),
// iterated to a relative stationarity residual below 1e-13; f(q_T) by the same 64-node quadrature
// (neg_elbo_mL). q* minimises f over Gaussians (log-concave likelihood, Proposition 1), so each gap ≥ 0.
// Test (level α = kLevel): r̂ = mean gap_P / mean gap_R; the log-ratio's paired delta-method standard
// error ρ = sd_r(gap_P,r/m_P − gap_R,r/m_R)/√R; the record is broken iff the lower bound
// r̂·exp(−z_{1−α}ρ) exceeds kMarked (significant evidence that the improvement is less than 2×);
// lhs = that bound, rhs = kMarked. The upper bound r̂·exp(z_{1−α}ρ) is in the note (the finding is
// itself significant at level α when it is below kMarked). Power: a ratio ≥ kMarked·exp((z_{1−α} +
// z_{0.9})ρ) is detected with probability ≥ 0.9.
// Negative control: the Price estimator's Hessian term over-weighted, ∇_L = (1 + δ)·tril(H̄L) + (exact KL
// part) (the unbiasedness premise of the comparison violated: E H̄ = E∇²ℓ is Price's theorem). The
// biased SGD (p) tends to q_δ with ∇_m f = 0 and S_δ⁻¹ = S_p⁻¹ − (1 + δ)E_{q_δ}∇²ℓ (computed by the
// same exact iteration with ∇_S E_q ℓ scaled by 1 + δ), a gap floor f(q_δ) − f* growing like δ².
// To first order the biased mean gap is the claim run's plus that floor, so δ_min (derived) solves
// f(q_δ) − f* = r_d·mean gap_R − mean gap_P with r_d = kMarked·exp((z_{1−α} + z_{0.9})ρ), the ratio
// the record detects with probability ≥ 0.9 (bracketed search on the exact floor); the control runs
// at δ = kControlMultiple·δ_min (floor ≈ 16× the room). (δ_min solved to the expected ratio kMarked
// itself left no room where r̂ ≥ kMarked yet the claim held: δ = 0 and a control identical to the
// claim, at 2 of 60 random suite seeds, e.g. 2256978502.)
// Why over-weighted (1 + δ), not under-weighted (1 − δ): logistic ℓ is concave (−E∇²ℓ ⪰ 0), so
// S_δ⁻¹ ⪰ S_p⁻¹ ≻ 0 for every δ ≥ 0, while with 1 − δ the limit's S_δ⁻¹ = S_p⁻¹ − (δ − 1)(−E∇²ℓ) leaves
// the positive-definite cone for δ > 1: a control at kControlMultiple·δ_min would exist only where
// δ_min < 1/4, and on the breast-cancer table (large room: r̂ ≈ 0.17) δ_min ≈ 0.48 in that direction.
#include "ngvi/claims/expfam_common.hpp"
#include "fig_common.hpp"
#include "nonconjugate_common.hpp"
#include "ngvi/optim/fixed_point.hpp"
#include "ngvi/optim/sgd_mL_nonconjugate.hpp"
#include "sec5_nonconvex_common.hpp"

namespace ngvi::claims {
namespace { namespace NGVI_UNITY_ID {

constexpr const char* kId = "fig2.price_improves_sgd";
// False-alarm level of the claim record (docs/math.md §8.1).
constexpr double kLevel = 5e-4;
// "Markedly": the Price gradient at least halves the gap (the kit's reading of the finding).
constexpr double kMarked = 0.5;
constexpr double kClamp = 1e-4;
constexpr double kFixedPointTol = 1e-13;
constexpr int kFixedPointIters = 100000;
constexpr double kControlMultiple = 4.0;
// The step γ_t = c/(t + t₀) of both estimators: c·μ_H = kCMu, t₀ = kT0·L_H/μ_H, so γ₀ = 1/(25 L_H).
// The kit's choice (measured, throwaway: at t₀ = 20 L_H/μ_H or c·μ_H = 4 some reparameterisation runs
// blow up and the gap means are heavy-tailed; at c·μ_H = 1, t₀ = 100 L_H/μ_H both runs are still far
// from f* at T and the optimisation error, common to both, dominates the gaps).
constexpr double kCMu = 2.0;
constexpr double kT0 = 50.0;
constexpr long kQuickSteps = 400;
constexpr long kFullSteps = 1000;
constexpr long kReplicates = 64;
// The quick instance's data are fixed (the data of the default suite seed 20240601, which drew them
// from seed + 53); the suite seed drives the replicates' draws only. The ratio E gap_P/E gap_R is a
// property of the data set: over 425 random data sets (suite seeds 1000..1424) log r̂ had sd 0.175
// across data sets against a within-data-set standard error of 0.059, r̂ ranged over 0.20–0.56 (10th,
// 50th, 99th percentiles 0.23, 0.28, 0.47) and exceeded ½ on 2 of them, where the record broke at
// seed 1403 (r̂ = 0.563, lower bound 0.51): on a few data sets the Price gradient improves SGD by
// less than 2×, so a per-seed data set made the record fail more often than its level α says.
constexpr std::uint64_t kQuickDataSeed = 20240601 + 53;

// The stationary point of stochastic SGD (p) with its Hessian term scaled by `hessian_scale` = 1 + δ:
// ∇_m = 0 and tril((S_p⁻¹ − (1 + δ)E_q∇²ℓ − S⁻¹)L) = 0, i.e. η = η_p + (∇_m − 2(1 + δ)∇_S m, (1 + δ)∇_S)
// with (∇_m, ∇_S) = ∇_{(m,S)} E_q ℓ (∇_S = ½E_q∇²ℓ). With scale 1 it is the stationary point q* of f
// (Proposition 1: the minimiser of f over Gaussians). Found by NGD with these exact gradients
// (Gauss–Hermite per datum, models/glm_variational.hpp: no Monte Carlo, no estimator), damped
// (ρ = ½), from the prior (or `start`), until the relative residual of the fixed-point equation is below
// kFixedPointTol (optim/fixed_point.hpp).
GaussianMoments<double> exact_stationary(const LogisticRegression<double>& model, double hessian_scale = 1.0,
                                         double tol = kFixedPointTol, const GaussianMoments<double>* start = nullptr) {
  const auto prior = moments_to_natural(model.prior());
  const auto grad = [&model, hessian_scale](const GaussianNatural<double>& eta) {
    const auto q = natural_to_moments(eta);
    const auto gm = model.grad_moments(q);
    const Mat<double> gs = hessian_scale * gm.grad_S;
    return GaussianPair<double>{Vec<double>(gm.grad_m - 2.0 * gs * q.mean), gs};
  };
  return natural_to_moments(ngd_fixed_point(prior, start ? moments_to_natural(*start) : prior, grad, 0.5, tol, kFixedPointIters));
}

// The δ ≥ 0 at which the biased SGD (p)'s limit q_δ (Hessian term scaled by 1 + δ) has
// f(q_δ) − f* = target. The floor is a·δ²(1 + O(δ)) near 0 (f is stationary at q*) and grows without
// bound (S_δ → 0 as δ → ∞, and the KL's −½ log det S_δ diverges), so a bracket [lo, hi] with
// floor(lo) < target ≤ floor(hi) is found by doubling from δ = 0.05, then narrowed by the step
// δ ← δ·√(target/floor(δ)) (the quadratic model), replaced by the geometric midpoint when it falls
// outside the bracket; it stops when the floor is within 2% of the target. The limits are computed to
// a residual of 1e-9 from q* (f is stationary there, so the floor's error is second order in it).
double hessian_bias_for_gap(const LogisticRegression<double>& model, const GaussianMoments<double>& star, double fstar,
                            double target) {
  auto gap = [&](double delta) { return model.neg_elbo(exact_stationary(model, 1.0 + delta, 1e-9, &star)) - fstar; };
  constexpr double kMaxDelta = 1e3;
  double lo = 0, hi = 0.05, g = gap(hi);
  while (!(g >= target)) {
    if (!(g > 0)) throw std::runtime_error("the biased limit's gap is not positive at delta = " + fmt(hi));
    lo = hi;
    hi *= 2;
    if (hi > kMaxDelta) throw std::runtime_error("the biased limit's gap stays below " + fmt(target) + " up to delta = " + fmt(kMaxDelta));
    g = gap(hi);
  }
  double delta = hi;
  for (int i = 0; i < 40 && std::abs(g / target - 1) >= 0.02; ++i) {
    if (g < target) lo = delta; else hi = delta;
    double next = delta * std::sqrt(target / g);
    if (!(next > lo && next < hi)) next = lo > 0 ? std::sqrt(lo * hi) : hi / 2;
    delta = next;
    g = gap(delta);
    if (!(g > 0)) throw std::runtime_error("the biased limit's gap is not positive at delta = " + fmt(delta));
  }
  return delta;
}

// The Price estimator of the library with its likelihood part of ∇_L scaled by `scale` (1 + δ): the
// KL part tril(S_p⁻¹L) − diag(1/L_ii) is exact and is recomputed to split the two.
template <class Inner>
struct HessianScaledEstimator {
  Inner& inner;
  const Mat<double>& prec_p;
  double scale;
  template <class S>
  void estimate(long t, const S& s, SqrtParam<double>& out) {
    inner.estimate(t, s, out);
    const auto& l = s.point().l;
    Mat<double> kl_part = Mat<double>((prec_p * l).template triangularView<Eigen::Lower>());
    for (Index i = 0; i < l.rows(); ++i) kl_part(i, i) -= 1.0 / l(i, i);
    out.l = scale * (out.l - kl_part) + kl_part;
  }
};

struct Instance {
  std::string name;
  Dataset<double> data;
  int K;
  long T;
  long R;
};

struct Setup {
  double c = 0, t0 = 0, fstar = 0;
};

// gap_r = f(q_T) − f* per replicate r (NaN on a failed run). `hessian_scale` ≠ 1 runs the control.
std::vector<double> gaps(const LogisticRegression<double>& model, const Instance& inst, const Setup& su, std::string_view est,
                         double hessian_scale, const RunContext& ctx) {
  const Index d = inst.data.d();
  const auto prior = model.prior();
  const Mat<double> prec_p = prior.cov.inverse();
  const auto loglik = loglik_function(model);
  const auto schedule = StepSchedule<double>::inverse_time(su.c, su.t0);
  const auto res = parallel::run_replicates(inst.R, ctx.threads, [&](long r) {
    random::Stream rng(ctx.seed, 52000 + static_cast<std::uint64_t>(r));
    SgdMLRun<double> run;
    if (hessian_scale == 1.0) {
      run = sgd_mL_nonconjugate<double>(loglik, prior, prior, schedule, inst.K, inst.T, rng, est, kClamp);
    } else {
      SgdSqrtStepper<double> stepper(SqrtParam<double>{prior.mean, Mat<double>::Identity(d, d)}, kClamp);
      SqrtMonteCarloGradient<double, decltype(loglik)> inner(loglik, prior, inst.K, rng, PriceRoute::name);
      HessianScaledEstimator<decltype(inner)> scaled{inner, prec_p, hessian_scale};
      PointAverage<SgdSqrtStepper<double>> tail(AverageWeights::kTail);
      run = run_trajectory(stepper, scaled, schedule, tail, RunOptions{inst.T});
    }
    if (!run.ok()) return std::numeric_limits<double>::quiet_NaN();
    return model.neg_elbo_mL(run.last.m, run.last.l) - su.fstar;
  });
  return res;
}

struct PairedRatio {
  double ratio = 0, rho = 0;
};
PairedRatio paired_ratio(const std::vector<double>& a, const std::vector<double>& b) {
  const double ma = mean_of(a), mb = mean_of(b);
  std::vector<double> psi;
  for (std::size_t r = 0; r < a.size(); ++r) psi.push_back(a[r] / ma - b[r] / mb);
  return {ma / mb, std::sqrt(sample_variance(psi) / static_cast<double>(a.size()))};
}

// The ratio r_d = kMarked·exp((z_{1−α} + z_{0.9})ρ) that the record detects with probability 0.9, for
// the paired log-scale standard error ρ.
double detected_ratio(double rho) {
  return kMarked * std::exp((stats::normal_quantile<double>(1.0 - kLevel) + stats::normal_quantile<double>(0.9)) * rho);
}

ClaimRecord ratio_record(const std::string& instance, Kind kind, const std::vector<double>& price, const std::vector<double>& reparam,
                         double seconds, const std::string& extra) {
  const auto e = paired_ratio(price, reparam);
  const double z = stats::normal_quantile<double>(1.0 - kLevel);
  const double lcb = e.ratio * std::exp(-z * e.rho), ucb = e.ratio * std::exp(z * e.rho);
  ClaimRecord r = inequality_record(
      kId, instance, "double", kind, lcb, kMarked, seconds,
      "E gap_P(T) <= " + fmt(kMarked) + " E gap_R(T): mean gap price " + fmt(mean_of(price)) + ", reparam " + fmt(mean_of(reparam)) +
          ", ratio " + fmt(e.ratio) + " (paired log-scale se " + fmt(e.rho) + ", R=" + std::to_string(price.size()) +
          "); level-" + fmt(kLevel) + " bounds [" + fmt(lcb) + ", " + fmt(ucb) + "]; lhs = the lower bound (broken iff it exceeds " +
          fmt(kMarked) + "); power: a ratio >= " + fmt(detected_ratio(e.rho)) +
          " is detected with probability >= 0.9" + (extra.empty() ? "" : "; " + extra),
      "gap ratio");
  if (kind == Kind::kClaim) r.level = kLevel;
  return r;
}

// One instance: the claim record, then the control record (appended to `out` as they are made).
void run_instance(const Instance& inst, const RunContext& ctx, std::vector<ClaimRecord>& out) {
  Stopwatch sw;
  const Index d = inst.data.d();
  const auto model = make_logistic_regression<double>(inst.data, standard_normal_prior<double>(d));
  const auto star = exact_stationary(model);
  Setup su;
  su.fstar = model.neg_elbo(star);
  // μ_H, L_H: the extreme eigenvalues of S*⁻¹, the Hessian of f in m at the optimum.
  const Eigen::SelfAdjointEigenSolver<Mat<double>> es(Mat<double>(star.cov.inverse()), Eigen::EigenvaluesOnly);
  const double mu = es.eigenvalues().minCoeff(), lh = es.eigenvalues().maxCoeff();
  su.c = kCMu / mu;
  su.t0 = kT0 * lh / mu;
  const auto price = gaps(model, inst, su, PriceRoute::name, 1.0, ctx);
  const auto reparam = gaps(model, inst, su, ReparamRoute::name, 1.0, ctx);
  const std::string steps = "step c/(t + t0), c = " + fmt(su.c) + ", t0 = " + fmt(su.t0) + " (mu_H " + fmt(mu) + ", L_H " + fmt(lh) +
                            "), K = " + std::to_string(inst.K) + ", T = " + std::to_string(inst.T) + ", f* = " + fmt(su.fstar);
  out.push_back(ratio_record(inst.name + "/gap-ratio", Kind::kClaim, price, reparam, sw.seconds(), steps));
  // Control: SGD (p) with ∇_L's Hessian term scaled by 1 + δ. Its mean gap is, to first order, the
  // claim run's plus the limit's floor f(q_δ) − f* (the noise about q_δ as about q*); δ_min solves
  // floor = room, the room to the ratio kMarked·exp((z_{1−α} + z_{0.9})ρ) that the record detects
  // with probability 0.9. That room is positive whenever the claim record holds (lcb ≤ kMarked
  // means r̂ < kMarked·exp(z_{1−α}ρ)); when it does not, the room as if the Price gap were 0.
  Stopwatch sw2;
  const double detected = detected_ratio(paired_ratio(price, reparam).rho);
  const double room_to_detected = detected * mean_of(reparam) - mean_of(price);
  const double room = room_to_detected > 0 ? room_to_detected : detected * mean_of(reparam);
  const double delta_min = hessian_bias_for_gap(model, star, su.fstar, room);
  const double delta = kControlMultiple * delta_min;
  const auto biased = gaps(model, inst, su, PriceRoute::name, 1.0 + delta, ctx);
  out.push_back(ratio_record(inst.name + "/gap-ratio/price-hessian-biased", Kind::kControl, biased, reparam, sw2.seconds(),
                             violation_note("scale 1 + delta of the Price Hessian term tril(H L) of grad_L (biased)", delta, delta_min,
                                            "limit gap floor f(q_delta) - f* = " +
                                                fmt(model.neg_elbo(exact_stationary(model, 1.0 + delta, 1e-9, &star)) - su.fstar) +
                                                "; delta_min: floor = " + fmt(detected) + " mean gap_R - mean gap_P" +
                                                (room_to_detected > 0 ? "" : " (claim broken: mean gap_P taken as 0)") +
                                                ", the ratio detected with probability 0.9")));
}

std::vector<ClaimRecord> run(const RunContext& ctx) {
  std::vector<ClaimRecord> out;
  if (!ctx.wants("double")) return out;
  std::vector<Instance> insts;
  insts.push_back({"synthetic-n150-d5-K1", random_glm_data(150, 4, false, 1.0, kQuickDataSeed), 1, kQuickSteps, kReplicates});
  if (ctx.full) {
    if (auto bc = breast_cancer_with_bias()) {
      insts.push_back({"breast_cancer-K1", std::move(*bc), 1, kFullSteps, kReplicates});
    } else {
      out.push_back(skipped_record(kId, "breast_cancer-K1", "double", Kind::kClaim, "the breast-cancer table is not installed"));
    }
  }
  for (const auto& inst : insts) {
    const std::size_t before = out.size();
    try {
      run_instance(inst, ctx, out);
    } catch (const std::exception& e) {
      // One instance's failure is its own error record (NaN lhs: verdict error), on the record it
      // stopped at (the claim's, or the control's when the claim record was made); the other
      // instances still report.
      const bool claim_made = out.size() > before;
      out.push_back(inequality_record(kId, inst.name + (claim_made ? "/gap-ratio/price-hessian-biased" : "/gap-ratio"), "double",
                                      claim_made ? Kind::kControl : Kind::kClaim, std::numeric_limits<double>::quiet_NaN(), kMarked,
                                      0.0, std::string("error: the instance threw: ") + e.what(), "gap ratio"));
    }
  }
  return out;
}

const Registrar kReg({kId, "Figure 2: SGD in (m, L) with the Price gradient ends T steps with less than half the negative-ELBO gap of the reparameterisation gradient (same K, steps, draws); double only",
                      "Wu & Gardner 2024, Section 6, Figure 2; docs/math.md §7.2", "[R]", run,
                      CostHint{0.33, 19}});

}}  // namespace
}  // namespace ngvi::claims
