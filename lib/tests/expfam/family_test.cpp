// The ExponentialFamily concept (ngvi/expfam/family.hpp) and its families: one invariant body
// (round trip, ∇A = to_mean against mp100 central differences, Fenchel–Young, Bregman = KL against
// a KL written here by an independent formula, Fisher against mp100 differences of to_mean, the
// Fisher inverse, the vector-space update) run for every family in double and mp50; domain
// membership with negative cases; errors that name the argument.
#include <gtest/gtest.h>

#include <boost/math/special_functions/digamma.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <boost/math/special_functions/trigamma.hpp>
#include <Eigen/Eigenvalues>

#include "ngvi/expfam/categorical.hpp"
#include "ngvi/expfam/diagonal_gaussian.hpp"
#include "ngvi/expfam/dirichlet.hpp"
#include "ngvi/expfam/full_gaussian.hpp"
#include "ngvi/expfam/product.hpp"
#include "ngvi/expfam/univariate_gaussian.hpp"
#include "test_util.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

static_assert(ExponentialFamily<FullGaussian<double>> && ExponentialFamily<FullGaussian<mp50>>);
static_assert(ExponentialFamily<DiagonalGaussian<double>> && ExponentialFamily<UnivariateGaussian<mp50>>);
static_assert(ExponentialFamily<DirichletFamily<double>> && ExponentialFamily<Categorical<mp50>>);
static_assert(ExponentialFamily<Product<DirichletFamily<mp50>>> && ExponentialFamily<Product<UnivariateGaussian<double>>>);

template <class Scalar>
class ExpfamFamilies : public ::testing::Test {};
TYPED_TEST_SUITE(ExpfamFamilies, test::Scalars);

template <class Scalar>
Scalar flat_rel(const Vec<Scalar>& a, const Vec<Scalar>& b) {
  using std::sqrt;
  return sqrt(Scalar((a - b).squaredNorm() / b.squaredNorm()));
}

template <class Scalar>
::testing::AssertionResult within(const Scalar& err, const Scalar& tol, const char* what) {
  if (err == err && err <= tol) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": error " << to_double(err) << " ("
                                       << to_double(Scalar(err / eps<Scalar>())) << " eps) exceeds " << to_double(tol);
}

/// Directional derivatives of φ along the family's tangent basis, central differences in mp100 with
/// h = 1e-30·max(1, ‖x‖∞): truncation h²|φ'''| and rounding 1e-100/h are both below 1e-55 here.
template <class F, class Phi>
Vec<mp100> fd_directional(const F& f, const typename F::Natural& x, Phi&& phi) {
  using std::abs;
  const auto f100 = f.template rebind<mp100>();
  const Vec<mp100> x100 = cast_flat<mp100>(f.flatten_natural(x));
  mp100 scale(1);
  for (Index i = 0; i < x100.size(); ++i) scale = std::max(scale, mp100(abs(x100(i))));
  const mp100 h = scale * mp100("1e-30");
  Vec<mp100> d(f.size());
  for (Index i = 0; i < f.size(); ++i) {
    const Vec<mp100> e = f100.flatten_natural(f100.direction(i));
    const Vec<mp100> plus = x100 + h * e, minus = x100 - h * e;
    d(i) = (phi(f100, f100.unflatten_natural(plus)) - phi(f100, f100.unflatten_natural(minus))) / (2 * h);
  }
  return d;
}

/// ⟨eᵢ, y⟩ for each tangent direction eᵢ, in mp100.
template <class F>
Vec<mp100> along_basis(const F& f, const Vec<typename F::Scalar>& y_flat) {
  const Vec<mp100> y = cast_flat<mp100>(y_flat);
  Vec<mp100> d(f.size());
  for (Index i = 0; i < f.size(); ++i) d(i) = cast_flat<mp100>(f.flatten_natural(f.direction(i))).dot(y);
  return d;
}

