#pragma once
/// @file
/// The stochastic natural-gradient step for a Gaussian family with a Gaussian prior, written in
/// natural parameters (docs/math.md §2.4, eq. (8)):
/// \f[ \eta_{t+1} = (1-\gamma_t)\,\eta_t + \gamma_t\,(\eta_p + \hat g^{\ell}_t), \f]
/// where ĝ^ℓ_t estimates ∇_μ E_q[log p(y|z)]. It is mirror descent in μ with mirror map A*
/// (Lemma 1). The update itself does no factorisation and no allocation; Ω-membership of the
/// result is checked only where a caller asks (Remark 2 guarantees it for γ ∈ (0, 1] and
/// ĝ^ℓ₂ ≼ 0).

#include "ngvi/expfam/gaussian_maps.hpp"
#include "ngvi/optim/natural_update.hpp"

namespace ngvi {

/// In place: eta ← (1 − γ)·eta + γ·(eta_prior + ghat) (natural_update, written once for every family;
/// the Gaussian pair's kernel is kernels/natural_update.hpp).
/// @pre eta, eta_prior, ghat have the same dimension (checked); γ finite and > 0 (checked).
/// @throws std::invalid_argument on a dimension mismatch, std::domain_error on a bad γ.
template <class Scalar>
void ngd_step(GaussianNatural<Scalar>& eta, const GaussianNatural<Scalar>& eta_prior, const GaussianPair<Scalar>& ghat, const Scalar& gamma) {
  constexpr const char* f = "ngvi::ngd_step";
  if (eta_prior.dim() != eta.dim() || eta_prior.second.rows() != eta.dim()) throw_size(f, "eta_prior", "has a different dimension from 'eta'");
  if (ghat.dim() != eta.dim() || ghat.second.rows() != eta.dim() || ghat.second.cols() != eta.dim())
    throw_size(f, "ghat", "has a different dimension from 'eta'");
  if (!(gamma > Scalar(0)) || !is_finite_scalar(gamma)) throw_domain(f, "gamma", "must be finite and positive");
  natural_update(eta, eta_prior, ghat, gamma);
}

/// The same step for a step size the theory requires to lie in (0, 1] (Remark 2, Theorem 1).
/// @throws std::domain_error naming 'gamma' if γ ∉ (0, 1].
template <class Scalar>
void ngd_step_theorem(GaussianNatural<Scalar>& eta, const GaussianNatural<Scalar>& eta_prior, const GaussianPair<Scalar>& ghat,
                      const Scalar& gamma) {
  if (!(gamma > Scalar(0) && gamma <= Scalar(1)))
    throw_domain("ngvi::ngd_step_theorem", "gamma", "must lie in (0, 1] (Remark 2, Theorem 1)");
  ngd_step(eta, eta_prior, ghat, gamma);
}

/// True when η ∈ Ω, i.e. −η₂ is symmetric positive definite (one Cholesky factorisation).
template <class Scalar>
bool in_natural_domain(const GaussianNatural<Scalar>& eta) {
  try {
    validate_natural(eta, "ngvi::in_natural_domain", "eta");
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace ngvi
