// DESCRIPTION
// Claim prop1.unique_stationary (Wu & Gardner 2024, Proposition 1; docs/math.md §6.3, tag [R]): for
// a log-concave, differentiable likelihood with Gaussian prior, f(μ) has a unique stationary point,
// so stochastic NGD (Price gradient) from any start reaches the same q as SGD in (m, L).
// Reference: an independent optimiser in another parameterisation: SGD in (m, L) with the Price
// gradient ("SGD (p)"), run three times with independent streams from one start. The tolerance is
// the Monte Carlo noise floor of those runs, tol = kNoiseFactor · max pairwise KL_sym between them
// (KL_sym(p, q) = KL(p‖q) + KL(q‖p)), floored at rounding_budget(100) (printed); kNoiseFactor = 10
// allows NGD's own noise to be up to ten times SGD's (both average the second half of T iterations
// with O(1/t) steps). The claim: max over NGD starts of KL_sym(q_NGD, q_SGD) ≤ tol.
// Instances: logistic and Poisson regression on small random data (n = 30, two features + bias);
// quick: 3 random starts, double only; full: 20 starts, longer runs.
// Negative control: NGD on the same data with prior N(0, 4I), a different objective whose stationary
// point differs, compared with the same SGD reference: must exceed the tolerance.
#include "nonconjugate_common.hpp"
#include "ngvi/optim/ngd_nonconjugate.hpp"
#include "ngvi/optim/sgd_mL_nonconjugate.hpp"

namespace ngvi::claims {
namespace {

constexpr const char* kId = "prop1.unique_stationary";
constexpr double kNoiseFactor = 10.0;

template <class Scalar, class LogLik>
void run_problem_impl(std::vector<ClaimRecord>& out, const std::string& name, const LogLik& ll, Index d, const RunContext& ctx) {
  Stopwatch sw;
  const int starts = ctx.full ? 20 : 3;
  const long t_ngd = ctx.full ? 20000 : 3000;
  const long t_sgd = ctx.full ? 40000 : 6000;
  const int K = 8;
  const GaussianMoments<Scalar> prior = standard_normal_prior<Scalar>(d);
  const GaussianMoments<Scalar> q_init = standard_normal_prior<Scalar>(d);
  std::vector<GaussianMoments<Scalar>> sgd;
  for (int r = 0; r < 3; ++r) {
    random::Stream rng(ctx.seed, 0x5600 + static_cast<std::uint64_t>(r));
    const auto run = sgd_mL_nonconjugate(ll, prior, q_init, StepSchedule<Scalar>::inverse_time(Scalar(1), Scalar(100)), K, t_sgd, rng,
                                         GradientEstimator::kPrice, Scalar(1) / Scalar(1000));
    const SqrtParam<Scalar>& avg = run.average ? *run.average : run.last;
    sgd.push_back(GaussianMoments<Scalar>{avg.m, Mat<Scalar>(avg.l * avg.l.transpose())});
  }
  double spread = 0;
  for (int a = 0; a < 3; ++a)
    for (int b = a + 1; b < 3; ++b) spread = std::max(spread, to_double(kl_symmetric(sgd[a], sgd[b])));
  const double tol = std::max(kNoiseFactor * spread, to_double(rounding_budget<Scalar>(100)));
  auto ngd_from = [&](int s, const GaussianMoments<Scalar>& pr) {
    random::Stream rs(ctx.seed, 0x5700 + static_cast<std::uint64_t>(s));
    Vec<Scalar> m0(d);
    Mat<Scalar> s0 = Mat<Scalar>::Zero(d, d);
    for (Index j = 0; j < d; ++j) {
      m0(j) = Scalar(rs.normal());
      s0(j, j) = Scalar(0.25 + 2 * rs.uniform01());
    }
    random::Stream rng(ctx.seed, 0x5800 + static_cast<std::uint64_t>(s));
    // The library's NGD (Price), or the context's variant of it.
    const auto run = ngd_nonconjugate_for(ctx.variant, ll, pr, GaussianMoments<Scalar>{m0, s0},
                                          StepSchedule<Scalar>::inverse_time(Scalar(4), Scalar(20)), K, t_ngd, rng, GradientEstimator::kPrice);
    return natural_to_moments(run.average ? *run.average : run.last);
  };
  double worst = 0;
  for (int s = 0; s < starts; ++s) worst = std::max(worst, to_double(kl_symmetric(ngd_from(s, prior), sgd[0])));
  out.push_back(inequality_record(kId, name + "/" + std::to_string(starts) + "-starts", scalar_name<Scalar>(), Kind::kClaim, worst, tol,
                                  sw.seconds(),
                                  "max KL_sym(NGD start, SGD) = " + fmt_double(worst) + "; tol = " + fmt_double(kNoiseFactor) +
                                      " x SGD replicate spread " + fmt_double(spread)));
  Stopwatch sw2;
  const GaussianMoments<Scalar> wide{Vec<Scalar>::Zero(d), Mat<Scalar>(Scalar(4) * Mat<Scalar>::Identity(d, d))};
  const double other = to_double(kl_symmetric(ngd_from(0, wide), sgd[0]));
  out.push_back(inequality_record(kId, name + "/prior-N(0,4I)", scalar_name<Scalar>(), Kind::kControl, other, tol, sw2.seconds(),
                                  "KL_sym(NGD on another objective, SGD) = " + fmt_double(other)));
}

/// A run that throws (e.g. an overflowing rate) is a failed claim, recorded, never a crash.
template <class Scalar, class LogLik>
void run_problem(std::vector<ClaimRecord>& out, const std::string& name, const LogLik& ll, Index d, const RunContext& ctx) {
  try {
    run_problem_impl<Scalar>(out, name, ll, d, ctx);
  } catch (const std::exception& e) {
    out.push_back(inequality_record(kId, name, scalar_name<Scalar>(), Kind::kClaim, 1.0, 0.0, 0.0, std::string("run failed: ") + e.what()));
  }
}

template <class Scalar>
std::vector<ClaimRecord> run_impl(const RunContext& ctx) {
  std::vector<ClaimRecord> out;
  if (!std::is_same_v<Scalar, double> && !ctx.full) return out;  // the quick instance runs in double only
  const auto logit = cast_dataset<Scalar>(random_glm_data(30, 2, false, 1.0, ctx.seed + 11));
  const auto pois = cast_dataset<Scalar>(random_glm_data(30, 2, true, 0.5, ctx.seed + 12));
  auto ll_logit = [&](const Vec<Scalar>& z, bool h) { return logistic_loglik(logit, z, h); };
  auto ll_pois = [&](const Vec<Scalar>& z, bool h) { return poisson_loglik(pois, z, h); };
  run_problem<Scalar>(out, "logistic-n30-d3", ll_logit, 3, ctx);
  run_problem<Scalar>(out, "poisson-n30-d3", ll_pois, 3, ctx);
  return out;
}

std::vector<ClaimRecord> run(const RunContext& ctx) {
  // mp50 under ctx.full only would take minutes for 20 starts; the full run stays in double.
  RunContext c = ctx;
  std::vector<ClaimRecord> out;
  if (ctx.wants("double")) {
    auto r = run_impl<double>(c);
    out.insert(out.end(), r.begin(), r.end());
  }
  return out;
}

const Registrar kReg({kId, "Stochastic NGD (Price) from random starts reaches the same q as SGD in (m, L) for log-concave likelihoods",
                      "Wu & Gardner 2024, Proposition 1; docs/math.md §6.3", "[R]", run});

}  // namespace
}  // namespace ngvi::claims
