// DESCRIPTION
// Claim vpng.gradient_iterations (docs/systems.md D.3, D.5 item 2; derived): on the bivariate
// example (ε = 1/100, N = 100, σ0 = 10, exact gradient) the plain gradient at the optimal constant
// step ρ = 2/(L + m), L and m the extreme eigenvalues of the μ-Hessian NΣ⁻¹ + σ0⁻² I, contracts
// ‖μ_t − μ*‖ by exactly r = (κ − 1)/(κ + 1) per step (κ = L/m; in two dimensions both eigen-
// components contract by |1 − ρλ| = r), so from μ0 = 0 it needs
//   t* = ⌈ln(10⁶) / ln(1/r)⌉ = ⌈(κ/2) ln 10⁶ (1 + O(κ⁻²))⌉
// iterations to reach ‖μ − μ*‖ ≤ 10⁻⁶‖μ*‖ (1375 for this instance, κ ≈ 198.96, as docs/systems.md
// D.5 states; the note of each record gives both forms).
// The q-Fisher NG at the mean-field optimum (ω = ω*, equal s_i*) is Δμ = ρ s*² ∇_μ L: the same
// iterates with the step ρ_NG = ρ/s*², hence the same count.
// Reference: L = N/ε + σ0⁻², m = N/(2 − ε) + σ0⁻² (the eigenvalues of Σ⁻¹ are 1/ε and 1/(2 − ε))
// and μ* by Cramer's rule, independent of the library; the runs go through run_trajectory with
// the PreconditionedStepper and its PlainGradient / QFisherNatural parts, stopped by StopWhen.
// Records (double, mp50): |count − t*| ≤ 1/2 for the gradient and for NG. Negative controls: the
// gradient with ρ(1 + 1/1000) and NG with the rescaling off by 1/1000 (ρ_NG = ρ(1 + 1/1000)/s*²):
// the top eigen-component then contracts by r + (1 + r)/1000, and the count moves by about 340.
#include <cmath>

#include "ngvi/optim/engine.hpp"
#include "ngvi/optim/schedule.hpp"
#include "vpng_common.hpp"

namespace ngvi::claims::vpng {
namespace {

constexpr const char* kId = "vpng.gradient_iterations";

template <class Scalar>
std::vector<ClaimRecord> run_impl(const RunContext& ctx) {
  using std::ceil;
  using std::log;
  using std::sqrt;
  std::vector<ClaimRecord> out;
  const Bivariate<Scalar> b;
  const auto model = make_model(b, ctx.seed);
  const Vec<Scalar> mu_star = mu_star_closed_form(b, data_mean(b, ctx.seed));
  const auto [big, small] = hessian_extremes(b);
  const Scalar kappa = big / small, r = (kappa - Scalar(1)) / (kappa + Scalar(1));
  const Scalar rho = Scalar(2) / (big + small);
  const Scalar target = Scalar(1) / 1000000;
  const long predicted = static_cast<long>(to_double(ceil(log(Scalar(1) / target) / log(Scalar(1) / r))));
  const long cap = 4 * predicted;
  const Mat<Scalar> p = precision_closed_form(b.eps);
  const Scalar s2 = Scalar(1) / (Scalar(b.n) * p(0, 0) + Scalar(1) / (b.sigma0 * b.sigma0));  // s*², equal for i = 1, 2
  Vec<Scalar> lambda0 = Vec<Scalar>::Zero(4);
  lambda0(2) = lambda0(3) = log(s2) / 2;  // ω* (NG at the mean-field optimum; the gradient's μ-part ignores ω)
  auto count = [&](auto pre, const Scalar& step) {
    PredictiveFisherOptions o;
    o.grad_draws = 0;
    PredictiveFisherEstimator<GaussianMeanModel<Scalar>, random::Stream> est(model, o, random::Stream(ctx.seed, 2903));
    PreconditionedStepper<Scalar, decltype(pre)> s(lambda0, pre);
    NoAverage avg;
    StopWhen stop([&](const auto& ev) { return (mf_mu(ev.stepper.point()) - mu_star).norm() <= target * mu_star.norm(); });
    const auto tr = run_trajectory(s, est, StepSchedule<Scalar>::constant(step), avg, RunOptions{cap, false, {}}, stop);
    return tr.stopped ? tr.steps : cap + 1;
  };
  auto record = [&](const std::string& inst, Kind kind, long c) {
    return inequality_record(kId, inst, scalar_name<Scalar>(), kind, std::fabs(double(c - predicted)), 0.5, 0,
                             "count " + std::to_string(c) + ", predicted ceil(ln 1e6 / ln((k+1)/(k-1))) = " + std::to_string(predicted) +
                                 ", (k/2) ln 1e6 = " + fmt(to_double(kappa) / 2 * std::log(1e6)),
                             "iterations");
  };
  const Scalar off = Scalar(1) + Scalar(1) / 1000;
  out.push_back(record("gradient/rho=2/(L+m)", Kind::kClaim, count(PlainGradient{}, rho)));
  out.push_back(record("ng-at-optimum/rho=2/((L+m) s*^2)", Kind::kClaim, count(QFisherNatural<Scalar>(), Scalar(rho / s2))));
  out.push_back(record("gradient/rho=2(1+1e-3)/(L+m)", Kind::kControl, count(PlainGradient{}, Scalar(rho * off))));
  out.push_back(record("ng-at-optimum/rescaling off by 1e-3", Kind::kControl, count(QFisherNatural<Scalar>(), Scalar(rho * off / s2))));
  return out;
}

std::vector<ClaimRecord> run(const RunContext& ctx) { return run_precisions(ctx, run_impl<double>, run_impl<mp50>); }

const Registrar kReg({kId, "On the bivariate example the plain gradient at step 2/(L+m) needs exactly ceil(ln 1e6 / ln(1/r)) iterations, and q-Fisher NG at the mean-field optimum the same with a rescaled step",
                      "Tang & Ranganath 2019 (slides: NG fails to help); docs/systems.md D.3, D.5 item 2", "[D]", run});

}  // namespace
}  // namespace ngvi::claims::vpng
