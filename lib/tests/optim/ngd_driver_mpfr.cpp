// The NGD driver in the MPFR-backed 50-digit scalar (`mpfr50`): stochastic eq. (15) trajectories,
// with the conversion and Theorem 1's running average, agree with the same trajectories in mp100 (the
// same batches) to the budget of 50-digit rounding. This covers the routes the step takes in a
// software scalar on data cast from double: the exact batch sums (kernels/fixed_point_columns.hpp),
// the unblocked LDLᵀ conversion (d ≤ 32) and the block sweep with unblocked leaves (d = 40). The
// row-product batch sums, for data that are not doubles, are checked entry by entry in mp50
// (estimators/minibatch_software_routes_test.cpp). In its own translation unit, as every mpfr type.
#include <Eigen/Eigenvalues>
#include <cmath>

#include "ngvi/estimators/minibatch_gradient.hpp"
#include "ngvi/data/synthetic_regression.hpp"
#include "ngvi/optim/ngd_driver.hpp"
#include "ngvi/scalar/mpfr_types.hpp"
#include "test_util.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

template <class Scalar>
LinearRegression<Scalar> model_of(Index d, std::uint64_t seed) {
  return LinearRegression<Scalar>(cast_dataset<Scalar>(data::synthetic_regression(64, d, 10.0, 0.7, seed)),
                                  Mat<Scalar>::Identity(d, d), Scalar(1) / 2);
}

// The error budgets of HighPrecision.ThousandStepsDoubleAgreeWithMp50 (ngd_driver_test.cpp) with
// the unit roundoff of the scalar under test: γ_{3T+M+8}·G for η_T, where G = max_t ‖η_p + ĝ_t‖, and
// that times κ_map/‖η_T‖ for the relative error of μ̄_T. The mp100 reference's own error is 2^-166
// times smaller and is neglected.
struct Agreement {
  double eta_err, eta_budget, mu_err, mu_budget;
};

template <class Scalar>
Agreement agreement_with_mp100(Index d, Index m, long steps, std::uint64_t seed) {
  const auto ref_model = model_of<mp100>(d, seed);
  const auto model = model_of<Scalar>(d, seed);
  MinibatchGradient<mp100> ref_est(ref_model, m);
  MinibatchGradient<Scalar> est(model, m);
  random::Stream ref_rng(21, seed), rng(21, seed);
  mp100 g_max(0);
  NgdOptions opt;
  opt.steps = steps;
  const auto ref = run_ngd(ref_model.prior_natural(), standard_natural<mp100>(d),
                           [&](long, const GaussianNatural<mp100>&, GaussianPair<mp100>& g) {
                             ref_est.draw(ref_rng);
                             ref_est.evaluate(g);
                             g_max = std::max(g_max, sqrt(pair_squared_norm<mp100>(g + ref_model.prior_natural())));
                           },
                           StepSchedule<mp100>::theorem1(), opt);
  const auto res = run_ngd_minibatch(model, standard_natural<Scalar>(d), est, rng, StepSchedule<Scalar>::theorem1(), opt);
  const long ops = 3 * steps + m + 8;
  const mp100 u_budget = mp100(rounding_budget<Scalar>(ops));
  Agreement a{};
  const mp100 eta_norm = sqrt(pair_squared_norm<mp100>(ref.last));
  a.eta_err = to_double(sqrt(pair_squared_norm<mp100>(ref.last - data::cast_pair<mp100>(static_cast<const GaussianPair<Scalar>&>(res.last)))));
  a.eta_budget = to_double(u_budget * g_max);
  const auto q = natural_to_moments(GaussianNatural<double>(data::cast_pair<double>(static_cast<const GaussianPair<mp100>&>(ref.last))));
  Eigen::SelfAdjointEigenSolver<Mat<double>> es(q.cov);
  const double kappa = es.eigenvalues().maxCoeff() / es.eigenvalues().minCoeff() *
                       (1.0 + q.mean.squaredNorm() / es.eigenvalues().minCoeff());
  const GaussianPair<mp100> avg_ref = *ref.average;
  a.mu_err = to_double(sqrt(pair_squared_norm<mp100>(avg_ref - data::cast_pair<mp100>(static_cast<const GaussianPair<Scalar>&>(*res.average)))) /
                       sqrt(pair_squared_norm<mp100>(avg_ref)));
  a.mu_budget = to_double(u_budget * mp100(kappa) * g_max / eta_norm);
  return a;
}

TEST(HighPrecision, Mpfr50TrajectoriesAgreeWithMp100) {
  struct Case {
    Index d, m;
    long steps;
  };
  // d = 3 with a long run; the benchmark's (10, 32); the block sweep at 40.
  for (const Case c : {Case{3, 2, 1000}, Case{10, 32, 200}, Case{40, 8, 20}}) {
    const Agreement a = agreement_with_mp100<mpfr50>(c.d, c.m, c.steps, static_cast<std::uint64_t>(c.d));
    EXPECT_TRUE(a.eta_err == a.eta_err && a.eta_err <= a.eta_budget)
        << "d " << c.d << " eta error " << a.eta_err << " budget " << a.eta_budget;
    EXPECT_TRUE(a.mu_err == a.mu_err && a.mu_err <= a.mu_budget)
        << "d " << c.d << " mubar relative error " << a.mu_err << " budget " << a.mu_budget;
  }
}

// Control: the same comparison run in double exceeds the 50-digit budget by many orders, so the test
// above would fail if any part of the mpfr50 step were computed at hardware precision.
TEST(HighPrecision, DoubleTrajectoryBreaksTheFiftyDigitBudget) {
  const Agreement dbl = agreement_with_mp100<double>(10, 32, 200, 10);
  const Agreement mp = agreement_with_mp100<mpfr50>(10, 32, 200, 10);
  EXPECT_GT(dbl.eta_err, mp.eta_budget);
  EXPECT_LE(dbl.eta_err, dbl.eta_budget);  // and double meets its own budget
}

}}  // namespace
}  // namespace ngvi
