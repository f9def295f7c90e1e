#pragma once
/// @file
/// Quantities shared by the exponential-family claims: the conditioning of an instance and the
/// operation count of the Gaussian maps, from which every budget of these claims is derived.
#include <Eigen/Eigenvalues>

#include <cstdio>
#include <string>

#include "ngvi/claims/check_util.hpp"
#include "ngvi/expfam.hpp"
#include "ngvi/optim/variant.hpp"

namespace ngvi::claims {

/// Operation count for the budgets of the exponential-family identities: a trace or pairing sums
/// d² products (Higham Thm 3.5, γ_{d²}); Cholesky, triangular solves and the log-determinant add
/// O(d) dependent roundings each (Higham Thm 10.3 and §8.1); 16 covers the scalar glue.
inline long expfam_ops(Index d) { return static_cast<long>(d * d + 4 * d + 16); }

/// Condition number that the maps η ↔ μ carry on an instance with covariance S and mean m:
/// κ(S)·(1 + ‖m‖²/λ_min(S)). The first factor is the forward error of S⁻¹ from its Cholesky
/// factor (Higham §14.3, left residual ‖XA − I‖ ≤ c·u·κ(A)); the second is the cancellation in
/// S = μ₂ − μ₁μ₁ᵀ, whose terms have size ‖S‖ + ‖m‖². Computed in double from the instance itself.
double map_condition(const GaussianMoments<double>& q);  // check_util.cpp

/// Condition number of the round trip (m, S) → η → (m, S), two inversions of S: κ(S)². Each
/// Cholesky inversion has forward error c·u·κ (Higham §14.3); the second inverts the first's
/// result, amplifying its error by κ again; the mean m = S(S⁻¹m) carries the same factor.
inline double moments_round_trip_condition(const GaussianMoments<double>& q) {
  const double k = spd_condition(q.cov);
  return k * k;
}

/// The instances of the exponential-family claims: the shared set (check_util.hpp) and, in the
/// quick set, one instance of dimension 10 with moderate conditioning, so that the quick budgets
/// are exercised where the operation counts (d² terms in every pairing) dominate them.
inline std::vector<ExpfamInstance> expfam_claim_instances(bool full) {
  auto v = expfam_instances(full);
  if (!full) v.push_back({"d10-cond1e2", 10, 1e2});
  return v;
}

/// The budget a claim record of an identity is judged against: its derived budget, capped in mp50
/// at kMp50IdentityBound as identity_record does for claims. A negative control is placed against
/// this budget, so that it measures what the claim record itself can see.
template <class Scalar>
Scalar claim_budget(const Scalar& budget) {
  if constexpr (std::is_same_v<Scalar, mp50>) {
    const Scalar guard = Scalar(kMp50IdentityBound);
    return budget < guard ? budget : guard;
  } else {
    return budget;
  }
}

/// Every negative control of these claims violates the claim's hypothesis by δ = kControlMultiple·δ_min,
/// where δ_min = (claim budget)/(sensitivity of the claim's error to the violation) is the detection
/// limit, derived per instance and precision. At 4·δ_min the control's error is 4 budgets (16 where
/// the error is quadratic in δ) plus the claim's own rounding error, which is below one budget by
/// the claim's derivation: the control is broken with a factor ≥ 3 to spare on every seed, and it
/// shows that the check resolves a violation within a factor 4 of its detection limit.
inline constexpr double kControlMultiple = 4.0;

/// The greppable note of a control: "violation: <what> = <δ>; breaks from <δ_min> (derived)".
inline std::string violation_note(const std::string& what, double delta, double delta_min, const std::string& extra = {}) {
  char buf[96];
  std::snprintf(buf, sizeof buf, " = %.3g; breaks from %.3g (derived)", delta, delta_min);
  return "violation: " + what + buf + (extra.empty() ? "" : "; " + extra);
}

/// Note for a double record whose derived budget exceeds 10⁻⁶ relative: the conditioning of the
/// instance, not a loose analysis, puts it there. Empty otherwise.
template <class Scalar>
std::string conditioning_note(const Scalar& budget, double cond) {
  if constexpr (std::is_same_v<Scalar, double>) {
    if (budget > 1e-6) {
      char buf[200];
      std::snprintf(buf, sizeof buf,
                    "conditioning %.3g makes a budget <= 1e-6 relative impossible in double: budget = %.3g relative (derived)",
                    cond, budget);
      return buf;
    }
  }
  (void)budget;
  (void)cond;
  return {};
}

/// Joins two notes with "; ", skipping empty ones.
inline std::string join_notes(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  return a + "; " + b;
}

/// Converts a Scalar pair to mp100 for comparison against an mp100 reference.
template <class Scalar>
GaussianPair<mp100> to_mp100(const GaussianPair<Scalar>& p) {
  return data::cast_pair<mp100>(p);
}

}  // namespace ngvi::claims
