#pragma once
/// @file
/// Interval certificates that the negative ELBO of a Gaussian-prior GLM is not convex in the
/// expectation parameter μ: an enclosure [lo, hi] of vᵀ∇²_μ f v at an explicit point with hi < 0
/// (docs/math.md §6). Arithmetic is MPFI at 50 digits (`mpfi50`), whose every operation (including
/// exp and sqrt) returns an interval containing the exact result, independent of FPU flags.
///
/// The point is given as q = N(m, S) with S = diag(s) (every instance of §6 is of this form), so
/// μ = (m, diag(s) + mmᵀ) and S⁻¹ = diag(1/s) are exact. With ν_i = a_iᵀm, τ_i = Σ_j a_ij² s_j,
/// α_i = a_iᵀv₁, β_i = a_iᵀV₂a_i − 2ν_iα_i and D = V₂ − v₁mᵀ − mv₁ᵀ (glm_variational.hpp):
/// \f[ v^\top\nabla^2_\mu f\,v = \sum_i \Big(E[h'''(u_i)]\,\alpha_i\beta_i + \tfrac14 E[h''''(u_i)]\,\beta_i^2\Big)
///     + \sum_j \frac{v_{1j}^2}{s_j} + \tfrac12\sum_{jk}\frac{D_{jk}^2}{s_j s_k}, \qquad u_i \sim N(\nu_i, \tau_i), \f]
/// where h = −ℓ is the negative log-likelihood:
///   Poisson: E h''' = E h'''' = exp(ν + τ/2) (closed form, enclosed directly);
///   logistic: h''' = ψ', h'''' = ψ''; E[g(ν + √τ x)] over x ~ N(0, 1) is enclosed by summing, over
///   the cells C_k of a uniform grid of [−R, R], width(C_k) · g(ν + √τ C_k)·φ(C_k) evaluated in
///   interval arithmetic on the whole cell, plus the tail |∫_{|x|>R} g φ| ≤ 2 sup|g| φ(R)/R (Mills'
///   ratio), with sup|ψ'| = 1/√108 ≤ 1/10 and sup|ψ''| = 1/8 (ψ ∈ (0, 1/4]: ψ'² = ψ²(1 − 4ψ) and
///   ψ'' = ψ(1 − 6ψ)).
/// A successful certificate proves that f is not convex in μ in a neighbourhood of that point.
#include <boost/math/constants/constants.hpp>
#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "ngvi/expfam/gaussian_params.hpp"
#include "ngvi/scalar/mpfr_types.hpp"

