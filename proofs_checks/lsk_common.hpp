#pragma once
/// @file
/// Helpers of the lsk.* claims: a cyclic Jacobi eigen-decomposition for the high-precision reference
/// (Eigen's SelfAdjointEigenSolver needs NumTraits::infinity(), which Boost 1.74's multiprecision
/// adapter does not provide), and the LSK update with its second-order term weighted by c, the
/// small violation of the ensure_posdef hypothesis the controls of the lsk.* claims use.
#include <stdexcept>
#include <utility>
#include <vector>

#include "ngvi/linalg/spd.hpp"
#include "ngvi/optim/lsk_ngvi.hpp"
#include "ngvi/scalar/traits.hpp"
#include "ngvi/scalar/types.hpp"

namespace ngvi::claims {

/// A = V diag(λ) Vᵀ for symmetric A by cyclic Jacobi rotations (Golub & Van Loan §8.5; rotation of
/// Rutishauser's form t = sgn(θ)/(|θ| + √(θ² + 1)), θ = (a_qq − a_pp)/(2a_pq)). Stops when the
/// off-diagonal Frobenius mass is ≤ (eps·‖A‖_F)²; quadratic convergence needs a few sweeps.
/// @throws std::domain_error if 100 sweeps do not reach that (never seen for symmetric input).
template <class T>
std::pair<Vec<T>, Mat<T>> jacobi_eigen(Mat<T> a) {
  using std::abs;
  using std::sqrt;
  const Index n = a.rows();
  Mat<T> v = Mat<T>::Identity(n, n);
  const T tol = eps<T>() * eps<T>() * a.squaredNorm();
  for (int sweep = 0; sweep < 100; ++sweep) {
    T off(0);
    for (Index q = 1; q < n; ++q)
      for (Index p = 0; p < q; ++p) off += a(p, q) * a(p, q);
    if (off <= tol) return {a.diagonal(), v};
    for (Index q = 1; q < n; ++q)
      for (Index p = 0; p < q; ++p) {
        if (a(p, q) == T(0)) continue;
        const T theta = (a(q, q) - a(p, p)) / (2 * a(p, q));
        const T t = (theta >= T(0) ? T(1) : T(-1)) / (abs(theta) + sqrt(theta * theta + 1));
        const T c = 1 / sqrt(t * t + 1);
        const T s = t * c;
        for (Index k = 0; k < n; ++k) {
          const T akp = a(k, p), akq = a(k, q);
          a(k, p) = c * akp - s * akq;
          a(k, q) = s * akp + c * akq;
        }
        for (Index k = 0; k < n; ++k) {
          const T apk = a(p, k), aqk = a(q, k);
          a(p, k) = c * apk - s * aqk;
          a(q, k) = s * apk + c * aqk;
        }
        for (Index k = 0; k < n; ++k) {
          const T vkp = v(k, p), vkq = v(k, q);
          v(k, p) = c * vkp - s * vkq;
          v(k, q) = s * vkp + c * vkq;
        }
      }
  }
  throw std::domain_error("ngvi::claims::jacobi_eigen: argument 'A' did not converge in 100 sweeps");
}

/// The LSK precision update with its second-order term (η²/2)ĜS⁻¹Ĝ weighted by c:
/// S'_c = S'₀ + c(S'₁ − S'₀) = S − ηĜ + c(η²/2)ĜS⁻¹Ĝ, where S'₁ and S'₀ are the library's updates with
/// and without ensure_posdef (their difference is exactly the term). c = 1 is ensure_posdef, c = 0
/// the plain update; c = 1 − δ or c = δ for small δ is a small violation of either hypothesis.
template <class Scalar>
Mat<Scalar> lsk_update_weighted(const Mat<Scalar>& s, const Mat<Scalar>& l, const Mat<Scalar>& h, const Scalar& eta,
                                const Scalar& c) {
  const Mat<Scalar> plain = lsk_precision_update(s, l, h, eta, false);
  const Mat<Scalar> pd = lsk_precision_update(s, l, h, eta, true);
  return symmetrise(Mat<Scalar>(plain + c * (pd - plain)));
}

/// `steps` LSK steps with exact expectations (ḡ = E_q∇log π, H̄ = E_q∇²log π from the target) and
/// the precision update weighted by c (lsk_update_weighted); the mean step m' = m + ηS'⁻¹ḡ as the
/// library's lsk_step. Returns the iterates after each step (the initial state not included).
/// @throws std::domain_error (from SpdFactor) if an update is not positive definite.
template <class Target, class Scalar>
std::vector<LskState<Scalar>> lsk_weighted_trajectory(const Target& target, LskState<Scalar> st, const Scalar& eta,
                                                      const Scalar& c, long steps) {
  std::vector<LskState<Scalar>> out;
  for (long t = 0; t < steps; ++t) {
    const GaussianMoments<Scalar> q = st.q();
    const Vec<Scalar> g = target.expected_gradient(q);
    const Mat<Scalar> h = target.expected_hessian(q);
    LskState<Scalar> nx = st;
    nx.precision = lsk_update_weighted<Scalar>(st.precision, st.chol, h, eta, c);
    const SpdFactor<Scalar> fac(nx.precision, "lsk_weighted_trajectory", "precision");
    nx.chol = fac.lower();
    nx.cov = fac.inverse();
    nx.mean = st.mean + eta * fac.solve(g);
    out.push_back(nx);
    st = std::move(nx);
  }
  return out;
}

}  // namespace ngvi::claims
