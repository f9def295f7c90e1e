// DESCRIPTION
// Claims lemma5.precision_floor, lemma9.convex_hull, cor1.eta1_bound, cor2.mu1_bound,
// lemma10.mu1_gap and lemma11.mu2_gap (Wu & Gardner 2024, Appendix C; docs/math.md §5.4, tags [R]
// and [D] for the constants of Lemmas 10–11): along recorded trajectories of eq. (15) NGD with
// γ_t = 2/(t+2) on Bayesian linear regression with prior N(0, S_p), at every step t, for the
// stochastic iterate η_{t+1} and the exact-gradient iterate η̃_{t+1} from the same η_t:
//   Lemma 5   η₂ ≼ −(λ/2)I;            Lemma 9   η₁ ∈ C = {Σ α_i y_i x_i : α ≥ 0, Σα ≤ n/s_e²};
//   Cor. 1    ‖η₁‖ ≤ B;                Cor. 2    ‖μ₁‖ ≤ B/λ;
//   Lemma 10  ‖μ₁ − μ̃₁‖ ≤ (γ/λ)‖Δ₁‖ + (2Bγ/λ²)‖Δ₂‖_F;
//   Lemma 11  ‖μ₂ − μ̃₂‖_F ≤ (2Bγ/λ²)‖Δ₁‖ + (2γ/λ²)(1 + 2B²/λ)‖Δ₂‖_F.
// The recorded trajectory's first batch is M copies of the datum i* with the largest |y_i|‖x_i‖, its
// second M copies of the datum x_j closest to orthogonal to x_{i*} (draws of eq. (15) of probability
// n^−M each): at γ₀ = 1 the first puts η₁ on the vertex of C of norm B, so Cor. 1 and Lemma 9 hold
// with equality there, and Lemma 5 with equality in the d − 1 directions the batch leaves untouched
// when S_p = I. The later batches are random.
// Instances: the quick (and full) regression problems of blr_common.hpp, and for Cor. 1–2 and
// Lemmas 9–11 the extremal instance "weak-d1-n2-M1" (d = 1, x = (2⁻¹⁰, 2⁻⁹), y = (2¹⁰, 2⁹), S_p = 1,
// s_e² = 1, M = 1): every y_i x_i = 1, so η₁ = B on every step, and the data are weak (T x_i² ≤ 2⁻¹⁷,
// T = n/s_e²), so S ≈ λ⁻¹ and the bounds of Cor. 2 and Lemmas 10–11 are attained up to 1 − O(T x²).
// On the regression problems Cor. 2 and Lemmas 10–11 are loose by the data's curvature (S is shrunk
// along the data by 1/(1 + T‖x‖²)), which the notes state.
// References: λ, B from the data (bounds/blr_constants.hpp); eigenvalues by Eigen's symmetric
// solver; Lemma 9 independently of the recursion: for each iterate, weights α of the generators
// {0, (n/s_e²) y_i x_i} are found by two routes, clamped to α ≥ 0 with Σα ≤ 1, and the smaller residual
// ‖η₁ − Σ α_i g_i‖ is an upper bound on dist(η₁, C) (any such α is a point of C, so neither route can
// make a point outside C look inside), compared with a rounding budget: (i) the (d+1)-subsets are
// enumerated (Carathéodory) and the barycentric coordinates solved for, when C(n+1, d+1) ≤ 5000 (the
// quick problems); (ii) Wolfe's minimum-norm-point algorithm (hull_distance.hpp), a finite active-set
// solver of the projection QP, on every problem (the only route on the full ones).
// Inequalities are recorded as max_t lhs/rhs against 1 + a derived rounding allowance (Lemma 5 as
// max_t (λ/2)/λ_min(−η₂); Lemmas 10–11 with each step's lhs net of its derived rounding floor,
// rounding_floor.hpp, so that a step where both sides are 0 in exact arithmetic does not read as
// rounding over rounding).
// Negative controls, each the smallest violation of a hypothesis that the record sees, at a modest
// multiple of it (the note gives "violation: ...; breaks from ..."):
//   Lemma 5     a constant step γ = 1 + δ (hypothesis γ ≤ 1), where S_p = I; with S_p ≠ I the ceiling
//               −λ/2 is attained only along S_p's top eigenvector, which the batches touch, so the
//               control (γ₀ = 1, then 1 + δ) runs against the proof's floor in the prior's metric,
//               λ_min(Lᵀ(−η₂)L) ≥ f_t (S_p = LLᵀ; see lemma5_metric_delta_min), attained where the
//               batches have not reached;
//   Cor. 1, L9  a prior mean with S_p⁻¹m_p = δB·u, u the direction of the vertex y_{i*} x_{i*}: η₁
//               leaves C (and the ball of radius B) by δB at t = 1; outside-ness is certified by
//               the support function ⟨u, η₁⟩ > h_C(u) = max(0, max_i (n/s_e²) y_i ⟨u, x_i⟩);
//   Cor. 2      on the regression problems a prior mean of norm ρB/λ orthogonal to x_{i*} and S_p x_{i*}
//               (a smaller prior mean cannot reach ‖μ₁‖ = B/λ: the data shrink S); on the extremal
//               instance a prior mean m_p = δB;
//   L10, L11    on the extremal instance a prior mean m_p = δB (it enters through ‖η̃₁‖ ≤ B); their
//               records on the regression problems are `vacuous` and have none.
// Monte Carlo trajectories run in double.
// Against a conjugate-ngd implementation (protocols/conjugate_ngd.hpp): Lemma 9, Corollaries 1–2 and
// Lemmas 10–11 run its trajectory in place of the library's (trajectory_stats: the same fixed first
// batches and stream draws, handed to it; its own schedule and estimate make η_{t+1}); the exact
// comparison step μ̃_{t+1} of Lemmas 10–11 and their floors use eq. (15)'s ĝ_t on the handed batch,
// formed by the kit, and Theorem 1's γ_t, the claims' hypothesis; every control is a prior mean, which
// reaches the implementation through the problem it is handed (a re-run). Lemma 5 is not registered
// for the protocol: its controls are constant steps γ = 1 + δ, which cannot be handed to an
// implementation that owns its schedule.
#include <Eigen/QR>