/// The invariants of style.md §9 for one family at (η_q, η_p), with a KL reference computed by the
/// caller through an independent formula. Budget 4·γ_ops·cond (cond derived by the caller).
template <class F>
void expect_family_invariants(const F& f, const typename F::Natural& q, const typename F::Natural& p, long ops,
                              double cond, const typename F::Scalar& kl_ref) {
  using Scalar = typename F::Scalar;
  using std::abs;
  const Scalar tol = rounding_budget<Scalar>(ops, Scalar(cond));
  ASSERT_TRUE(f.in_domain(q) && f.in_domain(p));
  const typename F::Expectation mu_q = f.to_mean(q), mu_p = f.to_mean(p);
  ASSERT_TRUE(f.in_mean_domain(mu_q) && f.in_mean_domain(mu_p));
  // Round trip.
  EXPECT_TRUE(within(flat_rel<Scalar>(f.flatten_natural(f.to_natural(mu_q)), f.flatten_natural(q)), tol, "round trip"));
  // ∇A = to_mean, against mp100 central differences of A.
  const Vec<mp100> fd = fd_directional(f, q, [](const auto& g, const auto& x) { return g.log_partition(x); });
  EXPECT_TRUE(within(Scalar(flat_rel<mp100>(along_basis(f, f.flatten_expectation(mu_q)), fd)), tol, "grad A"));
  // Fenchel–Young at the dual pair; strict off it.
  const Scalar a = f.log_partition(q), ac = f.conjugate(mu_q), pr = f.pairing(q, mu_q);
  const Scalar fy_scale = abs(a) + abs(ac) + abs(pr);
  EXPECT_TRUE(within(Scalar(abs(a + ac - pr) / fy_scale), tol, "Fenchel-Young"));
  const Scalar off = f.log_partition(q) + f.conjugate(mu_p) - f.pairing(q, mu_p);
  EXPECT_GT(off, tol * (abs(f.conjugate(mu_p)) + fy_scale));
  // Bregman = KL (Lemma 4), KL from the caller's independent formula.
  const Scalar kl_scale = abs(a) + abs(f.log_partition(p)) + abs(ac) + abs(f.conjugate(mu_p)) + abs(pr) +
                          abs(f.pairing(p, mu_q)) + abs(f.pairing(p, mu_p));
  EXPECT_TRUE(within(Scalar(abs(f.kl(q, p) - kl_ref) / kl_scale), tol, "kl vs reference"));
  EXPECT_TRUE(within(Scalar(abs(f.bregman_conjugate(mu_q, mu_p) - kl_ref) / kl_scale), tol, "D_A* vs KL"));
  EXPECT_TRUE(within(Scalar(abs(f.bregman_log_partition(p, q) - kl_ref) / kl_scale), tol, "D_A vs KL"));
  // Fisher: F(η)v = d/dt ∇A(η + tv), against mp100 differences of to_mean; F⁻¹F = I.
  const typename F::Natural v = f.direction(0);
  const Vec<mp100> fd_mu = fd_directional(f, q, [&f, &v](const auto& g, const auto& x) {
    return cast_flat<mp100>(f.flatten_natural(v)).dot(g.flatten_expectation(g.to_mean(x)));
  });
  const typename F::Expectation fv = f.fisher_apply(q, v);
  // ⟨v, F eᵢ⟩ = ⟨eᵢ, F v⟩ (F symmetric): the differences of ⟨v, ∇A⟩ along eᵢ.
  EXPECT_TRUE(within(Scalar(flat_rel<mp100>(along_basis(f, f.flatten_expectation(fv)), fd_mu)), tol, "Fisher"));
  const typename F::Natural back = f.fisher_inverse_apply(mu_q, fv);
  EXPECT_TRUE(within(flat_rel<Scalar>(f.flatten_natural(back), f.flatten_natural(v)), Scalar(tol * Scalar(cond)),
                     "Fisher inverse"));
  // The engine's update λ ← (1 − ρ)λ + ρλ̂, written once on the parameter type, agrees with the
  // same update on flat coordinates (one rounding per entry: 4γ₃ relative).
  const Scalar rho = Scalar(0.375);
  typename F::Natural lam = q;
  lam *= Scalar(1) - rho;
  lam += rho * p;
  const typename F::Natural lam2 = (Scalar(1) - rho) * q + rho * p;
  const Vec<Scalar> flat = (Scalar(1) - rho) * f.flatten_natural(q) + rho * f.flatten_natural(p);
  EXPECT_TRUE(within(flat_rel<Scalar>(f.flatten_natural(lam), flat), rounding_budget<Scalar>(3), "update"));
  EXPECT_TRUE(within(flat_rel<Scalar>(f.flatten_natural(lam2), flat), rounding_budget<Scalar>(3), "update expr"));
  const typename F::Natural diff = q - p;
  EXPECT_TRUE(within(flat_rel<Scalar>(f.flatten_natural(diff), Vec<Scalar>(f.flatten_natural(q) - f.flatten_natural(p))),
                     rounding_budget<Scalar>(1), "difference"));
}

