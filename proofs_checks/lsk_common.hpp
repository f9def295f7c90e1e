#pragma once
/// @file
/// Helpers of the lsk.* claims: a cyclic Jacobi eigen-decomposition for the high-precision reference
/// (Eigen's SelfAdjointEigenSolver needs NumTraits::infinity(), which Boost 1.74's multiprecision
/// adapter does not provide), the LSK update with its second-order term weighted by c, the
/// small violation of the ensure_posdef hypothesis the controls of the lsk.* claims use, and the
/// iterates of an lsk-update implementation on a target (lsk_protocol_trajectory).
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "ngvi/linalg/spd.hpp"
#include "ngvi/optim/lsk_ngvi.hpp"
#include "ngvi/optim/steppers/protocol_lsk_update.hpp"
#include "ngvi/scalar/traits.hpp"
#include "ngvi/scalar/types.hpp"

namespace ngvi::claims {

namespace detail {

/// 1/√x for x > 0. In double, 1/std::sqrt. In a multiprecision type, Newton's iteration
/// r ← r(3 − m r²)/2 on the mantissa m ∈ [½, 2) of x = m·2^e (e even), from double's 1/√m: each step
/// squares the relative error (53 → 105 → 209 → 417 bits), so ⌈log₂(digits/50)⌉ steps reach the
/// type's precision, within a few units in the last place. Boost's correctly rounded sqrt for
/// cpp_bin_float works bit by bit; in the Jacobi rotations below it took most of the time
/// (bench/README.md, "The claims' Jacobi rotations").
template <class T>
T inv_sqrt(const T& x) {
  if constexpr (std::is_floating_point_v<T>) {
    return 1 / std::sqrt(x);
  } else {
    int e = 0;
    T m = frexp(x, &e);  // x = m·2^e, m ∈ [½, 1)
    if (e % 2 != 0) {
      m = ldexp(m, 1);
      --e;
    }
    T r = T(1 / std::sqrt(static_cast<double>(m)));
    for (int bits = 50; bits < std::numeric_limits<T>::digits + 8; bits = 2 * bits - 2) r = r * (3 - m * r * r) / 2;
    return ldexp(r, -e / 2);
  }
}

template <bool kVectors, class T>
std::pair<Vec<T>, Mat<T>> jacobi(Mat<T> a) {
  using std::abs;
  const Index n = a.rows();
  Mat<T> v = kVectors ? Mat<T>::Identity(n, n) : Mat<T>();
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
        const T r = theta * theta + 1;
        T root_r;  // √r: correctly rounded in double; r·r^{-1/2} in a multiprecision type
        if constexpr (std::is_floating_point_v<T>) root_r = std::sqrt(r);
        else root_r = r * inv_sqrt(r);
        const T t = (theta >= T(0) ? T(1) : T(-1)) / (abs(theta) + root_r);
        const T c = inv_sqrt(T(t * t + 1));
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
        if constexpr (kVectors)
          for (Index k = 0; k < n; ++k) {
            const T vkp = v(k, p), vkq = v(k, q);
            v(k, p) = c * vkp - s * vkq;
            v(k, q) = s * vkp + c * vkq;
          }
      }
  }
  throw std::domain_error("ngvi::claims::jacobi_eigen: argument 'A' did not converge in 100 sweeps");
}

}  // namespace detail

/// A = V diag(λ) Vᵀ for symmetric A by cyclic Jacobi rotations (Golub & Van Loan §8.5; rotation of
/// Rutishauser's form t = sgn(θ)/(|θ| + √(θ² + 1)), θ = (a_qq − a_pp)/(2a_pq), c = 1/√(t² + 1),
/// s = tc, the inverse square roots by detail::inv_sqrt: c² + s² = 1 within a few units in the last
/// place, as the method's error analysis asks of a computed rotation). Stops when the off-diagonal
/// Frobenius mass is ≤ (eps·‖A‖_F)²; quadratic convergence needs a few sweeps.
/// @throws std::domain_error if 100 sweeps do not reach that (never seen for symmetric input).
template <class T>
std::pair<Vec<T>, Mat<T>> jacobi_eigen(Mat<T> a) {
  return detail::jacobi<true>(std::move(a));
}

