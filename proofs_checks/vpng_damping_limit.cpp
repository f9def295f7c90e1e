// DESCRIPTION
// Claim vpng.damping_limit (docs/systems.md D.1, D.5 item 3; derived): (a) as δ → ∞ the VPNG
// direction u = (F_r + δI)⁻¹∇L turns parallel to ∇L. By Kantorovich's inequality, for A = F_r + δI
// with spectrum in [a1, a2] = [δ + λ_min, δ + λ_max], cos(g, A⁻¹g) ≥ 2√(a1 a2)/(a1 + a2), so
// 1 − cos ≤ (a2 − a1)²/((√a1 + √a2)²(a1 + a2)) ≈ (‖F_r‖/δ)²/8 (about 1e-15, below the issue's
// 1e-10, at δ = 10⁷ tr F_r), with equality for g = √a1 v_min + √a2 v_max. Instance: the bivariate
// example at λ = (0, 0), F_r in closed form (eigenvalues N/ε, N/(2 − ε), N/(ε(2 − ε)) twice), at
// δ = 10³ and 10⁷ tr F_r. Records (double, mp50): the model's gradient against the bound; the
// extremal gradient equal to the bound within the rounding allowance 64u/‖û − ĝ‖ (1 − cos is
// computed as ‖û − ĝ‖²/2, without cancellation; derived). Control: the damping applied is δ(1 − η)
// while the bound assumes δ: 1 − cos grows by about 2η, so it breaks from η_min = allowance/2.
// (b) F̂_r + δI factorises for every δ > 0: a one-draw estimate (analytic inner expectation: rank 2
// of 4; sampled x': rank 1) is a sum of PSD terms, so λ_min(F̂_r + δI) = δ up to the rounding of the
// sum, at most ab = 64 u tr F̂_r. Record (double; Eigen's symmetric eigensolver, a route independent
// of the Cholesky factorisation): ab ≤ λ_min(F̂_r + δI) at δ = 2 ab, with the stepper's
// factorisation succeeding. Control: δ lowered by 4 ab (to −2 ab); it breaks from a lowering of ab.
#include <optional>

#include "ngvi/optim/engine.hpp"
#include "ngvi/optim/schedule.hpp"
#include <Eigen/Eigenvalues>

#include "ngvi/claims/expfam_common.hpp"
#include "vpng_common.hpp"

