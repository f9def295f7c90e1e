#pragma once
/// @file
/// The stochastic natural-gradient step for a Gaussian family with a Gaussian prior, written in
/// natural parameters (ngvi-math.md §2.4, eq. (8)):
/// \f[ \eta_{t+1} = (1-\gamma_t)\,\eta_t + \gamma_t\,(\eta_p + \hat g^{\ell}_t), \f]
/// where ĝ^ℓ_t estimates ∇_μ E_q[log p(y|z)]. It is mirror descent in μ with mirror map A*
/// (Lemma 1). The update itself does no factorisation and no allocation; Ω-membership of the
/// result is checked only where a caller asks (Remark 2 guarantees it for γ ∈ (0, 1] and
/// ĝ^ℓ₂ ≼ 0).
#include <type_traits>

#include "ngvi/expfam/gaussian_maps.hpp"
#include "ngvi/linalg/tiles.hpp"

namespace ngvi {

/// In place: eta ← (1 − γ)·eta + γ·(eta_prior + ghat).
///
/// The matrix parts are symmetric (η₂ ∈ Ω, the prior's, and ĝ₂ of every estimator), and so is the
/// update. Hardware floating point updates the whole matrix in one vectorised pass; software scalars
/// (mp50 and the like), where each multiplication is a software routine, update the lower triangle
/// and mirror it, which halves the step's multiplications and gives the same entries when the
/// inputs are exactly symmetric. From order kTiledOrder (linalg/tiles.hpp) the matrix pass goes by
/// column tiles, on `pool` when given; each entry is the same expression either way.
/// @pre eta, eta_prior, ghat have the same dimension (checked); γ finite and > 0 (checked).
/// @throws std::invalid_argument on a dimension mismatch, std::domain_error on a bad γ.
template <class Scalar>
void ngd_step(GaussianNatural<Scalar>& eta, const GaussianNatural<Scalar>& eta_prior, const GaussianPair<Scalar>& ghat,
              const Scalar& gamma, parallel::TilePool* pool = nullptr) {
  constexpr const char* f = "ngvi::ngd_step";
  if (eta_prior.dim() != eta.dim() || eta_prior.second.rows() != eta.dim()) throw_size(f, "eta_prior", "has a different dimension from 'eta'");
  if (ghat.dim() != eta.dim() || ghat.second.rows() != eta.dim() || ghat.second.cols() != eta.dim())
    throw_size(f, "ghat", "has a different dimension from 'eta'");
  if (!(gamma > Scalar(0)) || !is_finite_scalar(gamma)) throw_domain(f, "gamma", "must be finite and positive");
  const Scalar keep = Scalar(1) - gamma;
  eta.first = keep * eta.first + gamma * (eta_prior.first + ghat.first);
  const Index d = eta.dim();
  if constexpr (std::is_floating_point_v<Scalar>) {
    if (d < kTiledOrder) {
      eta.second = keep * eta.second + gamma * (eta_prior.second + ghat.second);
      return;
    }
    for_each_column_tile(pool, d, [&](Index j0, Index w) {
      eta.second.middleCols(j0, w) = keep * eta.second.middleCols(j0, w) + gamma * (eta_prior.second.middleCols(j0, w) + ghat.second.middleCols(j0, w));
    });
  } else {
    for_each_column_tile(pool, d, [&](Index j0, Index w) {
      for (Index j = j0; j < j0 + w; ++j)
        eta.second.col(j).tail(d - j) =
            keep * eta.second.col(j).tail(d - j) + gamma * (eta_prior.second.col(j).tail(d - j) + ghat.second.col(j).tail(d - j));
    });
    copy_lower_to_upper(eta.second);
  }
}

/// The same step for a step size the theory requires to lie in (0, 1] (Remark 2, Theorem 1).
/// @throws std::domain_error naming 'gamma' if γ ∉ (0, 1].
template <class Scalar>
void ngd_step_theorem(GaussianNatural<Scalar>& eta, const GaussianNatural<Scalar>& eta_prior,
                      const GaussianPair<Scalar>& ghat, const Scalar& gamma, parallel::TilePool* pool = nullptr) {
  if (!(gamma > Scalar(0) && gamma <= Scalar(1)))
    throw_domain("ngvi::ngd_step_theorem", "gamma", "must lie in (0, 1] (Remark 2, Theorem 1)");
  ngd_step(eta, eta_prior, ghat, gamma, pool);
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