/// The eigenvalues of jacobi_eigen(a) (the same rotations, bit for bit), without accumulating V.
template <class T>
Vec<T> jacobi_eigenvalues(Mat<T> a) {
  return detail::jacobi<false>(std::move(a)).first;
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

/// The iterates q_1..q_T of an lsk-update implementation (protocols/lsk_update.hpp, in Scalar) on
/// `target` from `st`: at each step the claim hands the target's exact ḡ and H̄ at q_t to the
/// implementation's trajectory with ensure_posdef = `posdef`. With `weight` c the control's iterates
/// instead: S'_c = S'_plain + c(S'_pd − S'_plain) from the implementation's two trajectories (without
/// and with the term) and m' = m + ηS'_c⁻¹ḡ formed by the kit; c = 1 − δ and c = δ are the controls'
/// small violations.
/// @throws ImplementationError (the runner's) or std::domain_error naming 'precision' if an S' is not
///         positive definite.
template <class Scalar, class Target>
std::vector<LskState<Scalar>> lsk_protocol_trajectory(const protocols::LskUpdateOf<Scalar>& impl, const Target& target, LskState<Scalar> st,
                                                      const Scalar& eta, long steps, bool posdef, std::optional<Scalar> weight = {}) {
  const Index d = target.dim();
  std::unique_ptr<LskUpdateRunner<Scalar>> main, pd, plain;
  if (weight) {
    pd = std::make_unique<LskUpdateRunner<Scalar>>(impl, protocols::LskProblemOf<Scalar>{d, eta, true});
    plain = std::make_unique<LskUpdateRunner<Scalar>>(impl, protocols::LskProblemOf<Scalar>{d, eta, false});
  } else {
    main = std::make_unique<LskUpdateRunner<Scalar>>(impl, protocols::LskProblemOf<Scalar>{d, eta, posdef});
  }
  std::vector<LskState<Scalar>> out;
  for (long t = 0; t < steps; ++t) {
    const GaussianMoments<Scalar> q = st.q();
    const Vec<Scalar> g = target.expected_gradient(q);
    const Mat<Scalar> h = target.expected_hessian(q);
    LskState<Scalar> nx = st;
    if (main) {
      const protocols::LskStepResultOf<Scalar> r = main->step(t, st.mean, st.precision, g, h);
      nx.precision = r.precision;
      nx.mean = r.mean;
    } else {
      const protocols::LskStepResultOf<Scalar> a = pd->step(t, st.mean, st.precision, g, h);
      const protocols::LskStepResultOf<Scalar> b = plain->step(t, st.mean, st.precision, g, h);
      nx.precision = symmetrise(Mat<Scalar>(b.precision + *weight * (a.precision - b.precision)));
    }
    const SpdFactor<Scalar> fac(nx.precision, "lsk_protocol_trajectory", "precision (the implementation's S')");
    nx.chol = fac.lower();
    nx.cov = fac.inverse();
    if (!main) nx.mean = st.mean + eta * fac.solve(g);
    out.push_back(nx);
    st = std::move(nx);
  }
  return out;
}

/// The skipped record a claim writes in a precision the lsk-update implementation under test has no
/// form for (lsk_update_lacks): the library's update must not run in its name.
template <class Scalar>
ClaimRecord lsk_precision_skipped(const char* id) {
  return skipped_record(id, "(implementation)", scalar_name<Scalar>(), Kind::kClaim,
                        "the lsk-update implementation has no " + scalar_name<Scalar>() + " form (ngvikit: its 'precisions' attribute)");
}

}  // namespace ngvi::claims
