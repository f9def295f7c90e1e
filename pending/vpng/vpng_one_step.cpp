// DESCRIPTION
// Claim vpng.one_step (docs/systems.md D.3, D.5 item 2; derived there): on the bivariate example
// (ε = 1/100, N = 100, σ0 = 10) with exact expectations, VPNG with δ = σ0⁻² and ρ = 1 reaches
// ‖μ − μ*‖ ≤ 10⁻⁶‖μ*‖ in one iteration from λ0 = (0, 0), whatever ε: the cross block of F_r
// vanishes, so the μ-update is (NΣ⁻¹ + σ0⁻² I)⁻¹∇_μ L, a Newton step on the quadratic μ-part.
// The run is one step of run_trajectory with the PreconditionedStepper, the VPNG preconditioner
// part and the estimator part (exact gradient, exact F_r).
// Reference: μ* by Cramer's rule on the closed-form Σ⁻¹ (vpng_common.hpp), not by the library.
// Records (double, mp50): relative error ≤ 1e-6 (the bound); and the same error against the
// rounding budget rounding_budget(16, κ), κ the condition number of NΣ⁻¹ + σ0⁻² I, which shows the
// step is Newton's to rounding. Negative control: δ = 2σ0⁻² (the damping off by σ0⁻² = 1/100 in a
// matrix of eigenvalues ≥ 50), which leaves an error of order 1e-4.
#include "ngvi/optim/engine.hpp"
#include "ngvi/optim/schedule.hpp"
#include "vpng_common.hpp"

namespace ngvi::claims::vpng {
namespace {

constexpr const char* kId = "vpng.one_step";

template <class Scalar>
std::vector<ClaimRecord> run_impl(const RunContext& ctx, const VpngConfig& cfg) {
  std::vector<ClaimRecord> out;
  const Bivariate<Scalar> b;
  const auto model = make_model(b, ctx.seed);
  const Vec<Scalar> mu_star = mu_star_closed_form(b, data_mean(b, ctx.seed));
  const auto [big, small] = hessian_extremes(b);
  const Scalar prior_prec = Scalar(1) / (b.sigma0 * b.sigma0);
  auto one = [&](const Scalar& delta) {
    PredictiveFisherOptions o;
    o.grad_draws = 0;
    o.route = cfg.route;
    o.jacobian = cfg.jacobian;
    PredictiveFisherEstimator<GaussianMeanModel<Scalar>, random::Stream> est(model, o, random::Stream(ctx.seed, 2902));
    PreconditionedStepper<Scalar, PredictiveFisherNatural<Scalar>> s(Vec<Scalar>::Zero(4), PredictiveFisherNatural<Scalar>(delta, cfg.placement));
    NoAverage avg;
    const auto tr = run_trajectory(s, est, StepSchedule<Scalar>::constant(Scalar(1)), avg, RunOptions{1, false, {}});
    if (!tr.ok()) return Scalar(std::numeric_limits<double>::infinity());
    return Scalar((mf_mu(tr.last) - mu_star).norm() / mu_star.norm());
  };
  {
    Stopwatch sw;
    const Scalar err = one(prior_prec);
    out.push_back(inequality_record(kId, "delta=sigma0^-2,rho=1/1e-6", scalar_name<Scalar>(), Kind::kClaim, to_double(err), 1e-6, sw.seconds(),
                                    "||mu_1 - mu*|| / ||mu*||", "rel"));
    out.push_back(identity_record<Scalar>(kId, "delta=sigma0^-2,rho=1/rounding", Kind::kClaim, err, rounding_budget<Scalar>(16, Scalar(big / small)),
                                          sw.seconds()));
  }
  {
    Stopwatch sw;
    const Scalar err = one(Scalar(2) * prior_prec);
    out.push_back(inequality_record(kId, "delta=2 sigma0^-2,rho=1/1e-6", scalar_name<Scalar>(), Kind::kControl, to_double(err), 1e-6, sw.seconds(),
                                    "||mu_1 - mu*|| / ||mu*||", "rel"));
  }
  return out;
}

}  // namespace

std::vector<ClaimRecord> one_step_records(const RunContext& ctx, const VpngConfig& cfg) {
  return run_precisions(
      ctx, [&](const RunContext& c) { return run_impl<double>(c, cfg); }, [&](const RunContext& c) { return run_impl<mp50>(c, cfg); });
}

namespace {
const Registrar kReg({kId, "On the bivariate example VPNG with delta = sigma0^-2 and rho = 1 reaches ||mu - mu*|| <= 1e-6 ||mu*|| in one iteration",
                      "Tang & Ranganath 2019 (slides: pathological curvature); docs/systems.md D.3, D.5 item 2", "[D]",
                      [](const RunContext& ctx) { return one_step_records(ctx, VpngConfig{}); }});
}  // namespace

}  // namespace ngvi::claims::vpng
