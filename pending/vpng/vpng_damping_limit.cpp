// DESCRIPTION
// Claim vpng.damping_limit (docs/systems.md D.1, D.5 item 3; derived): (a) as δ → ∞ the VPNG
// direction (F̂_r + δI)⁻¹∇L turns parallel to ∇L: (F + δI)⁻¹g = g/δ − Fg/δ² + O(δ⁻³), so the angle
// is at most ‖F‖₂/δ and 1 − cos ≤ (‖F‖₂/δ)²/2; at δ = 10⁷ tr F this is below 10⁻¹⁴; the record
// checks the bound 1 − cos ≤ 10⁻¹⁰. (b) F̂_r + δI Cholesky-factorises for every δ > 0:
// every estimate is a mean of positive semidefinite terms, so its eigenvalues are ≥ 0 up to the
// rounding of the sum (about ops·u·tr F̂); the sweep δ/tr F̂ ∈ {10⁻⁸, 10⁻⁴, 1, 10⁴} stays above it.
// Instances: the bivariate example at λ = (0, 0) with exact F_r and exact gradient (a), and
// rank-deficient estimates (b): one ε-draw with the analytic inner expectation (rank 2 of 4) and
// one x' draw (rank 1 of 4), where a positive δ is all that makes the matrix invertible.
// Reference: the cosine is computed directly from the stepper's update and the gradient; the
// factorisation is the stepper's own (a failure ends the trajectory with a StepFailure).
// Negative controls: δ = 10³ tr F (finite: 1 − cos of order 10⁻⁷ > 10⁻¹⁰) and δ = −10⁻⁸ tr F̂ on the
// rank-deficient estimates (not positive definite: the factorisation fails).
#include <optional>

#include "ngvi/optim/engine.hpp"
#include "ngvi/optim/schedule.hpp"
#include "vpng_common.hpp"

namespace ngvi::claims::vpng {
namespace {

constexpr const char* kId = "vpng.damping_limit";

template <class Scalar>
std::vector<ClaimRecord> run_impl(const RunContext& ctx) {
  std::vector<ClaimRecord> out;
  const Bivariate<Scalar> b;
  const auto model = make_model(b, ctx.seed);
  const Vec<Scalar> lambda0 = Vec<Scalar>::Zero(4);
  const Vec<Scalar> g = model.elbo_gradient(lambda0);
  const Mat<Scalar> f = predictive_fisher_exact<Scalar>(model.predictive_fisher(mf_mu(lambda0)), mf_sigma(lambda0));
  const Scalar tr = f.trace();
  // One step of the VPNG stepper with the given F̂ and δ; the update, or nothing if it failed.
  auto update = [&](const Mat<Scalar>& fhat, const Scalar& delta) -> std::optional<Vec<Scalar>> {
    PreconditionedStepper<Scalar, PredictiveFisherNatural<Scalar>> s(lambda0, PredictiveFisherNatural<Scalar>(delta));
    struct Fixed {
      MeanFieldDirection<Scalar> d;
      void estimate(long, const PreconditionedStepper<Scalar, PredictiveFisherNatural<Scalar>>&, MeanFieldDirection<Scalar>& out) { out = d; }
    } est{{g, fhat, true}};
    NoAverage avg;
    const auto trj = run_trajectory(s, est, StepSchedule<Scalar>::constant(Scalar(1)), avg, RunOptions{1, false, {}});
    if (!trj.ok()) return std::nullopt;
    return s.last_update();
  };
  auto cosine_record = [&](const std::string& inst, Kind kind, const Scalar& delta) {
    Stopwatch sw;
    const auto u = update(f, delta);
    const double one_minus_cos = u ? to_double(Scalar(Scalar(1) - u->dot(g) / (u->norm() * g.norm()))) : 1.0;
    return inequality_record(kId, inst, scalar_name<Scalar>(), kind, one_minus_cos, 1e-10, sw.seconds(), "1 - cos(direction, gradient)");
  };
  out.push_back(cosine_record("cosine/delta=1e7 tr F", Kind::kClaim, tr * Scalar(10000000)));
  out.push_back(cosine_record("cosine/delta=1e3 tr F", Kind::kControl, tr * Scalar(1000)));

  // Rank-deficient estimates from one draw.
  random::Stream rng(ctx.seed, 2904);
  const Mat<Scalar> analytic1 = predictive_fisher_mc<Scalar>(model, lambda0, 1, FisherRoute::kAnalytic, rng);
  const Mat<Scalar> sampled1 = predictive_fisher_mc<Scalar>(model, lambda0, 1, FisherRoute::kSampled, rng);
  auto factor_record = [&](const std::string& inst, Kind kind, const Mat<Scalar>& fhat, const std::vector<Scalar>& rel) {
    Stopwatch sw;
    long failures = 0;
    for (const Scalar& r : rel) {
      const Scalar delta = r * fhat.trace();
      bool ok = false;
      if (delta > Scalar(0)) {
        ok = update(fhat, delta).has_value();
      } else {  // the preconditioner refuses δ ≤ 0, so the control factorises the matrix directly
        Mat<Scalar> m = fhat;
        m.diagonal().array() += delta;
        ok = Eigen::LLT<Mat<Scalar>>(m).info() == Eigen::Success;
      }
      if (!ok) ++failures;
    }
    return inequality_record(kId, inst, scalar_name<Scalar>(), kind, double(failures), 0.5, sw.seconds(),
                             std::to_string(failures) + " of " + std::to_string(rel.size()) + " damped matrices not factorised", "matrices");
  };
  const std::vector<Scalar> sweep{Scalar(1) / 100000000, Scalar(1) / 10000, Scalar(1), Scalar(10000)};
  const std::vector<Scalar> negative{-Scalar(1) / 100000000};
  out.push_back(factor_record("factorises/analytic 1 draw (rank 2)", Kind::kClaim, analytic1, sweep));
  out.push_back(factor_record("factorises/sampled 1 draw (rank 1)", Kind::kClaim, sampled1, sweep));
  out.push_back(factor_record("factorises/analytic 1 draw, delta=-1e-8 tr", Kind::kControl, analytic1, negative));
  out.push_back(factor_record("factorises/sampled 1 draw, delta=-1e-8 tr", Kind::kControl, sampled1, negative));
  return out;
}

std::vector<ClaimRecord> run(const RunContext& ctx) { return run_precisions(ctx, run_impl<double>, run_impl<mp50>); }

const Registrar kReg({kId, "As delta grows the VPNG direction turns parallel to the gradient (1 - cos <= 1e-10), and F_r-hat + delta I factorises for every delta > 0",
                      "Tang & Ranganath 2019 (slides: damping for invertibility); docs/systems.md D.1, D.5 item 3", "[D]", run});

}  // namespace
}  // namespace ngvi::claims::vpng
