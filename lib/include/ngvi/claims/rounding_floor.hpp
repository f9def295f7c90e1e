#pragma once
/// @file
/// Derived rounding floors of three measured left-hand sides (docs/math.md §5.4, "Rounding floors of
/// the measured lhs"): ‖μ₁ − μ̃₁‖ of Lemma 10, ‖μ₂ − μ̃₂‖_F of Lemma 11 and σ_t² of Lemma 3. A floor F bounds the absolute
/// error of the computed lhs when its true value is (near) 0, so a computed lhs ≤ F is not a
/// measurement ("below rounding floor"), and max(0, lhs − F) is the lhs that rounding cannot have
/// inflated (the one a search for violations may use, as it uses a Monte Carlo lower bound). Errors
/// proportional to the lhs itself stay with the relative allowance of each claim (ratio_allowance).
///
/// Notation: u the unit roundoff, γ_k = ku/(1 − ku) (Higham 2002, Lemma 3.1, ngvi::gamma_n), Λ = −2η₂
/// a precision, S = Λ⁻¹, m = Sη₁, κ = κ₂(Λ). The library computes S and m by one Cholesky factor of Λ
/// and solves through it (linalg/spd.hpp: S column by column from the identity). Higham (2002)
/// Thm 10.4: each solve is backward stable, (Λ + ΔΛ)x̂ = b with ‖ΔΛ‖₂ ≤ d·γ_{3d+1}‖Λ‖₂, so its forward
/// error is ‖x̂ − x‖ ≤ κ·d·γ_{3d+1}‖x‖ (first order). The factor kBudgetSafety (scalar/budget.hpp)
/// covers the O(u²) remainders as in every budget of the kit.
#include <algorithm>
#include <cmath>

#include <Eigen/Eigenvalues>

#include "ngvi/claims/blr_common.hpp"
#include "ngvi/scalar/budget.hpp"

