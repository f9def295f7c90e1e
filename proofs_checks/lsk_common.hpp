#pragma once
/// @file
/// Helpers of the lsk.* claims: a cyclic Jacobi eigen-decomposition for the high-precision reference
/// (Eigen's SelfAdjointEigenSolver needs NumTraits::infinity(), which Boost 1.74's multiprecision
/// adapter does not provide).
#include <stdexcept>
#include <utility>

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

}  // namespace ngvi::claims
