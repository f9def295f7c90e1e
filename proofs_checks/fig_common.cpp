// Out-of-line helpers of fig_common.hpp: the replicate runs of the library's NGD and of the SGD
// baseline and the posterior's eigenvalues, compiled once instead of in every unit including the
// header.
#include "fig_common.hpp"

namespace ngvi::claims {

std::pair<double, double> posterior_precision_extremes(const LinearRegression<double>& model) {
  const Mat<double> prec = -2.0 * model.posterior_natural().eta2();
  const Eigen::SelfAdjointEigenSolver<Mat<double>> es(prec, Eigen::EigenvaluesOnly);
  return {es.eigenvalues().minCoeff(), es.eigenvalues().maxCoeff()};
}

StepSchedule<double> sgd_baseline_schedule(const LinearRegression<double>& model, double c_mu) {
  const auto [mu, l] = posterior_precision_extremes(model);
  return StepSchedule<double>::inverse_time(c_mu / mu, 2.0 * l / mu);
}

LossTable ngd_average_kls(const LinearRegression<double>& model, Index batch, long replicates, std::uint64_t seed,
                          std::uint64_t stream, const StepSchedule<double>& schedule, const std::vector<long>& cps,
                          const Variant* variant, int threads, double scale, const GaussianMoments<double>* reference) {
  const auto post = reference ? *reference : model.posterior_moments();
  return parallel::run_replicates(replicates, threads, [&](long r) {
    random::Stream rng(seed, stream + static_cast<std::uint64_t>(r));
    const auto res = blr_replicate<double>(model, batch, rng, schedule, cps, variant, scale);
    std::vector<double> kl(cps.size(), std::numeric_limits<double>::quiet_NaN());
    if (res.ok() && res.checkpoint_averages.size() == cps.size())
      for (std::size_t k = 0; k < cps.size(); ++k) kl[k] = kl_gaussian(expectation_to_moments(res.checkpoint_averages[k]), post);
    return kl;
  });
}

LossTable sgd_kls(const LinearRegression<double>& model, Index batch, long replicates, std::uint64_t seed, std::uint64_t stream,
                  const StepSchedule<double>& schedule, const std::vector<long>& cps, double clamp, int threads) {
  const auto post = model.posterior_moments();
  return parallel::run_replicates(replicates, threads, [&](long r) {
    random::Stream rng(seed, stream + static_cast<std::uint64_t>(r));
    std::vector<double> kl(cps.size(), std::numeric_limits<double>::quiet_NaN());
    std::size_t next = 0;
    run_sgd_mL(model, batch, clamp, schedule, cps.back(), rng, OnStep{[&](const auto& e) {
                 if (next < cps.size() && cps[next] == e.t + 1) kl[next++] = kl_gaussian(e.stepper.point().moments(), post);
               }});
    return kl;
  });
}

BlrInstance fig1_instance(const RunContext& ctx, double kappa) {
  const auto name = "synthetic-n100-d3-kx" + fmt(kappa) + "-M5";
  return {name, data::synthetic_regression(100, 3, kappa, 0.7, ctx.seed + 31), Mat<double>::Identity(3, 3), 0.5, 5};
}

}  // namespace ngvi::claims
