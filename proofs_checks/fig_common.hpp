#pragma once
/// @file
/// Helpers shared by the claims on the findings of the paper's experiments (docs/math.md §7): the
/// quick instances, replicate runs of the library's NGD and SGD baselines recording a loss at fixed
/// iterations, and the statistics of the finding tests (paired differences over seeds, log-log
/// slopes with a delta-method standard error). The replicate runs and the eigenvalue helpers are
/// defined once, in fig_common.cpp.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <Eigen/Eigenvalues>

#include "ngvi/claims/blr_common.hpp"
#include "ngvi/optim/sgd_mL.hpp"
#include "ngvi/stats/normal.hpp"
#include "ngvi/stats/student_t.hpp"

namespace ngvi::claims {

/// Replicates × checkpoints of a loss (row r: replicate r).
using LossTable = std::vector<std::vector<double>>;

/// Column k of a table.
inline std::vector<double> column(const LossTable& t, std::size_t k) {
  std::vector<double> x;
  x.reserve(t.size());
  for (const auto& row : t) x.push_back(row[k]);
  return x;
}

/// The extreme eigenvalues (μ_H, L_H) of the posterior precision S_p⁻¹ + XᵀX/s_e², the Hessian of f in m.
std::pair<double, double> posterior_precision_extremes(const LinearRegression<double>& model);

/// The SGD baseline's step γ_t = c/(t + t₀) of docs/math.md §7.1 with c·μ_H = `c_mu` (the kit's
/// choice is 2) and t₀ = 2L_H/μ_H.
StepSchedule<double> sgd_baseline_schedule(const LinearRegression<double>& model, double c_mu = 2.0);

/// KL(q ‖ posterior) of Theorem 1's average μ̄_t (NGD, γ_t from `schedule`) at the checkpoints, one
/// row per replicate r, replicate r drawing its batches from Stream(seed, stream + r). A failed run
/// gives NaN (never a pass).
/// `scale` multiplies ĝ (1: eq. (15); otherwise a biased estimator, for controls). The KL is to
/// `reference` when given (a control run on a perturbed model, judged against the claim's posterior),
/// else to the model's posterior.
LossTable ngd_average_kls(const LinearRegression<double>& model, Index batch, long replicates, std::uint64_t seed,
                          std::uint64_t stream, const StepSchedule<double>& schedule, const std::vector<long>& cps,
                          const Variant* variant, int threads, double scale = 1.0,
                          const GaussianMoments<double>* reference = nullptr);

/// KL(q_t ‖ posterior) of the SGD baseline on (m, L) (optim/sgd_mL.hpp, last iterate, q₀ = N(0, I),
/// clamp ε) at the checkpoints, replicate r on Stream(seed, stream + r).
LossTable sgd_kls(const LinearRegression<double>& model, Index batch, long replicates, std::uint64_t seed, std::uint64_t stream,
                  const StepSchedule<double>& schedule, const std::vector<long>& cps, double clamp, int threads);

/// A log-log slope over a window and its standard error (delta method over replicates).
struct SlopeFit {
  double slope = 0, se = 0;
};

/// The least-squares weights w_k of the slope of log m_k on log t_k.
inline std::vector<double> slope_weights(const std::vector<long>& ts) {
  const std::size_t k = ts.size();
  std::vector<double> u(k), w(k);
  double ubar = 0, suu = 0;
  for (std::size_t j = 0; j < k; ++j) ubar += (u[j] = std::log(static_cast<double>(ts[j]))) / static_cast<double>(k);
  for (std::size_t j = 0; j < k; ++j) suu += (u[j] - ubar) * (u[j] - ubar);
  for (std::size_t j = 0; j < k; ++j) w[j] = (u[j] - ubar) / suu;
  return w;
}

/// Per replicate r, the linearised contribution ψ_r = Σ_k w_k x_rk / m_k of the slope Σ_k w_k log m_k
/// (m_k the mean over replicates): the slope's delta-method variance is Var(ψ)/R. Returning the ψ_r
/// lets two independent tables' slopes be differenced (their variances add).
inline std::vector<double> slope_influence(const LossTable& t, const std::vector<double>& w, double& slope) {
  const std::size_t k = w.size();
  const double R = static_cast<double>(t.size());
  std::vector<double> m(k, 0.0);
  for (const auto& row : t)
    for (std::size_t j = 0; j < k; ++j) m[j] += row[j] / R;
  slope = 0;
  for (std::size_t j = 0; j < k; ++j) slope += w[j] * std::log(m[j]);
  std::vector<double> psi;
  for (const auto& row : t) {
    double p = 0;
    for (std::size_t j = 0; j < k; ++j) p += w[j] * row[j] / m[j];
    psi.push_back(p);
  }
  return psi;
}

/// Sample variance.
inline double sample_variance(const std::vector<double>& x) {
  const double m = mean_of(x);
  double s = 0;
  for (double v : x) s += (v - m) * (v - m);
  return s / static_cast<double>(x.size() - 1);
}

inline SlopeFit window_slope_fit(const LossTable& t, const std::vector<long>& ts) {
  SlopeFit f;
  const auto psi = slope_influence(t, slope_weights(ts), f.slope);
  f.se = std::sqrt(sample_variance(psi) / static_cast<double>(t.size()));
  return f;
}

/// The curvature c = ∇ℓ₁ᵀS*∇ℓ₁ of the limit KL ½δ²c of NGD whose ĝ₁ (the η₁ part) is scaled by 1 + δ
/// (eq. (15) on the targets (1 + δ)y, prior mean 0): its average tends to the posterior covariance S*
/// with the mean shifted by δS*∇ℓ₁.
inline double mean_bias_curvature(const LinearRegression<double>& model) {
  const Vec<double> g1 = model.loglik_gradient().first;
  return g1.dot(model.posterior_moments().cov * g1);
}

/// The quick instance of the Figure 1 findings (docs/math.md §7.1): synthetic linear regression,
/// n = 100, d = 3, feature covariance of condition number `kappa`, M = 5, s_e² = 1/2, prior N(0, I).
BlrInstance fig1_instance(const RunContext& ctx, double kappa);

/// The SGD baseline's diagonal clamp ε (the runner's default).
inline constexpr double kFig1Clamp = 1e-3;

/// Mean and standard error of a ratio of the means of two independent samples (delta method):
/// r = m_a/m_b, se_r = r·√((se_a/m_a)² + (se_b/m_b)²).
struct RatioEstimate {
  double ratio = 0, se = 0;
};
inline RatioEstimate ratio_of_means(const std::vector<double>& a, const std::vector<double>& b) {
  const double ma = mean_of(a), mb = mean_of(b);
  const double ra = sample_variance(a) / (static_cast<double>(a.size()) * ma * ma);
  const double rb = sample_variance(b) / (static_cast<double>(b.size()) * mb * mb);
  RatioEstimate e;
  e.ratio = ma / mb;
  e.se = e.ratio * std::sqrt(ra + rb);
  return e;
}

}  // namespace ngvi::claims
