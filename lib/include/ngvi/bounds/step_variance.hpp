#pragma once
/// @file
/// The exact per-step gradient variance σ_t² of eq. (12) (Hanzely & Richtárik 2021; ngvi-math.md
/// §4.2) for mini-batch NGD on Bayesian linear regression, through the symmetrised-KL identity [X]
/// \f[ \sigma_t^2 = \frac{1}{\gamma_t^2}\,E_t\big[\mathrm{KL}(q_{t+1}\|\tilde q_{t+1}) + \mathrm{KL}(\tilde q_{t+1}\|q_{t+1})\big], \f]
/// where q_{t+1} is the stochastic NGD step from η_t and q̃_{t+1} the exact-gradient step from the
/// same η_t. The expectation over the batch is taken exactly, by enumerating all n^M ordered
/// batches (with replacement, each of probability n^{−M}), or by Monte Carlo over K batches.
/// Also the defining form (12), \f$ \frac1{\gamma_t}E_t\langle\nabla f(\mu_t) - g_t,\, \mu_{t+1} - \tilde\mu_{t+1}\rangle \f$,
/// for one batch, as an independent check of the identity.
#include <cmath>
#include <string>
#include <vector>

#include "ngvi/estimators/minibatch_gradient.hpp"
#include "ngvi/expfam/kl.hpp"
#include "ngvi/expfam/gaussian_maps.hpp"
#include "ngvi/optim/natural_update.hpp"
#include "ngvi/scalar/traits.hpp"

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

}  // namespace ngvi
