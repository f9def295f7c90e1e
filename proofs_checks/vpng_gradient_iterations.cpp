// DESCRIPTION
// Claim vpng.gradient_iterations (docs/systems.md D.3, D.5 item 2; derived): on the bivariate
// example (ε = 1/100, N = 100, σ0 = 10, exact gradient) the plain gradient at the optimal constant
// step ρ = 2/(L + m), L and m the extreme eigenvalues of the μ-Hessian NΣ⁻¹ + σ0⁻² I, contracts
// ‖μ_t − μ*‖ by exactly r = (κ − 1)/(κ + 1) per step (κ = L/m; in two dimensions both eigen-
// components contract by |1 − ρλ| = r), so from μ0 = 0 it needs
//   t* = ⌈ln(10⁶) / ln(1/r)⌉ = ⌈(κ/2) ln 10⁶ (1 + O(κ⁻²))⌉
// iterations to reach ‖μ − μ*‖ ≤ 10⁻⁶‖μ*‖ (1375 for this instance, κ ≈ 198.96).
// The q-Fisher NG at the mean-field optimum (ω = ω*, equal s_i*) is Δμ = ρ s*² ∇_μ L: the same
// iterates with the step ρ_NG = ρ/s*², hence the same count.
// Reference: L = N/ε + σ0⁻², m = N/(2 − ε) + σ0⁻² (the eigenvalues of Σ⁻¹ are 1/ε and 1/(2 − ε))
// and μ* by Cramer's rule, independent of the library; the runs go through run_trajectory with
// the PreconditionedStepper and its PlainGradient / QFisherNatural parts, stopped by StopWhen.
// Records (double, mp50): count ≤ t* + 1/2 and t* − 1/2 ≤ count, for the gradient and for NG.
// Negative controls, at 4 times their derived detection limits: the step ρ(1 + δ) (gradient) and the
// NG rescaling off by (1 + δ): the L-component then contracts by r + (1 + r)δ and the m-component by
// r − (1 − r)δ, so the count passes t* from δ_min = σ/(t* c₁), σ = ln 10⁻⁶ − t* ln r the log-slack,
// c₁ = (w_L(1 + r) − w_m(1 − r))/r with w the weights of μ* on the eigenvectors; and the start
// μ0 = ημ* (the claim's hypothesis is μ0 = 0), which lowers the count from η_min = 1 − 10⁻⁶/r^(t*−1).
#include <cmath>

#include "ngvi/optim/engine.hpp"
#include "ngvi/optim/schedule.hpp"
#include "ngvi/claims/expfam_common.hpp"
#include "vpng_common.hpp"

