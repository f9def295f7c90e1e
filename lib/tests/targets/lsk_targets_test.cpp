// Unit tests of the shipped targets (targets/): derivatives against long-double central differences,
// the GLM posteriors against glm_likelihood.hpp plus an independently coded Gaussian prior, the n/M
// scaling of mini-batch views, the banana's normalisation, and bad input.
#include <gtest/gtest.h>

#include <Eigen/LU>
#include <cmath>

#include "ngvi/targets/banana_target.hpp"
#include "ngvi/targets/gaussian_target.hpp"
#include "ngvi/targets/glm_posterior.hpp"
#include "test_util.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

static_assert(HessianTarget<BananaTarget<double>> && FusedTarget<BananaTarget<double>>);
static_assert(SubsampledTarget<LogisticPosterior<double>> && SubsampledTarget<PoissonPosterior<double>>);
static_assert(!SubsampledTarget<GaussianTarget<double>>);

// Central difference of f in long double with step h: error ≤ h²·|f'''|/6 (truncation) +
// 2·u_ld·|f|/h (rounding). With h = 2^-14 and the test points below (|f'''| ≤ 1e3, |f| ≤ 1e3) the
// sum is ≤ 1e3·3.7e-9/6 + 1e3·1.1e-19·1.6e4 ≈ 7e-7; kFdTol = 1e-5 leaves a factor > 10 (relative to
// max(1, |∂f|)).
const long double kH = 1.0L / 16384;
const double kFdTol = 1e-5;

template <class F>
Vec<long double> fd_grad(F&& f, const Vec<long double>& z) {
  Vec<long double> g(z.size());
  for (Index i = 0; i < z.size(); ++i) {
    Vec<long double> p = z, m = z;
    p(i) += kH;
    m(i) -= kH;
    g(i) = (f(p) - f(m)) / (2 * kH);
  }
  return g;
}

template <class T>
void check_derivatives(const T& td, const auto& tl, const Vec<double>& z) {
  const Vec<long double> zl = z.cast<long double>();
  const Vec<long double> g_ref = fd_grad([&](const Vec<long double>& x) { return tl.log_density(x); }, zl);
  const Vec<double> g = td.gradient(z);
  for (Index i = 0; i < z.size(); ++i)
    EXPECT_TRUE(test::rel_close<double>(g(i), static_cast<double>(g_ref(i)), kFdTol)) << "gradient " << i;
  const Mat<double> h = td.hessian(z);
  EXPECT_TRUE(h == h.transpose());
  for (Index j = 0; j < z.size(); ++j) {
    const Vec<long double> hj = fd_grad([&](const Vec<long double>& x) { return tl.gradient(x)(j); }, zl);
    for (Index i = 0; i < z.size(); ++i)
      EXPECT_TRUE(test::rel_close<double>(h(i, j), static_cast<double>(hj(i)), kFdTol)) << "hessian " << i << "," << j;
  }
}

TEST(LskTargetsBanana, DerivativesAndIndefiniteness) {
  const BananaTarget<double> b(3, 1.5, 0.5);
  const BananaTarget<long double> bl(3, 1.5L, 0.5L);
  for (const Vec<double>& z : {Vec<double>(Vec<double>::Zero(3)), Vec<double>((Vec<double>(3) << 1.25, -0.5, 0.75).finished()),
                               Vec<double>((Vec<double>(3) << -2.0, 3.0, 0.0).finished())})
    check_derivatives(b, bl, z);
  // At z = (0, 4, 0), w = 4 + b·a² and ∂₁₁ = −1/a² + 2bw > 0: the banana's Hessian is indefinite there.
  const Mat<double> h = b.hessian((Vec<double>(3) << 0.0, 4.0, 0.0).finished());
  EXPECT_GT(h(0, 0), 0.0);
  EXPECT_LT(h(1, 1), 0.0);
}

// The banana is normalised: under the unit-Jacobian map
// (z₁, z₂) = (a u, w + b(a²u² − a²)) — log π(z) + log a must equal log N(u) + log N(w) exactly.
TEST(LskTargetsBanana, UnitJacobianNormalisation) {
  const double a = 1.5, bb = 0.5;
  const BananaTarget<double> b(2, a, bb);
  for (double u : {-1.0, 0.25, 2.0})
    for (double w : {-0.5, 1.0}) {
      const Vec<double> z = (Vec<double>(2) << a * u, w + bb * (a * a * u * u - a * a)).finished();
      const double ref = -std::log(2 * M_PI) - (u * u + w * w) / 2 - std::log(a);
      EXPECT_TRUE(test::rel_close<double>(b.log_density(z), ref, rounding_budget<double>(16, 8.0)));
    }
}

