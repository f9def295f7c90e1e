// The VPNG parts (models/vpng_models.hpp, estimators/predictive_fisher.hpp,
// optim/steppers/preconditioned.hpp, data/correlated_logistic.hpp) against independent routes:
// the exact ELBO gradient against 100-digit central differences of the exact ELBO; the logistic
// predictive Fisher against enumeration of every label vector; the exact F_r's blocks against
// E[JᵀGJ] with E[ε] = 0, E[εεᵀ] = I; the preconditioners against dense solves; the F_r and damping
// parts written as the library's against the library's; AUC against pair counting; and the errors
// that name their argument.
#include <Eigen/LU>
#include <cmath>

#include "ngvi/data/correlated_logistic.hpp"
#include "ngvi/optim/steppers/preconditioned.hpp"
#include "ngvi/random/stream.hpp"
#include "test_util.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

// Central differences in mp100 with h = 1e-25: truncation O(h²) ≈ 1e-50 and rounding 1e-100/h ≈
// 1e-75, relative to O(1)-to-O(1e4) entries; 1e-40 relative leaves a wide margin and is far below
// any formula error.
const double kFdRelative = 1e-40;

TEST(VpngModels, ExactElboGradientMatchesCentralDifferences) {
  random::Stream rng(7, 1);
  const auto m = bivariate_example<mp100>(mp100(1) / 100, 20, mp100(10), rng);
  Vec<mp100> l(4);
  l << mp100(1) / 3, -mp100(1) / 5, -mp100(1) / 2, mp100(1) / 4;
  const Vec<mp100> g = m.elbo_gradient(l);
  const mp100 h("1e-25");
  for (Index i = 0; i < 4; ++i) {
    Vec<mp100> p = l, q = l;
    p(i) += h;
    q(i) -= h;
    const mp100 fd = (m.elbo(p) - m.elbo(q)) / (2 * h);
    const double rel = static_cast<double>(abs(fd - g(i)) / (abs(g(i)) + 1));
    EXPECT_TRUE(std::isfinite(rel) && rel <= kFdRelative) << "entry " << i << " rel " << rel;
  }
}

TEST(VpngModels, LogisticPredictiveFisherIsTheScoreOuterProductOverAllLabels) {
  Mat<double> x(3, 2);
  x << 1, -0.5, 0.25, 2, -1.5, 0.75;
  const LogisticModel<double> m(x, Vec<double>::Zero(3));
  Vec<double> w(2);
  w << 0.5, -0.25;
  const Vec<double> p = m.probabilities(w);
  Mat<double> expect = Mat<double>::Zero(2, 2);
  for (int mask = 0; mask < 8; ++mask) {
    double prob = 1;
    Vec<double> r(3);
    for (int k = 0; k < 3; ++k) {
      const bool one = (mask >> k) & 1;
      prob *= one ? p(k) : 1 - p(k);
      r(k) = (one ? 1.0 : 0.0) - p(k);
    }
    const Vec<double> s = x.transpose() * r;
    expect += prob * s * s.transpose();
  }
  // 8 terms of 3-term sums: Higham's γ_n with n = 32, relative to the entries' scale.
  const double tol = rounding_budget<double>(32) * expect.norm();
  EXPECT_LE((m.predictive_fisher(w) - expect).norm(), tol);
}

TEST(VpngFisher, ExactFormIsBlockDiagonal) {
  Mat<double> g(2, 2);
  g << 4, 1, 1, 3;
  Vec<double> s(2);
  s << 0.5, 2;
  // E[ε] = 0, E[εεᵀ] = I.
  const Mat<double> f = predictive_fisher_exact<double>(g, s);
  EXPECT_EQ(f(0, 2), 0.0);
  EXPECT_EQ(f(2, 2), s(0) * s(0) * g(0, 0));
  EXPECT_EQ(f(3, 3), s(1) * s(1) * g(1, 1));
}