namespace ngvi::claims {

/// The floor of ‖μ₂ − μ̃₂‖_F at one step (derived):
///   μ₂ = S + mmᵀ (then symmetrised) for each iterate q ∈ {q_{t+1}, q̃_{t+1}}, computed independently,
///   so the floor is the sum of the two iterates' errors (the final subtraction's rounding,
///   u‖μ₂ − μ̃₂‖_F, is relative to the lhs and stays in the allowance):
///   - the inverse, column by column: ‖Ŝ − S‖_F ≤ κ·d·γ_{3d+1}‖S‖_F;
///   - the mean m = solve(Λ, η₁): ‖m̂ − m‖ ≤ κ·d·γ_{3d+1}‖m‖, so ‖m̂m̂ᵀ − mmᵀ‖_F ≤ 2κ·d·γ_{3d+1}‖m‖²
///     (first order) plus the outer product's own rounding u‖m‖²;
///   - the update that formed the exact-step iterate η̃_{t+1} = (1 − γ)η_t + γ(η_p + ∇ℓ) (three
///     roundings on a sum of positive semidefinite terms, so ‖δΛ‖₂ ≤ d·γ_3‖Λ‖₂ relative): its
///     effect on S and m is again ≤ κ·d·γ_3 times ‖S‖_F, ‖m‖² (first order), folded in by using
///     γ_{3d+4} for γ_{3d+1};
///   - the sum S + mmᵀ and the symmetrisation: γ_2(‖S‖_F + ‖m‖²).
/// F(q) = κ·d·γ_{3d+4}(‖S‖_F + 2‖m‖²) + γ_2(‖S‖_F + ‖m‖²), and the floor is
/// kBudgetSafety·(F(q_{t+1}) + F(q̃_{t+1})).
/// What the floors of Lemmas 10 and 11 need of one iterate.
struct IterateParts {
  double cond = 1;        ///< κ₂(Λ)
  double s_frob = 0;      ///< ‖S‖_F
  double m_norm2 = 0;     ///< ‖m‖²
  double l_min = 1;       ///< λ_min(Λ)
  double eta1_error = 0;  ///< e₁, the bound on the update's rounding of η₁ (eta1_update_error, Lemma 10)
};
inline double mu2_part_floor(const IterateParts& q, long d) {
  return std::max(1.0, q.cond) * static_cast<double>(d) * gamma_n<double>(3 * d + 4) * (q.s_frob + 2 * q.m_norm2) +
         gamma_n<double>(2) * (q.s_frob + q.m_norm2);
}
inline double mu2_gap_floor(const IterateParts& sto, const IterateParts& ex, long d) {
  return kBudgetSafety * (mu2_part_floor(sto, d) + mu2_part_floor(ex, d));
}

/// The floor of ‖μ₁ − μ̃₁‖ at one step (derived): μ₁ = m = solve(Λ, η₁) for each iterate q ∈ {q_{t+1},
/// q̃_{t+1}}, computed independently from the same η_t, so the floor is the sum of the two iterates'
/// errors (the subtraction's and the norm's rounding are relative to the lhs and stay in the
/// allowance):
///   - the solve: ‖m̂ − m‖ ≤ κ·d·γ_{3d+1}‖m‖;
///   - the update's rounding of Λ_{t+1} (a sum of positive semidefinite terms, relative d·γ_3): its
///     effect on m is ≤ κ·d·γ_3‖m‖ (first order), folded in by using γ_{3d+4} for γ_{3d+1};
///   - the update's rounding of η₁_{t+1} = (1 − γ)η₁_t + γ(η_{p,1} + ĝ₁) (1 − γ, two products, a sum and
///     the combination: componentwise ≤ γ_3((1 − γ)|η₁_t| + γ(|η_{p,1}| + |ĝ₁|)), no cancellation assumed,
///     so in norm e₁ = γ_3((1 − γ)‖η₁_t‖ + γ(‖η_{p,1}‖ + ‖ĝ₁‖))), which S = Λ⁻¹ carries to m as ≤ e₁/λ_min(Λ).
/// F(q) = κ·d·γ_{3d+4}‖m‖ + e₁/λ_min(Λ), and the floor is kBudgetSafety·(F(q_{t+1}) + F(q̃_{t+1})).
/// At a step where the batch's gradient equals the exact one in exact arithmetic (every datum drawn
/// equally often), both sides of Lemma 10 are 0 and the computed ratio is rounding over rounding:
/// this floor is what keeps such a step from reading as a violation.
inline double eta1_update_error(double gamma, double eta1_prev_norm, double eta1_prior_norm, double ghat1_norm) {
  return gamma_n<double>(3) * ((1 - gamma) * eta1_prev_norm + gamma * (eta1_prior_norm + ghat1_norm));
}
inline double mu1_part_floor(const IterateParts& q, long d) {
  return std::max(1.0, q.cond) * static_cast<double>(d) * gamma_n<double>(3 * d + 4) * std::sqrt(q.m_norm2) + q.eta1_error / q.l_min;
}
inline double mu1_gap_floor(const IterateParts& sto, const IterateParts& ex, long d) {
  return kBudgetSafety * (mu1_part_floor(sto, d) + mu1_part_floor(ex, d));
}

/// A ratio record's lhs net of its floor, max over the steps: `add` returns max(0, lhs − F)/rhs for one
/// step and keeps the raw ratio lhs/rhs, F/rhs and the number of steps with lhs ≤ F (no measurement there).
struct GapFloorStats {
  double raw = 0;    ///< max lhs/rhs before the floor
  double floor = 0;  ///< max F/rhs
  long below = 0;    ///< steps whose lhs ≤ F
  double add(double lhs, double f, double rhs) {
    raw = std::max(raw, lhs / rhs);
    floor = std::max(floor, f / rhs);
    if (lhs <= f) ++below;
    return std::max(0.0, lhs - f) / rhs;
  }
};

/// Bounds, over every state reachable by eq. (15) NGD from q₀ = N(0, I) with m_p = 0 and γ_t ∈ (0, 1],
/// of the quantities the σ_t² floor needs (derived): Λ_{t+1} = (1 − γ)Λ_t + γ(S_p⁻¹ + (n/(M s²))Σ_b x_b x_bᵀ)
/// is a convex combination of I and such batch precisions, so its spectrum lies in [L_lo, L_hi] with
/// L_lo = λ = min{1, λ_min(S_p⁻¹)} and L_hi = max{1, λ_max(S_p⁻¹) + G}, G = n·max_i‖x_i‖²/s² (a batch of
/// M copies of the longest x_i); ‖η₁‖ ≤ B (Lemma 9, Corollary 1), so ‖m‖ ≤ B/L_lo; the two next
/// precisions of one step differ by γ‖Δ₂‖ ≤ γG (−2Δ₂ is a difference of two matrices in [0, G·I]).
struct ReachableBounds {
  double l_lo = 1, l_hi = 1, g = 0, b = 0;
  long d = 1;
};
inline ReachableBounds reachable_bounds(const BlrInstance& inst) {
  const auto c = blr_constants<double>(inst.data, inst.prior_cov, inst.noise_var, inst.batch);
  Eigen::SelfAdjointEigenSolver<Mat<double>> es(inst.prior_cov, Eigen::EigenvaluesOnly);
  ReachableBounds r;
  r.d = inst.data.d();
  r.g = static_cast<double>(inst.data.n()) * inst.data.X.rowwise().squaredNorm().maxCoeff() / inst.noise_var;
  r.l_lo = c.lambda;
  r.l_hi = std::max(1.0, 1 / es.eigenvalues().minCoeff() + r.g);
  r.b = c.b;
  return r;
}

/// The floor of one computed σ_t² (derived), for a step of size γ from any reachable state:
/// σ_t² = K/γ², K = kl(q, q̃) + kl(q̃, q) computed by expfam/kl.hpp as
/// ½[tr(S̃⁻¹S) + dmᵀS̃⁻¹dm − d + log det S̃ − log det S] twice (roles swapped). At K = 0 the two
/// iterates coincide and K is stationary in both arguments, so the rounding of S, S̃, m, m̃ themselves
/// enters only at second order (in the dm term below); the first-order floor is the evaluation of
/// each KL:
///   - the trace of X = S̃⁻¹S (solves through the factor of S̃, κ₂(S̃) = κ₂(Λ̃)): forward error ≤ κ·d·γ_{3d+1}‖X‖₂ per column, so the trace
///     errs by ≤ d·κ·d·γ_{3d+1}‖X‖₂ with ‖X‖₂ ≤ 1 + ‖S‖₂‖Λ̃ − Λ‖₂ ≤ 1 + γG/L_lo;
///   - each log det (2Σ log ℓ_ii of the Cholesky factor, Higham Thm 10.3: backward error
///     ‖ΔΣ‖₂ ≤ d·γ_{d+1}‖Σ‖₂) errs by ≤ tr|Σ⁻¹ΔΣ| ≤ d²γ_{d+1}κ, plus the rounding of the logs and
///     their sum, ≤ γ_{d+1}·d·ℓ with ℓ = max(|log L_lo|, |log L_hi|) (four log dets in K);
///   - dmᵀΛ̃dm at dm = 0: the computed dm errs by ≤ 2κ·d·γ_{3d+1}·B/L_lo, so the term is ≤ L_hi times its
///     square (second order, kept because B/L_lo can be large);
///   - the sum of the five terms of each KL: γ_5 times their magnitudes d‖X‖₂ + d + 2dℓ.
/// With κ ≤ L_hi/L_lo (every reachable state) the floor is kBudgetSafety·(2·[trace + sum] + 4·[log det]
/// + 2·[dm term])/γ². A Monte Carlo or enumerated mean of such values has the same floor (plus the
/// mean's own summation rounding, relative to the lhs).
inline double sigma2_floor(const ReachableBounds& r, double gamma) {
  const double d = static_cast<double>(r.d);
  const double kappa = r.l_hi / r.l_lo;
  const double ell = std::max(std::abs(std::log(r.l_lo)), std::abs(std::log(r.l_hi)));
  const double xnorm = 1 + gamma * r.g / r.l_lo;
  const double trace = d * kappa * d * gamma_n<double>(3 * r.d + 1) * xnorm;
  const double sum = gamma_n<double>(5) * (d * xnorm + d + 2 * d * ell);
  const double logdet = d * d * gamma_n<double>(r.d + 1) * kappa + gamma_n<double>(r.d + 1) * d * ell;
  const double dm = 2 * kappa * d * gamma_n<double>(3 * r.d + 1) * r.b / r.l_lo;
  const double quad = r.l_hi * dm * dm;
  return kBudgetSafety * (2 * (trace + sum) + 4 * logdet + 2 * quad) / (gamma * gamma);
}

}  // namespace ngvi::claims
