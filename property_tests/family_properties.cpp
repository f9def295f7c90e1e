// Properties of the non-Gaussian exponential families (ngvi/expfam/family.hpp) over structured
// random inputs: for the Dirichlet, the Newton inverse of the digamma map returns α, KL(q‖p) =
// D_A*(μ_q, μ_p) = D_A(α_p, α_q) ≥ 0, and Fenchel–Young holds; for the categorical, the same
// identities over random logits. Inputs are dyadic (exact in every scalar), with a tag for the
// regime (a small α gives large |ψ|, a large α₀ a poorly determined concentration).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <limits>

#include "generators.hpp"
#include "ngvi/expfam/categorical.hpp"
#include "ngvi/expfam/dirichlet.hpp"
#include "ngvi/scalar/budget.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

/// A Dirichlet pair spec: K ∈ [2, 8] and two parameter vectors, entries dyadic in [1/8, 32].
struct DirichletPairSpec {
  std::vector<double> a, b;
};

/// RapidCheck's printout of a counterexample.
void showValue(const DirichletPairSpec& s, std::ostream& os) {
  os << "a = [";
  for (double x : s.a) os << x << " ";
  os << "], b = [";
  for (double x : s.b) os << x << " ";
  os << "]";
}

rc::Gen<DirichletPairSpec> dirichlet_pair_spec() {
  return rc::gen::mapcat(rc::gen::inRange<int>(2, 9), [](int k) {
    const auto entries = rc::gen::container<std::vector<double>>(static_cast<std::size_t>(k), gen::dyadic(0.125, 32, 6));
    return rc::gen::apply([](std::vector<double> a, std::vector<double> b) { return DirichletPairSpec{a, b}; }, entries,
                          entries);
  });
}

/// Map condition of a Dirichlet at α (dirichlet_conditioning's derivation): the Newton residual's
/// relative effect and the cancellation in A (|A| floored at 1: random α can put A near 0).
double dirichlet_cond(const Vec<double>& a) {
  const auto c = dirichlet_conditioning(a);
  return std::max({1.0, c.newton, c.log_gamma_terms / std::max(std::abs(c.log_partition), 1.0)});
}

/// Roundings of one ψ or lnΓ evaluation beyond those K + 32 counts, from Boost.Math's algorithm for a
/// type wider than 64 bits (for double its rational approximations on a bounded interval need no such
/// term). That algorithm first moves a small argument up by a recurrence, one addition and one division
/// or multiplication per step, and only then sums its asymptotic series: ψ(x) = ψ(x + 1) − 1/x until
/// x ≥ 10 + (bits − 50)·240/950, and Γ(x) = Γ(x + 1)/x until x ≥ min(1.7·digits10, ⌈2^((bits − 1)/20)⌉).
/// For mp50 (168 bits) that is 39 and 85 steps; the entries here go down to 1/8, so all of them are taken.
template <class Scalar>
long special_function_ops() {
  constexpr int bits = std::numeric_limits<Scalar>::digits;
  if constexpr (bits <= 64) {
    return 0;
  } else {
    const long psi = 10 + (bits - 50) * 240L / 950;
    const long gam = std::min(static_cast<long>(1.7 * std::numeric_limits<Scalar>::digits10),
                              static_cast<long>(std::ceil(std::pow(2.0, (bits - 1) / 20.0))));
    return 2 * std::max(psi, gam);
  }
}

