// The distance from a point to a convex hull conv{0, g_1, ..., g_n} ⊂ R^d, for Lemma 9's membership
// check (docs/math.md §5.4) where the subset enumeration of blr_trajectory_lemmas.cpp is too large
// (C(n+1, d+1) subsets): Wolfe's minimum-norm-point algorithm (P. Wolfe, "Finding the nearest point
// in a polytope", Math. Programming 11, 1976), a finite active-set method for the quadratic program
// min ‖z − Σ α_i g_i‖ over α ≥ 0, Σ α ≤ 1 (the origin's weight is 1 − Σα). It returns the weights, and
// the caller's bound is ‖z − Σ α_i g_i‖ recomputed from the clamped, rescaled weights: any such α is a
// point of the hull, so the bound is valid however the solver's own arithmetic rounded (a solver
// that stopped early only makes the bound larger, never a false "inside").
#pragma once

#include <Eigen/Cholesky>
#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ngvi/scalar/types.hpp"

namespace ngvi::claims {

/// Weights α (α ≥ 0, Σα ≤ 1) of the point of conv{0, rows of g} nearest to z, by Wolfe's
/// algorithm on the points p_0 = −z, p_i = g_i − z (the nearest point to z is z + the minimum-norm
/// point of conv{p}). Double: the caller certifies the result (see the file's comment).
inline Vec<double> wolfe_hull_weights(const Mat<double>& g, const Vec<double>& z) {
  const Index n = g.rows(), d = g.cols(), m = n + 1;
  Mat<double> p(d, m);
  p.col(0) = -z;
  for (Index i = 0; i < n; ++i) p.col(i + 1) = g.row(i).transpose() - z;
  double scale = 0;
  for (Index i = 0; i < m; ++i) scale = std::max(scale, p.col(i).squaredNorm());
  if (!(scale > 0)) return Vec<double>::Zero(n);
  // Relative tolerances (derived from the unit roundoff u): the optimality gap ‖x‖² − ⟨x, p_j⟩ is
  // formed from d products of size ≤ scale, so it is resolved to about 2d·u·scale; weights below
  // 64u are rounding noise of the affine solve.
  constexpr double u = std::numeric_limits<double>::epsilon();
  const double gap_tol = 4.0 * static_cast<double>(d + 1) * u * scale;
  constexpr double weight_tol = 64 * u;
  // Start at the point of least norm.
  Index j0 = 0;
  for (Index i = 1; i < m; ++i)
    if (p.col(i).squaredNorm() < p.col(j0).squaredNorm()) j0 = i;
  std::vector<Index> s{j0};
  std::vector<double> lam{1.0};
  Vec<double> x = p.col(j0);
  const long max_major = 20 * static_cast<long>(m) + 100;
  for (long it = 0; it < max_major; ++it) {
    // Major cycle: the point most opposed to x.
    const Vec<double> ip = p.transpose() * x;
    Index j;
    const double best = ip.minCoeff(&j);
    if (x.squaredNorm() - best <= gap_tol) break;
    if (std::find(s.begin(), s.end(), j) != s.end()) break;  // no progress possible in this arithmetic
    s.push_back(j);
    lam.push_back(0.0);
    // Minor cycles: the affine minimum-norm point of the corral, moved back into its hull.
    for (int minor = 0; minor < static_cast<int>(d) + 2; ++minor) {
      const Index k = static_cast<Index>(s.size());
      Mat<double> a(k + 1, k + 1);
      Vec<double> rhs = Vec<double>::Zero(k + 1);
      for (Index r = 0; r < k; ++r) {
        for (Index c = 0; c < k; ++c) a(r, c) = p.col(s[static_cast<std::size_t>(r)]).dot(p.col(s[static_cast<std::size_t>(c)]));
        a(r, k) = a(k, r) = 1.0;
      }
      a(k, k) = 0.0;
      rhs(k) = 1.0;
      const Vec<double> sol = a.completeOrthogonalDecomposition().solve(rhs);
      const Vec<double> mu = sol.head(k);
      if (mu.minCoeff() > weight_tol) {
        for (Index r = 0; r < k; ++r) lam[static_cast<std::size_t>(r)] = mu(r);
        break;
      }
      // Step from λ toward μ until a weight reaches 0, and drop it.
      double theta = 1.0;
      for (Index r = 0; r < k; ++r) {
        const double lr = lam[static_cast<std::size_t>(r)];
        if (mu(r) <= weight_tol && lr - mu(r) > 0) theta = std::min(theta, lr / (lr - mu(r)));
      }
      std::vector<Index> s2;
      std::vector<double> l2;
      for (Index r = 0; r < k; ++r) {
        const double v = theta * mu(r) + (1 - theta) * lam[static_cast<std::size_t>(r)];
        if (v > weight_tol) {
          s2.push_back(s[static_cast<std::size_t>(r)]);
          l2.push_back(v);
        }
      }
      if (s2.empty()) {  // cannot happen in exact arithmetic; keep the newest point
        s2.push_back(s.back());
        l2.push_back(1.0);
      }
      s.swap(s2);
      lam.swap(l2);
    }
    double total = 0;
    for (double v : lam) total += v;
    x.setZero();
    for (std::size_t r = 0; r < s.size(); ++r) {
      lam[r] /= total;
      x += lam[r] * p.col(s[r]);
    }
  }
  Vec<double> alpha = Vec<double>::Zero(n);
  for (std::size_t r = 0; r < s.size(); ++r)
    if (s[r] > 0) alpha(s[r] - 1) = std::max(0.0, lam[r]);
  return alpha;
}

/// ‖z − Σ α_i g_i‖ with α clamped to ≥ 0 and rescaled to Σα ≤ 1: an upper bound on dist(z, conv{0, g_i})
/// for any α (the point Σ α_i g_i lies in the hull).
inline double hull_residual(const Mat<double>& g, const Vec<double>& z, Vec<double> alpha) {
  alpha = alpha.cwiseMax(0.0);
  const double sum = alpha.sum();
  if (sum > 1) alpha /= sum;
  return (z - g.transpose() * alpha).norm();
}

}  // namespace ngvi::claims