namespace ngvi::claims::vpng {
namespace { namespace NGVI_UNITY_ID {

constexpr const char* kId = "vpng.damping_limit";

template <class Scalar>
std::vector<ClaimRecord> run_impl(const RunContext& ctx) {
  using std::abs;
  using std::sqrt;
  std::vector<ClaimRecord> out;
  const Bivariate<Scalar> b;
  const auto model = make_model(b, ctx.seed);
  const Vec<Scalar> lambda0 = Vec<Scalar>::Zero(4);
  // F_r at λ = (0, 0) in closed form: blockdiag(NΣ⁻¹, N diag Σ⁻¹_ii); eigenvalues N/ε (vector
  // (1, −1, 0, 0)/√2), N/(2 − ε) (vector (1, 1, 0, 0)/√2) and N/(ε(2 − ε)) twice (the ω-block).
  const Mat<Scalar> p = precision_closed_form(b.eps);
  Mat<Scalar> f = Mat<Scalar>::Zero(4, 4);
  f.topLeftCorner(2, 2) = Scalar(b.n) * p;
  f(2, 2) = Scalar(b.n) * p(0, 0);
  f(3, 3) = Scalar(b.n) * p(1, 1);
  const Scalar lmax = Scalar(b.n) / b.eps, lmin = Scalar(b.n) / (Scalar(2) - b.eps);
  const Scalar r2 = sqrt(Scalar(1) / Scalar(2));
  Vec<Scalar> vmax(4), vmin(4);
  vmax << r2, -r2, Scalar(0), Scalar(0);
  vmin << r2, r2, Scalar(0), Scalar(0);
  // One step of the VPNG stepper with the given F̂, gradient and δ; the update, or nothing if it failed.
  auto update = [&](const Mat<Scalar>& fhat, const Vec<Scalar>& g, const Scalar& delta) -> std::optional<Vec<Scalar>> {
    PreconditionedStepper<Scalar, PredictiveFisherNatural<Scalar>> s(lambda0, PredictiveFisherNatural<Scalar>(delta));
    struct Fixed {
      MeanFieldDirection<Scalar> d;
      void estimate(long, const PreconditionedStepper<Scalar, PredictiveFisherNatural<Scalar>>&, MeanFieldDirection<Scalar>& o) { o = d; }
    } est{{g, fhat, true}};
    NoAverage avg;
    const auto trj = run_trajectory(s, est, StepSchedule<Scalar>::constant(Scalar(1)), avg, RunOptions{1, false, {}});
    if (!trj.ok()) return std::nullopt;
    return s.last_update();
  };
  // 1 − cos(u, g) = ‖u/‖u‖ − g/‖g‖‖²/2 (no cancellation).
  auto one_minus_cos = [&](const Vec<Scalar>& u, const Vec<Scalar>& g) {
    const Vec<Scalar> d = u / u.norm() - g / g.norm();
    return Scalar(d.squaredNorm() / 2);
  };
  // Kantorovich: for A = F + δI with spectrum in [a1, a2], cos(g, A⁻¹g) ≥ 2√(a1 a2)/(a1 + a2), so
  // 1 − cos ≤ (a2 − a1)² / ((√a1 + √a2)² (a1 + a2)) ≈ (‖F‖/δ)²/8 → 0 as δ → ∞, with equality for
  // g = √a1 v_min + √a2 v_max (derived).
  auto kantorovich = [&](const Scalar& delta) {
    const Scalar a1 = delta + lmin, a2 = delta + lmax, sq = sqrt(a1) + sqrt(a2);
    return Scalar((a2 - a1) * (a2 - a1) / (sq * sq * (a1 + a2)));
  };
  const Scalar tr = f.trace();
  for (const long mult : {1000L, 10000000L}) {
    const Scalar delta = tr * Scalar(mult);
    const Scalar bound = kantorovich(delta);
    const std::string inst = "delta=" + std::string(mult == 1000 ? "1e3" : "1e7") + " tr F";
    {  // the model's gradient at λ = (0, 0)
      Stopwatch sw;
      const Vec<Scalar> g = model.elbo_gradient(lambda0);
      const auto u = update(f, g, delta);
      const double lhs = u ? to_double(one_minus_cos(*u, g)) : 1.0;
      out.push_back(inequality_record(kId, "cosine/model gradient/" + inst, scalar_name<Scalar>(), Kind::kClaim, lhs, to_double(bound), sw.seconds(),
                                      "1 - cos(direction, gradient) <= Kantorovich bound (derived); the issue's 1e-10 at 1e7 tr F", ""));
    }
    // The extremal gradient attains the bound; the computed 1 − cos carries a relative rounding error
    // of at most 64 u / ‖d‖ (d = û − ĝ, ‖d‖ = √(2 bound); derived), which the claim's rhs allows.
    const Vec<Scalar> gx = sqrt(delta + lmin) * vmin + sqrt(delta + lmax) * vmax;
    const Scalar rel_round = Scalar(64) * eps<Scalar>() / sqrt(Scalar(2) * bound);
    {
      Stopwatch sw;
      const auto u = update(f, gx, delta);
      const Scalar err = u ? Scalar(abs(one_minus_cos(*u, gx) - bound) / bound) : Scalar(1);
      out.push_back(identity_record<Scalar>(kId, "cosine/extremal gradient attains the bound/" + inst, Kind::kClaim, err, rel_round, sw.seconds(),
                                            "equality case of the Kantorovich bound; relative error against the rounding allowance 64 u / sqrt(2 bound) (derived)"));
    }
    {
      // Control: the damping actually applied is δ(1 − η) where the bound assumes δ; 1 − cos grows by
      // the factor ≈ 1 + 2η (d ln bound / d ln δ ≈ −2), so it breaks from η_min = rel_round / 2 (derived).
      Stopwatch sw;
      const Scalar eta_min = rel_round / 2, eta = Scalar(kControlMultiple) * eta_min;
      const auto u = update(f, gx, Scalar(delta * (Scalar(1) - eta)));
      const Scalar err = u ? Scalar(abs(one_minus_cos(*u, gx) - bound) / bound) : Scalar(1);
      out.push_back(identity_record<Scalar>(kId, "cosine/extremal gradient/" + inst + ", damping delta(1-eta)", Kind::kControl, err, rel_round, sw.seconds(),
                                            violation_note("relative shortfall of the applied damping, eta", to_double(eta), to_double(eta_min))));
    }
  }

  if constexpr (std::is_same_v<Scalar, double>) {
    // (b) Rank-deficient estimates from one draw: F̂ is a sum of PSD terms, so λ_min(F̂ + δI) = δ up to
    // the rounding of the sum, at most ab = 64 u tr F̂ (derived). Record: ab <= λ_min(F̂ + δI) at
    // δ = 2 ab (the smallest δ the statement resolves in double), with the stepper's factorisation
    // succeeding; λ_min by Eigen's symmetric eigensolver, a route independent of the Cholesky
    // factorisation. Control: δ lowered by Δ = 4 ab (to −2 ab): breaks from Δ = ab (derived).
    random::Stream rng(ctx.seed, 2904);
    const Mat<double> analytic1 = predictive_fisher_mc<double>(model, lambda0, 1, FisherRoute::kAnalytic, rng);
    const Mat<double> sampled1 = predictive_fisher_mc<double>(model, lambda0, 1, FisherRoute::kSampled, rng);
    const Vec<double> g = model.elbo_gradient(lambda0);
    auto factor_record = [&](const std::string& inst, Kind kind, const Mat<double>& fhat, double shift) {
      Stopwatch sw;
      const double ab = 64 * std::numeric_limits<double>::epsilon() * fhat.trace();
      const double delta = 2 * ab - shift;
      Mat<double> m = fhat;
      m.diagonal().array() += delta;
      const double lmin_d = Eigen::SelfAdjointEigenSolver<Mat<double>>(m, Eigen::EigenvaluesOnly).eigenvalues().minCoeff();
      const bool ok = delta > 0 ? update(fhat, g, delta).has_value() : Eigen::LLT<Mat<double>>(m).info() == Eigen::Success;
      std::string note = "lambda_min(F + delta I) = " + fmt(lmin_d) + ", delta = " + fmt(delta) + "; factorisation " + (ok ? "succeeded" : "failed");
      if (kind == Kind::kControl) note = join_notes(note, violation_note("damping lowered by Delta (to below 0)", shift, ab));
      return inequality_record(kId, inst, "double", kind, ok ? ab : 2 * std::fabs(lmin_d) + ab, lmin_d, sw.seconds(), note, "");
    };
    out.push_back(factor_record("factorises/analytic 1 draw (rank 2)/delta=128 u tr", Kind::kClaim, analytic1, 0));
    out.push_back(factor_record("factorises/sampled 1 draw (rank 1)/delta=128 u tr", Kind::kClaim, sampled1, 0));
    const double ab1 = 64 * std::numeric_limits<double>::epsilon() * analytic1.trace(), ab2 = 64 * std::numeric_limits<double>::epsilon() * sampled1.trace();
    out.push_back(injected_control(factor_record("factorises/analytic 1 draw, delta lowered by 4 ab", Kind::kControl, analytic1, kControlMultiple * ab1)));
    out.push_back(injected_control(factor_record("factorises/sampled 1 draw, delta lowered by 4 ab", Kind::kControl, sampled1, kControlMultiple * ab2)));
  }
  return out;
}

std::vector<ClaimRecord> run(const RunContext& ctx) { return run_precisions(ctx, run_impl<double>, run_impl<mp50>); }

const Registrar kReg({kId, "As delta grows the VPNG direction turns parallel to the gradient (1 - cos <= 1e-10), and F_r-hat + delta I factorises for every delta > 0",
                      "Tang & Ranganath 2019 (slides: damping for invertibility); docs/systems.md D.1, D.5 item 3", "[D]", run});

}}  // namespace
}  // namespace ngvi::claims::vpng
