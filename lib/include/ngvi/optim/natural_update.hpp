#pragma once
/// @file
/// The natural-parameter update of every stochastic natural-gradient method of the kit, written once
/// for any exponential family (docs/math.md §2.4; Hoffman et al. 2013, eq. (10) for SVI; Paquet 2014,
/// eq. (5)):
/// \f[ \lambda \leftarrow (1-\rho)\,\lambda + \rho\,(\lambda_p + \hat g), \f]
/// with λ_p the prior's natural parameter and ĝ the estimated natural gradient of the expected
/// log-likelihood (for conditionally conjugate models, λ_p + ĝ is the intermediate global λ̂). It needs
/// of the parameter type only a vector space's operations (P *= s, P * s, P += P, s * P, P + P).
/// The full-covariance Gaussian pair has a kernel of its own (kernels/natural_update.hpp) that forms
/// the same entries in one pass, by column tiles at large order.
#include "ngvi/expfam/gaussian_params.hpp"
#include "ngvi/kernels/natural_update.hpp"

namespace ngvi {

/// Beside λ, into a view or a parameter `out` distinct from λ (a stepper's column tile, NaturalStepper):
/// out ← λ·(1 − ρ), then out += ρ(λ_p + ĝ), the two roundings of natural_update below.
template <class Out, class L, class Pr, class G, class Scalar>
void natural_update_beside(Out&& out, const L& lambda, const Pr& prior, const G& ghat, const Scalar& rho) {
  out = lambda * (Scalar(1) - rho);
  out += rho * (prior + ghat);
}

/// Beside λ: out ← (1 − ρ)λ + ρ(λ_p + ĝ), λ left as it is (out may be λ itself). Either way the same two
/// roundings, (1 − ρ)λ and then + ρ(λ_p + ĝ), without a copy of λ first (a stepper that keeps λ until
/// the candidate is checked writes it beside λ). Shapes are the caller's to check.
template <class P, class Scalar>
void natural_update(P& out, const P& lambda, const P& prior, const P& ghat, const Scalar& rho) {
  if (&out == &lambda) {
    out *= Scalar(1) - rho;
    out += rho * (prior + ghat);
  } else {
    natural_update_beside(out, lambda, prior, ghat, rho);
  }
}

/// In place: λ ← (1 − ρ)λ + ρ(λ_p + ĝ).
template <class P, class Scalar>
void natural_update(P& lambda, const P& prior, const P& ghat, const Scalar& rho) {
  natural_update(lambda, lambda, prior, ghat, rho);
}

/// The Gaussian pair: the same entries, in one pass (kernels/natural_update.hpp), in place or beside.
template <class Scalar>
void natural_update(GaussianPair<Scalar>& out, const GaussianPair<Scalar>& lambda, const GaussianPair<Scalar>& prior,
                    const GaussianPair<Scalar>& ghat, const Scalar& rho) {
  kernels::gaussian_natural_update(out, lambda, prior, ghat, rho, nullptr);
}
template <class Scalar>
void natural_update(GaussianNatural<Scalar>& out, const GaussianNatural<Scalar>& lambda, const GaussianNatural<Scalar>& prior,
                    const GaussianPair<Scalar>& ghat, const Scalar& rho) {
  kernels::gaussian_natural_update(out, lambda, prior, ghat, rho, nullptr);
}
template <class Scalar>
void natural_update(GaussianPair<Scalar>& lambda, const GaussianPair<Scalar>& prior, const GaussianPair<Scalar>& ghat, const Scalar& rho) {
  kernels::gaussian_natural_update(lambda, lambda, prior, ghat, rho, nullptr);
}
template <class Scalar>
void natural_update(GaussianNatural<Scalar>& lambda, const GaussianNatural<Scalar>& prior, const GaussianPair<Scalar>& ghat, const Scalar& rho) {
  kernels::gaussian_natural_update(lambda, lambda, prior, ghat, rho, nullptr);
}

}  // namespace ngvi
