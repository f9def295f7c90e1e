// DESCRIPTION
// Claim vpng.fr_closed_form (Tang & Ranganath 2019, the variational predictive Fisher; docs/systems.md
// D.3, derived there): for the bivariate Gaussian-mean model x_n | z ~ N(z, Σ),
// Σ = [[1, 1 − ε], [1 − ε, 1]], with q = N(μ, diag s²) and z = μ + s ⊙ ε, the predictive Fisher is
//   F_r = blockdiag(NΣ⁻¹, N diag((Σ⁻¹)_11, (Σ⁻¹)_22))   in (μ, s),
// i.e. blockdiag(NΣ⁻¹, N diag(s_i² (Σ⁻¹)_ii)) in the kit's (μ, ω = log s).
// Reference: the right-hand side with Σ⁻¹ written by the 2 × 2 adjugate (vpng_common.hpp); the
// library's route goes through the model's Cholesky-based Σ⁻¹, the estimator part and
// predictive_fisher_exact, and is mapped to (μ, s) by the chain rule ∂ω/∂s = 1/s.
// Records: (1) the exact route, relative Frobenius error against rounding_budget(8, κ(Σ)) in double
// and mp50 (the bounds 1e-12 and 1e-40 lie above these budgets); (2) double only, the Monte
// Carlo routes at λ* = the mean-field optimum: ε and x' sampled and the inner expectation analytic
// (K = 1e4 draws quick), each against 5 σ_K, σ_K² = E‖F̂ − F_r‖²_F/(K ‖F_r‖²_F) in closed form in
// (μ, s) (sampled: the per-draw score is t = (v, ε ⊙ v), v ~ N(0, G) independent of ε, so
// E‖t‖⁴ = Σ_ij (G_ii G_jj + 2 G_ij²) m_ij, m_ii = 6, m_ij = 4; analytic: the cross entries G_ij ε_j
// and the ω-block entries G_ij ε_i ε_j are the only random ones). Level: by the central limit theorem
// the squared error is a weighted sum of χ²₁ variables of total weight σ_K², whose tail beyond 25
// times the total is at most P(χ²₁ > 25) = 2Φ(−5) = 5.7e-7 (Székely & Bakirov 2003); r.level carries it.
// The "1 % at 1e5 samples" is about 1 σ_K there (σ_K ≈ 0.95 % at K = 1e5), so no test at a
// useful level can state it; under --full the 1 % is checked at K = 1e6, where it is about 3.3 σ_K
// (level 2Φ(−3.3) ≈ 9e-4, full mode only).
// Negative controls (δ at kControlMultiple = 4 times the derived detection limit): the exact route on
// the model at ε(1 + δ), δ_min = budget / S with S the sensitivity of the closed form to a relative
// change of ε (a central difference of the closed form); the sampled route with x' drawn from the
// model at ε(1 + δ), and the analytic route likewise, δ_min = (5 + z_0.9 + 1) σ_K / S, detected with
// probability >= 0.9 (the sampled route's σ_K of about 3 % at K = 1e4 puts its δ near 0.9, the analytic
// route's about 0.2).
#include "ngvi/claims/expfam_common.hpp"
#include "vpng_common.hpp"