#include "blr_trajectory.hpp"

namespace ngvi::claims {
namespace { namespace NGVI_UNITY_ID {

/// The extremal instance (see the DESCRIPTION): every number is a power of two, so the data, B = 2
/// and T = 2 are exact.
BlrInstance extremal_instance() {
  Dataset<double> data;
  data.X.resize(2, 1);
  data.y.resize(2);
  data.X << std::ldexp(1.0, -10), std::ldexp(1.0, -9);
  data.y << std::ldexp(1.0, 10), std::ldexp(1.0, 9);
  return {"weak-d1-n2-M1", std::move(data), Mat<double>::Identity(1, 1), 1.0, 1};
}

long steps_for(const RunContext& ctx) { return ctx.full ? 2000 : 200; }

// Budget for Lemma 5: λ_max of η₂ = (1−γ)η₂ + γ(η_p₂ + ĝ₂) accumulates one rounding per step of a
// contraction plus M + 2 per entry of the batch Gram (Higham Thm 3.5), and the symmetric
// eigensolver adds a backward error O(d u ‖η₂‖) (Golub & Van Loan Thm 8.3.1): γ_{M+d+8}·‖η₂‖.
double lemma5_budget(const BlrInstance& inst, double scale) {
  return rounding_budget<double>(inst.batch + inst.data.d() + 8) * scale;
}

// Lemma 5 as a ratio: λ_min(−η₂) ≥ λ/2 − b with b = lemma5_budget, so (λ/2)/λ_min(−η₂) ≤
// 1/(1 − x) = 1 + x/(1 − x), x = b/(λ/2).
double lemma5_allowance(const BlrInstance& inst, double lambda, double scale) {
  const double x = lemma5_budget(inst, scale) / (lambda / 2);
  return x / (1 - x);
}

// Budget for dist(η₁, C)/B: the library's η₁ carries O(n + M) roundings per step on terms of size
// at most B, contracted by (1 − γ) each step, so it stays within γ_{4(n+M)}·B of C; the certificate
// adds the rounding of Σα_i g_i over d + 1 terms, the difference and the norm, γ_{2d+4}·2B.
double lemma9_budget(const BlrInstance& inst) {
  return rounding_budget<double>(4 * (inst.data.n() + inst.batch)) + 2 * rounding_budget<double>(2 * inst.data.d() + 4);
}


/// Every control is at kControlMultiple times the smallest violation its record sees (derived
/// below per claim): a bisection on the multiple over seeds 1–50 finds every seed broken from 1.03
/// (1.1 for Cor. 1 on the well instance), so the derivations are sharp and 5 keeps every seed broken.
constexpr double kControlMultiple = 5;

/// Lemma 5's control: a constant step γ = 1 + δ. With S_p = I (λ = 1, η₀ = η_p₂ = −½I) and the two
/// fixed batches (M copies of x = x_{i*}, then of x_j), e(v) = vᵀη₂v + ½ is e₁(v) = −γ(T/2)(vᵀx)²
/// after the first step and e₂(v) = −δ e₁(v) − γ(T/2)(vᵀx_j)² after the second, T = n/s_e²: for v ⊥ x_j
/// in span{x, x_j}, e₂ = δγ(T/2)‖x‖² sin²θ (θ the angle of x and x_j), which the record sees once it
/// exceeds the budget b = γ_{M+d+8}·max‖η₂‖_F: δ_min = b/((T/2)‖x‖² sin²θ) (derived; later steps can
/// only add excess). ‖η₂‖_F is bounded a priori by ½‖S_p⁻¹‖_F + (T/2)R_x² (every η₂ is a convex
/// combination of η₀ = −½I and terms −½S_p⁻¹ − (T/2)·(batch mean of x xᵀ), up to a factor 1 + O(δ) when
/// γ = 1 + δ), so δ_min computed with it is an upper bound on the violation the record sees. With S_p ≠ I the ceiling −λ/2 is attained only along the top eigenvector of S_p,
/// which the batches touch, so no small γ − 1 is visible: the control runs where S_p = I.
double lemma5_delta_min(const BlrInstance& inst) {
  const double tn = static_cast<double>(inst.data.n()) / inst.noise_var;
  const double scale = 0.5 * inst.prior_cov.inverse().norm() + tn / 2 * inst.data.X.rowwise().squaredNorm().maxCoeff();
  const Vec<double> x = inst.data.X.row(extreme_datum(inst)).transpose();
  const Vec<double> xj = inst.data.X.row(second_datum(inst)).transpose();
  const double cs = x.dot(xj) / (x.norm() * xj.norm());
  return lemma5_budget(inst, scale) / (tn / 2 * x.squaredNorm() * (1 - cs * cs));
}

/// Lemma 5 in the prior's metric (S_p ≠ I). The proof's step is a convex combination: with S_p = LLᵀ,
/// Lᵀ(−η₂,t+1)L = (1 − γ_t)Lᵀ(−η₂,t)L + γ_t(½I + (T/2)·batch mean of x̃x̃ᵀ), x̃ = Lᵀx, so for γ_t ≤ 1
/// λ_min(Lᵀ(−η₂,t)L) ≥ f_t, f₀ = ½λ_min(S_p) (η₀ = −½I), f_{t+1} = (1 − γ_t)f_t + γ_t/2; and
/// Lᵀ(−η₂)L ≽ f_t I gives −η₂ ≽ f_t S_p⁻¹ ≽ (λ/2)I once f_t = ½ (t ≥ 1 when γ₀ = 1), which is Lemma 5.
/// Unlike λ/2 (attained only along S_p's top eigenvector), f_t = ½ is attained in every direction the
/// batches leave untouched (in d = 3: at t = 1 and 2, after two fixed batches of one datum each).
/// Budget: the congruence LᵀηL adds 2d roundings per entry and L its Cholesky backward error, on entries
/// of size ‖L‖²‖η₂‖ = λ_max(S_p)‖η₂‖: γ_{M+4d+8}·λ_max(S_p)·max‖η₂‖_F (derived, as lemma5_budget).
double lemma5_metric_allowance(const BlrInstance& inst, double scale) {
  Eigen::SelfAdjointEigenSolver<Mat<double>> es(inst.prior_cov, Eigen::EigenvaluesOnly);
  const double floor = 0.5 * std::min(1.0, es.eigenvalues().minCoeff());  // the smallest f_t
  const double x = rounding_budget<double>(inst.batch + 4 * inst.data.d() + 8) * es.eigenvalues().maxCoeff() * scale / floor;
  return x / (1 - x);
}

/// The prior-metric record's control: γ₀ = 1, then a constant γ = 1 + δ. With A_t = Lᵀ(−η₂,t)L − ½I,
/// A₁ = (T/2)x̃x̃ᵀ (M copies of x_{i*}) and A₂ = −δA₁ + (1 + δ)(T/2)x̃_jx̃_jᵀ, so along the unit v ⊥ x̃_j in
/// span{x̃, x̃_j}, vᵀA₂v = −δ(T/2)‖x̃‖² sin²θ̃ (θ̃ the angle of x̃ and x̃_j): the ratio ½/λ_min exceeds
/// 1 + a once δ(T/2)‖x̃‖² sin²θ̃ > ½a/(1 + a), so δ_min = ½(a/(1 + a))/((T/2)‖x̃‖² sin²θ̃) (derived;
/// later steps can only add excess, so an upper bound), with a from the a-priori bound on ‖η₂‖_F.
double lemma5_metric_delta_min(const BlrInstance& inst) {
  const double tn = static_cast<double>(inst.data.n()) / inst.noise_var;
  const double scale = 0.5 * inst.prior_cov.inverse().norm() + tn / 2 * inst.data.X.rowwise().squaredNorm().maxCoeff();
  const double a = lemma5_metric_allowance(inst, scale);
  const Mat<double> l = Eigen::LLT<Mat<double>>(inst.prior_cov).matrixL();
  const Vec<double> x = l.transpose() * inst.data.X.row(extreme_datum(inst)).transpose();
  const Vec<double> xj = l.transpose() * inst.data.X.row(second_datum(inst)).transpose();
  const double cs = x.dot(xj) / (x.norm() * xj.norm());
  return 0.5 * (a / (1 + a)) / (tn / 2 * x.squaredNorm() * (1 - cs * cs));
}

std::vector<ClaimRecord> run_lemma5(const RunContext& ctx) {
  std::vector<ClaimRecord> out;
  if (!ctx.wants("double")) return out;
  for (const auto& inst : blr_instances(ctx)) {
    const auto c = blr_constants<double>(inst.data, inst.prior_cov, inst.noise_var, inst.batch);
    const bool identity_prior = inst.prior_cov.isIdentity(0.0);
    Stopwatch sw;
    const auto st = trajectory_stats(inst, ctx, steps_for(ctx), Setup{});
    const double a = lemma5_allowance(inst, c.lambda, st.lemma5_scale);
    out.push_back(inequality_record("lemma5.precision_floor", inst.name, "double", Kind::kClaim, st.lemma5, 1 + a, sw.seconds(),
                                    "max_t (lambda/2)/lambda_min(-eta2) over " + std::to_string(st.steps) +
                                        " steps (stochastic and exact iterates); rhs = 1 + rounding allowance " + fmt(a) +
                                        (identity_prior ? "; S_p = I: equality in directions no batch has touched"
                                                        : "; S_p != I: the ceiling is attained only along S_p's top eigenvector, "
                                                          "which the batches touch"),
                                    "ratio"));
    if (!identity_prior) {
      // The proof's floor in the prior's metric, attained where the batches have not reached, and its
      // γ = 1 + δ control (see lemma5_metric_delta_min).
      const double am = lemma5_metric_allowance(inst, st.lemma5_scale);
      out.push_back(inequality_record("lemma5.precision_floor", inst.name + "/prior-metric", "double", Kind::kClaim, st.lemma5_metric,
                                      1 + am, 0.0,
                                      "max_t f_t/lambda_min(L'(-eta2)L), S_p = LL', f_t = (1 - gamma)f_{t-1} + gamma/2 from "
                                      "f_0 = lambda_min(S_p)/2 (the proof's convex combination; f_t = 1/2 gives Lemma 5), over " +
                                          std::to_string(st.steps) + " steps, both iterates; rhs = 1 + rounding allowance " + fmt(am) +
                                          "; equality in directions no batch has touched",
                                      "ratio"));
      const double dmin = lemma5_metric_delta_min(inst), delta = kControlMultiple * dmin;
      Stopwatch sw3;
      const auto bad = trajectory_stats(inst, ctx, steps_for(ctx), Setup{{}, 1 + delta, false, 1});
      const double ab = lemma5_metric_allowance(inst, bad.lemma5_scale);
      out.push_back(inequality_record("lemma5.precision_floor", inst.name + "/prior-metric/gamma=1+delta", "double", Kind::kControl,
                                      bad.lemma5_metric, 1 + ab, sw3.seconds(),
                                      "violation: gamma - 1 (gamma_0 = 1, then constant) = " + fmt(delta) + "; breaks from " + fmt(dmin) +
                                          " (derived at t = 2, an upper bound)" +
                                          (bad.left_domain_at >= 0 ? "; left Omega at t=" + std::to_string(bad.left_domain_at) : ""),
                                      "ratio"));
      continue;
    }
    const double dmin = lemma5_delta_min(inst), delta = kControlMultiple * dmin;
    Stopwatch sw2;
    const auto bad = trajectory_stats(inst, ctx, steps_for(ctx), Setup{{}, 1 + delta, false});
    const double ab = lemma5_allowance(inst, c.lambda, bad.lemma5_scale);
    out.push_back(inequality_record("lemma5.precision_floor", inst.name + "/gamma=1+delta", "double", Kind::kControl, bad.lemma5,
                                    1 + ab, sw2.seconds(),
                                    "violation: gamma - 1 (constant step) = " + fmt(delta) + "; breaks from " + fmt(dmin) +
                                        " (derived at t = 2, an upper bound)" +
                                        (bad.left_domain_at >= 0 ? "; left Omega at t=" + std::to_string(bad.left_domain_at) : ""),
                                    "ratio"));
  }
  return out;
}

/// A prior mean whose natural parameter is S_p⁻¹m_p = δB·u, u the direction of the vertex
/// (n/s_e²) y_{i*} x_{i*} that the first batch reaches: at t = 1, η₁ = (1 + δ)·vertex, outside C by
/// δB (C lies in the ball of radius B, whose tangent plane at the vertex supports it).
Vec<double> vertex_shift(const BlrInstance& inst, double delta) {
  const auto c = blr_constants<double>(inst.data, inst.prior_cov, inst.noise_var, inst.batch);
  const Index i = extreme_datum(inst);
  Vec<double> u = inst.data.y(i) * inst.data.X.row(i).transpose();
  u /= u.norm();
  return inst.prior_cov * (delta * c.b * u);
}

std::vector<BlrInstance> with_extremal(const RunContext& ctx) {
  auto v = blr_instances(ctx);
  v.push_back(extremal_instance());
  return v;
}

/// Whether HullCertifier enumerates the subsets on this instance (C(n+1, d+1) ≤ kSubsetLimit).
bool hull_enumerable(const BlrInstance& inst) {
  const Index n = inst.data.n(), d = inst.data.d();
  double count = 1;
  for (Index k = 0; k <= d; ++k) count = count * static_cast<double>(n + 1 - k) / static_cast<double>(k + 1);
  return count <= HullCertifier::kSubsetLimit;
}

std::vector<ClaimRecord> run_lemma9(const RunContext& ctx) {
  std::vector<ClaimRecord> out;
  if (!ctx.wants("double")) return out;
  for (const auto& inst : with_extremal(ctx)) {
    Stopwatch sw;
    const auto st = trajectory_stats(inst, ctx, steps_for(ctx), Setup{{}, 0, true});
    const double budget = lemma9_budget(inst);
    out.push_back(identity_record<double>("lemma9.convex_hull", inst.name, Kind::kClaim, st.lemma9, budget, sw.seconds(),
                                          std::string("max_t dist(eta1, C)/B, upper bound from weights alpha >= 0, sum(alpha) <= 1 of "
                                                      "{0, (n/s2) y_i x_i} (") +
                                              (hull_enumerable(inst) ? "the better of the (d+1)-subsets (Caratheodory) and Wolfe's min-norm point"
                                                                     : "Wolfe's min-norm point; C(n+1, d+1) too large to enumerate") +
                                              "; Wolfe alone: " + fmt(st.lemma9_wolfe / budget) + " budgets), over " +
                                              std::to_string(st.steps) + " steps, both iterates; vertex attained at t = 1"));
    // The record sees dist(η₁, C)/B = δ at t = 1 against its budget: δ_min = budget.
    const double delta = kControlMultiple * budget;
    Stopwatch sw2;
    const auto bad = trajectory_stats(inst, ctx, steps_for(ctx), Setup{vertex_shift(inst, delta), 0, true});
    out.push_back(identity_record<double>("lemma9.convex_hull", inst.name + "/prior-mean", Kind::kControl, bad.lemma9, budget,
                                          sw2.seconds(),
                                          "violation: |Sp^-1 m_p|/B along the vertex = " + fmt(delta) + "; breaks from " +
                                              fmt(budget) + " (derived: the budget); support-function certificate " +
                                              "max(<w,eta1> - h_C(w))/B = " + fmt(bad.lemma9_support) + " > 0"));
  }
  return out;
}

std::vector<ClaimRecord> run_cor1(const RunContext& ctx) {
  std::vector<ClaimRecord> out;
  if (!ctx.wants("double")) return out;
  for (const auto& inst : with_extremal(ctx)) {
    Stopwatch sw;
    const auto st = trajectory_stats(inst, ctx, steps_for(ctx), Setup{});
    const double a = ratio_allowance(inst);
    out.push_back(inequality_record("cor1.eta1_bound", inst.name, "double", Kind::kClaim, st.cor1, 1 + a, sw.seconds(),
                                    "max_t |eta1|/B (equality at t = 1, first batch M copies of the extreme datum), bound " +
                                        std::string(kDerived) + " plus the rounding allowance " + fmt(a),
                                    "ratio"));
    // ‖η₁‖/B = 1 + δ at t = 1 against 1 + a: δ_min = a.
    const double delta = kControlMultiple * a;
    Stopwatch sw2;
    const auto bad = trajectory_stats(inst, ctx, steps_for(ctx), Setup{vertex_shift(inst, delta)});
    out.push_back(inequality_record("cor1.eta1_bound", inst.name + "/prior-mean", "double", Kind::kControl, bad.cor1, 1 + a,
                                    sw2.seconds(),
                                    "violation: |Sp^-1 m_p|/B along the vertex = " + fmt(delta) + "; breaks from " + fmt(a) +
                                        " (derived: the allowance)",
                                    "ratio"));
  }
  return out;
}

/// Cor. 2's control on a regression problem (d ≥ 3): a prior mean m_p of norm ρB/λ orthogonal to
/// x_{i*} and S_p x_{i*}. At t = 1, η₁ = S_p⁻¹m_p + (n/s_e²) y x (x = x_{i*}) and, by
/// Sherman–Morrison, μ₁ = S₁η₁ = m_p + c S_p x with c = (n/s_e²) y/(1 + (n/s_e²) xᵀS_p x), so
/// ‖μ₁‖² = ‖m_p‖² + c²‖S_p x‖² ≥ (ρB/λ)²: broken for ρ > ρ₁ = √((1 + a)² − (cλ‖S_p x‖/B)²) ≤ 1 + a.
/// A prior mean of norm much below B/λ cannot break it: in every direction the data touch, S is
/// shrunk, so ‖μ₁‖ ≈ ‖m_p‖ + O(‖S_p x‖/(xᵀS_p x)).
struct OrthogonalPriorMean {
  Vec<double> mean;
  double rho_break;
};
OrthogonalPriorMean orthogonal_prior_mean(const BlrInstance& inst, double rho, double allowance) {
  const auto c = blr_constants<double>(inst.data, inst.prior_cov, inst.noise_var, inst.batch);
  const Index i = extreme_datum(inst), d = inst.data.d();
  const Vec<double> x = inst.data.X.row(i).transpose();
  Mat<double> span(d, 2);
  span.col(0) = x;
  span.col(1) = inst.prior_cov * x;
  Eigen::HouseholderQR<Mat<double>> qr(span);
  const Mat<double> q = qr.householderQ();
  const Vec<double> v = q.col(2);
  const double tn = static_cast<double>(inst.data.n()) / inst.noise_var;
  const double cc = tn * inst.data.y(i) / (1 + tn * x.dot(inst.prior_cov * x));
  const double tail = cc * c.lambda * (inst.prior_cov * x).norm() / c.b;
  return {rho * c.b / c.lambda * v, std::sqrt(std::max(0.0, (1 + allowance) * (1 + allowance) - tail * tail))};
}

/// ρ − 1 for Cor. 2's orthogonal control: ρ₁ < 1 + a on every instance, so any ρ > 1 + a breaks it;
/// 1e-6 keeps it far above the rounding of μ₁ = S η₁ (relative κ(S)u ≤ 1e-11 on the instances). A
/// bisection over seeds 1–50 finds every seed broken from ρ = 1 − 0.96e-6 (the worst seed's ρ₁).
constexpr double kCor2RhoExcess = 1e-6;

/// The extremal instance (S_p = 1, λ = 1, B = 2, T = 2): with m_p = δB, η₁ = (1 + δ)B on every step
/// t ≥ 1 and ‖μ₁‖/B = (1 + δ)/(1 + T x̄²_t) with x̄²_t ≥ x₁² = 2⁻²⁰ the weighted mean of the drawn
/// x_i², so the record sees δ from δ_min = (1 + a)(1 + T x₁²) − 1 ≈ 2⁻¹⁹ (derived).
double cor2_extremal_delta_min(const BlrInstance& inst, double a) {
  const double tn = static_cast<double>(inst.data.n()) / inst.noise_var;
  const double x2 = inst.data.X.rowwise().squaredNorm().minCoeff();
  return (1 + a) * (1 + tn * x2) - 1;
}

bool is_extremal(const BlrInstance& inst) { return inst.data.d() == 1; }

/// The control of a ratio claim on the extremal instance: prior mean m_p = δB with δ = kControlMultiple·δ_min.
template <class Get>
ClaimRecord extremal_prior_mean_control(const RunContext& ctx, const BlrInstance& inst, const char* id, Get get,
                                        double delta_min, double allowance) {
  const double delta = kControlMultiple * delta_min;
  const auto c = blr_constants<double>(inst.data, inst.prior_cov, inst.noise_var, inst.batch);
  Stopwatch sw;
  const auto bad = trajectory_stats(inst, ctx, steps_for(ctx), Setup{Vec<double>::Constant(1, delta * c.b)});
  return inequality_record(id, inst.name + "/prior-mean", "double", Kind::kControl, get(bad), 1 + allowance, sw.seconds(),
                           "violation: m_p/B = " + fmt(delta) + "; breaks from " + fmt(delta_min) + " (derived)", "ratio");
}

std::vector<ClaimRecord> run_cor2(const RunContext& ctx) {
  std::vector<ClaimRecord> out;
  if (!ctx.wants("double")) return out;
  for (const auto& inst : with_extremal(ctx)) {
    Stopwatch sw;
    const auto st = trajectory_stats(inst, ctx, steps_for(ctx), Setup{});
    const double a = ratio_allowance(inst);
    out.push_back(inequality_record("cor2.mu1_bound", inst.name, "double", Kind::kClaim, st.cor2, 1 + a, sw.seconds(),
                                    "max_t |mu1|/(B/lambda), bound " + std::string(kDerived) + " plus the rounding allowance " +
                                        fmt(a) +
                                        (is_extremal(inst) ? "; weak data: attained up to 1/(1 + T x^2)"
                                                           : "; loose by the data's shrinkage of S along the datum"),
                                    "ratio"));
    if (is_extremal(inst)) {
      out.push_back(extremal_prior_mean_control(ctx, inst, "cor2.mu1_bound", [](const TrajectoryStats& t) { return t.cor2; },
                                                cor2_extremal_delta_min(inst, a), a));
    } else {
      Stopwatch sw2;
      const auto pm = orthogonal_prior_mean(inst, 1 + kCor2RhoExcess, a);
      const auto bad = trajectory_stats(inst, ctx, steps_for(ctx), Setup{pm.mean});
      out.push_back(inequality_record("cor2.mu1_bound", inst.name + "/orth-prior-mean", "double", Kind::kControl, bad.cor2, 1 + a,
                                      sw2.seconds(),
                                      "violation: |m_p| lambda/B - 1 (m_p orthogonal to x_i* and S_p x_i*) = " + fmt(kCor2RhoExcess) +
                                          "; breaks from " + fmt(pm.rho_break - 1) +
                                          " (derived at t = 1; a prior mean much below B/lambda cannot break it)",
                                      "ratio"));
    }
  }
  return out;
}

/// Lemmas 10–11 on the extremal instance with m_p = δB: Δ₁ = 0 (every y_i x_i = 1) and η̃₁ = (1 + δ)B,
/// so lhs/rhs = (1 + δ)·S S̃ for Lemma 10 and S S̃ (1 + (1 + δ)²B²(S + S̃))/(1 + 2B²) for Lemma 11, with
/// S S̃ = 1/((1 + T x₁²)(1 + T x̄²)) ≈ 1 − 7·2⁻²⁰ at the first step (x̄² the mean of x_i²): δ_min is
/// the claim record's own deficit (1 + a)/ratio − 1 over the ratio's sensitivity to δ, 1 for
/// Lemma 10 and 2·2B²·2/(1 + 2B²) = 16/9 for Lemma 11 (B = 2).
double gap_delta_min(double claim_ratio, double a, bool lemma11) {
  const double deficit = (1 + a) / claim_ratio - 1;
  return lemma11 ? deficit * 9.0 / 16.0 : deficit;
}

template <class Get, class Floor>
std::vector<ClaimRecord> gap_claim(const RunContext& ctx, const char* id, Get get, Floor floor, const std::string& what, bool lemma11) {
  std::vector<ClaimRecord> out;
  if (!ctx.wants("double")) return out;
  for (const auto& inst : with_extremal(ctx)) {
    Stopwatch sw;
    const auto st = trajectory_stats(inst, ctx, steps_for(ctx), Setup{});
    const double r = get(st);
    const double a = ratio_allowance(inst);
    out.push_back(inequality_record(
        id, inst.name, "double", Kind::kClaim, r, 1 + a, sw.seconds(),
        "max_t " + what + " (tightness), bound " + std::string(kDerived) + " plus the rounding allowance " + fmt(a) +
            (is_extremal(inst) ? "; extremal: Delta1 = 0, |eta1~| = B, S ~ 1/lambda"
                               : "; loose: S is shrunk along the data by ~1/(1 + (n/s2)|x|^2), so |S D| << |D|/lambda") +
            "; lhs net of its rounding floor F (docs/math.md §5.4): raw max " + fmt(floor(st).raw) + ", max F/rhs " +
            fmt(floor(st).floor) + ", " + std::to_string(floor(st).below) + " of " + std::to_string(st.steps) + " steps below the floor",
        "ratio"));
    if (is_extremal(inst)) out.push_back(extremal_prior_mean_control(ctx, inst, id, get, gap_delta_min(r, a, lemma11), a));
  }
  return out;
}

std::vector<ClaimRecord> run_lemma10(const RunContext& ctx) {
  return gap_claim(
      ctx, "lemma10.mu1_gap", [](const TrajectoryStats& s) { return s.lemma10; },
      [](const TrajectoryStats& s) -> const GapFloorStats& { return s.lemma10_floor; }, "|mu1-mu1~|/rhs", false);
}
std::vector<ClaimRecord> run_lemma11(const RunContext& ctx) {
  return gap_claim(
      ctx, "lemma11.mu2_gap", [](const TrajectoryStats& s) { return s.lemma11; },
      [](const TrajectoryStats& s) -> const GapFloorStats& { return s.lemma11_floor; }, "|mu2-mu2~|_F/rhs", true);
}

const Registrar kReg5({"lemma5.precision_floor", "eta2_t <= -(lambda/2) I along eq. (15) NGD trajectories with gamma_t <= 1",
                       "Wu & Gardner 2024, Lemma 5; docs/math.md §5.4", "[R]", run_lemma5});
const Registrar kReg9({"lemma9.convex_hull", "eta1_t lies in conv{0, (n/s2) y_i x_i} along trajectories (prior mean 0)",
                       "Wu & Gardner 2024, Lemma 9; docs/math.md §5.4", "[R]", run_lemma9, CostHint{}, {protocols::kConjugateNgd}});
const Registrar kRegC1({"cor1.eta1_bound", "|eta1_t| <= B along trajectories", "Wu & Gardner 2024, Corollary 1; docs/math.md §5.4",
                        "[R]", run_cor1, CostHint{}, {protocols::kConjugateNgd}});
const Registrar kRegC2({"cor2.mu1_bound", "|mu1_t| <= B/lambda along trajectories",
                        "Wu & Gardner 2024, Corollary 2; docs/math.md §5.4", "[R]", run_cor2, CostHint{}, {protocols::kConjugateNgd}});
const Registrar kReg10({"lemma10.mu1_gap", "|mu1_{t+1} - mu1~_{t+1}| <= (gamma/lambda)|D1| + (2B gamma/lambda^2)|D2|_F",
                        "Wu & Gardner 2024, Lemma 10; docs/math.md §5.4", "[D]", run_lemma10, CostHint{}, {protocols::kConjugateNgd}});
const Registrar kReg11({"lemma11.mu2_gap",
                        "|mu2_{t+1} - mu2~_{t+1}|_F <= (2B gamma/lambda^2)|D1| + (2 gamma/lambda^2)(1+2B^2/lambda)|D2|_F",
                        "Wu & Gardner 2024, Lemma 11; docs/math.md §5.4", "[D]", run_lemma11, CostHint{}, {protocols::kConjugateNgd}});

}}  // namespace
}  // namespace ngvi::claims
