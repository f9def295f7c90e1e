// DESCRIPTION
// Claim vpng.one_step (docs/systems.md D.3, D.5 item 2; derived there): on the bivariate example
// (ε = 1/100, N = 100, σ0 = 10; also ε = 1/10) with exact expectations, VPNG with δ = σ0⁻² and ρ = 1
// reaches μ* in one iteration from λ0 = (0, 0), whatever ε: the cross block of F_r vanishes, so the μ-update is
// (NΣ⁻¹ + σ0⁻² I)⁻¹∇_μ L, a Newton step on the quadratic μ-part. The statement
// ‖μ − μ*‖ ≤ 10⁻⁶‖μ*‖ is implied by the record, which holds to rounding: the relative error against
// rounding_budget(16, κ), κ the condition number of H = NΣ⁻¹ + σ0⁻² I (double and mp50).
// The run is one step of run_trajectory with the PreconditionedStepper, the VPNG preconditioner
// part and the estimator part (exact gradient, exact F_r).
// Reference: μ* by Cramer's rule on the closed-form Σ⁻¹ (vpng_common.hpp), not by the library.
// Negative control: the damping σ0⁻² + Δ: the error is Δ‖(H + ΔI)⁻¹μ*‖/‖μ*‖, so it breaks from
// Δ_min = budget ‖μ*‖/‖H⁻¹μ*‖ (derived; H⁻¹ by the 2 × 2 adjugate); run at 4 Δ_min.
#include "ngvi/optim/engine.hpp"
#include "ngvi/optim/schedule.hpp"
#include "ngvi/claims/expfam_common.hpp"
#include "vpng_common.hpp"

namespace ngvi::claims::vpng {
namespace { namespace NGVI_UNITY_ID {

constexpr const char* kId = "vpng.one_step";

template <class Scalar>
std::vector<ClaimRecord> run_impl(const RunContext& ctx) {
  std::vector<ClaimRecord> out;
  const VpngParts<Scalar> parts = vpng_parts_for<Scalar>(ctx);
  // ε = 1/100 (the example's) and 1/10: the claim holds whatever ε.
  for (const int eps_inv : {100, 10}) {
    Bivariate<Scalar> b;
    b.eps = Scalar(1) / eps_inv;
    const std::string prefix = eps_inv == 100 ? "" : "eps=1/" + std::to_string(eps_inv) + "/";
    const auto model = make_model(b, ctx.seed);
    const Vec<Scalar> mu_star = mu_star_closed_form(b, data_mean(b, ctx.seed));
    const auto [big, small] = hessian_extremes(b);
    const Scalar prior_prec = Scalar(1) / (b.sigma0 * b.sigma0);
    auto one = [&](const Scalar& delta) {
      PredictiveFisherOptions o;
      o.grad_draws = 0;
      o.route = FisherRoute::kExact;
      PredictiveFisherEstimator<GaussianMeanModel<Scalar>, random::Stream> est(model, o, random::Stream(ctx.seed, 2902), parts.fisher);
      PreconditionedStepper<Scalar, PredictiveFisherNatural<Scalar>> s(Vec<Scalar>::Zero(4), PredictiveFisherNatural<Scalar>(delta, parts.damping));
      NoAverage avg;
      const auto tr = run_trajectory(s, est, StepSchedule<Scalar>::constant(Scalar(1)), avg, RunOptions{1, false, {}});
      if (!tr.ok()) return Scalar(std::numeric_limits<double>::infinity());
      return Scalar((mf_mu(tr.last) - mu_star).norm() / mu_star.norm());
    };
    const Scalar budget = rounding_budget<Scalar>(16, Scalar(big / small));
    {
      Stopwatch sw;
      const Scalar err = one(prior_prec);
      out.push_back(identity_record<Scalar>(kId, prefix + "delta=sigma0^-2,rho=1/rounding", Kind::kClaim, err, budget, sw.seconds(),
                                            "||mu_1 - mu*|| / ||mu*|| = " + fmt(to_double(err)) + " (the issue's bound: 1e-6)"));
    }
    {
      // Control: the damping σ0⁻² + Δ. Then μ₁ = (H + ΔI)⁻¹Hμ*, so μ₁ − μ* = −Δ(H + ΔI)⁻¹μ* and the
      // relative error is Δ‖H⁻¹μ*‖/‖μ*‖ to first order: Δ_min = budget ‖μ*‖ / ‖H⁻¹μ*‖ (derived), with
      // H = NΣ⁻¹ + σ0⁻² I inverted by the 2 × 2 adjugate of the closed form.
      Stopwatch sw;
      const Mat<Scalar> p = precision_closed_form(b.eps);
      const Scalar a = Scalar(b.n) * p(0, 0) + prior_prec, c = Scalar(b.n) * p(0, 1), d = Scalar(b.n) * p(1, 1) + prior_prec;
      const Scalar det = a * d - c * c;
      Vec<Scalar> hinv_mu(2);
      hinv_mu << (d * mu_star(0) - c * mu_star(1)) / det, (a * mu_star(1) - c * mu_star(0)) / det;
      const Scalar dmin = budget * mu_star.norm() / hinv_mu.norm(), delta = Scalar(kControlMultiple) * dmin;
      const Scalar err = one(Scalar(prior_prec + delta));
      out.push_back(identity_record<Scalar>(kId, prefix + "delta=sigma0^-2+Delta,rho=1/rounding", Kind::kControl, err, budget, sw.seconds(),
                                            violation_note("damping above sigma0^-2, Delta", to_double(delta), to_double(dmin))));
    }
  }
  return out;
}

}}  // namespace

std::vector<ClaimRecord> one_step_records(const RunContext& ctx) {
  return run_precisions(
      ctx, [](const RunContext& c) { return NGVI_UNITY_ID::run_impl<double>(c); }, [](const RunContext& c) { return NGVI_UNITY_ID::run_impl<mp50>(c); });
}

namespace { namespace NGVI_UNITY_ID {
const Registrar kReg({kId, "On the bivariate example VPNG with delta = sigma0^-2 and rho = 1 reaches ||mu - mu*|| <= 1e-6 ||mu*|| in one iteration",
                      "Tang & Ranganath 2019 (slides: pathological curvature); docs/systems.md D.3, D.5 item 2", "[D]",
                      one_step_records});
}}  // namespace

}  // namespace ngvi::claims::vpng