TEST(LskTargetsGaussian, DerivativesAndExpectations) {
  data::Rng rng(3);
  const auto g = data::random_gaussian(4, 1e2, rng);
  const GaussianTarget<double> t(g.mean, g.cov);
  const GaussianTarget<long double> tl(g.mean.cast<long double>(), g.cov.cast<long double>());
  check_derivatives(t, tl, Vec<double>::Ones(4));
  // At q = π, E log π = −H[π] (entropy of N(μ, Σ)): −d/2(1 + log 2π) − ½ log det Σ.
  const double ref = -2.0 * (1 + std::log(2 * M_PI)) - 0.5 * std::log(g.cov.determinant());
  EXPECT_TRUE(test::rel_close<double>(t.expected_log_density(g), ref, rounding_budget<double>(64, 1e2)));
  EXPECT_TRUE(test::throws_with<std::domain_error>([] { GaussianTarget<double>(Vec<double>::Zero(2), Mat<double>::Zero(2, 2)); },
                                                   {"ngvi::GaussianTarget", "cov"}));
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([&] { t.gradient(Vec<double>::Zero(3)); }, {"GaussianTarget", "z"}));
}

Dataset<double> small_data(bool counts) {
  data::Rng rng(17);
  Dataset<double> d{with_bias_column<double>(data::gaussian_matrix(9, 2, rng) * 0.5), Vec<double>(9)};
  for (Index i = 0; i < 9; ++i) d.y(i) = counts ? double(i % 4) : double(i % 2);
  return d;
}

template <class Post>
void check_glm(bool counts) {
  const Dataset<double> data = small_data(counts);
  Mat<double> sp = Mat<double>::Identity(3, 3) * 2;
  sp(0, 1) = sp(1, 0) = 0.5;
  const Post post(data, sp);
  const GaussianTarget<double> prior(Vec<double>::Zero(3), sp);
  const Vec<double> z = (Vec<double>(3) << 0.25, -0.5, 0.125).finished();
  const auto ll = counts ? poisson_loglik(data, z) : logistic_loglik(data, z);
  const double tol = rounding_budget<double>(64, 16.0);
  EXPECT_TRUE(test::rel_close<double>(post.log_density(z), ll.value + prior.log_density(z), tol));
  EXPECT_TRUE(test::mat_rel_close<double>(Mat<double>(post.gradient(z)), Mat<double>(ll.grad + prior.gradient(z)), tol));
  EXPECT_TRUE(test::mat_rel_close<double>(post.hessian(z), Mat<double>(ll.hess + prior.hessian(z)), tol));
  // Mini-batch views: π_{i} has likelihood scale n, so the average over the n singletons is π; the
  // full batch reproduces π.
  double avg = 0;
  Vec<double> gavg = Vec<double>::Zero(3);
  for (Index i = 0; i < data.n(); ++i) {
    const auto b = post.subsample({i});
    EXPECT_EQ(b.likelihood_scale(), double(data.n()));
    avg += b.log_density(z) / double(data.n());
    gavg += b.gradient(z) / double(data.n());
  }
  EXPECT_TRUE(test::rel_close<double>(avg, post.log_density(z), tol));
  EXPECT_TRUE(test::mat_rel_close<double>(Mat<double>(gavg), Mat<double>(post.gradient(z)), tol));
  std::vector<Index> all(static_cast<std::size_t>(data.n()));
  for (Index i = 0; i < data.n(); ++i) all[static_cast<std::size_t>(i)] = i;
  EXPECT_TRUE(test::rel_close<double>(post.subsample(all).log_density(z), post.log_density(z), tol));
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([&] { post.subsample({}); }, {"batch", "empty"}));
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { post.subsample({99}); }, {"batch", "99"}));
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { Post(data, Mat<double>(-sp)); }, {"prior_cov"}));
}

TEST(LskTargetsGlm, LogisticPosterior) { check_glm<LogisticPosterior<double>>(false); }
TEST(LskTargetsGlm, PoissonPosterior) { check_glm<PoissonPosterior<double>>(true); }

TEST(LskTargetsGlm, RejectsBadLabels) {
  Dataset<double> d = small_data(false);
  d.y(0) = 2;
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { LogisticPosterior<double>(d, Mat<double>::Identity(3, 3)); },
                                                   {"LogisticPosterior", "data.y"}));
}

}}  // namespace
}  // namespace ngvi
