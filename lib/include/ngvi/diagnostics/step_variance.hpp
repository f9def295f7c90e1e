#pragma once
/// @file
/// The exact per-step gradient variance σ_t² of eq. (12) (Hanzely & Richtárik 2021; docs/math.md
/// §4.2) for mini-batch NGD on Bayesian linear regression, through the symmetrised-KL identity [X]
/// \f[ \sigma_t^2 = \frac{1}{\gamma_t^2}\,E_t\big[\mathrm{KL}(q_{t+1}\|\tilde q_{t+1}) + \mathrm{KL}(\tilde q_{t+1}\|q_{t+1})\big], \f]
/// where q_{t+1} is the stochastic NGD step from η_t and q̃_{t+1} the exact-gradient step from the
/// same η_t. The expectation over the batch is taken exactly, by enumerating all n^M ordered
/// batches (with replacement, each of probability n^{−M}), or by Monte Carlo over K batches.
/// Also the defining form (12), \f$ \frac1{\gamma_t}E_t\langle\nabla f(\mu_t) - g_t,\, \mu_{t+1} - \tilde\mu_{t+1}\rangle \f$,
/// for one batch, as an independent check of the identity.
///
/// `step_variance_along_trajectory` is the one routine that measures σ_t² along an eq. (15) NGD
/// trajectory: the claims (Theorem 1's measured-σ² right-hand side) and `ngvi bound` both call it.
#include <cmath>
#include <string>
#include <vector>

#include "ngvi/estimators/minibatch_gradient.hpp"
#include "ngvi/expfam/kl.hpp"
#include "ngvi/expfam/gaussian_maps.hpp"
#include "ngvi/optim/natural_update.hpp"
#include "ngvi/optim/ngd_driver.hpp"
#include "ngvi/scalar/traits.hpp"
#include "ngvi/stats/normal.hpp"