// Univariate KL written out: ½(s0/s1 + (m1 − m0)²/s1 − 1 + log(s1/s0)), from (m, s) = (−η₁/(2η₂), −1/(2η₂)).
template <class Scalar>
Scalar kl_univariate_ref(const Scalar& q1, const Scalar& q2, const Scalar& p1, const Scalar& p2) {
  using std::log;
  const Scalar s0 = Scalar(-0.5) / q2, m0 = s0 * q1, s1 = Scalar(-0.5) / p2, m1 = s1 * p1;
  return (s0 / s1 + (m1 - m0) * (m1 - m0) / s1 - 1 + log(s1 / s0)) / 2;
}

// Means in [−2, 2] and variances in [1/4, 4]: the maps carry 1 + m²/s ≤ 17 (cancellation in μ₂ − μ₁²).
constexpr double kGaussCond = 17;

TYPED_TEST(ExpfamFamilies, UnivariateAndDiagonalGaussian) {
  using Scalar = TypeParam;
  using N1 = typename UnivariateGaussian<Scalar>::Natural;
  const N1 q(Scalar(3) / 4 / Scalar(2.5), Scalar(-0.5) / Scalar(2.5));  // m = 3/4, s = 5/2
  const N1 p(Scalar(-0.5) / Scalar(0.25), Scalar(-2));                   // m = −1/2, s = 1/4
  expect_family_invariants(UnivariateGaussian<Scalar>{}, q, p, 18, kGaussCond, kl_univariate_ref(q(0), q(1), p(0), p(1)));

  const Index d = 4;
  DiagonalGaussian<Scalar> f(d);
  typename DiagonalGaussian<Scalar>::Natural dq(d, 2), dp(d, 2);
  const double ms[4][4] = {{1, 0.5, -2, 4}, {-0.25, 2, 1.5, 0.25}, {0, 1, 2, 3}, {1.75, 0.25, -1, 1}};
  Scalar ref(0);
  for (Index i = 0; i < d; ++i) {
    dq(i, 0) = Scalar(ms[i][0]) / Scalar(ms[i][1]);
    dq(i, 1) = Scalar(-0.5) / Scalar(ms[i][1]);
    dp(i, 0) = Scalar(ms[i][2]) / Scalar(ms[i][3]);
    dp(i, 1) = Scalar(-0.5) / Scalar(ms[i][3]);
    ref += kl_univariate_ref(dq(i, 0), dq(i, 1), dp(i, 0), dp(i, 1));
  }
  expect_family_invariants(f, dq, dp, 2 * d + 16, kGaussCond, ref);
}

// Categorical KL by enumeration over the K categories, with the probabilities formed here.
template <class Scalar>
Scalar kl_categorical_ref(const Vec<Scalar>& q, const Vec<Scalar>& p) {
  using std::exp;
  using std::log;
  const Index k = q.size() + 1;
  Vec<Scalar> pq(k), pp(k);
  for (Index i = 0; i < k - 1; ++i) {
    pq(i) = exp(q(i));
    pp(i) = exp(p(i));
  }
  pq(k - 1) = pp(k - 1) = Scalar(1);
  pq /= Scalar(pq.sum());
  pp /= Scalar(pp.sum());
  Scalar s(0);
  for (Index i = 0; i < k; ++i) s += pq(i) * (log(pq(i)) - log(pp(i)));
  return s;
}

