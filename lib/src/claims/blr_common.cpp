// Out-of-line helpers of blr_common.hpp. As inline functions every unit including the header (the
// conjugate claims, fig_common.hpp, the trajectory lemmas) instantiated what they use (Eigen's
// eigensolver, the Student-t quantile, the step-variance trajectory, the parameter maps) again;
// here they are compiled once.
#include "ngvi/claims/blr_common.hpp"

#include <Eigen/Eigenvalues>

namespace ngvi::claims {

std::vector<BlrInstance> blr_instances(const RunContext& ctx) {
  std::vector<BlrInstance> v;
  data::Rng rng(ctx.seed + 17);
  v.push_back({"well-n12-d3-M2", data::synthetic_regression(12, 3, 1.0, 0.7, ctx.seed + 1), Mat<double>::Identity(3, 3), 0.5, 2});
  v.push_back({"ill-n12-d3-M2", data::synthetic_regression(12, 3, 1e3, 0.7, ctx.seed + 2), data::random_spd(3, 10.0, rng, 0.3), 0.5, 2});
  if (ctx.full) {
    v.push_back({"well-n200-d5-M10", data::synthetic_regression(200, 5, 1.0, 0.7, ctx.seed + 3), Mat<double>::Identity(5, 5), 0.5, 10});
    v.push_back({"ill-n200-d8-M16", data::synthetic_regression(200, 8, 1e4, 0.7, ctx.seed + 4), data::random_spd(8, 100.0, rng, 0.1), 0.5, 16});
    if (data::builtin_available("diabetes")) {
      auto dd = data::load_builtin("diabetes");
      data::standardize(dd);
      const double sd = std::sqrt(dd.y.squaredNorm() / static_cast<double>(dd.n()));
      if (sd > 0) dd.y /= sd;  // unit-variance targets, so s_e² = 0.5 is on the data's scale
      const Index d = dd.d();
      v.push_back({"diabetes-n442-d10-M32", std::move(dd), Mat<double>::Identity(d, d), 0.5, 32});
    }
  }
  return v;
}

Vec<double> shifted_prior_mean(const BlrInstance& inst, double k) {
  const auto c = blr_constants<double>(inst.data, inst.prior_cov, inst.noise_var, inst.batch);
  Vec<double> e = Vec<double>::Zero(inst.data.d());
  e(0) = k * c.b;
  return inst.prior_cov * e;
}

double lambda_max(const Mat<double>& a) {
  Eigen::SelfAdjointEigenSolver<Mat<double>> es(a, Eigen::EigenvaluesOnly);
  return es.eigenvalues().maxCoeff();
}

double t_bound99(const std::vector<double>& x, double sign) {
  return stats::t_confidence_bound(x, 0.99, sign > 0 ? stats::Side::kUpper : stats::Side::kLower);
}

MeasuredVariance measured_sigma2(const LinearRegression<double>& model, long batch, long T, const RunContext& ctx,
                                 std::uint64_t stream) {
  StepVarianceOptions opt;
  opt.enumeration_limit = kEnumerationLimit;
  opt.samples = kVarianceSamples;
  opt.confidence = 0.99;
  const auto prof = step_variance_along_trajectory(model, batch, standard_natural<double>(model.d()),
                                                   StepSchedule<double>::theorem1(), variance_grid(T),
                                                   random::Stream(ctx.seed, stream), random::Stream(ctx.seed, stream + 1), opt);
  return {prof.max_upper, prof.exact, static_cast<long>(prof.points.size())};
}

double tempered_kl(const LinearRegression<double>& model, double b) {
  GaussianNatural<double> e = model.prior_natural();
  GaussianPair<double> g = model.loglik_gradient();
  g.first *= b;
  g.second *= b;
  e += g;
  return kl_gaussian(natural_to_moments(e), model.posterior_moments());
}

double bias_for_kl(const LinearRegression<double>& model, double target) {
  double lo = 0, hi = 1e-3;
  while (tempered_kl(model, 1 + hi) < target) hi *= 2;
  for (int i = 0; i < 100 && hi - lo > 1e-12 * hi; ++i) {
    const double mid = (lo + hi) / 2;
    (tempered_kl(model, 1 + mid) < target ? lo : hi) = mid;
  }
  return hi;
}

double deficit_for_kl(const LinearRegression<double>& model, double target) {
  if (!(tempered_kl(model, 0.0) > target)) return std::numeric_limits<double>::quiet_NaN();
  double lo = 0, hi = 1;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    const double mid = (lo + hi) / 2;
    (tempered_kl(model, 1 - mid) < target ? lo : hi) = mid;
  }
  return hi;
}

}  // namespace ngvi::claims
