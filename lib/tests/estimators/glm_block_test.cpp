// The GLM block forms of the Monte Carlo estimators (GlmLogLik, BlockLogLik): the Price means
// (ḡ, H̄ = −Xᵀdiag(c̄)X from one weighted Gram product), the reparameterisation means (m̄, L̄) and a
// non-conjugate NGD step, each against the point-by-point route on the same draws, entry by entry
// within γ_{n+K+2d} of the entry's magnitude (Higham Thm 3.5 on |X|ᵀdiag(max_k|c_k|)|X| and its
// analogues), with a control on other draws that must disagree; named errors.
#include <cmath>

#include "ngvi/data/synthetic.hpp"
#include "ngvi/estimators/reparam.hpp"
#include "ngvi/models/logistic_regression.hpp"
#include "ngvi/models/poisson_regression.hpp"
#include "ngvi/optim/ngd_nonconjugate.hpp"
#include "test_util.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

template <class Scalar>
Dataset<Scalar> logistic_data(Index n, Index d, std::uint64_t seed) {
  random::Stream rng(seed, 0);
  Dataset<Scalar> data{Mat<Scalar>(n, d), Vec<Scalar>(n)};
  for (Index i = 0; i < n; ++i) {
    double u = 0;
    for (Index j = 0; j < d; ++j) {
      const double x = rng.normal();
      data.X(i, j) = Scalar(x);
      u += x * (j % 2 == 0 ? 0.7 : -0.4);
    }
    data.y(i) = Scalar(rng.uniform01() < 1.0 / (1.0 + std::exp(-u)) ? 1.0 : 0.0);
  }
  return data;
}

template <class Scalar>
Dataset<Scalar> poisson_data(Index n, Index d, std::uint64_t seed) {
  random::Stream rng(seed, 1);
  Dataset<Scalar> data{Mat<Scalar>(n, d), Vec<Scalar>(n)};
  for (Index i = 0; i < n; ++i) {
    for (Index j = 0; j < d; ++j) data.X(i, j) = Scalar(0.3 * rng.normal());
    data.y(i) = Scalar(static_cast<double>(rng.index(6)));
  }
  return data;
}

// Entry-by-entry check |got − want| ≤ tol · mag; reports the worst ratio.
template <class Scalar>
::testing::AssertionResult entries_within(const Mat<Scalar>& got, const Mat<Scalar>& want, const Mat<Scalar>& mag, const Scalar& tol,
                                          const char* what) {
  if (got.rows() != want.rows() || got.cols() != want.cols()) return ::testing::AssertionFailure() << what << ": size mismatch";
  double worst = 0;
  for (Index j = 0; j < got.cols(); ++j)
    for (Index i = 0; i < got.rows(); ++i) {
      const Scalar err = got(i, j) - want(i, j);
      const double ratio = to_double(Scalar((err < Scalar(0) ? Scalar(-err) : err) / (tol * mag(i, j))));
      if (!(ratio <= 1.0)) return ::testing::AssertionFailure() << what << ": entry (" << i << ", " << j << ") off by " << ratio << " budgets";
      worst = std::max(worst, ratio);
    }
  return ::testing::AssertionSuccess() << what << ": worst " << worst << " of the budget";
}

// Magnitudes of the per-datum residuals and curvatures over the K points: max_k |r_ik|, max_k c_ik.
template <class Scalar, class Family>
std::pair<Vec<Scalar>, Vec<Scalar>> datum_maxima(const GlmVariational<Scalar, Family>& model, const Mat<Scalar>& z) {
  const auto& data = model.data();
  const Mat<Scalar> u = data.X * z;
  Vec<Scalar> r = Vec<Scalar>::Zero(data.n()), c = Vec<Scalar>::Zero(data.n());
  for (Index i = 0; i < data.n(); ++i)
    for (Index k = 0; k < z.cols(); ++k) {
      const auto t = Family::datum(data.y(i), u(i, k));
      using std::abs;
      r(i) = std::max<Scalar>(r(i), abs(t.resid));
      c(i) = std::max<Scalar>(c(i), t.curv);
    }
  return {r, c};
}

