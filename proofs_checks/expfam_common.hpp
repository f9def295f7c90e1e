#pragma once
/// @file
/// Quantities shared by the exponential-family claims: the conditioning of an instance and the
/// operation count of the Gaussian maps, from which every budget of these claims is derived.
#include <Eigen/Eigenvalues>

#include "check_util.hpp"
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
inline double map_condition(const GaussianMoments<double>& q) {
  Eigen::SelfAdjointEigenSolver<Mat<double>> es(q.cov, Eigen::EigenvaluesOnly);
  const double lo = es.eigenvalues().minCoeff();
  const double hi = es.eigenvalues().maxCoeff();
  return (hi / lo) * (1.0 + q.mean.squaredNorm() / lo);
}

/// Condition number of the round trip (m, S) → η → (m, S), two inversions of S: κ(S)². Each
/// Cholesky inversion has forward error c·u·κ (Higham §14.3); the second inverts the first's
/// result, amplifying its error by κ again; the mean m = S(S⁻¹m) carries the same factor.
inline double moments_round_trip_condition(const GaussianMoments<double>& q) {
  const double k = spd_condition(q.cov);
  return k * k;
}

/// Converts a Scalar pair to mp100 for comparison against an mp100 reference.
template <class Scalar>
GaussianPair<mp100> to_mp100(const GaussianPair<Scalar>& p) {
  return data::cast_pair<mp100>(p);
}

}  // namespace ngvi::claims