TEST(VpngFisher, AnalyticMonteCarloIsExactInTheMeanBlockOfAGaussianModel) {
  random::Stream rng(3, 1);
  const auto m = bivariate_example<double>(0.25, 10, 2.0, rng);
  Vec<double> l = Vec<double>::Zero(4);
  const Mat<double> f = predictive_fisher_mc<double>(m, l, 3, FisherRoute::kAnalytic, rng);
  const Mat<double> g = m.predictive_fisher(Vec<double>::Zero(2));
  EXPECT_LE((f.topLeftCorner(2, 2) - g).norm(), rounding_budget<double>(8) * g.norm());
}

TEST(VpngPreconditioners, MatchDenseSolves) {
  Vec<double> l(4);
  l << 0.1, -0.2, std::log(0.5), std::log(2.0);
  MeanFieldDirection<double> d{Vec<double>(4), Mat<double>(4, 4), true};
  d.grad << 1, -2, 0.5, 0.25;
  Mat<double> a = Mat<double>::Random(4, 4);
  d.fisher = a * a.transpose();
  const double delta = 0.375;
  const Mat<double> damped = d.fisher + delta * Mat<double>::Identity(4, 4);
  const Vec<double> expect = damped.fullPivLu().solve(d.grad);
  const double tol = rounding_budget<double>(16, damped.norm() * damped.inverse().norm()) * expect.norm();
  EXPECT_LE((PredictiveFisherNatural<double>(delta).solve(l, d) - expect).norm(), tol);
  const Mat<double> fq = q_fisher(l) + delta * Mat<double>::Identity(4, 4);
  const Vec<double> expect_q = fq.fullPivLu().solve(d.grad);
  EXPECT_LE((QFisherNatural<double>(delta).solve(l, d) - expect_q).norm(), rounding_budget<double>(16, 8.0) * expect_q.norm());
  EXPECT_EQ(PlainGradient{}.solve(l, d), d.grad);
  // The damping part: the library's written out gives the same direction bitwise; δ put on the
  // gradient instead gives a different one.
  const DampingPart<double> on_matrix = [](const double& dl, Mat<double>& p, Vec<double>&) { p.diagonal().array() += dl; };
  EXPECT_EQ(PredictiveFisherNatural<double>(delta, on_matrix).solve(l, d), PredictiveFisherNatural<double>(delta).solve(l, d));
  const DampingPart<double> on_gradient = [](const double& dl, Mat<double>&, Vec<double>& rhs) { rhs.array() += dl; };
  EXPECT_GT((PredictiveFisherNatural<double>(delta, on_gradient).solve(l, d) - expect).norm(), 1e-3 * expect.norm());
}

// The estimator's F_r part: given, it replaces every route's estimate but kNone and reads the
// estimator's own stream (the library's analytic route written through the request gives the same
// matrix, bitwise, from the same stream).
TEST(VpngFisher, FisherPartReplacesTheRouteAndReadsTheStream) {
  random::Stream data(3, 1);
  const auto m = bivariate_example<double>(0.25, 10, 2.0, data);
  Vec<double> l(4);
  l << 0.1, -0.2, std::log(0.5), std::log(2.0);
  const FisherEstimate<double> analytic = [&m](const FisherRequest<double>& r) {
    const Vec<double> mu = mf_mu(*r.lambda), sigma = mf_sigma(*r.lambda);
    Mat<double> acc = Mat<double>::Zero(4, 4);
    Vec<double> e(2);
    for (long k = 0; k < r.draws; ++k) {
      for (Index i = 0; i < 2; ++i) e(i) = r.normal();
      const Mat<double> j = reparam_jacobian<double>(sigma, e);
      acc.noalias() += j.transpose() * r.g(Vec<double>(mu + sigma.cwiseProduct(e))) * j;
    }
    acc /= double(r.draws);
    symmetrise_in_place(acc);
    return acc;
  };
  PredictiveFisherOptions o;
  o.grad_draws = 2;
  o.route = FisherRoute::kAnalytic;
  o.fisher_draws = 3;
  PreconditionedStepper<double, PlainGradient> s(l, PlainGradient{});
  PredictiveFisherEstimator<GaussianMeanModel<double>, random::Stream> lib(m, o, random::Stream(7, 2)), part(m, o, random::Stream(7, 2), analytic);
  auto dl = s.make_direction(), dp = s.make_direction();
  for (int step = 0; step < 2; ++step) {
    lib.estimate(step, s, dl);
    part.estimate(step, s, dp);
    EXPECT_TRUE(dp.has_fisher);
    EXPECT_EQ(dl.grad, dp.grad);
    EXPECT_EQ(dl.fisher, dp.fisher);
  }
  o.route = FisherRoute::kNone;
  PredictiveFisherEstimator<GaussianMeanModel<double>, random::Stream> none(m, o, random::Stream(7, 2), analytic);
  auto dn = s.make_direction();
  none.estimate(0, s, dn);
  EXPECT_FALSE(dn.has_fisher);
}