TYPED_TEST(ExpfamFamilies, Categorical) {
  using Scalar = TypeParam;
  Categorical<Scalar> f(4);
  Vec<Scalar> q(3), p(3);
  q << Scalar(1), Scalar(-2), Scalar(0.5);
  p << Scalar(-0.25), Scalar(1.5), Scalar(0);
  // Logits in [−2, 2], K = 4: cond √K(1 + max|η| + A)(1 + 1/p_min) ≤ 2·(1 + 2 + 3.1)·(1 + 1/0.011) ≤ 1200.
  expect_family_invariants(f, q, p, 4 + 16, 1200, kl_categorical_ref(q, p));
}

/// Conditioning of the Dirichlet maps at α (dirichlet_conditioning's derivation): the Newton
/// residual's relative effect, the cancellation in μ and in A.
double dirichlet_cond(const Vec<double>& a) {
  const auto c = dirichlet_conditioning(a);
  return std::max({1.0, c.newton, c.mean_cancellation, c.log_gamma_terms / std::abs(c.log_partition)});
}

// The Dirichlet KL reference here is E_q[log q − log p] = log B(β) − log B(α) + Σ(αₖ − βₖ)E_q[log xₖ]
// with E_q[log xₖ] from Boost's digamma directly (the Bregman forms go through the Newton inverse);
// dirichlet_test.cpp checks the Beta case against numerical integration.
template <class Scalar>
Scalar kl_dirichlet_ref(const Vec<Scalar>& a, const Vec<Scalar>& b) {
  auto log_beta = [](const Vec<Scalar>& x) {
    Scalar s = -boost::math::lgamma(Scalar(x.sum()));
    for (Index i = 0; i < x.size(); ++i) s += boost::math::lgamma(x(i));
    return s;
  };
  Scalar s = log_beta(b) - log_beta(a);
  const Scalar psi0 = boost::math::digamma(Scalar(a.sum()));
  for (Index i = 0; i < a.size(); ++i) s += (a(i) - b(i)) * (boost::math::digamma(a(i)) - psi0);
  return s;
}

TYPED_TEST(ExpfamFamilies, DirichletAndProducts) {
  using Scalar = TypeParam;
  Vec<double> ad(5), bd(5);
  ad << 0.5, 2, 7.25, 1, 3.5;
  bd << 1.5, 0.75, 4, 6, 0.5;
  const double cond = std::max(dirichlet_cond(ad), dirichlet_cond(bd));
  const Vec<Scalar> a = data::cast_vector<Scalar>(ad), b = data::cast_vector<Scalar>(bd);
  expect_family_invariants(DirichletFamily<Scalar>(5), a, b, 5 + 32, cond, kl_dirichlet_ref(a, b));

  // Product of 3 Dirichlets over 5 "words" (a V × K matrix), KL the sum of the component references.
  Mat<Scalar> pa(5, 3), pb(5, 3);
  pa << a, b, Vec<Scalar>(a * Scalar(2));
  pb << b, a, Vec<Scalar>(b * Scalar(0.5) + Vec<Scalar>::Constant(5, Scalar(1)));
  double pcond = cond;
  for (Index j = 0; j < 3; ++j) {
    Vec<double> ca(5), cb(5);
    for (Index i = 0; i < 5; ++i) {
      ca(i) = to_double(pa(i, j));
      cb(i) = to_double(pb(i, j));
    }
    pcond = std::max({pcond, dirichlet_cond(ca), dirichlet_cond(cb)});
  }
  Scalar pref(0);
  for (Index j = 0; j < 3; ++j) pref += kl_dirichlet_ref<Scalar>(pa.col(j), pb.col(j));
  expect_family_invariants(Product<DirichletFamily<Scalar>>(DirichletFamily<Scalar>(5), 3), pa, pb, 5 + 32 + 3, pcond,
                           pref);

  // Product of 4 univariate Gaussians (a 2 × N matrix).
  Mat<Scalar> ua(2, 4), ub(2, 4);
  Scalar uref(0);
  for (Index j = 0; j < 4; ++j) {
    const Scalar s0 = Scalar(1 + j) / 2, s1 = Scalar(4) / Scalar(1 + j), m0 = Scalar(j) - 1, m1 = Scalar(0.5) * Scalar(j);
    ua(0, j) = m0 / s0;
    ua(1, j) = Scalar(-0.5) / s0;
    ub(0, j) = m1 / s1;
    ub(1, j) = Scalar(-0.5) / s1;
    uref += kl_univariate_ref(ua(0, j), ua(1, j), ub(0, j), ub(1, j));
  }
  expect_family_invariants(Product<UnivariateGaussian<Scalar>>(UnivariateGaussian<Scalar>{}, 4), ua, ub, 18 + 4,
                           kGaussCond, uref);
}

