#pragma once
/// @file
/// One-dimensional Gaussian expectations E_{x~N(0,1)}[g(x)] by Gauss–Hermite quadrature
/// (probabilists' weight), with a computed error bound through a second, rigorously bounded rule.
///
/// The n-point rule: nodes are the eigenvalues of the Jacobi matrix of the monic Hermite polynomials
/// He_k (zero diagonal, off-diagonal √k; Golub & Welsch 1969), refined by Newton in Scalar; the weights
/// are the Christoffel numbers of the N(0, 1) density.
///
/// Error bound (used by `logistic_quadrature_error_bound`): the trapezoid rule with step h on R
/// for an integrand analytic in the strip |Im x| < a with ∫|g(x + iy)| dx ≤ M (|y| < a) obeys
/// \f[ |I - T_h| \le \frac{2M}{e^{2\pi a/h} - 1} \f]
/// (Trefethen & Weideman 2014, SIAM Review 56(3), Theorem 5.1), and truncating the sum to |x| ≤ R
/// adds the omitted nodes' mass. Then |I − GH_n| ≤ |GH_n − T_{h,R}| + |I − T_{h,R}|.
#include <Eigen/Eigenvalues>
#include <boost/math/constants/constants.hpp>

#include "ngvi/linalg/validate.hpp"
#include "ngvi/scalar/traits.hpp"

namespace ngvi {

/// Nodes x_k and weights w_k with Σ_k w_k g(x_k) ≈ E_{x~N(0,1)} g(x).
template <class Scalar>
struct QuadratureRule {
  Vec<Scalar> nodes;
  Vec<Scalar> weights;
  Index size() const { return nodes.size(); }
};

/// The n-point probabilists' Gauss–Hermite rule (exact for polynomials of degree ≤ 2n − 1).
/// @pre n ≥ 1. @throws std::invalid_argument naming 'n' otherwise.
template <class Scalar>
QuadratureRule<Scalar> gauss_hermite_rule(int n) {
  using std::abs;
  using std::sqrt;
  if (n < 1) throw_size("ngvi::gauss_hermite_rule", "n", "must be >= 1");
  QuadratureRule<Scalar> r;
  if (n == 1) {
    r.nodes = Vec<Scalar>::Zero(1);
    r.weights = Vec<Scalar>::Ones(1);
    return r;
  }
  // Starting values: the eigenvalues of the Jacobi matrix in double; then Newton on the orthonormal
  // recurrence p_{k+1} = (x p_k − √k p_{k−1})/√(k+1), p_k = He_k/√(k!), with p_n' = √n p_{n−1},
  // to full Scalar precision; weights w = 1/(n p_{n−1}(x)²) (Christoffel numbers of N(0, 1)).
  Eigen::VectorXd diag = Eigen::VectorXd::Zero(n);
  Eigen::VectorXd sub(n - 1);
  for (int k = 1; k < n; ++k) sub(k - 1) = std::sqrt(static_cast<double>(k));
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es;
  es.computeFromTridiagonal(diag, sub, Eigen::EigenvaluesOnly);
  if (es.info() != Eigen::Success) throw_domain("ngvi::gauss_hermite_rule", "n", "gives a Jacobi matrix whose eigensolver failed");
  r.nodes.resize(n);
  r.weights.resize(n);
  const Scalar sqrt_n = sqrt(Scalar(n));
  for (int i = 0; i < n; ++i) {
    Scalar x(es.eigenvalues()(i));
    Scalar pn(0), pn1(0);
    for (int it = 0; it < 100; ++it) {
      Scalar pm1(0), p(1);
      for (int k = 0; k < n; ++k) {
        const Scalar next = (x * p - sqrt(Scalar(k)) * pm1) / sqrt(Scalar(k + 1));
        pm1 = p;
        p = next;
      }
      pn = p;
      pn1 = pm1;
      const Scalar dx = pn / (sqrt_n * pn1);
      x -= dx;
      if (!(abs(dx) > eps<Scalar>() * (Scalar(1) + abs(x)))) break;
    }
    Scalar pm1(0), p(1);
    for (int k = 0; k < n - 1; ++k) {
      const Scalar next = (x * p - sqrt(Scalar(k)) * pm1) / sqrt(Scalar(k + 1));
      pm1 = p;
      p = next;
    }
    r.nodes(i) = x;
    r.weights(i) = Scalar(1) / (Scalar(n) * p * p);
  }
  r.weights /= r.weights.sum();
  return r;
}

/// The truncated trapezoid rule x_k = k h, |k| ≤ N, weights h φ(x_k) (φ the N(0, 1) density).
/// @pre h > 0, N ≥ 1.
template <class Scalar>
QuadratureRule<Scalar> trapezoid_normal_rule(const Scalar& h, int half_count) {
  using std::exp;
  if (!(h > Scalar(0))) throw_domain("ngvi::trapezoid_normal_rule", "h", "must be positive");
  if (half_count < 1) throw_size("ngvi::trapezoid_normal_rule", "half_count", "must be >= 1");
  const Scalar inv_sqrt_2pi = boost::math::constants::one_div_root_two_pi<Scalar>();
  QuadratureRule<Scalar> r;
  r.nodes.resize(2 * half_count + 1);
  r.weights.resize(2 * half_count + 1);
  for (int k = -half_count; k <= half_count; ++k) {
    const Scalar x = Scalar(k) * h;
    r.nodes(k + half_count) = x;
    r.weights(k + half_count) = h * inv_sqrt_2pi * exp(-x * x / 2);
  }
  return r;
}

}  // namespace ngvi