namespace ngvi::claims::vpng {
namespace { namespace NGVI_UNITY_ID {

constexpr const char* kId = "vpng.fr_closed_form";

/// F̂ from the estimator part at λ by `route`, with VPNG's parts under test.
template <class Scalar>
Mat<Scalar> estimator_fisher(const GaussianMeanModel<Scalar>& m, const Vec<Scalar>& lambda, FisherRoute route, const VpngParts<Scalar>& parts, long draws,
                             std::uint64_t seed) {
  PredictiveFisherOptions o;
  o.grad_draws = 0;
  o.route = route;
  o.fisher_draws = draws;
  PredictiveFisherEstimator<GaussianMeanModel<Scalar>, random::Stream> est(m, o, random::Stream(seed, 2901), parts.fisher);
  PreconditionedStepper<Scalar, PlainGradient> s(lambda, PlainGradient{});
  auto dir = s.make_direction();
  est.estimate(0, s, dir);
  return dir.fisher;
}

/// The closed form in (μ, s).
template <class Scalar>
Mat<Scalar> reference_mu_s(const Bivariate<Scalar>& b) {
  const Mat<Scalar> p = precision_closed_form(b.eps);
  const Scalar nn(b.n);
  Mat<Scalar> f = Mat<Scalar>::Zero(4, 4);
  f.topLeftCorner(2, 2) = nn * p;
  f(2, 2) = nn * p(0, 0);
  f(3, 3) = nn * p(1, 1);
  return f;
}

/// (μ, ω) → (μ, s): F_s = T F_ω T with T = diag(1, 1, 1/s_1, 1/s_2).
template <class Scalar>
Mat<Scalar> to_mu_s(const Mat<Scalar>& f, const Vec<Scalar>& s) {
  Vec<Scalar> t(4);
  t << Scalar(1), Scalar(1), Scalar(1) / s(0), Scalar(1) / s(1);
  return t.asDiagonal() * f * t.asDiagonal();
}

/// λ* in closed form: μ* by Cramer's rule, s_i*² = 1/(N(Σ⁻¹)_ii + σ0⁻²).
template <class Scalar>
Vec<Scalar> lambda_star(const Bivariate<Scalar>& b, std::uint64_t seed) {
  using std::sqrt;
  const Mat<Scalar> p = precision_closed_form(b.eps);
  const Scalar t = Scalar(1) / (b.sigma0 * b.sigma0);
  Vec<Scalar> s(2);
  for (Index i = 0; i < 2; ++i) s(i) = Scalar(1) / sqrt(Scalar(b.n) * p(i, i) + t);
  return mf_stack<Scalar>(mu_star_closed_form(b, data_mean(b, seed)), s);
}

/// σ_K² · K ‖F‖² of the two Monte Carlo routes (see DESCRIPTION), in double.
constexpr double kSigmas = 5;

/// False-alarm level of "error <= c sigma_K": the squared error is (by the central limit theorem) a
/// weighted sum of chi-square(1) variables with total weight sigma_K^2, whose tail beyond c^2 times
/// the total is at most P(chi-square(1) > c^2) = 2 Phi(-c) for c^2 >= 1.54 (Szekely & Bakirov 2003).
inline double mc_level(double c) { return std::erfc(c / std::sqrt(2.0)); }

double sampled_variance(const Mat<double>& g, const Vec<double>& s) {
  double e4 = 0;
  for (Index i = 0; i < 2; ++i)
    for (Index j = 0; j < 2; ++j) {
      const double m = i == j ? 1 + 2 * s(i) * s(i) + 3 * std::pow(s(i), 4) : (1 + s(i) * s(i)) * (1 + s(j) * s(j));
      e4 += (g(i, i) * g(j, j) + 2 * g(i, j) * g(i, j)) * m;
    }
  const Mat<double> f = predictive_fisher_exact<double>(g, s);
  return e4 - f.squaredNorm();
}
double analytic_variance(const Mat<double>& g, const Vec<double>& s) {
  double v = 0;
  for (Index i = 0; i < 2; ++i)
    for (Index j = 0; j < 2; ++j) v += 2 * g(i, j) * g(i, j) * s(j) * s(j) + std::pow(s(i) * s(j) * g(i, j), 2) * (i == j ? 2 : 1);
  return v;
}

template <class Scalar>
std::vector<ClaimRecord> run_impl(const RunContext& ctx) {
  std::vector<ClaimRecord> out;
  const VpngParts<Scalar> cfg = vpng_parts_for<Scalar>(ctx);
  const Bivariate<Scalar> b;
  const auto model = make_model(b, ctx.seed);
  const Scalar cond = (Scalar(2) - b.eps) / b.eps;
  const Scalar budget = rounding_budget<Scalar>(8, cond);
  const Mat<Scalar> ref = reference_mu_s(b);
  auto exact_record = [&](const std::string& inst, Kind kind, const GaussianMeanModel<Scalar>& m, const Vec<Scalar>& lambda) {
    Stopwatch sw;
    const Mat<Scalar> f = to_mu_s<Scalar>(estimator_fisher(m, lambda, FisherRoute::kExact, cfg, 1, ctx.seed), mf_sigma(lambda));
    const Scalar err = (f - ref).norm() / ref.norm();
    return identity_record<Scalar>(kId, inst, kind, err, budget, sw.seconds());
  };
  const Vec<Scalar> origin = Vec<Scalar>::Zero(4);
  Vec<Scalar> spread = origin;
  spread(2) = -Scalar(1);  // σ = (e⁻¹, e^{1/2}): unequal scales
  spread(3) = Scalar(1) / 2;
  const Vec<Scalar> opt = lambda_star(b, ctx.seed);
  out.push_back(exact_record("exact/lambda=(0,0)", Kind::kClaim, model, origin));
  out.push_back(exact_record("exact/lambda=(0,(-1,1/2))", Kind::kClaim, model, spread));
  out.push_back(exact_record("exact/lambda=lambda*", Kind::kClaim, model, opt));
  {
    // Control: the model at ε(1 + δ) against the closed form at ε. Sensitivity S = d(rel. error)/dδ
    // by a central difference of the closed form itself (h = eps^(1/3)), δ_min = budget / S.
    using std::cbrt;
    const Scalar h = cbrt(eps<Scalar>());
    Bivariate<Scalar> up = b, down = b;
    up.eps = b.eps * (Scalar(1) + h);
    down.eps = b.eps * (Scalar(1) - h);
    const Scalar sens = (reference_mu_s(up) - reference_mu_s(down)).norm() / (Scalar(2) * h * ref.norm());
    const Scalar delta_min = budget / sens, delta = Scalar(kControlMultiple) * delta_min;
    Bivariate<Scalar> off = b;
    off.eps = b.eps * (Scalar(1) + delta);
    auto r = exact_record("exact/model eps(1+delta) vs closed form at eps", Kind::kControl, make_model(off, ctx.seed), spread);
    r.note = join_notes(r.note, violation_note("relative change of eps", to_double(delta), to_double(delta_min)));
    out.push_back(r);
  }

  if constexpr (std::is_same_v<Scalar, double>) {
    const Mat<double> g = model.predictive_fisher(Vec<double>::Zero(2));
    const Vec<double> s = mf_sigma(opt);
    // The error is measured in (μ, s), where F_r = blockdiag(G, diag G_ii) and the per-draw terms
    // have the moments of sampled_variance / analytic_variance at s = 1 (see DESCRIPTION).
    const Vec<double> ones = Vec<double>::Ones(2);
    const double fnorm = predictive_fisher_exact<double>(g, ones).norm();
    const double sd_sampled = std::sqrt(sampled_variance(g, ones)) / fnorm, sd_analytic = std::sqrt(analytic_variance(g, ones)) / fnorm;
    const long k_quick = 10000;
    auto mc_record = [&](const std::string& inst, Kind kind, const GaussianMeanModel<double>& m, FisherRoute route, long k, double sd1,
                         double bound_override, std::string extra) {
      Stopwatch sw;
      const Mat<double> f = to_mu_s<double>(estimator_fisher(m, opt, route, cfg, k, ctx.seed), s);
      const double err = (f - ref).norm() / ref.norm();
      const double sigma_k = sd1 / std::sqrt(double(k));
      const double bound = bound_override > 0 ? bound_override : kSigmas * sigma_k;
      auto r = inequality_record(kId, inst + "/K=" + std::to_string(k), "double", kind, err, bound, sw.seconds(),
                                 join_notes("relative Frobenius error in (mu, s); sigma_K = " + fmt(sigma_k), extra), "rel");
      if (kind == Kind::kClaim) r.level = mc_level(bound / sigma_k);
      return r;
    };
    const std::string power = "level 2 Phi(-5) (Szekely-Bakirov bound on a weighted chi-square tail, derived)";
    out.push_back(mc_record("sampled-x'/5sigma", Kind::kClaim, model, FisherRoute::kSampled, k_quick, sd_sampled, 0, power));
    out.push_back(mc_record("analytic-inner/5sigma", Kind::kClaim, model, FisherRoute::kAnalytic, k_quick, sd_analytic, 0, power));
    if (ctx.full) out.push_back(mc_record("sampled-x'/1%", Kind::kClaim, model, FisherRoute::kSampled, 1000000, sd_sampled, 0.01, {}));
    // Control: x' from the model at ε(1 + δ). The error then has a deterministic part S δ (S the
    // sensitivity of the closed form, above) plus the noise; it exceeds 5 σ_K with probability
    // >= 0.9 once S δ >= (5 + z_0.9 + 1) σ_K (the +1 covers the noise's typical size), so
    // δ_min = (5 + 1.2816 + 1) σ_K / S (derived).
    const double h = std::cbrt(std::numeric_limits<double>::epsilon());
    Bivariate<double> up = b, down = b;
    up.eps = b.eps * (1 + h);
    down.eps = b.eps * (1 - h);
    const double sens = (reference_mu_s(up) - reference_mu_s(down)).norm() / (2 * h * ref.norm());
    auto mc_control = [&](const std::string& inst, FisherRoute route, double sd1) {
      const double dmin = (kSigmas + 1.2816 + 1) * sd1 / std::sqrt(double(k_quick)) / sens, delta = kControlMultiple * dmin;
      Bivariate<double> wide = b;
      wide.eps = b.eps * (1 + delta);
      return mc_record(inst, Kind::kControl, make_model(wide, ctx.seed), route, k_quick, sd1, 0,
                       violation_note("relative change of eps", delta, dmin, "detected with probability >= 0.9 from delta_min"));
    };
    out.push_back(mc_control("sampled-x' from model eps(1+delta) vs closed form at eps", FisherRoute::kSampled, sd_sampled));
    out.push_back(mc_control("analytic-inner from model eps(1+delta) vs closed form at eps", FisherRoute::kAnalytic, sd_analytic));
  }
  return out;
}

}}  // namespace

std::vector<ClaimRecord> fr_closed_form_records(const RunContext& ctx) {
  return run_precisions(
      ctx, [](const RunContext& c) { return NGVI_UNITY_ID::run_impl<double>(c); }, [](const RunContext& c) { return NGVI_UNITY_ID::run_impl<mp50>(c); });
}

namespace { namespace NGVI_UNITY_ID {
const Registrar kReg({kId, "The predictive Fisher of the bivariate Gaussian-mean model is blockdiag(N Sigma^-1, N diag(Sigma^-1_ii)) in (mu, s); its Monte Carlo estimates agree within 5 sigma_K",
                      "Tang & Ranganath 2019 (slides: variational predictive Fisher); docs/systems.md D.3, D.5 item 1", "[D]",
                      fr_closed_form_records});
}}  // namespace

}  // namespace ngvi::claims::vpng