TYPED_TEST(ExpfamFamilies, FullGaussianAdapter) {
  using Scalar = TypeParam;
  data::Rng rng(31);
  const auto qd = data::random_gaussian(3, 10, rng);
  const auto pd = data::random_gaussian(3, 10, rng);
  const auto q = data::cast_moments<Scalar>(qd), p = data::cast_moments<Scalar>(pd);
  // Condition κ(S)(1 + ‖m‖²/λ_min) (lib/include/ngvi/claims/expfam_common.hpp map_condition), κ ≤ 10 here.
  const double cond = 10 * (1 + std::max(qd.mean.squaredNorm(), pd.mean.squaredNorm()));
  // The KL reference: the moment closed form, written here for d = 3 through an LLT of S_p.
  Eigen::LLT<Mat<Scalar>> lp(p.cov);
  const Vec<Scalar> dm = p.mean - q.mean;
  using std::log;
  Scalar logdet_p(0), logdet_q(0);
  Eigen::LLT<Mat<Scalar>> lq(q.cov);
  for (Index i = 0; i < 3; ++i) {
    logdet_p += 2 * log(Scalar(lp.matrixL()(i, i)));
    logdet_q += 2 * log(Scalar(lq.matrixL()(i, i)));
  }
  const Scalar ref = (Scalar(lp.solve(q.cov).trace()) + dm.dot(lp.solve(dm)) - 3 + logdet_p - logdet_q) / 2;
  expect_family_invariants(FullGaussian<Scalar>(3), moments_to_natural(q), moments_to_natural(p), 9 + 12 + 16, cond, ref);
}

TYPED_TEST(ExpfamFamilies, DomainMembershipNegativeCases) {
  using Scalar = TypeParam;
  const Scalar tiny = eps<Scalar>();
  UnivariateGaussian<Scalar> u;
  EXPECT_FALSE(u.in_domain(typename UnivariateGaussian<Scalar>::Natural(Scalar(1), Scalar(0))));
  EXPECT_FALSE(u.in_domain(typename UnivariateGaussian<Scalar>::Natural(Scalar(1), tiny)));
  EXPECT_TRUE(u.in_domain(typename UnivariateGaussian<Scalar>::Natural(Scalar(1), -tiny)));
  EXPECT_FALSE(u.in_mean_domain(typename UnivariateGaussian<Scalar>::Expectation(Scalar(2), Scalar(4))));  // s = 0
  EXPECT_TRUE(u.in_mean_domain(typename UnivariateGaussian<Scalar>::Expectation(Scalar(2), Scalar(4) + 8 * tiny)));
  EXPECT_FALSE(u.in_domain(typename UnivariateGaussian<Scalar>::Natural(std::numeric_limits<Scalar>::quiet_NaN(), Scalar(-1))));

  DirichletFamily<Scalar> dir(3);
  Vec<Scalar> a = Vec<Scalar>::Ones(3);
  EXPECT_TRUE(dir.in_domain(a));
  a(1) = Scalar(0);
  EXPECT_FALSE(dir.in_domain(a));
  a(1) = -tiny;
  EXPECT_FALSE(dir.in_domain(a));
  // M = {Σ exp μ < 1}: log(1/3) in every coordinate is on the boundary (the mean of a point mass).
  using std::log;
  Vec<Scalar> m = Vec<Scalar>::Constant(3, Scalar(-log(Scalar(3))));
  m(0) += 16 * tiny;  // Σ exp μ ≈ 1 + 5 eps, beyond the ±2 eps rounding of the three terms
  EXPECT_FALSE(dir.in_mean_domain(m));
  m(0) -= 64 * tiny;
  EXPECT_TRUE(dir.in_mean_domain(m));
  EXPECT_FALSE(dir.in_mean_domain(Vec<Scalar>::Zero(2)));  // wrong size

  Categorical<Scalar> cat(3);
  Vec<Scalar> pr(2);
  pr << Scalar(0.5), Scalar(0.5);  // p_K = 0: on the boundary
  EXPECT_FALSE(cat.in_mean_domain(pr));
  pr(1) -= 4 * tiny;
  EXPECT_TRUE(cat.in_mean_domain(pr));
  pr << Scalar(0), Scalar(0.5);
  EXPECT_FALSE(cat.in_mean_domain(pr));
  EXPECT_FALSE(cat.in_domain(Vec<Scalar>::Constant(2, std::numeric_limits<Scalar>::infinity())));

  DiagonalGaussian<Scalar> dg(2);
  typename DiagonalGaussian<Scalar>::Natural e(2, 2);
  e << Scalar(0), Scalar(-1), Scalar(-1), tiny;
  EXPECT_FALSE(dg.in_domain(e));
  e(1, 1) = -tiny;
  EXPECT_TRUE(dg.in_domain(e));

  Product<DirichletFamily<Scalar>> prod(DirichletFamily<Scalar>(3), 2);
  Mat<Scalar> pa = Mat<Scalar>::Ones(3, 2);
  EXPECT_TRUE(prod.in_domain(pa));
  pa(2, 1) = Scalar(0);
  EXPECT_FALSE(prod.in_domain(pa));
  EXPECT_FALSE(prod.in_domain(Mat<Scalar>::Ones(3, 3)));

  FullGaussian<Scalar> fg(2);
  GaussianNatural<Scalar> g(Vec<Scalar>::Zero(2), Mat<Scalar>::Identity(2, 2) * Scalar(-1));
  EXPECT_TRUE(fg.in_domain(g));
  g.eta2()(1, 1) = tiny;
  EXPECT_FALSE(fg.in_domain(g));
}