template <class Scalar>
void dirichlet_identities(const DirichletPairSpec& s) {
  using std::abs;
  const Index k = static_cast<Index>(s.a.size());
  const Vec<double> ad = Eigen::Map<const Vec<double>>(s.a.data(), k), bd = Eigen::Map<const Vec<double>>(s.b.data(), k);
  RC_TAG(ad.minCoeff() < 0.5 ? "min alpha < 1/2" : "min alpha >= 1/2");
  RC_CLASSIFY(ad.sum() > 64, "alpha0 > 64");
  const double cond = std::max(dirichlet_cond(ad), dirichlet_cond(bd));
  const Scalar tol = rounding_budget<Scalar>(k + 32 + special_function_ops<Scalar>(), Scalar(cond));
  DirichletFamily<Scalar> f(k);
  const Vec<Scalar> a = data::cast_vector<Scalar>(ad), b = data::cast_vector<Scalar>(bd);
  const Vec<Scalar> mu_a = f.to_mean(a), mu_b = f.to_mean(b);
  RC_ASSERT(f.in_mean_domain(mu_a));
  RC_ASSERT(Scalar((f.to_natural(mu_a) - a).norm() / a.norm()) <= tol);
  const Scalar kl = f.kl(a, b);
  const Scalar scale = abs(f.log_partition(a)) + abs(f.log_partition(b)) + abs(f.conjugate(mu_a)) +
                       abs(f.conjugate(mu_b)) + abs(f.pairing(a, mu_a)) + abs(f.pairing(b, mu_a)) +
                       abs(f.pairing(b, mu_b));
  RC_ASSERT(kl >= -tol * scale);
  RC_ASSERT(abs(f.bregman_conjugate(mu_a, mu_b) - kl) <= tol * scale);
  RC_ASSERT(abs(f.bregman_log_partition(b, a) - kl) <= tol * scale);
  const Scalar fy = f.log_partition(a) + f.conjugate(mu_a) - f.pairing(a, mu_a);
  RC_ASSERT(abs(fy) <= tol * scale);
}

RC_GTEST_PROP(FamilyProperties, DirichletIdentitiesDouble, ()) { dirichlet_identities<double>(*dirichlet_pair_spec()); }
RC_GTEST_PROP(FamilyProperties, DirichletIdentitiesMp50, ()) { dirichlet_identities<mp50>(*dirichlet_pair_spec()); }

// Categorical: logits dyadic in [−4, 4], K ∈ [2, 10]. Condition √K(1 + max|η| + A)(1 + 1/p_min)
// (lib/include/ngvi/claims/expfam_common.hpp), computed from the logits in double.
RC_GTEST_PROP(FamilyProperties, CategoricalIdentitiesDouble, ()) {
  using std::abs;
  const int k = *rc::gen::inRange<int>(2, 11);
  const auto q = *rc::gen::container<std::vector<double>>(static_cast<std::size_t>(k - 1), gen::dyadic(-4, 4, 8));
  const auto p = *rc::gen::container<std::vector<double>>(static_cast<std::size_t>(k - 1), gen::dyadic(-4, 4, 8));
  const Vec<double> eq = Eigen::Map<const Vec<double>>(q.data(), k - 1), ep = Eigen::Map<const Vec<double>>(p.data(), k - 1);
  double cond = 1;
  for (const Vec<double>* e : {&eq, &ep}) {
    const double s = 1 + e->array().exp().sum();
    const double pmin = std::min(1.0, e->array().exp().minCoeff()) / s;
    cond = std::max(cond, std::sqrt(double(k)) * (1 + e->cwiseAbs().maxCoeff() + std::log(s)) * (1 + 1 / pmin));
  }
  const double tol = rounding_budget<double>(k + 16, cond);
  Categorical<double> f(k);
  const Vec<double> mq = f.to_mean(eq), mp = f.to_mean(ep);
  RC_ASSERT((f.to_natural(mq) - eq).norm() <= tol * std::max(1.0, eq.norm()));
  const double kl = f.kl(eq, ep);
  const double scale = abs(f.log_partition(eq)) + abs(f.log_partition(ep)) + abs(f.conjugate(mq)) +
                       abs(f.conjugate(mp)) + abs(f.pairing(eq, mq)) + abs(f.pairing(ep, mq)) + abs(f.pairing(ep, mp));
  RC_ASSERT(kl >= -tol * scale);
  RC_ASSERT(abs(f.bregman_conjugate(mq, mp) - kl) <= tol * scale);
  RC_ASSERT(abs(f.bregman_log_partition(ep, eq) - kl) <= tol * scale);
}

}}  // namespace
}  // namespace ngvi