namespace ngvi::claims::vpng {
namespace { namespace NGVI_UNITY_ID {

constexpr const char* kId = "vpng.gradient_iterations";

template <class Scalar>
std::vector<ClaimRecord> run_impl(const RunContext& ctx) {
  using std::ceil;
  using std::log;
  using std::pow;
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
  auto count = [&](const Vec<Scalar>& start, auto pre, const Scalar& step) {
    PredictiveFisherOptions o;
    o.grad_draws = 0;
    PredictiveFisherEstimator<GaussianMeanModel<Scalar>, random::Stream> est(model, o, random::Stream(ctx.seed, 2903));
    PreconditionedStepper<Scalar, decltype(pre)> s(start, pre);
    NoAverage avg;
    StopWhen stop([&](const auto& ev) { return (mf_mu(ev.stepper.point()) - mu_star).norm() <= target * mu_star.norm(); });
    const auto tr = run_trajectory(s, est, StepSchedule<Scalar>::constant(step), avg, RunOptions{cap, false, {}}, stop);
    return tr.stopped ? tr.steps : cap + 1;
  };
  const std::string both = ", predicted ceil(ln 1e6 / ln((k+1)/(k-1))) = " + std::to_string(predicted) +
                           ", (k/2) ln 1e6 = " + fmt(to_double(kappa) / 2 * std::log(1e6));
  // Exactness as two informative records: count <= t* + 1/2 and t* - 1/2 <= count (counts are integers).
  auto upper = [&](const std::string& inst, Kind kind, long c, const std::string& extra) {
    return inequality_record(kId, inst + "/count<=t*", scalar_name<Scalar>(), kind, double(c), double(predicted) + 0.5, 0,
                             join_notes("count " + std::to_string(c) + both, extra), "iterations");
  };
  auto lower = [&](const std::string& inst, Kind kind, long c, const std::string& extra) {
    return inequality_record(kId, inst + "/t*<=count", scalar_name<Scalar>(), kind, double(predicted) - 0.5, double(c), 0,
                             join_notes("count " + std::to_string(c) + both, extra), "iterations");
  };
  const long cg = count(lambda0, PlainGradient{}, rho), cn = count(lambda0, QFisherNatural<Scalar>(), Scalar(rho / s2));
  out.push_back(upper("gradient/rho=2/(L+m)", Kind::kClaim, cg, {}));
  out.push_back(lower("gradient/rho=2/(L+m)", Kind::kClaim, cg, {}));
  out.push_back(upper("ng-at-optimum/rho=2/((L+m) s*^2)", Kind::kClaim, cn, {}));
  out.push_back(lower("ng-at-optimum/rho=2/((L+m) s*^2)", Kind::kClaim, cn, {}));

  // Controls (derived detection limits, closed form in the eigenbasis of the μ-Hessian, whose
  // eigenvectors are (1, -1)/√2 for L and (1, 1)/√2 for m).
  // (a) the step ρ(1 + δ): the L-component contracts by r + (1 + r)δ, the m-component by r − (1 − r)δ,
  //     so ln‖e_t‖² grows by 2tδ c₁, c₁ = (w_L(1 + r) − w_m(1 − r))/r, w the weights of μ* on the
  //     eigenvectors; the count passes t* once t*δ c₁ exceeds the log-slack σ = ln 1e-6 − t* ln r.
  const Scalar w_l = (mu_star(0) - mu_star(1)) * (mu_star(0) - mu_star(1)) / (Scalar(2) * mu_star.squaredNorm());
  const Scalar c1 = (w_l * (Scalar(1) + r) - (Scalar(1) - w_l) * (Scalar(1) - r)) / r;
  const Scalar slack = log(target) - Scalar(predicted) * log(r);
  const Scalar dmin = slack / (Scalar(predicted) * c1), delta = Scalar(kControlMultiple) * dmin;
  const std::string vn = violation_note("relative step error", to_double(delta), to_double(dmin));
  out.push_back(upper("gradient/rho=2(1+delta)/(L+m)", Kind::kControl, count(lambda0, PlainGradient{}, Scalar(rho * (Scalar(1) + delta))), vn));
  out.push_back(upper("ng-at-optimum/rescaling off by delta", Kind::kControl,
                      count(lambda0, QFisherNatural<Scalar>(), Scalar(rho * (Scalar(1) + delta) / s2)), vn));
  // (b) the start μ0 = η μ* in place of 0: ‖e_t‖ = (1 − η) r^t ‖μ*‖, so the count drops below t* once
  //     (1 − η) r^(t*−1) <= 1e-6, i.e. from η_min = 1 − 1e-6 / r^(t*−1).
  const Scalar eta_min = Scalar(1) - target / pow(r, Scalar(predicted - 1)), eta = Scalar(kControlMultiple) * eta_min;
  Vec<Scalar> start = lambda0;
  start.head(2) = eta * mu_star;
  out.push_back(lower("gradient/start eta mu*", Kind::kControl, count(start, PlainGradient{}, rho),
                      violation_note("start mu0 = eta mu* (claim: mu0 = 0), eta", to_double(eta), to_double(eta_min))));
  return out;
}

std::vector<ClaimRecord> run(const RunContext& ctx) { return run_precisions(ctx, run_impl<double>, run_impl<mp50>); }

const Registrar kReg({kId, "On the bivariate example the plain gradient at step 2/(L+m) needs exactly ceil(ln 1e6 / ln(1/r)) iterations, and q-Fisher NG at the mean-field optimum the same with a rescaled step",
                      "Tang & Ranganath 2019 (slides: NG fails to help); docs/systems.md D.3, D.5 item 2", "[D]", run,
                      CostHint{0.12, 0.12}});

}}  // namespace
}  // namespace ngvi::claims::vpng