TYPED_TEST(ExpfamFamilies, ErrorsNameTheArgument) {
  using Scalar = TypeParam;
  DirichletFamily<Scalar> dir(3);
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { dir.to_natural(Vec<Scalar>::Zero(3)); },
                                                   {"ngvi::DirichletFamily::to_natural", "'mu'", "not the mean of any Dirichlet"}));
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { dir.log_partition(Vec<Scalar>::Constant(3, Scalar(-1))); },
                                                   {"ngvi::DirichletFamily::log_partition", "'eta'", "> 0"}));
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([&] { dir.to_mean(Vec<Scalar>::Ones(4)); }, {"'eta'", "expected K = 3"}));
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([] { DirichletFamily<Scalar> bad(1); }, {"'k'"}));
  Categorical<Scalar> cat(3);
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { cat.to_natural(Vec<Scalar>::Constant(2, Scalar(0.75))); },
                                                   {"ngvi::Categorical::to_natural", "'mu'", "sum < 1"}));
  DiagonalGaussian<Scalar> dg(2);
  typename DiagonalGaussian<Scalar>::Natural e = DiagonalGaussian<Scalar>::Natural::Ones(2, 2);
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { dg.log_partition(e); }, {"ngvi::DiagonalGaussian::log_partition", "'eta'"}));
  UnivariateGaussian<Scalar> u;
  EXPECT_TRUE(test::throws_with<std::domain_error>(
      [&] { u.to_natural(typename UnivariateGaussian<Scalar>::Expectation(Scalar(1), Scalar(1))); }, {"'mu'", "mu2 > mu1^2"}));
  Product<DirichletFamily<Scalar>> prod(DirichletFamily<Scalar>(3), 2);
  Mat<Scalar> pm = Mat<Scalar>::Constant(3, 2, Scalar(-2));
  pm.col(1).setZero();
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { prod.to_natural(pm); }, {"'mu'", "component 1"}));
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([&] { prod.to_mean(Mat<Scalar>::Ones(2, 2)); },
                                                       {"ngvi::Product::to_mean", "'eta'", "expected 3 x 2"}));
}

}}  // namespace
}  // namespace ngvi
