#pragma once
/// @file
/// Bregman divergences of the Gaussian log-partition and its conjugate (Definition 3, Lemma 4):
///   D_A(η, η')  = A(η) − A(η') − ⟨∇A(η'), η − η'⟩,
///   D_A*(μ, μ') = A*(μ) − A*(μ') − ⟨∇A*(μ'), μ − μ'⟩,
/// and KL(q‖p) = D_A*(μ_q, μ_p) = D_A(η_p, η_q).
#include "ngvi/expfam/log_partition.hpp"

namespace ngvi {

/// D_A(η, η') computed from its definition (A and ∇A), not from the KL formula.
/// @pre η, η' ∈ Ω of the same dimension.
template <class Scalar>
Scalar bregman_log_partition(const GaussianNatural<Scalar>& eta, const GaussianNatural<Scalar>& eta_ref) {
  if (eta.dim() != eta_ref.dim()) throw_size("ngvi::bregman_log_partition", "eta_ref", "has a different dimension from 'eta'");
  const GaussianExpectation<Scalar> grad = natural_to_expectation(eta_ref);
  return log_partition(eta) - log_partition(eta_ref) - pairing<Scalar>(grad, eta - eta_ref);
}

/// D_A*(μ, μ') computed from its definition (A* and ∇A*).
/// @pre μ, μ' ∈ M of the same dimension.
template <class Scalar>
Scalar bregman_conjugate(const GaussianExpectation<Scalar>& mu, const GaussianExpectation<Scalar>& mu_ref) {
  if (mu.dim() != mu_ref.dim()) throw_size("ngvi::bregman_conjugate", "mu_ref", "has a different dimension from 'mu'");
  const GaussianNatural<Scalar> grad = expectation_to_natural(mu_ref);
  return conjugate_log_partition(mu) - conjugate_log_partition(mu_ref) - pairing<Scalar>(grad, mu - mu_ref);
}

}  // namespace ngvi
