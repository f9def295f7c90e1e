#pragma once
/// @file
/// A certified upper bound on sup σ_t² (eq. (12)) over an outer enclosure of the states that eq. (15)
/// NGD can reach on Bayesian linear regression with prior N(0, S_p), for every schedule with γ₀ = 1 and
/// γ_t ∈ (0, 1] (Theorem 1's γ_t = 2/(t + 2) among them). Derivation: docs/math.md §5.4, "A certified
/// σ² over the reachable set". The bound is the kit's derivation: print it as "derived (docs/math.md §5.4)".
///
/// Entry point for callers (Theorem 1's records, worst-case searches):
///
///     Scalar s2 = certified_sigma2<Scalar>(data, prior_cov, noise_var, M);
///
/// returns σ²_cert with σ_t² ≤ σ²_cert at every reachable state and every t. With
/// Scalar = interval_d (scalar/interval.hpp, outward rounding; compile with -frounding-math) the
/// result is an enclosure of the closed form below and its upper() is a certified upper bound; with
/// double it is the same closed form rounded to nearest (not certified).
///
/// The closed form (c = n/s_e², X̄ = (1/n)Σ x_k x_kᵀ, ‖v‖²_P = vᵀPv, a centre w = S_pω with
/// residuals r_k = y_k − x_kᵀw, ā = (1/n)Σ x_k r_k; the kit takes ω = S_p⁻¹m_post, any ω is valid):
///
///     a² = (c²/M)  (1/n) Σ_k ‖x_k r_k − ā‖²_{S_p}
///     b² = (c²/4M) (1/n) Σ_k tr(A_k S_p A_k S_p),          A_k = x_k x_kᵀ − X̄
///     ρ² = max{ωᵀS_pω, max_k v_kᵀS_p v_k − c(x_kᵀS_p v_k)²/(1 + c s_k)},   v_k = c x_k r_k − ω,
///                                                          s_k = x_kᵀ S_p x_k
///     σ²_cert = (a + 2ρb)² + 2b².
///
/// Why (§5.4): every natural parameter at which eq. (12)'s integrand F = ∇²A is evaluated lies in the
/// joint hull H = conv{η_p, P_1, ..., P_n}, P_k = η_p + c(y_k x_k, −½x_k x_kᵀ) (Lemma 9's hull taken
/// jointly with the precision: S ≼ S_p on H, the matrix form of Lemma 5's floor); the integrand is
/// ‖D₁ + 2D₂m‖²_S + 2tr(D₂SD₂S); ‖m − w‖²_{S⁻¹} is a matrix-fractional function of the hull weights,
/// convex, so its maximum ρ² is at a vertex; the rest is Cauchy–Schwarz, S ≼ S_p and Minkowski.
/// The interval evaluation inverts no matrix: every term is a polynomial in the data, S_p and ω, plus
/// divisions and square roots (ω itself comes from two Cholesky solves in double and enters as exact input).
#include <Eigen/Cholesky>
#include <string>
#include <type_traits>
#include <vector>

#include "ngvi/data/dataset.hpp"
#include "ngvi/linalg/validate.hpp"
#include "ngvi/scalar/interval.hpp"