namespace ngvi {

/// Both next iterates from η_t for one batch gradient ĝ^ℓ: (η_{t+1}, η̃_{t+1}).
template <class Scalar>
std::pair<GaussianNatural<Scalar>, GaussianNatural<Scalar>> next_iterates(const LinearRegression<Scalar>& model,
                                                                          const GaussianNatural<Scalar>& eta_t,
                                                                          const GaussianPair<Scalar>& ghat,
                                                                          const Scalar& gamma) {
  GaussianNatural<Scalar> sto = eta_t, ex = eta_t;
  natural_update(sto, model.prior_natural(), ghat, gamma);  // the update of every NGD stepper (optim/natural_update.hpp)
  natural_update(ex, model.prior_natural(), model.loglik_gradient(), gamma);
  return {std::move(sto), std::move(ex)};
}

/// \f$ (\mathrm{KL}(q_{t+1}\|\tilde q_{t+1}) + \mathrm{KL}(\tilde q_{t+1}\|q_{t+1}))/\gamma^2 \f$ for one batch.
/// @throws std::domain_error if either next iterate leaves Ω.
template <class Scalar>
Scalar step_variance_sample(const LinearRegression<Scalar>& model, const GaussianNatural<Scalar>& eta_t,
                            const GaussianPair<Scalar>& ghat, const Scalar& gamma) {
  const auto [sto, ex] = next_iterates(model, eta_t, ghat, gamma);
  const GaussianMoments<Scalar> a = natural_to_moments(sto), b = natural_to_moments(ex);
  return (kl_gaussian(a, b) + kl_gaussian(b, a)) / (gamma * gamma);
}

/// The defining form (12) for one batch: \f$ \langle \hat g^\ell - \nabla\ell,\; \mu_{t+1} - \tilde\mu_{t+1}\rangle/\gamma \f$
/// (∇f − g = ĝ^ℓ − ∇ℓ since the KL part of the gradient is exact).
template <class Scalar>
Scalar step_variance_sample_eq12(const LinearRegression<Scalar>& model, const GaussianNatural<Scalar>& eta_t,
                                 const GaussianPair<Scalar>& ghat, const Scalar& gamma) {
  const auto [sto, ex] = next_iterates(model, eta_t, ghat, gamma);
  const GaussianPair<Scalar> delta = ghat - model.loglik_gradient();
  const GaussianPair<Scalar> dmu = natural_to_expectation(sto) - natural_to_expectation(ex);
  return pairing(delta, dmu) / gamma;
}

/// Number of ordered batches n^M, or −1 if it exceeds `limit`.
inline long batch_count(long n, long batch, long limit) {
  long total = 1;
  for (long j = 0; j < batch; ++j) {
    if (total > limit / n) return -1;
    total *= n;
  }
  return total;
}

/// Calls fn(indices) for every ordered batch in {0..n−1}^M (lexicographic order).
/// @throws std::invalid_argument naming 'batch' if n^M exceeds `limit`.
template <class Fn>
void for_each_batch(long n, long batch, long limit, Fn&& fn) {
  if (batch_count(n, batch, limit) < 0)
    throw_size("ngvi::for_each_batch", "batch", "gives n^M above the enumeration limit " + std::to_string(limit));
  std::vector<Index> idx(static_cast<std::size_t>(batch), 0);
  while (true) {
    fn(static_cast<const std::vector<Index>&>(idx));
    long j = batch - 1;
    while (j >= 0 && ++idx[static_cast<std::size_t>(j)] == n) idx[static_cast<std::size_t>(j--)] = 0;
    if (j < 0) return;
  }
}

/// σ_t² by exact enumeration of all n^M batches.
/// @throws std::invalid_argument if n^M > limit; std::domain_error if an iterate leaves Ω.
template <class Scalar>
Scalar step_variance_exact(MinibatchGradient<Scalar>& est, const GaussianNatural<Scalar>& eta_t, const Scalar& gamma,
                           long limit = 1L << 20) {
  if (est.sampling() != Sampling::kWithReplacement)
    throw_domain("ngvi::step_variance_exact", "est", "must sample with replacement (eq. (15))");
  const auto& model = est.model();
  Scalar total(0);
  long count = 0;
  GaussianPair<Scalar> g;
  for_each_batch(model.n(), est.batch(), limit, [&](const std::vector<Index>& idx) {
    est.set_indices(idx);
    est.evaluate(g);
    total += step_variance_sample(model, eta_t, g, gamma);
    ++count;
  });
  return total / Scalar(static_cast<double>(count));
}

/// Monte Carlo estimate of σ_t² from K batches: mean and standard error of the mean.
struct VarianceEstimate {
  double mean = 0;
  double std_error = 0;
  long samples = 0;
};

template <class Scalar>
VarianceEstimate step_variance_mc(MinibatchGradient<Scalar>& est, const GaussianNatural<Scalar>& eta_t,
                                  const Scalar& gamma, random::Stream& rng, long samples) {
  if (samples < 2) throw_size("ngvi::step_variance_mc", "samples", "must be >= 2");
  double s = 0, s2 = 0;
  GaussianPair<Scalar> g;
  for (long k = 0; k < samples; ++k) {
    est.draw(rng);
    est.evaluate(g);
    const double v = to_double(step_variance_sample(est.model(), eta_t, g, gamma));
    s += v;
    s2 += v * v;
  }
  VarianceEstimate r;
  r.samples = samples;
  r.mean = s / static_cast<double>(samples);
  const double var = (s2 - static_cast<double>(samples) * r.mean * r.mean) / static_cast<double>(samples - 1);
  r.std_error = std::sqrt(var > 0 ? var / static_cast<double>(samples) : 0.0);
  return r;
}

/// How `step_variance_along_trajectory` measures σ_t² at each step of its grid.
struct StepVarianceOptions {
  long enumeration_limit = 4096;  ///< exact (all n^M batches) when n^M ≤ this; 0 = always Monte Carlo
  long samples = 200;             ///< batches per Monte Carlo estimate (≥ 2)
  double confidence = 0.99;       ///< level c of the one-sided normal bound mean + z_c·se on a Monte Carlo σ_t²
};

/// σ_t² at one step t of the grid. For an exact value std_error = 0 and upper = mean.
struct StepVariancePoint {
  long t = 0;
  double gamma = 0;
  double mean = 0;       ///< σ_t² (exact) or its Monte Carlo mean
  double std_error = 0;  ///< standard error of the Monte Carlo mean
  double upper = 0;      ///< mean + z_c·std_error
};

struct StepVarianceProfile {
  std::vector<StepVariancePoint> points;  ///< one per grid step, in grid order
  bool exact = false;                     ///< every point by enumeration
  double max_mean = 0;                    ///< max_t of `mean`
  long argmax_t = 0;                      ///< the t of max_mean
  double max_upper = 0;                   ///< max_t of `upper` (= max_mean when exact)
};

/// σ_t² (eq. (12), through the symmetrised-KL identity) at every step t of `grid` along one eq. (15)
/// NGD trajectory η_0 = eta0, η_{t+1} = (1 − γ_t)η_t + γ_t(η_p + ĝ^ℓ_t) with batches of size `batch`
/// drawn (with replacement) from `trajectory`. At each grid step σ_t² is the exact mean over all
/// n^M batches when n^M ≤ opt.enumeration_limit, otherwise the Monte Carlo mean of opt.samples batches
/// drawn from `probe` with the one-sided normal upper bound mean + z_c·se. The trajectory stops after
/// the last grid step. The trajectory's draws do not depend on the grid or on how σ_t² is measured.
/// @throws std::invalid_argument naming 'grid' (not strictly increasing from ≥ 0) or 'batch' (< 1);
///         std::domain_error naming 'opt.samples' (< 2 when Monte Carlo is used), 'opt.confidence'
///         (outside (0, 1)), 'schedule' (a γ_t outside (0, 1]) or 'eta' (an iterate leaves Ω).
template <class Scalar>
StepVarianceProfile step_variance_along_trajectory(const LinearRegression<Scalar>& model, long batch,
                                                   const GaussianNatural<Scalar>& eta0, const StepSchedule<Scalar>& schedule,
                                                   const std::vector<long>& grid, random::Stream trajectory,
                                                   random::Stream probe, const StepVarianceOptions& opt = {}) {
  constexpr const char* f = "ngvi::step_variance_along_trajectory";
  if (batch < 1) throw_size(f, "batch", "must be >= 1");
  for (std::size_t k = 0; k < grid.size(); ++k)
    if (grid[k] < 0 || (k > 0 && grid[k] <= grid[k - 1])) throw_size(f, "grid", "must be strictly increasing from t >= 0");
  if (!(opt.confidence > 0.0 && opt.confidence < 1.0)) throw_domain(f, "opt.confidence", "must lie in (0, 1)");
  StepVarianceProfile prof;
  prof.exact = opt.enumeration_limit > 0 && batch_count(model.n(), batch, opt.enumeration_limit) > 0;
  if (!prof.exact && opt.samples < 2) throw_domain(f, "opt.samples", "must be >= 2 for a Monte Carlo estimate");
  if (grid.empty()) return prof;
  const double z = stats::normal_quantile(opt.confidence);
  MinibatchGradient<Scalar> est(model, batch), probe_est(model, batch);
  std::size_t next = 0;
  NgdOptions run;
  run.steps = grid.back() + 1;
  run.average = false;
  run.theorem_steps = true;
  run_ngd(
      model.prior_natural(), eta0,
      [&](long t, const GaussianNatural<Scalar>& eta_t, GaussianPair<Scalar>& g) {
        if (next < grid.size() && grid[next] == t) {
          ++next;
          StepVariancePoint p;
          p.t = t;
          const Scalar gamma = schedule.at(t);
          p.gamma = to_double(gamma);
          if (prof.exact) {
            p.mean = p.upper = to_double(step_variance_exact(probe_est, eta_t, gamma, opt.enumeration_limit));
          } else {
            const auto e = step_variance_mc(probe_est, eta_t, gamma, probe, opt.samples);
            p.mean = e.mean;
            p.std_error = e.std_error;
            p.upper = e.mean + z * e.std_error;
          }
          if (prof.points.empty() || p.mean > prof.max_mean) {
            prof.max_mean = p.mean;
            prof.argmax_t = t;
          }
          if (prof.points.empty() || p.upper > prof.max_upper) prof.max_upper = p.upper;
          prof.points.push_back(p);
        }
        est.draw(trajectory);
        est.evaluate(g);
      },
      schedule, run);
  return prof;
}

#ifdef NGVI_EXTERN_TEMPLATES
// In-tree targets take these instantiations from lib/src/hot_loop_instantiations_*.cpp.
extern template double step_variance_sample<double>(const LinearRegression<double>&, const GaussianNatural<double>&, const GaussianPair<double>&,
                                               const double&);
extern template double step_variance_exact<double>(MinibatchGradient<double>&, const GaussianNatural<double>&, const double&, long);
extern template VarianceEstimate step_variance_mc<double>(MinibatchGradient<double>&, const GaussianNatural<double>&, const double&,
                                                      random::Stream&, long);
extern template StepVarianceProfile step_variance_along_trajectory<double>(const LinearRegression<double>&, long, const GaussianNatural<double>&,
                                                                       const StepSchedule<double>&, const std::vector<long>&,
                                                                       random::Stream, random::Stream, const StepVarianceOptions&);
extern template mp50 step_variance_sample<mp50>(const LinearRegression<mp50>&, const GaussianNatural<mp50>&, const GaussianPair<mp50>&,
                                               const mp50&);
extern template mp50 step_variance_exact<mp50>(MinibatchGradient<mp50>&, const GaussianNatural<mp50>&, const mp50&, long);
extern template VarianceEstimate step_variance_mc<mp50>(MinibatchGradient<mp50>&, const GaussianNatural<mp50>&, const mp50&,
                                                      random::Stream&, long);
extern template StepVarianceProfile step_variance_along_trajectory<mp50>(const LinearRegression<mp50>&, long, const GaussianNatural<mp50>&,
                                                                       const StepSchedule<mp50>&, const std::vector<long>&,
                                                                       random::Stream, random::Stream, const StepVarianceOptions&);
#endif

}  // namespace ngvi