namespace ngvi::certify {

/// The enclosure of a curvature vᵀHv and what it proves.
struct CurvatureCertificate {
  double lo = 0;          ///< outward-rounded lower end
  double hi = 0;          ///< outward-rounded upper end
  bool negative = false;  ///< true iff the exact upper end is < 0 (checked in MPFR, not in double)
  long cells = 0;         ///< quadrature cells (logistic), 0 for the closed form
  double tail = 0;        ///< the tail bound added per expectation (logistic)
  std::string describe() const {
    std::ostringstream s;
    s.precision(10);
    s << "v^T H v in [" << lo << ", " << hi << "]" << (negative ? " (hi < 0: certified negative)" : " (not certified)");
    if (cells > 0) s << ", " << cells << " cells, tail <= " << tail;
    return s.str();
  }
};

namespace detail {

inline double lower_double(const mpfi50& x) {
  const double d = boost::multiprecision::lower(x).convert_to<double>();
  return std::nextafter(d, -HUGE_VAL);
}
inline double upper_double(const mpfi50& x) {
  const double d = boost::multiprecision::upper(x).convert_to<double>();
  return std::nextafter(d, HUGE_VAL);
}

inline void validate_point(const Mat<double>& x, const Vec<double>& m, const Vec<double>& s, const GaussianPair<double>& v,
                           const char* f) {
  require_finite(x, f, "X");
  require_positive_dim(x.rows(), f, "X");
  if (m.size() != x.cols()) throw_size(f, "m", "has a different dimension from the columns of X");
  if (s.size() != x.cols()) throw_size(f, "s", "has a different dimension from the columns of X");
  require_finite(m, f, "m");
  require_finite(s, f, "s");
  for (Index j = 0; j < s.size(); ++j)
    if (!(s(j) > 0)) throw_domain(f, "s", "must be positive (S = diag(s) is a covariance)");
  require_pair_shape(v, f, "v");
  if (v.dim() != x.cols()) throw_size(f, "v", "has a different dimension from the columns of X");
  require_symmetric(v.second, f, "v.second");
}

/// Distinct rows of X with multiplicities (identical rows contribute identical terms).
inline std::map<std::vector<double>, long> distinct_rows(const Mat<double>& x) {
  std::map<std::vector<double>, long> rows;
  for (Index i = 0; i < x.rows(); ++i) {
    std::vector<double> r(x.cols());
    for (Index j = 0; j < x.cols(); ++j) r[j] = x(i, j);
    ++rows[r];
  }
  return rows;
}

/// The KL part Σ v₁ⱼ²/sⱼ + ½ Σ Dⱼₖ²/(sⱼsₖ).
inline mpfi50 kl_part(const Vec<double>& m, const Vec<double>& s, const GaussianPair<double>& v) {
  const Index d = m.size();
  mpfi50 out(0);
  for (Index j = 0; j < d; ++j) out += mpfi50(v.first(j)) * mpfi50(v.first(j)) / mpfi50(s(j));
  mpfi50 half(0);
  for (Index j = 0; j < d; ++j)
    for (Index k = 0; k < d; ++k) {
      const mpfi50 djk = mpfi50(v.second(j, k)) - mpfi50(v.first(j)) * mpfi50(m(k)) - mpfi50(m(j)) * mpfi50(v.first(k));
      half += djk * djk / (mpfi50(s(j)) * mpfi50(s(k)));
    }
  return out + half / 2;
}

struct RowTerms {
  mpfi50 nu, tau, alpha, beta;
};

inline RowTerms row_terms(const std::vector<double>& a, const Vec<double>& m, const Vec<double>& s, const GaussianPair<double>& v) {
  RowTerms t{mpfi50(0), mpfi50(0), mpfi50(0), mpfi50(0)};
  mpfi50 quad(0);
  for (std::size_t j = 0; j < a.size(); ++j) {
    const mpfi50 aj(a[j]);
    t.nu += aj * mpfi50(m(j));
    t.tau += aj * aj * mpfi50(s(j));
    t.alpha += aj * mpfi50(v.first(j));
    for (std::size_t k = 0; k < a.size(); ++k) quad += aj * mpfi50(a[k]) * mpfi50(v.second(j, k));
  }
  t.beta = quad - 2 * t.nu * t.alpha;
  return t;
}

inline CurvatureCertificate finish(const mpfi50& total, long cells, double tail) {
  CurvatureCertificate c;
  c.lo = lower_double(total);
  c.hi = upper_double(total);
  c.negative = boost::multiprecision::upper(total) < 0;
  c.cells = cells;
  c.tail = tail;
  return c;
}

}  // namespace detail

/// Certificate for Poisson regression (rows of X are the a_i, log link, prior Gaussian).
/// @pre X finite with n ≥ 1 rows; m, s, v of dimension cols(X); s > 0; V₂ symmetric.
/// @throws std::invalid_argument / std::domain_error naming the argument otherwise.
inline CurvatureCertificate certify_poisson_curvature(const Mat<double>& x, const Vec<double>& m, const Vec<double>& s,
                                                      const GaussianPair<double>& v) {
  using std::exp;
  detail::validate_point(x, m, s, v, "ngvi::certify::certify_poisson_curvature");
  mpfi50 total = detail::kl_part(m, s, v);
  for (const auto& [row, count] : detail::distinct_rows(x)) {
    const auto t = detail::row_terms(row, m, s, v);
    const mpfi50 c = exp(t.nu + t.tau / 2);
    total += mpfi50(count) * c * (t.alpha * t.beta + t.beta * t.beta / 4);
  }
  return detail::finish(total, 0, 0.0);
}

/// Enclosures of E[ψ'(u)] and E[ψ''(u)], u = ν + √τ x, x ~ N(0, 1), by `cells` interval cells on
/// [−R, R] plus the rigorous tail (see the file comment).
/// @pre cells ≥ 2 and even, R ≥ 1.
inline std::pair<mpfi50, mpfi50> logistic_psi_expectations(const mpfi50& nu, const mpfi50& tau, long cells, double r) {
  using std::exp;
  using std::sqrt;
  const mpfi50 sd = sqrt(tau);
  const mpfi50 inv_sqrt_2pi = 1 / sqrt(2 * boost::math::constants::pi<mpfi50>());
  const mpfi50 width = mpfi50(2 * r) / mpfi50(cells);
  mpfi50 e3(0), e4(0);
  for (long k = 0; k < cells; ++k) {
    const mpfi50 left = mpfi50(-r) + width * mpfi50(k);
    const mpfi50 right = mpfi50(-r) + width * mpfi50(k + 1);
    const mpfi50 cell(boost::multiprecision::lower(left), boost::multiprecision::upper(right));
    const mpfi50 u = nu + sd * cell;
    const mpfi50 sig = 1 / (1 + exp(-u));
    const mpfi50 psi = sig * (1 - sig);
    const mpfi50 phi = inv_sqrt_2pi * exp(-mpfi50(cell * cell) / 2);
    e3 += width * psi * (1 - 2 * sig) * phi;
    e4 += width * psi * (1 - 6 * psi) * phi;
  }
  const mpfi50 phi_r = inv_sqrt_2pi * exp(-mpfi50(r) * mpfi50(r) / 2) / mpfi50(r);
  const mpfi50 t3 = 2 * phi_r / 10;
  const mpfi50 t4 = 2 * phi_r / 8;
  e3 += mpfi50(-boost::multiprecision::upper(t3), boost::multiprecision::upper(t3));
  e4 += mpfi50(-boost::multiprecision::upper(t4), boost::multiprecision::upper(t4));
  return {e3, e4};
}

/// Certificate for logistic regression (rows of X are the a_i, including the bias column).
/// @pre as for `certify_poisson_curvature`; cells ≥ 2 even; R ≥ 1.
/// @throws std::invalid_argument / std::domain_error naming the argument otherwise.
inline CurvatureCertificate certify_logistic_curvature(const Mat<double>& x, const Vec<double>& m, const Vec<double>& s,
                                                       const GaussianPair<double>& v, long cells = 1024, double r = 8.0) {
  constexpr const char* f = "ngvi::certify::certify_logistic_curvature";
  detail::validate_point(x, m, s, v, f);
  if (cells < 2 || cells % 2 != 0) throw_size(f, "cells", "must be even and >= 2");
  if (!(r >= 1.0) || !std::isfinite(r)) throw_domain(f, "R", "must be finite and >= 1");
  mpfi50 total = detail::kl_part(m, s, v);
  for (const auto& [row, count] : detail::distinct_rows(x)) {
    const auto t = detail::row_terms(row, m, s, v);
    const auto [e3, e4] = logistic_psi_expectations(t.nu, t.tau, cells, r);
    total += mpfi50(count) * (e3 * t.alpha * t.beta + e4 * t.beta * t.beta / 4);
  }
  const double tail = 2.0 * std::exp(-r * r / 2) / std::sqrt(2 * boost::math::constants::pi<double>()) / r / 8;
  return detail::finish(total, cells, tail);
}

}  // namespace ngvi::certify
