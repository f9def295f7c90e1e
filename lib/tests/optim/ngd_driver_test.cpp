// The NGD driver, recorder and SGD baseline (docs/math.md §2.4, §4.5, §7.1), and the
// high-precision agreement of issue 3 item 7: 1000 steps of eq. (15) NGD in double and in mp50 on
// the same batches agree to a derived budget, so double results are not rounding artefacts.
#include <Eigen/Eigenvalues>
#include <cmath>

#include "ngvi/estimators/minibatch_gradient.hpp"
#include "ngvi/data/synthetic_regression.hpp"
#include "ngvi/optim/ngd_driver.hpp"
#include "ngvi/optim/sgd_mL.hpp"
#include "test_util.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

template <class Scalar>
LinearRegression<Scalar> small(std::uint64_t seed) {
  return LinearRegression<Scalar>(cast_dataset<Scalar>(data::synthetic_regression(12, 3, 10.0, 0.7, seed)),
                                  Mat<Scalar>::Identity(3, 3), Scalar(1) / 2);
}

TEST(NgdDriver, ExactStepWithUnitGammaReachesPosteriorAndRecorderIsSparse) {
  const auto model = small<double>(1);
  auto rec = blr_recorder(model, 10);
  NgdOptions opt;
  opt.steps = 95;
  const auto exact = model.loglik_gradient();
  const auto res = run_ngd(model.prior_natural(), standard_natural<double>(3),
                           [&](long, const GaussianNatural<double>&, GaussianPair<double>& g) { g = exact; },
                           StepSchedule<double>::constant(1.0), opt, RecordTrajectory{&rec});
  EXPECT_TRUE(test::mat_rel_close<double>(res.last.eta2(), model.posterior_natural().eta2(), rounding_budget<double>(8)));
  // Points at t = 0, 10, …, 90 and the last step 95: O(T/k).
  ASSERT_EQ(rec.points().size(), 11u);
  EXPECT_EQ(rec.points().back().t, 95);
  EXPECT_GT(rec.points().front().kl, 0.0);
  EXPECT_LE(rec.points().back().kl, rounding_budget<double>(64, 1e3));
  EXPECT_TRUE(test::rel_close<double>(rec.points().back().f, -model.log_evidence(), rounding_budget<double>(256, 1e3)));
  ASSERT_TRUE(res.average.has_value());
}

TEST(NgdDriver, StepsOutsideTheTheoremAreRejectedOrDetected) {
  const auto model = small<double>(2);
  MinibatchGradient<double> est(model, 2);
  random::Stream rng(3, 0);
  NgdOptions opt;
  opt.steps = 50;
  EXPECT_TRUE(test::throws_with<std::domain_error>(
      [&] { run_ngd_minibatch(model, standard_natural<double>(3), est, rng, StepSchedule<double>::constant(1.5), opt); },
      {"ngvi::run_trajectory", "schedule", "(0, 1]"}));
  opt.theorem_steps = false;
  const auto tr = run_ngd_minibatch(model, standard_natural<double>(3), est, rng, StepSchedule<double>::constant(2.0), opt);
  ASSERT_FALSE(tr.ok());
  EXPECT_EQ(tr.failure->argument, "eta");
  EXPECT_NE(tr.failure->message().find("left Omega"), std::string::npos) << tr.failure->message();
  EXPECT_TRUE(in_natural_domain(tr.last)) << "the trajectory keeps the last iterate inside Omega";
  EXPECT_EQ(tr.steps, tr.failure->step);
  opt.checkpoints = {5, 3};
  EXPECT_TRUE(test::throws_with<std::domain_error>(
      [&] { run_ngd_minibatch(model, standard_natural<double>(3), est, rng, StepSchedule<double>::theorem1(), opt); },
      {"options.checkpoints"}));
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { TrajectoryRecorder<double>(0, nullptr); }, {"every"}));
}

TEST(NgdDriver, CheckpointAveragesMatchShorterRuns) {
  const auto model = small<double>(4);
  NgdOptions opt;
  opt.steps = 40;
  opt.checkpoints = {10, 40};
  MinibatchGradient<double> e1(model, 2), e2(model, 2);
  random::Stream r1(9, 1), r2(9, 1);
  const auto long_run = run_ngd_minibatch(model, standard_natural<double>(3), e1, r1, StepSchedule<double>::theorem1(), opt);
  NgdOptions short_opt;
  short_opt.steps = 10;
  const auto short_run = run_ngd_minibatch(model, standard_natural<double>(3), e2, r2, StepSchedule<double>::theorem1(), short_opt);
  ASSERT_EQ(long_run.checkpoint_averages.size(), 2u);
  EXPECT_EQ(long_run.checkpoint_averages[0].mu2(), short_run.average->mu2());
}

