// Properties of the Gaussian exponential-family core over structured random inputs: round trips
// through all maps, KL ≥ 0 with equality only at q = p, and the Bregman identities of Lemma 4.
// Budgets are those of the unit tests and claims: 4·γ_{d²+4d+16}·κ·(1 + ‖m‖²).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "generators.hpp"
#include "ngvi/expfam.hpp"
#include "ngvi/scalar/budget.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

template <class Scalar>
Scalar budget_for(const GaussianMoments<double>& qd, double kappa) {
  const Index d = qd.dim();
  return rounding_budget<Scalar>(d * d + 4 * d + 16, Scalar(kappa * (1 + qd.mean.squaredNorm())));
}

template <class Scalar>
Scalar rel(const Mat<Scalar>& a, const Mat<Scalar>& b) {
  return Scalar((a - b).norm() / b.norm());
}

template <class Scalar>
void round_trips(const gen::SpdSpec& s) {
  RC_CLASSIFY(s.kappa > 1e6, "ill-conditioned");
  RC_TAG(gen::kappa_bucket(s.kappa));
  const auto qd = gen::gaussian_from<double>(s);
  const auto q = data::cast_moments<Scalar>(qd);
  const Scalar tol = budget_for<Scalar>(qd, s.kappa);
  const auto eta = moments_to_natural(q);
  const auto mu = moments_to_expectation(q);
  const auto back_n = natural_to_moments(eta);
  const auto back_m = expectation_to_moments(mu);
  const auto eta_rt = expectation_to_natural(natural_to_expectation(eta));
  const auto mu_rt = natural_to_expectation(expectation_to_natural(mu));
  RC_ASSERT(rel<Scalar>(back_n.cov, q.cov) <= tol);
  RC_ASSERT(rel<Scalar>(back_m.cov, q.cov) <= tol);
  RC_ASSERT(rel<Scalar>(eta_rt.eta2(), eta.eta2()) <= tol);
  RC_ASSERT(rel<Scalar>(mu_rt.mu2(), mu.mu2()) <= tol);
  RC_ASSERT(Scalar((back_n.mean - q.mean).norm()) <= tol * Scalar(q.mean.norm() + 1));
}

RC_GTEST_PROP(ExpfamProperties, RoundTripsDouble, ()) { round_trips<double>(*gen::spd_spec(1, 8, 1e8)); }
RC_GTEST_PROP(ExpfamProperties, RoundTripsMp50, ()) { round_trips<mp50>(*gen::spd_spec(1, 5, 1e8)); }

// KL(q‖p) ≥ 0, KL(q‖q) = 0 within rounding, and KL(q‖p) > rounding whenever p differs from q by a
// mean shift of at least 1/8 in a direction (a gap of ≥ δ²/(2·λ_max(S_p)) in exact arithmetic).
RC_GTEST_PROP(ExpfamProperties, KlNonNegativeZeroOnlyAtEquality, ()) {
  const auto s = *gen::spd_spec(1, 8, 1e8);
  const double shift = *gen::dyadic(0.125, 4.0);
  RC_TAG(gen::kappa_bucket(s.kappa));
  const auto q = gen::gaussian_from<double>(s);
  const double tol = budget_for<double>(q, s.kappa);
  auto p = q;
  p.mean(0) += shift;
  const double kl_qq = kl_gaussian(q, q);
  const double kl_qp = kl_gaussian(q, p);
  RC_ASSERT(std::abs(kl_qq) <= tol * q.dim());
  RC_ASSERT(kl_qp >= 0.0);
  // Lower bound: ½ δᵀ S_p⁻¹ δ ≥ ½ δ² / λ_max(S_p) and λ_max ≤ κ (spectrum in [1, κ]).
  RC_ASSERT(kl_qp >= 0.5 * shift * shift / s.kappa * (1 - tol));
}

// Lemma 4: KL(q‖p) = D_A*(μ_q, μ_p) = D_A(η_p, η_q), relative to the cancelled terms' size.
template <class Scalar>
void bregman_identities(const gen::SpdSpec& s) {
  using std::abs;
  RC_TAG(gen::kappa_bucket(s.kappa));
  const auto qd = gen::gaussian_from<double>(s);
  gen::SpdSpec s2 = s;
  s2.seed = s.seed * 6364136223846793005ULL + 1442695040888963407ULL;
  const auto pd = gen::gaussian_from<double>(s2);
  const auto q = data::cast_moments<Scalar>(qd);
  const auto p = data::cast_moments<Scalar>(pd);
  const auto mu_q = moments_to_expectation(q), mu_p = moments_to_expectation(p);
  const auto eta_q = moments_to_natural(q), eta_p = moments_to_natural(p);
  const Scalar kl = kl_gaussian(q, p);
  const Scalar scale = abs(conjugate_log_partition(mu_q)) + abs(conjugate_log_partition(mu_p)) +
                       abs(pairing<Scalar>(eta_p, mu_q)) + abs(pairing<Scalar>(eta_p, mu_p)) +
                       abs(log_partition(eta_p)) + abs(log_partition(eta_q)) + abs(pairing<Scalar>(mu_q, eta_q));
  const Scalar tol = std::max(budget_for<Scalar>(qd, s.kappa), budget_for<Scalar>(pd, s.kappa));
  RC_ASSERT(abs(kl - bregman_conjugate(mu_q, mu_p)) <= tol * scale);
  RC_ASSERT(abs(kl - bregman_log_partition(eta_p, eta_q)) <= tol * scale);
}

RC_GTEST_PROP(ExpfamProperties, BregmanEqualsKlDouble, ()) { bregman_identities<double>(*gen::spd_spec(1, 8, 1e8)); }
RC_GTEST_PROP(ExpfamProperties, BregmanEqualsKlMp50, ()) { bregman_identities<mp50>(*gen::spd_spec(1, 4, 1e8)); }

// Fenchel–Young: A(η) + A*(μ) ≥ ⟨η, μ⟩ for any η, μ, with equality when μ = ∇A(η).
RC_GTEST_PROP(ExpfamProperties, FenchelYoungInequality, ()) {
  const auto s = *gen::spd_spec(1, 6, 1e6);
  gen::SpdSpec s2 = s;
  s2.seed ^= 0xabcdefULL;
  const auto eta = moments_to_natural(gen::gaussian_from<double>(s));
  const auto mu = moments_to_expectation(gen::gaussian_from<double>(s2));
  const double a = log_partition(eta), ac = conjugate_log_partition(mu), pr = pairing<double>(eta, mu);
  const double tol = rounding_budget<double>(100, s.kappa) * (std::abs(a) + std::abs(ac) + std::abs(pr));
  RC_ASSERT(a + ac - pr >= -tol);
}

}}  // namespace
}  // namespace ngvi