// Compares the block and point-by-point routes of both estimators at (m, L) on draws eps, the
// block route on `eps_block` (eps itself, or other draws for the control).
template <class Scalar, class Family>
::testing::AssertionResult routes_agree(const GlmVariational<Scalar, Family>& model, const Vec<Scalar>& m, const Mat<Scalar>& l,
                                        const Mat<Scalar>& eps, const Mat<Scalar>& eps_block) {
  const Index n = model.data().n(), d = model.dim(), k = eps.cols();
  const auto block = loglik_function(model);
  const auto pointwise = [&model](const Vec<Scalar>& z, bool h) { return model.loglik(z, h); };
  static_assert(BlockLogLik<decltype(block), Scalar> && !BlockLogLik<decltype(pointwise), Scalar>);
  const Mat<Scalar> z = (l * eps).colwise() + m;
  const auto [rmax, cmax] = datum_maxima(model, z);
  const Mat<Scalar> ax = model.data().X.cwiseAbs();
  const Mat<Scalar> gmag = ax.transpose() * rmax;
  const Mat<Scalar> hmag = ax.transpose() * cmax.asDiagonal() * ax;
  const Vec<Scalar> eps_mean = eps.cwiseAbs().rowwise().sum() / Scalar(k);
  const Mat<Scalar> lmag = gmag * eps_mean.transpose();
  const Scalar tol = rounding_budget<Scalar>(n + k + 2 * d);

  const auto pb = price_means(block, m, l, eps_block);
  const auto pp = price_means(pointwise, m, l, eps);
  auto r = entries_within<Scalar>(pb.grad, pp.grad, gmag, tol, "price g");
  if (!r) return r;
  r = entries_within<Scalar>(pb.hess, pp.hess, hmag, tol, "price H");
  if (!r) return r;
  const auto rb = reparam_gradient_mL_from(block, m, l, eps_block);
  const auto rp = reparam_gradient_mL_from(pointwise, m, l, eps);
  r = entries_within<Scalar>(rb.grad_m, rp.grad_m, gmag, tol, "reparam m");
  if (!r) return r;
  return entries_within<Scalar>(rb.grad_L, rp.grad_L, lmag, tol, "reparam L");
}

template <class Scalar>
struct Gaussian {
  Vec<Scalar> m;
  Mat<Scalar> l;
};

template <class Scalar>
Gaussian<Scalar> some_gaussian(Index d, std::uint64_t seed) {
  random::Stream rng(seed, 2);
  Gaussian<Scalar> q{Vec<Scalar>(d), Mat<Scalar>::Zero(d, d)};
  for (Index i = 0; i < d; ++i) {
    q.m(i) = Scalar(0.3 * rng.normal());
    q.l(i, i) = Scalar(0.5 + 0.5 * rng.uniform01());
    for (Index j = 0; j < i; ++j) q.l(i, j) = Scalar(0.2 * rng.normal());
  }
  return q;
}

template <class T>
class GlmBlock : public ::testing::Test {};
TYPED_TEST_SUITE(GlmBlock, test::Scalars);

TYPED_TEST(GlmBlock, LogisticBlockMeansAreThePointByPointMeansAndOtherDrawsAreNot) {
  using Scalar = TypeParam;
  const Index d = 6;
  const auto model = make_logistic_regression(logistic_data<Scalar>(150, d, 3),
                                              GaussianMoments<Scalar>{Vec<Scalar>::Zero(d), Mat<Scalar>::Identity(d, d)});
  const auto q = some_gaussian<Scalar>(d, 4);
  random::Stream rng(5, 0);
  for (int k : {1, 5}) {
    const Mat<Scalar> eps = standard_normal_block<Scalar>(d, k, rng);
    EXPECT_TRUE(routes_agree(model, q.m, q.l, eps, eps)) << "K " << k;
    const Mat<Scalar> other = standard_normal_block<Scalar>(d, k, rng);
    EXPECT_FALSE(routes_agree(model, q.m, q.l, eps, other)) << "K " << k;
  }
}

TYPED_TEST(GlmBlock, PoissonBlockMeansAreThePointByPointMeansAndOtherDrawsAreNot) {
  using Scalar = TypeParam;
  const Index d = 4;
  const PoissonRegression<Scalar> model(poisson_data<Scalar>(120, d, 6),
                                        GaussianMoments<Scalar>{Vec<Scalar>::Zero(d), Mat<Scalar>::Identity(d, d)}, PoissonFamily<Scalar>{});
  const auto q = some_gaussian<Scalar>(d, 7);
  random::Stream rng(8, 0);
  const Mat<Scalar> eps = standard_normal_block<Scalar>(d, 4, rng);
  EXPECT_TRUE(routes_agree(model, q.m, q.l, eps, eps));
  const Mat<Scalar> other = standard_normal_block<Scalar>(d, 4, rng);
  EXPECT_FALSE(routes_agree(model, q.m, q.l, eps, other));
}