// SGD on (m, L): with all n indices once, the closed-form gradient equals the gradient of
// F(m, L) = f(μ(m, LLᵀ)) by central differences in mp50. Step h = ε^{1/3}: the error is at most
// h²|F'''|/6 + ε|F|/h = ε^{2/3}(|F'''|/6 + |F|); kFdSafety bounds |F'''|/6 for this instance
// (unit prior, d = 3, entries of L of order 1) with room.
TEST(SgdML, FullBatchGradientMatchesCentralDifferencesMp50) {
  using std::cbrt;
  using std::abs;
  const auto model = small<mp50>(5);
  SgdML<mp50> sgd(model, 12, mp50(1) / 1000);
  Vec<mp50> m(3);
  m << mp50(1) / 4, mp50(-1) / 2, mp50(1) / 8;
  Mat<mp50> l = Mat<mp50>::Identity(3, 3);
  l(1, 0) = mp50(1) / 4;
  l(2, 1) = mp50(-1) / 8;
  l(2, 2) = mp50(3) / 2;
  std::vector<Index> all(12);
  for (Index i = 0; i < 12; ++i) all[static_cast<std::size_t>(i)] = i;
  const auto [gm, gl] = sgd.gradient(m, l, all);
  auto F = [&](const Vec<mp50>& mm, const Mat<mp50>& ll) {
    Mat<mp50> s = ll * ll.transpose();
    return model.neg_elbo(moments_to_expectation(GaussianMoments<mp50>{mm, symmetrise(s)}));
  };
  const mp50 h = cbrt(eps<mp50>());
  const mp50 kFdSafety(1000);
  const mp50 tol = kFdSafety * h * h * (1 + abs(F(m, l)));
  for (Index i = 0; i < 3; ++i) {
    Vec<mp50> mp = m, mm = m;
    mp(i) += h;
    mm(i) -= h;
    const mp50 fd = (F(mp, l) - F(mm, l)) / (2 * h);
    EXPECT_TRUE(abs(fd - gm(i)) <= tol) << to_double(fd) << " vs " << to_double(gm(i));
    for (Index j = 0; j <= i; ++j) {
      Mat<mp50> lp = l, lm = l;
      lp(i, j) += h;
      lm(i, j) -= h;
      const mp50 fdl = (F(m, lp) - F(m, lm)) / (2 * h);
      EXPECT_TRUE(abs(fdl - gl(i, j)) <= tol) << i << "," << j << ": " << to_double(fdl) << " vs " << to_double(gl(i, j));
    }
  }
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { SgdML<mp50>(model, 2, mp50(0)); }, {"clamp"}));
}

TEST(SgdML, ClampKeepsDiagonalAndDecreasesKl) {
  const auto model = small<double>(6);
  random::Stream rng(1, 1);
  const double kl0 = model.kl_to_posterior(SgdML<double>(model, 4, 1e-3).stepper().point().moments());
  long clamped_steps = 0;
  const auto tr = run_sgd_mL(model, 4, 1e-3, StepSchedule<double>::inverse_time(0.5, 200.0), 3000, rng, OnStep{[&](const auto& e) {
                               for (Index i = 0; i < 3; ++i) clamped_steps += e.stepper.point().l(i, i) < 1e-3;
                             }});
  ASSERT_TRUE(tr.ok());
  EXPECT_EQ(clamped_steps, 0) << "a diagonal entry of L fell below the clamp";
  EXPECT_LT(model.kl_to_posterior(tr.last.moments()), kl0);
}

// Item 7. Per step, ĝ carries γ_{M+2} relative error on terms of size at most G = max_t ‖η_p + ĝ_t‖
// (Higham Thm 3.5) and the convex combination three roundings of size ‖η‖; older errors are
// multiplied by Π(1 − γ_s) ≤ 1, so after T steps the error of η_T is below γ_{3T+M+8}·G. μ̄_T adds
// the forward error of each conversion, at most κ_map = κ(S)(1 + ‖m‖²/λ_min(S)) times larger
// (Higham §14.3), maximised over the trajectory's end points.
TEST(HighPrecision, ThousandStepsDoubleAgreeWithMp50) {
  constexpr long T = 1000;
  const auto md = small<double>(7);
  const auto mm = small<mp50>(7);
  MinibatchGradient<double> ed(md, 2);
  MinibatchGradient<mp50> em(mm, 2);
  random::Stream rd(21, 0), rm(21, 0);
  double g_max = 0;
  NgdOptions opt;
  opt.steps = T;
  const auto resd = run_ngd(md.prior_natural(), standard_natural<double>(3),
                            [&](long, const GaussianNatural<double>&, GaussianPair<double>& g) {
                              ed.draw(rd);
                              ed.evaluate(g);
                              g_max = std::max(g_max, std::sqrt(pair_squared_norm<double>(g + md.prior_natural())));
                            },
                            StepSchedule<double>::theorem1(), opt);
  const auto resm = run_ngd_minibatch(mm, standard_natural<mp50>(3), em, rm, StepSchedule<mp50>::theorem1(), opt);
  const auto eta_md = data::cast_pair<double>(static_cast<const GaussianPair<mp50>&>(resm.last));
  const double err = std::sqrt(pair_squared_norm<double>(resd.last - eta_md));
  const double budget = rounding_budget<double>(3 * T + 2 + 8) * g_max;
  EXPECT_TRUE(err == err && err <= budget) << "eta error " << err << " budget " << budget;
  const auto q = natural_to_moments(resd.last);
  Eigen::SelfAdjointEigenSolver<Mat<double>> es(q.cov);
  const double kappa = es.eigenvalues().maxCoeff() / es.eigenvalues().minCoeff() *
                       (1.0 + q.mean.squaredNorm() / es.eigenvalues().minCoeff());
  const auto avg_md = data::cast_pair<double>(static_cast<const GaussianPair<mp50>&>(*resm.average));
  const double err_mu = std::sqrt(pair_squared_norm<double>(*resd.average - avg_md)) /
                        std::sqrt(pair_squared_norm<double>(avg_md));
  const double budget_mu = rounding_budget<double>(3 * T + 2 + 8, kappa) * g_max /
                           std::sqrt(pair_squared_norm<double>(resd.last));
  EXPECT_TRUE(err_mu == err_mu && err_mu <= budget_mu) << "mubar relative error " << err_mu << " budget " << budget_mu;
}

}}  // namespace
}  // namespace ngvi
