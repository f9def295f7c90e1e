#pragma once
/// @file
/// The constants and right-hand sides of Lemmas 3, 5–11, Corollaries 1–2 and Theorem 1 for Bayesian
/// linear regression with prior N(0, S_p) (docs/math.md §5.3–5.4, §4.5). Every constant is ours,
/// derived along the paper's proof route: print them as "derived (docs/math.md §5.4)".
///
/// All functions are templates on Scalar and use only + − × ÷, sqrt, abs, min and max, so with
/// Scalar = ngvi::interval_d (scalar/interval.hpp, outward rounding) each result is an enclosure
/// and its upper end is a true upper bound on the exact real value. The inputs are double data
/// (exact in every Scalar). λ = min{1, λ_min(S_p⁻¹)} = min{1, 1/λ_max(S_p)}: for interval_d it is
/// replaced by the certified lower bound min{1, 1/g} with g ≥ λ_max(S_p) Gershgorin's row-sum
/// bound; every right-hand side below decreases in λ, so the result stays an upper bound.
#include <Eigen/Eigenvalues>
#include <string>
#include <vector>
#include <type_traits>

#include "ngvi/data/dataset.hpp"
#include "ngvi/scalar/interval.hpp"

namespace ngvi {

template <class Scalar>
struct BlrConstants {
  Scalar n, batch, noise_var;  ///< n, M, s_e²
  Scalar lambda;               ///< min{1, λ_min(S_p⁻¹)}
  Scalar rx, ry;               ///< max_i ‖x_i‖, max_i |y_i|
  Scalar b;                    ///< B = (n/s_e²) max_i |y_i| ‖x_i‖
  Scalar v1, v2;               ///< population variances of y_i x_i and x_i x_iᵀ (§5.3)
};

/// Computes the constants of §5.3 from the data.
/// @throws std::invalid_argument if n = 0, d = 0, M < 1 or S_p has the wrong size;
///         std::domain_error if s_e² ≤ 0 or the data are not finite.
template <class Scalar>
BlrConstants<Scalar> blr_constants(const Dataset<double>& data, const Mat<double>& prior_cov, double noise_var, long batch) {
  using std::abs;
  using std::max;
  using std::min;
  using std::sqrt;
  constexpr const char* f = "ngvi::blr_constants";
  validate_dataset(data, f, "data");
  if (batch < 1) throw_size(f, "batch", "must be >= 1 (M = 0)");
  if (!(noise_var > 0.0) || !is_finite_scalar(noise_var)) throw_domain(f, "noise_var", "must be finite and > 0");
  if (prior_cov.rows() != data.d() || prior_cov.cols() != data.d()) throw_size(f, "prior_cov", "must be d x d");
  require_finite(prior_cov, f, "prior_cov");
  const Index n = data.n(), d = data.d();
  BlrConstants<Scalar> c;
  c.n = Scalar(static_cast<double>(n));
  c.batch = Scalar(static_cast<double>(batch));
  c.noise_var = Scalar(noise_var);
  if constexpr (std::is_same_v<Scalar, interval_d>) {
    Scalar g(0);
    for (Index i = 0; i < d; ++i) {
      Scalar row(0);
      for (Index j = 0; j < d; ++j) row += abs(Scalar(prior_cov(i, j)));
      g = max(g, row);
    }
    const Scalar lam = min(Scalar(1), Scalar(1) / g);
    c.lambda = Scalar(lam.lower());
  } else {
    // λ_max(S_p) of the double input by Eigen's symmetric solver (backward stable: relative error
    // O(d u κ)); the λ-dependent right-hand sides are inequalities, not identities, so this is the
    // only quantity not carried in Scalar.
    Eigen::SelfAdjointEigenSolver<Mat<double>> es(prior_cov, Eigen::EigenvaluesOnly);
    if (!(es.eigenvalues().minCoeff() > 0.0)) throw_domain(f, "prior_cov", "is not positive definite");
    const Scalar top(es.eigenvalues().maxCoeff());
    c.lambda = min(Scalar(1), Scalar(1) / top);
  }
  c.rx = Scalar(0);
  c.ry = Scalar(0);
  Scalar yx_max(0);
  std::vector<Scalar> mean1(static_cast<std::size_t>(d), Scalar(0));
  std::vector<Scalar> mean2(static_cast<std::size_t>(d * d), Scalar(0));
  for (Index i = 0; i < n; ++i) {
    Scalar nx2(0);
    for (Index k = 0; k < d; ++k) nx2 += Scalar(data.X(i, k)) * Scalar(data.X(i, k));
    const Scalar nx = sqrt(nx2);
    const Scalar ay = abs(Scalar(data.y(i)));
    c.rx = max(c.rx, nx);
    c.ry = max(c.ry, ay);
    yx_max = max(yx_max, ay * nx);
    for (Index k = 0; k < d; ++k) {
      mean1[static_cast<std::size_t>(k)] += Scalar(data.y(i)) * Scalar(data.X(i, k));
      for (Index l = 0; l < d; ++l) mean2[static_cast<std::size_t>(k * d + l)] += Scalar(data.X(i, k)) * Scalar(data.X(i, l));
    }
  }
  for (auto& v : mean1) v /= c.n;
  for (auto& v : mean2) v /= c.n;
  c.v1 = Scalar(0);
  c.v2 = Scalar(0);
  for (Index i = 0; i < n; ++i) {
    for (Index k = 0; k < d; ++k) {
      const Scalar e = Scalar(data.y(i)) * Scalar(data.X(i, k)) - mean1[static_cast<std::size_t>(k)];
      c.v1 += e * e;
      for (Index l = 0; l < d; ++l) {
        const Scalar e2 = Scalar(data.X(i, k)) * Scalar(data.X(i, l)) - mean2[static_cast<std::size_t>(k * d + l)];
        c.v2 += e2 * e2;
      }
    }
  }
  c.v1 /= c.n;
  c.v2 /= c.n;
  c.b = c.n / c.noise_var * yx_max;
  return c;
}

/// Lemma 7 [R]: \f$ E_t\|\Delta_1\|^2 = \frac{n^2}{M s_e^4} V_1 \f$ (equality under eq. (15)).
template <class Scalar>
Scalar lemma7_rhs(const BlrConstants<Scalar>& c) { return c.n * c.n / (c.batch * c.noise_var * c.noise_var) * c.v1; }
/// Lemma 7, max form: \f$ \frac{n^2}{M s_e^4} R_x^2 R_y^2 \f$.
template <class Scalar>
Scalar lemma7_rhs_max(const BlrConstants<Scalar>& c) {
  return c.n * c.n / (c.batch * c.noise_var * c.noise_var) * (c.rx * c.rx * c.ry * c.ry);
}
/// Lemma 8 [R]: \f$ E_t\|\Delta_2\|_F^2 = \frac{n^2}{4 M s_e^4} V_2 \f$.
template <class Scalar>
Scalar lemma8_rhs(const BlrConstants<Scalar>& c) { return c.n * c.n / (Scalar(4) * c.batch * c.noise_var * c.noise_var) * c.v2; }
/// Lemma 8, max form: \f$ \frac{n^2}{4 M s_e^4} R_x^4 \f$.
template <class Scalar>
Scalar lemma8_rhs_max(const BlrConstants<Scalar>& c) {
  return c.n * c.n / (Scalar(4) * c.batch * c.noise_var * c.noise_var) * (c.rx * c.rx * c.rx * c.rx);
}

/// Lemma 5 [R]: every iterate satisfies η₂ ≼ −(λ/2) I; returns the ceiling −λ/2.
template <class Scalar>
Scalar lemma5_eta2_ceiling(const BlrConstants<Scalar>& c) { return -c.lambda / Scalar(2); }

/// Lemma 6 [R]: for A, B ≽ cI, ‖A⁻¹ − B⁻¹‖_F ≤ c⁻² ‖A − B‖_F; returns c⁻².
/// @throws std::domain_error naming 'c' unless c > 0 (checked for non-interval scalars).
template <class Scalar>
Scalar lemma6_constant(const Scalar& floor) {
  if constexpr (!std::is_same_v<Scalar, interval_d>)
    if (!(floor > Scalar(0))) throw_domain("ngvi::lemma6_constant", "c", "must be > 0");
  return Scalar(1) / (floor * floor);
}

/// Corollary 1 [R]: ‖η₁_t‖ ≤ B.
template <class Scalar>
Scalar cor1_bound(const BlrConstants<Scalar>& c) { return c.b; }
/// Corollary 2 [R]: ‖μ₁_t‖ ≤ B/λ.
template <class Scalar>
Scalar cor2_bound(const BlrConstants<Scalar>& c) { return c.b / c.lambda; }

/// Lemma 10 [D]: \f$ \|\mu_{1,t+1} - \tilde\mu_{1,t+1}\| \le \frac{\gamma}{\lambda}\|\Delta_1\|
///   + \frac{2B\gamma}{\lambda^2}\|\Delta_2\|_F \f$.
template <class Scalar>
Scalar lemma10_rhs(const BlrConstants<Scalar>& c, const Scalar& gamma, const Scalar& delta1, const Scalar& delta2) {
  return gamma / c.lambda * delta1 + Scalar(2) * c.b * gamma / (c.lambda * c.lambda) * delta2;
}
/// Lemma 11 [D]: \f$ \|\mu_{2,t+1} - \tilde\mu_{2,t+1}\|_F \le \frac{2B\gamma}{\lambda^2}\|\Delta_1\|
///   + \frac{2\gamma}{\lambda^2}\big(1 + \frac{2B^2}{\lambda}\big)\|\Delta_2\|_F \f$.
template <class Scalar>
Scalar lemma11_rhs(const BlrConstants<Scalar>& c, const Scalar& gamma, const Scalar& delta1, const Scalar& delta2) {
  const Scalar l2 = c.lambda * c.lambda;
  return Scalar(2) * c.b * gamma / l2 * delta1 + Scalar(2) * gamma / l2 * (Scalar(1) + Scalar(2) * c.b * c.b / c.lambda) * delta2;
}

/// Lemma 3 [D], data-moment form:
/// \f[ \sigma^2 = \frac{n^2}{M s_e^4}\Big[\frac1\lambda\Big(\sqrt{V_1} + \frac B\lambda\sqrt{V_2}\Big)^2
///   + \frac{V_2}{2\lambda^2}\Big]. \f]
template <class Scalar>
Scalar lemma3_sigma2(const BlrConstants<Scalar>& c) {
  using std::sqrt;
  const Scalar root = sqrt(c.v1) + c.b / c.lambda * sqrt(c.v2);
  return c.n * c.n / (c.batch * c.noise_var * c.noise_var) *
         (root * root / c.lambda + c.v2 / (Scalar(2) * c.lambda * c.lambda));
}

/// Lemma 3 [D], data-maximum form (≥ the data-moment form):
/// \f[ \sigma^2 \le \frac{n^2}{M s_e^4}\Big[\frac{R_x^2R_y^2}{\lambda}\Big(1 + \frac{nR_x^2}{\lambda s_e^2}\Big)^2
///   + \frac{R_x^4}{2\lambda^2}\Big]. \f]
template <class Scalar>
Scalar lemma3_sigma2_max_form(const BlrConstants<Scalar>& c) {
  const Scalar rx2 = c.rx * c.rx;
  const Scalar k = Scalar(1) + c.n * rx2 / (c.lambda * c.noise_var);
  return c.n * c.n / (c.batch * c.noise_var * c.noise_var) *
         (rx2 * c.ry * c.ry / c.lambda * k * k + rx2 * rx2 / (Scalar(2) * c.lambda * c.lambda));
}

/// Theorem 1 (14) [D]: \f$ E\,\mathrm{KL}(q_{\bar\mu_T}\|p(z|y)) \le 4\sigma^2/(T+1) \f$.
/// @throws std::invalid_argument naming 'T' if T < 1.
template <class Scalar>
Scalar thm1_kl_bound(const Scalar& sigma2, long T) {
  if (T < 1) throw_size("ngvi::thm1_kl_bound", "T", "must be >= 1");
  return Scalar(4) * sigma2 / Scalar(static_cast<double>(T + 1));
}

}  // namespace ngvi