namespace ngvi {

/// The parts of the certified bound (for reports and for the claim's notes).
template <class Scalar>
struct CertifiedSigma2 {
  Scalar a;       ///< √E‖Δ₁ + 2Δ₂w‖²_{S_p}: the η₁ noise about the centre w, in the prior's metric
  Scalar b;       ///< √E tr(Δ₂S_pΔ₂S_p), the η₂ noise in the prior's metric (Lemma 8 with S_p)
  Scalar rho;     ///< ρ = sup over the hull of ‖m − w‖_{S⁻¹} (a vertex maximum) ≥ sup ‖m − w‖_{S_p⁻¹}
  Scalar sigma2;  ///< (a + 2ρb)² + 2b²
};

/// The certified bound and its parts; see the file comment.
/// @throws std::invalid_argument if n = 0, d = 0, M < 1 or S_p is not d × d;
///         std::domain_error if s_e² ≤ 0 or is not finite, the data or S_p are not finite, or S_p is not
///         symmetric positive definite.
template <class Scalar>
CertifiedSigma2<Scalar> certified_sigma2_parts(const Dataset<double>& data, const Mat<double>& prior_cov, double noise_var,
                                               long batch) {
  using std::max;
  using std::sqrt;
  constexpr const char* f = "ngvi::certified_sigma2";
  validate_dataset(data, f, "data");
  if (batch < 1) throw_size(f, "batch", "must be >= 1 (M = 0)");
  if (!(noise_var > 0.0) || !is_finite_scalar(noise_var)) throw_domain(f, "noise_var", "must be finite and > 0");
  if (prior_cov.rows() != data.d() || prior_cov.cols() != data.d()) throw_size(f, "prior_cov", "must be d x d");
  require_finite(prior_cov, f, "prior_cov");
  if (!(prior_cov - prior_cov.transpose()).isZero(0.0)) throw_domain(f, "prior_cov", "is not symmetric");
  // S ≼ S_p and the Sherman–Morrison form of ρ need S_p ≻ 0. The test is on the double input; a matrix
  // within rounding of singular passes it, and then the (interval) terms below stay finite but large.
  if (Eigen::LLT<Mat<double>>(prior_cov).info() != Eigen::Success) throw_domain(f, "prior_cov", "is not positive definite");

  const Index n = data.n(), d = data.d();
  const Scalar nn(static_cast<double>(n));
  const Scalar c = nn / Scalar(noise_var);
  const Scalar mm(static_cast<double>(batch));
  auto sp = [&](Index i, Index j) { return Scalar(prior_cov(i, j)); };
  auto at = [](std::vector<Scalar>& v, Index i) -> Scalar& { return v[static_cast<std::size_t>(i)]; };

  // The centre w = S_p ω. Any ω gives a valid bound (it enters only through exact identities and the
  // vertex maximum); ω = S_p⁻¹ m_post, the posterior mean's prior-natural form, computed in double,
  // keeps the residuals r_k(w) = y_k − x_kᵀw at the noise level. ω is then an exact double input.
  Vec<double> omega;
  {
    const double cd = static_cast<double>(n) / noise_var;
    Mat<double> prec = Eigen::LLT<Mat<double>>(prior_cov).solve(Mat<double>::Identity(d, d));
    prec += cd / static_cast<double>(n) * (data.X.transpose() * data.X);
    const Vec<double> rhs = cd / static_cast<double>(n) * (data.X.transpose() * data.y);
    const Vec<double> mpost = Eigen::LLT<Mat<double>>(prec).solve(rhs);
    omega = Eigen::LLT<Mat<double>>(prior_cov).solve(mpost);
    if (!omega.allFinite()) omega = Vec<double>::Zero(d);
  }
  std::vector<Scalar> w(static_cast<std::size_t>(d), Scalar(0));
  for (Index i = 0; i < d; ++i)
    for (Index j = 0; j < d; ++j) at(w, i) += sp(i, j) * Scalar(omega(j));
  std::vector<Scalar> r(static_cast<std::size_t>(n));  // r_k(w)
  for (Index k = 0; k < n; ++k) {
    Scalar fit(0);
    for (Index i = 0; i < d; ++i) fit += Scalar(data.X(k, i)) * at(w, i);
    at(r, k) = Scalar(data.y(k)) - fit;
  }

  // Means of the per-datum terms x_k r_k(w) and x_k x_kᵀ.
  std::vector<Scalar> abar(static_cast<std::size_t>(d), Scalar(0));
  std::vector<Scalar> xbar(static_cast<std::size_t>(d * d), Scalar(0));
  for (Index k = 0; k < n; ++k)
    for (Index i = 0; i < d; ++i) {
      at(abar, i) += Scalar(data.X(k, i)) * at(r, k);
      for (Index j = 0; j < d; ++j) at(xbar, i * d + j) += Scalar(data.X(k, i)) * Scalar(data.X(k, j));
    }
  for (auto& v : abar) v /= nn;
  for (auto& v : xbar) v /= nn;

  // Vertex η_p (α = 0): m = 0, ‖0 − w‖²_{S_p⁻¹} = ωᵀS_pω.
  Scalar rho2(0);
  for (Index i = 0; i < d; ++i)
    for (Index j = 0; j < d; ++j) rho2 += Scalar(omega(i)) * sp(i, j) * Scalar(omega(j));
  Scalar sa(0), sb(0);
  std::vector<Scalar> e(static_cast<std::size_t>(d)), v(static_cast<std::size_t>(d));
  std::vector<Scalar> ak(static_cast<std::size_t>(d * d)), as(static_cast<std::size_t>(d * d));  // A_k, A_k S_p
  for (Index k = 0; k < n; ++k) {
    // ‖x_k r_k − ā‖²_{S_p}
    for (Index i = 0; i < d; ++i) at(e, i) = Scalar(data.X(k, i)) * at(r, k) - at(abar, i);
    for (Index i = 0; i < d; ++i)
      for (Index j = 0; j < d; ++j) sa += at(e, i) * sp(i, j) * at(e, j);
    // tr(A_k S_p A_k S_p) = Σ_ij (A_k S_p)_ij (A_k S_p)_ji
    for (Index i = 0; i < d; ++i)
      for (Index j = 0; j < d; ++j) at(ak, i * d + j) = Scalar(data.X(k, i)) * Scalar(data.X(k, j)) - at(xbar, i * d + j);
    for (Index i = 0; i < d; ++i)
      for (Index j = 0; j < d; ++j) {
        Scalar s(0);
        for (Index l = 0; l < d; ++l) s += at(ak, i * d + l) * sp(l, j);
        at(as, i * d + j) = s;
      }
    for (Index i = 0; i < d; ++i)
      for (Index j = 0; j < d; ++j) sb += at(as, i * d + j) * at(as, j * d + i);
    // Vertex P_k: ‖v‖²_{Λ_k⁻¹} with v = c x_k r_k − ω and Λ_k⁻¹ = S_p − c S_p x xᵀ S_p/(1 + c s_k)
    // (Sherman–Morrison), s_k = x_kᵀS_p x_k: vᵀS_p v − c (x_kᵀS_p v)²/(1 + c s_k).
    for (Index i = 0; i < d; ++i) at(v, i) = c * Scalar(data.X(k, i)) * at(r, k) - Scalar(omega(i));
    Scalar vsv(0), xsv(0), s(0);
    for (Index i = 0; i < d; ++i)
      for (Index j = 0; j < d; ++j) {
        vsv += at(v, i) * sp(i, j) * at(v, j);
        xsv += Scalar(data.X(k, i)) * sp(i, j) * at(v, j);
        s += Scalar(data.X(k, i)) * sp(i, j) * Scalar(data.X(k, j));
      }
    rho2 = max(rho2, vsv - c * xsv * xsv / (Scalar(1) + c * s));
  }
  CertifiedSigma2<Scalar> out;
  // E over with-replacement batches of a mean of M i.i.d. centred terms: (1/M) × the population
  // variance (Lemmas 7–8's argument, in the S_p metric).
  const Scalar a2 = c * c / mm * (sa / nn);
  const Scalar b2 = c * c / (Scalar(4) * mm) * (sb / nn);
  out.a = sqrt(max(a2, Scalar(0)));
  out.b = sqrt(max(b2, Scalar(0)));
  out.rho = sqrt(max(rho2, Scalar(0)));
  const Scalar root = out.a + Scalar(2) * out.rho * out.b;
  out.sigma2 = root * root + Scalar(2) * out.b * out.b;
  return out;
}

/// σ²_cert: a bound on σ_t² (eq. (12)) at every state eq. (15) NGD can reach with γ₀ = 1 and
/// γ_t ∈ (0, 1], for the data (rows x_k, targets y_k), prior N(0, prior_cov), noise variance s_e² and
/// batch size M (with replacement). Certified (outward rounded) when Scalar = interval_d: use upper().
/// Errors as certified_sigma2_parts.
template <class Scalar>
Scalar certified_sigma2(const Dataset<double>& data, const Mat<double>& prior_cov, double noise_var, long batch) {
  return certified_sigma2_parts<Scalar>(data, prior_cov, noise_var, batch).sigma2;
}

}  // namespace ngvi