TEST(VpngPreconditioners, ErrorsNameTheArgument) {
  EXPECT_TRUE(test::throws_with<std::domain_error>([] { PredictiveFisherNatural<double>(0.0); }, {"delta", "> 0"}));
  EXPECT_TRUE(test::throws_with<std::domain_error>([] { QFisherNatural<double>(-1.0); }, {"delta", ">= 0"}));
  const Vec<double> l = Vec<double>::Zero(4);
  MeanFieldDirection<double> d{Vec<double>::Ones(4), Mat<double>(), false};
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([&] { PredictiveFisherNatural<double>(1.0).solve(l, d); }, {"direction.fisher"}));
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([] { PreconditionedStepper<double, PlainGradient>(Vec<double>::Zero(3), PlainGradient{}); }, {"lambda0"}));
  Mat<double> x = Mat<double>::Ones(2, 2);
  const LogisticModel<double> m(x, Vec<double>::Zero(2));
  PredictiveFisherOptions o;
  o.grad_draws = 0;
  PredictiveFisherEstimator<LogisticModel<double>, random::Stream> est(m, o, random::Stream(1, 1));
  PreconditionedStepper<double, PlainGradient> s(Vec<double>::Zero(4), PlainGradient{});
  auto dir = s.make_direction();
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([&] { est.estimate(0, s, dir); }, {"options.grad_draws"}));
  EXPECT_TRUE(test::throws_with<std::domain_error>([] { LogisticModel<double>(Mat<double>::Ones(2, 1), Vec<double>::Constant(2, 0.5)); }, {"'y'"}));
}

TEST(VpngAuc, MatchesPairCountingWithTies) {
  const std::vector<double> s{0.1, 0.4, 0.4, 0.8, 0.2, 0.4, 0.9};
  const std::vector<int> y{0, 1, 0, 1, 1, 0, 1};
  double wins = 0;
  long pairs = 0;
  for (std::size_t i = 0; i < s.size(); ++i)
    for (std::size_t j = 0; j < s.size(); ++j)
      if (y[i] == 1 && y[j] == 0) {
        ++pairs;
        wins += s[i] > s[j] ? 1.0 : (s[i] == s[j] ? 0.5 : 0.0);
      }
  EXPECT_DOUBLE_EQ(roc_auc(s, y), wins / double(pairs));
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([] { roc_auc({1, 2}, {1, 1}); }, {"labels", "both classes"}));
}

TEST(VpngData, GeneratorPutsTheSignalOrthogonalToTheCommonFactor) {
  data::CorrelatedLogisticOptions o;
  const auto d = data::correlated_logistic_data(o, 5);
  EXPECT_LE(std::fabs(d.w_star.sum()), rounding_budget<double>(4 * o.dim) * d.w_star.lpNorm<1>());
  EXPECT_NEAR(std::sqrt(1 - o.correlation) * d.w_star.norm(), o.signal, rounding_budget<double>(4 * o.dim) * o.signal);
  EXPECT_EQ(d.x_train.rows(), o.n_train);
  o.correlation = 1;
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { data::correlated_logistic_data(o, 5); }, {"correlation"}));
}

}}  // namespace
}  // namespace ngvi
