// DESCRIPTION
// Claim appB.autodiff_indefinite (Wu & Gardner 2024, Appendix B and Algorithm 1; docs/math.md §3.3–3.4,
// tag [D] for our reproducible instance): the reparameterisation (automatic-differentiation)
// estimate of the covariance block, ĝ₂ = sym(L⁻ᵀΦ(LᵀL̄)L⁻¹), is indefinite with positive
// probability, and stochastic NGD with it (γ = 1/2 ∈ (0, 1]) leaves the domain Ω on some run.
// Instance: zero-mean q, ℓ(z) = −½‖z‖², K = 1, d = 2, S = diag(1, 100) and S = [[1, .9], [.9, 1]].
// Reference: λ_max(ĝ₂) in closed form for 2 × 2 matrices (independent of the estimator); a draw is
// "not NSD" when λ_max > rounding_budget(4d)·‖ĝ₂‖_F. The frequency is reported with a two-sided 99%
// Clopper–Pearson interval; the claim holds when its lower end is > 0. Leaving Ω is detected by a
// Cholesky factorisation of −2η₂ after every step (in_natural_domain).
// Negative controls: S = I (ĝ₂ = −½ diag(ε₁², ε₂²) is NSD on every draw: frequency 0), and NGD with
// the Price estimate, which never leaves Ω (Remark 2).
#include "nonconjugate_common.hpp"
#include "ngvi/estimators/reparam.hpp"
#include "ngvi/optim/ngd_nonconjugate.hpp"
#include "ngvi/stats/clopper_pearson.hpp"

namespace ngvi::claims {
namespace {

constexpr const char* kId = "appB.autodiff_indefinite";
constexpr double kConfidence = 0.99;

template <class Scalar>
LogLikDerivatives<Scalar> quadratic_loglik(const Vec<Scalar>& z, bool) {
  return LogLikDerivatives<Scalar>{Scalar(-0.5) * z.squaredNorm(), Vec<Scalar>(-z), Mat<Scalar>(-Mat<Scalar>::Identity(z.size(), z.size()))};
}

template <class Scalar>
ClaimRecord frequency_record(const std::string& name, Kind kind, const Mat<Scalar>& s, long draws, std::uint64_t seed) {
  Stopwatch sw;
  random::Stream rng(seed, 0xA11B);
  const GaussianExpectation<Scalar> mu(Vec<Scalar>::Zero(2), s);
  long bad = 0;
  for (long t = 0; t < draws; ++t) {
    const auto g = reparam_gradient(quadratic_loglik<Scalar>, mu, 1, rng);
    if (lambda_max_2x2(g.second) > rounding_budget<Scalar>(8) * Scalar(g.second.norm())) ++bad;
  }
  const auto [lo, hi] = stats::clopper_pearson(bad, draws, 1.0 - kConfidence);
  return inequality_record(kId, name, scalar_name<Scalar>(), kind, 0.0, lo, sw.seconds(),
                           "P(AD g2 not NSD) = " + std::to_string(bad) + "/" + std::to_string(draws) + " = " +
                               fmt_double(static_cast<double>(bad) / static_cast<double>(draws)) + ", 99% Clopper-Pearson [" +
                               fmt_double(lo) + ", " + fmt_double(hi) + "]",
                           "probability");
}

template <class Scalar>
ClaimRecord domain_record(const std::string& name, Kind kind, GradientEstimator est, const Mat<Scalar>& s, long runs, std::uint64_t seed,
                          const Variant* variant) {
  Stopwatch sw;
  long left = 0;
  long first_step = -1;
  const GaussianMoments<Scalar> prior{Vec<Scalar>::Zero(2), Mat<Scalar>::Identity(2, 2)};
  for (long r = 0; r < runs; ++r) {
    random::Stream rng(seed, 0xD0 + static_cast<std::uint64_t>(r));
    // The library's NGD with the given route, or the context's variant of it.
    const auto run = ngd_nonconjugate_for(variant, quadratic_loglik<Scalar>, prior, GaussianMoments<Scalar>{Vec<Scalar>::Zero(2), s},
                                          StepSchedule<Scalar>::constant(Scalar(0.5)), 1, 20, rng, est);
    if (!run.ok()) {
      ++left;
      if (first_step < 0) first_step = run.failure->step;
    }
  }
  return inequality_record(kId, name, scalar_name<Scalar>(), kind, 0.5, static_cast<double>(left), sw.seconds(),
                           std::to_string(left) + "/" + std::to_string(runs) + " NGD runs (gamma = 1/2, K = 1, 20 steps, " +
                               estimator_name(est) + ") left Omega" +
                               (first_step >= 0 ? "; first detected at step " + std::to_string(first_step) : std::string()),
                           "runs");
}

template <class Scalar>
std::vector<ClaimRecord> run_impl(const RunContext& ctx) {
  std::vector<ClaimRecord> out;
  const bool dbl = std::is_same_v<Scalar, double>;
  const long draws = ctx.full ? 200000 : (dbl ? 4000 : 400);
  Mat<Scalar> s_diag = Mat<Scalar>::Zero(2, 2);
  s_diag(0, 0) = Scalar(1);
  s_diag(1, 1) = Scalar(100);
  Mat<Scalar> s_corr(2, 2);
  s_corr << Scalar(1), Scalar(9) / 10, Scalar(9) / 10, Scalar(1);
  const Mat<Scalar> s_id = Mat<Scalar>::Identity(2, 2);
  out.push_back(frequency_record<Scalar>("d2-S=diag(1,100)-K1", Kind::kClaim, s_diag, draws, ctx.seed));
  out.push_back(frequency_record<Scalar>("d2-S=[[1,.9],[.9,1]]-K1", Kind::kClaim, s_corr, draws, ctx.seed + 1));
  out.push_back(frequency_record<Scalar>("d2-S=I-K1", Kind::kControl, s_id, draws, ctx.seed + 2));
  const long runs = ctx.full ? 200 : 20;
  out.push_back(domain_record<Scalar>("ngd-reparam-leaves-domain", Kind::kClaim, GradientEstimator::kReparam, s_diag, runs, ctx.seed, ctx.variant));
  out.push_back(domain_record<Scalar>("ngd-price-leaves-domain", Kind::kControl, GradientEstimator::kPrice, s_diag, runs, ctx.seed, ctx.variant));
  return out;
}

std::vector<ClaimRecord> run(const RunContext& ctx) { return run_precisions(ctx, run_impl<double>, run_impl<mp50>); }

const Registrar kReg({kId, "The reparameterisation estimate of the covariance block is indefinite with positive probability; NGD with it can leave Omega",
                      "Wu & Gardner 2024, Appendix B, Algorithm 1; docs/math.md §3.3-3.4", "[D]", run});

}  // namespace
}  // namespace ngvi::claims
