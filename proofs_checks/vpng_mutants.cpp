// DESCRIPTION
// The mutants of VPNG, each a variant that replaces one of VPNG's parts (optim/steppers/
// preconditioned.hpp, VpngParts) by a plausible bug, filed under kPartSystemVpng for double and
// mp50 and registered in the kit's variant registry, so that `ngvi verify --mutants` puts them in
// the kill matrix beside the NGD mutants:
//   vpng-no-eps-jacobian  fisher: F_r formed with J = [I, diag(sigma)], the epsilon factor of the
//                         Jacobian's omega block dropped (every route: exact J^T G(mu) J, Monte
//                         Carlo with the estimator's draws in the library's order);
//   vpng-q-fisher         fisher: the q-Fisher diag(1/sigma^2, 2) in place of F_r;
//   vpng-damp-gradient    damping: F_r^-1 (grad + delta 1), delta added to the gradient instead of
//                         to the matrix;
//   vpng-fr-sum           fisher: the Monte Carlo F_r summed over its K epsilon-draws, the mean's 1/K
//                         dropped (K times too large; on the exact route, which has no draws, the
//                         library's F_r).
// Their NGD parts are empty (the NGD claims run the library's algorithm under them); the vpng.*
// claims read the parts through vpng_common.hpp's vpng_parts_for.
#include "vpng_common.hpp"

namespace ngvi::claims::vpng {
namespace { namespace NGVI_UNITY_ID {

/// F_r with J = [I, diag σ] (no ε): J ᵀG(μ)J on the exact route; (1/K) Σ_k JᵀG(z_k)J (analytic) or
/// (1/K) Σ_k (Jᵀs_k)(Jᵀs_k)ᵀ (sampled), z_k = μ + σ ⊙ ε_k, on the Monte Carlo routes.
template <class Scalar>
Mat<Scalar> fisher_without_epsilon(const FisherRequest<Scalar>& r) {
  const Vec<Scalar>& lambda = *r.lambda;
  const Index d = lambda.size() / 2;
  const Vec<Scalar> mu = mf_mu(lambda), sigma = mf_sigma(lambda);
  Mat<Scalar> j = Mat<Scalar>::Zero(d, 2 * d);
  for (Index i = 0; i < d; ++i) {
    j(i, i) = Scalar(1);
    j(i, d + i) = sigma(i);
  }
  if (r.route == FisherRoute::kExact) return j.transpose() * r.g(mu) * j;
  Mat<Scalar> acc = Mat<Scalar>::Zero(2 * d, 2 * d);
  Vec<Scalar> e(d);
  for (long k = 0; k < r.draws; ++k) {
    for (Index i = 0; i < d; ++i) e(i) = Scalar(r.normal());
    const Vec<Scalar> z = mu + sigma.cwiseProduct(e);
    if (r.route == FisherRoute::kAnalytic) {
      acc.noalias() += j.transpose() * r.g(z) * j;
    } else {
      const Vec<Scalar> s = j.transpose() * r.sampled_score(z);
      acc.noalias() += s * s.transpose();
    }
  }
  acc /= Scalar(r.draws);
  symmetrise_in_place(acc);
  return acc;
}

/// The library's F_r on every route, but on the Monte Carlo routes the sum over the K draws in place
/// of their mean (the draws in the library's order, with the library's Jacobian [I, diag(σ ⊙ ε)]).
template <class Scalar>
Mat<Scalar> fisher_summed(const FisherRequest<Scalar>& r) {
  const Vec<Scalar>& lambda = *r.lambda;
  const Index d = lambda.size() / 2;
  const Vec<Scalar> mu = mf_mu(lambda), sigma = mf_sigma(lambda);
  if (r.route == FisherRoute::kExact) return predictive_fisher_exact<Scalar>(r.g(mu), sigma);
  Mat<Scalar> acc = Mat<Scalar>::Zero(2 * d, 2 * d);
  Vec<Scalar> e(d);
  for (long k = 0; k < r.draws; ++k) {
    for (Index i = 0; i < d; ++i) e(i) = Scalar(r.normal());
    const Vec<Scalar> z = mu + sigma.cwiseProduct(e);
    const Mat<Scalar> j = reparam_jacobian(sigma, e);
    if (r.route == FisherRoute::kAnalytic) {
      acc.noalias() += j.transpose() * r.g(z) * j;
    } else {
      const Vec<Scalar> s = j.transpose() * r.sampled_score(z);
      acc.noalias() += s * s.transpose();
    }
  }
  symmetrise_in_place(acc);
  return acc;
}

template <class Scalar>
VpngParts<Scalar> fr_sum() {
  VpngParts<Scalar> p;
  p.fisher = fisher_summed<Scalar>;
  return p;
}

template <class Scalar>
VpngParts<Scalar> no_eps_jacobian() {
  VpngParts<Scalar> p;
  p.fisher = fisher_without_epsilon<Scalar>;
  return p;
}

template <class Scalar>
VpngParts<Scalar> q_fisher_for_fr() {
  VpngParts<Scalar> p;
  p.fisher = [](const FisherRequest<Scalar>& r) { return q_fisher(*r.lambda); };
  return p;
}

template <class Scalar>
VpngParts<Scalar> damp_gradient() {
  VpngParts<Scalar> p;
  p.damping = [](const Scalar& delta, Mat<Scalar>&, Vec<Scalar>& rhs) { rhs.array() += delta; };
  return p;
}

/// Registers the mutant variant `name` whose VPNG parts are make_d() (double) and make_m() (mp50).
template <class MakeD, class MakeM>
void add_mutant(const char* name, const char* description, MakeD make_d, MakeM make_m) {
  VariantRegistry::instance().add(Variant::of_system(name, description, /*mutant=*/true, kPartSystemVpng, make_d(), make_m()));
}

bool register_all() {
  add_mutant("vpng-no-eps-jacobian", "F_r with J = [I, diag(sigma)]: the epsilon factor of the Jacobian's omega block dropped",
             no_eps_jacobian<double>, no_eps_jacobian<mp50>);
  add_mutant("vpng-fr-sum", "F_r's Monte Carlo estimate summed over its epsilon-draws, the mean's 1/K dropped", fr_sum<double>,
             fr_sum<mp50>);
  add_mutant("vpng-q-fisher", "the q-Fisher diag(1/sigma^2, 2) in place of F_r inside the VPNG preconditioner", q_fisher_for_fr<double>,
             q_fisher_for_fr<mp50>);
  add_mutant("vpng-damp-gradient", "damping added to the gradient, F_r^-1 (grad + delta 1), instead of to the matrix", damp_gradient<double>,
             damp_gradient<mp50>);
  return true;
}

[[maybe_unused]] const bool kRegistered = register_all();

}}  // namespace
}  // namespace ngvi::claims::vpng
