#pragma once
/// @file
/// The stationary point of natural-gradient descent with an exact gradient: the η with
///   η = η_p + g(η),
/// g(η) an exact (not Monte Carlo) ∇_μ E_q ℓ at q_η (Proposition 1's stationary point for a
/// non-conjugate model, with g from Gauss–Hermite or a closed form; a tempered one with g scaled).
/// Found by damped NGD η ← (1 − ρ)η + ρ(η_p + g(η)) through the trajectory engine (NgdStepper,
/// the constant schedule ρ), stopped at the first iterate whose relative stationarity residual
///   ‖η_p + g(η) − η‖ / ‖η‖   (Frobenius over both parts)
/// is below `tol`: the residual is computed from the equation's definition, so the stopping rule does
/// not rely on the update that moves η.
#include <cmath>
#include <stdexcept>
#include <string>

#include "ngvi/expfam/gaussian_params.hpp"
#include "ngvi/optim/engine.hpp"
#include "ngvi/optim/schedule.hpp"
#include "ngvi/optim/steppers/ngd_gaussian.hpp"

namespace ngvi {

/// @tparam Grad a callable GaussianPair<Scalar>(const GaussianNatural<Scalar>& η): g(η).
/// @param prior     η_p.
/// @param start     the first iterate (e.g. η_p).
/// @param rho       the damping ρ ∈ (0, 1].
/// @param tol       the relative residual that ends the iteration (> 0).
/// @param max_steps the largest number of steps (≥ 1).
/// @return the first iterate whose residual is below tol.
/// @throws std::domain_error naming the argument for rho, tol or max_steps out of range, when an
///         iterate leaves Ω (g or the update raised, or −η₂ is not positive definite), or when no
///         iterate reaches tol within max_steps.
template <class Scalar, class Grad>
GaussianNatural<Scalar> ngd_fixed_point(const GaussianNatural<Scalar>& prior, GaussianNatural<Scalar> start, Grad&& grad,
                                        const Scalar& rho, const Scalar& tol, long max_steps) {
  using std::sqrt;
  constexpr const char* f = "ngvi::ngd_fixed_point";
  if (!(rho > Scalar(0) && rho <= Scalar(1))) throw_domain(f, "rho", "must lie in (0, 1]");
  if (!(tol > Scalar(0))) throw_domain(f, "tol", "must be > 0");
  if (max_steps < 1) throw std::domain_error(std::string(f) + ": argument 'max_steps' must be >= 1");
  NgdStepper<Scalar> stepper(prior, std::move(start));
  Scalar rel = Scalar(-1);  // the residual at the iterate of the current step
  FunctionEstimator estimator{[&](long, const GaussianNatural<Scalar>& eta, GaussianPair<Scalar>& g) {
    g = grad(eta);
    const GaussianPair<Scalar> residual = (prior + g) - eta;
    rel = sqrt(residual.first.squaredNorm() + residual.second.squaredNorm()) /
          sqrt(eta.eta1().squaredNorm() + eta.eta2().squaredNorm());
  }};
  NoAverage avg;
  // The step at t has moved η_t to η_{t+1}; when η_t's residual was below tol, η_t (the stepper's
  // previous iterate) is the result.
  StopWhen done{[&](const auto&) { return rel < tol; }};
  const auto tr = run_trajectory(stepper, estimator, StepSchedule<Scalar>::constant(rho), avg, RunOptions{max_steps}, done);
  if (tr.failure) throw std::domain_error(std::string(f) + ": " + tr.failure->message());
  if (!done.stop()) throw std::domain_error(std::string(f) + ": no iterate reached the relative residual 'tol' within " +
                                            std::to_string(max_steps) + " steps (argument 'max_steps')");
  return stepper.previous();
}

}  // namespace ngvi
