#pragma once
/// @file
/// Iterations-to-objective-level, the measure of the optimiser comparison on logistic
/// regression (LSK-NGVI vs plain NGD with the Price gradient vs SGD on (m, L)). The generic
/// `iterations_to_level` is the hook: any optimiser enters as a step function that advances one
/// iteration and returns its current q; `lsk_iterations_to_level` is the LSK entry. The other two
/// optimisers belong to other modules (estimators/, optim/ SGD) and plug in through the same hook.
#include <functional>

#include "ngvi/optim/lsk_ngvi.hpp"

namespace ngvi {

/// Smallest t ∈ {check_every, 2·check_every, …} ≤ max_iterations with objective(q_t) ≤ level, where
/// q_t = step() after t calls; −1 if none.
/// @pre check_every ≥ 1, max_iterations ≥ 0 (checked).
/// @throws std::domain_error naming the argument otherwise; whatever step/objective throw.
template <class Scalar>
long iterations_to_level(const std::function<GaussianMoments<Scalar>()>& step,
                         const std::function<Scalar(const GaussianMoments<Scalar>&)>& objective, const Scalar& level,
                         long max_iterations, long check_every) {
  constexpr const char* f = "ngvi::iterations_to_level";
  if (check_every < 1) throw_domain(f, "check_every", "must be at least 1");
  if (max_iterations < 0) throw_domain(f, "max_iterations", "must be non-negative");
  for (long t = 1; t <= max_iterations; ++t) {
    const GaussianMoments<Scalar> q = step();
    if (t % check_every == 0 && objective(q) <= level) return t;
  }
  return -1;
}

/// LSK-NGVI through the hook: options `opt` (its n_iterations is ignored), objective = Monte Carlo
/// negative ELBO with `objective_samples` draws from a fixed stream (common random numbers across
/// checks and optimisers, so differences are not sampling noise).
template <Target T>
long lsk_iterations_to_level(const T& target, const GaussianMoments<typename T::Scalar>& q0,
                             LskOptions<typename T::Scalar> opt, const typename T::Scalar& level, long max_iterations,
                             long check_every, long objective_samples, std::uint64_t objective_seed) {
  using Scalar = typename T::Scalar;
  opt.n_iterations = 1;
  LskState<Scalar> st = lsk_init_state(q0);
  const std::function<GaussianMoments<Scalar>()> step = [&] {
    st = lsk_ngvi(target, st, opt).state;
    return st.q();
  };
  const std::function<Scalar(const GaussianMoments<Scalar>&)> obj = [&](const GaussianMoments<Scalar>& q) {
    return lsk_estimate_objective(target, q, objective_samples, objective_seed);
  };
  return iterations_to_level<Scalar>(step, obj, level, max_iterations, check_every);
}

}  // namespace ngvi