TEST(GlmBlock, AnNgdStepTakesTheBlockRouteAndAgreesWithThePointByPointStep) {
  const Index d = 5;
  const auto model = make_logistic_regression(logistic_data<double>(200, d, 9),
                                              GaussianMoments<double>{Vec<double>::Zero(d), Mat<double>::Identity(d, d)});
  const auto prior = model.prior();
  const auto pointwise = [&model](const Vec<double>& z, bool h) { return model.loglik(z, h); };
  for (auto est : {PriceRoute::name, ReparamRoute::name}) {
    random::Stream r1(10, 0), r2(10, 0), r3(10, 1);
    const auto a = ngd_nonconjugate<double>(loglik_function(model), prior, prior, StepSchedule<double>::constant(0.5), 8, 1, r1, est);
    const auto b = ngd_nonconjugate<double>(pointwise, prior, prior, StepSchedule<double>::constant(0.5), 8, 1, r2, est);
    const auto c = ngd_nonconjugate<double>(loglik_function(model), prior, prior, StepSchedule<double>::constant(0.5), 8, 1, r3, est);
    // One step: η₁ = ½η_p + ½(η_p + ĝ), so the two differ by ½ of the estimators' difference,
    // bounded as above by the sum of |X|ᵀ(|r|, c)|X| magnitudes: Σ_i ‖x_i‖₁² (r ≤ 1, c ≤ 1/4, and
    // ĝ₁ = ḡ − H̄m with |m| ≤ 1 at the prior).
    double mag = 0;
    for (Index i = 0; i < model.data().n(); ++i) mag += std::pow(model.data().X.row(i).cwiseAbs().sum() + 1.0, 2);
    const double tol = rounding_budget<double>(model.data().n() + 8 + 2 * d) * mag;
    const double diff = std::max((a.last.first - b.last.first).cwiseAbs().maxCoeff(), (a.last.second - b.last.second).cwiseAbs().maxCoeff());
    EXPECT_LE(diff, tol) << std::string(est);
    const double other = std::max((c.last.first - b.last.first).cwiseAbs().maxCoeff(), (c.last.second - b.last.second).cwiseAbs().maxCoeff());
    EXPECT_GT(other, tol) << std::string(est);
  }
}

TEST(GlmBlock, BadBlocksAreNamed) {
  const Index d = 3;
  const auto logistic = make_logistic_regression(logistic_data<double>(20, d, 11),
                                                 GaussianMoments<double>{Vec<double>::Zero(d), Mat<double>::Identity(d, d)});
  Vec<double> g;
  Mat<double> h;
  using test::throws_with;
  EXPECT_TRUE(throws_with<std::invalid_argument>([&] { logistic.loglik_block_means(Mat<double>::Zero(d + 1, 2), true, g, h); },
                                                 {"loglik_block_means", "'z'", "d x K"}));
  EXPECT_TRUE(throws_with<std::invalid_argument>([&] { logistic.loglik_block_gradients(Mat<double>::Zero(d, 0), h); }, {"'z'", "K >= 1"}));
  Mat<double> nan_z = Mat<double>::Zero(d, 2);
  nan_z(1, 1) = std::nan("");
  EXPECT_TRUE(throws_with<std::domain_error>([&] { logistic.loglik_block_means(nan_z, false, g, h); }, {"'z'", "non-finite"}));
  const PoissonRegression<double> poisson(poisson_data<double>(20, d, 12),
                                          GaussianMoments<double>{Vec<double>::Zero(d), Mat<double>::Identity(d, d)}, PoissonFamily<double>{});
  Mat<double> huge = Mat<double>::Zero(d, 3);
  huge.col(2).setConstant(1e5);  // exp(x_iᵀz) overflows at the third point
  EXPECT_TRUE(throws_with<std::domain_error>([&] { poisson.loglik_block_means(huge, true, g, h); }, {"'z'", "sample 2"}));
  EXPECT_TRUE(throws_with<std::domain_error>([&] { poisson.loglik_block_gradients(huge, h); }, {"'z'", "sample 2"}));
}

}}  // namespace
}  // namespace ngvi
