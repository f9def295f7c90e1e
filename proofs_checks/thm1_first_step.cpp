// DESCRIPTION
// Claim thm1.first_step (Wu & Gardner 2024, Theorem 1, side statement "first step"; docs/math.md §4.5,
// tag [R]): at t = 0 with γ₀ = 1 the term D(u, μ₀) of the one-step inequality vanishes, so
//   E f(μ₁) − f(μ*) = E KL(q₁ ‖ p(z | y)) ≤ σ₀²,
// and with zero gradient variance NGD reaches μ* in one step.
// Exact, no Monte Carlo: the expectation over the batch is the mean over all n^M ordered batches
// (with replacement, eq. (15)), each step taken by the library's NGD stepper with γ₀ from the
// library's Theorem 1 schedule (or the context's variant of estimator and schedule) from
// q₀ = N(0, I). f(μ₁) − f(μ*) = KL(q₁ ‖ posterior) (Lemma 2) with the posterior by an independent
// route, Gaussian conditioning in data space (m = S_p Xᵀ K⁻¹ y, S = S_p − S_p Xᵀ K⁻¹ X S_p,
// K = X S_p Xᵀ + s_e² I). σ₀² is eq. (12) through its symmetrised-KL form, by enumeration
// (diagnostics/step_variance.hpp). Runs in double and mp50 on the shared quick instances
// (blr_common.hpp; n = 12, M = 2: 144 batches; mp50 on the first one only in quick mode).
// Tightness: with γ₀ = 1 the exact step lands on the posterior (Lemma 2), so
// σ₀² = E[KL(q₁ ‖ p) + KL(p ‖ q₁)] and lhs/rhs = E KL(q₁‖p) / E[symmetrised KL], of order 1/2.
// Zero-variance record: the sign-flip instance, rows ±x with targets ±y, whose per-datum gradients
// y_i x_i and x_i x_iᵀ all coincide, so every batch gives ĝ = ∇ℓ exactly and σ₀² = 0: then
// E KL(q₁ ‖ p) = σ₀² = 0, an identity in nats checked against the rounding budget β of the two
// KL evaluations (kl_budget below).
// Negative control: γ₀ = 1 − δ on the zero-variance instance (the hypothesis γ₀ = 1 broken). The step
// lands at η* + δv, v = η₀ − η*, so KL(q₁ ‖ p) = (δ²/2)·vᵀ∇²A(η*)v + O(δ³) while σ₀² stays 0:
// δ_min = √(2β / vᵀ∇²A(η*)v) (derived; vᵀ∇²A v = Var_p(v₁ᵀz + zᵀV₂z) = (v₁ + 2V₂m)ᵀS(v₁ + 2V₂m)
// + 2 tr(V₂SV₂S), closed form), run at kControlMultiple·δ_min, where the error is ≈ 16β.
// Second control, re-run through the algorithm under test (double; derivation at the record): the
// zero-variance hypothesis broken by the data, the sign-flip instance's targets perturbed by a relative
// ±δ so that σ₀² = O(δ²) > 0; the identity's lhs is then E KL(p ‖ q₁) ≈ σ₀²/2.
// Against a conjugate-ngd implementation (protocols/conjugate_ngd.hpp, double; in mp50 one skipped
// record): one trajectory per batch, start then step(0, η₀, batch), with the implementation's own γ₀ and
// estimate; σ₀² stays the kit's (a property of eq. (15) at q₀ with Theorem 1's γ₀ = 1, the claim's
// hypothesis), so a schedule with γ₀ < 1 or a scaled estimate shows as a broken record. The control's
// γ₀ = 1 − δ cannot be handed to an implementation that owns its schedule: it is formed from the
// returned step, η₀ + (1 − δ)(η₁ − η₀), and marked injected.
#include <Eigen/Eigenvalues>

#include "ngvi/claims/blr_common.hpp"
#include "ngvi/claims/expfam_common.hpp"

namespace ngvi::claims {
namespace { namespace NGVI_UNITY_ID {

constexpr const char* kId = "thm1.first_step";

/// The zero-variance instance: rows s_i·x and targets s_i·y with signs s_i = ±1 alternating (x, y the
/// first row of a synthetic problem), so y_i x_i = y x and x_i x_iᵀ = x xᵀ for every i, exactly.
/// With `perturb` = δ > 0 the targets are s_i·y·(1 + δr_i), r_i = +1 for the first four rows and −1 for
/// the last four: y_i x_i = y x (1 + δr_i) now differ, and σ₀² = O(δ²) > 0 (the perturbed-data control).
BlrInstance zero_variance_instance(const RunContext& ctx, double perturb = 0) {
  const auto base = data::synthetic_regression(8, 3, 1.0, 0.7, ctx.seed + 7);
  Dataset<double> d{Mat<double>(8, 3), Vec<double>(8)};
  for (Index i = 0; i < 8; ++i) {
    const double s = i % 2 == 0 ? 1.0 : -1.0;
    d.X.row(i) = s * base.X.row(0);
    d.y(i) = s * base.y(0) * (1.0 + perturb * (i < 4 ? 1.0 : -1.0));
  }
  return {"signflip-n8-d3-M2", std::move(d), Mat<double>::Identity(3, 3), 0.5, 2};
}

/// The posterior by Gaussian conditioning in data space (independent of the natural-parameter route).
template <class Scalar>
GaussianMoments<Scalar> posterior_by_conditioning(const LinearRegression<Scalar>& model) {
  const auto& X = model.data().X;
  const Index n = model.n();
  const Mat<Scalar>& sp = model.prior().cov;
  Mat<Scalar> k = X * sp * X.transpose();
  k += model.noise_var() * Mat<Scalar>::Identity(n, n);
  const SpdFactor<Scalar> fk(symmetrise(k), kId, "K");
  const Mat<Scalar> xsp = X * sp;
  GaussianMoments<Scalar> p;
  p.mean = xsp.transpose() * fk.solve(model.data().y);
  p.cov = symmetrise(Mat<Scalar>(sp - xsp.transpose() * fk.solve(xsp)));
  return p;
}

/// Budget β (nats, absolute) for E KL(q₁ ‖ p) − σ₀² when both are 0 in exact arithmetic (derived):
/// kl_gaussian sums tr(S_p⁻¹S₁) ≈ d, −d, the quadratic term and ±log det, each through a Cholesky
/// solve of relative error γ_ops·κ(S) (ops = d² + 4d + 16 + d); the sum carries the magnitudes of its
/// terms, 2d + |log det S| (twice). σ₀² (two KL evaluations over γ₀²) and E KL give three such
/// evaluations. The moments of q₁ and of p themselves are off by the relative error ε of the
/// data-space conditioning and of the step (lemma2's budget 4γ_{2n+nd+d²+16}·κ(K)κ(S)), which enters
/// the KL only at second order, d·κ(S)·ε².
template <class Scalar>
Scalar kl_budget(const GaussianMoments<Scalar>& p, const LinearRegression<Scalar>& model) {
  using std::abs;
  const Index d = model.d(), n = model.n();
  const Mat<double> sd = data::cast_matrix<double>(p.cov);
  const double ks = spd_condition(sd);
  Mat<double> kd = data::cast_matrix<double>(Mat<Scalar>(model.data().X * model.prior().cov * model.data().X.transpose()));
  kd += to_double(model.noise_var()) * Mat<double>::Identity(n, n);
  const SpdFactor<Scalar> fp(p.cov, kId, "posterior covariance");
  const Scalar terms = Scalar(2 * d) + 2 * abs(fp.log_det());
  const Scalar eval = rounding_budget<Scalar>(expfam_ops(d) + static_cast<long>(d), Scalar(ks)) * terms;
  const Scalar eps_m = rounding_budget<Scalar>(static_cast<long>(2 * n + n * d + d * d + 16), Scalar(spd_condition(kd) * ks));
  return Scalar(3) * eval + Scalar(static_cast<double>(d) * ks) * eps_m * eps_m;
}

/// E KL(q₁ ‖ p) over all n^M batches, one step of the library's stepper (or the variant's) with
/// γ₀ the Theorem 1 schedule's (or the variant's) first step, times `*gamma` when `gamma` is given,
/// and σ₀² at the same γ₀.
template <class Scalar>
struct FirstStep {
  Scalar ekl = Scalar(0), sigma0 = Scalar(0), ekl_rev = Scalar(0);
  bool ok = true;
};

template <class Scalar>
FirstStep<Scalar> first_step(const LinearRegression<Scalar>& model, const BlrInstance& inst, const GaussianMoments<Scalar>& post,
                             const RunContext& ctx, const Scalar* gamma) {
  FirstStep<Scalar> out;
  MinibatchGradient<Scalar> est(model, inst.batch);
  FunctionEstimator fixed{[&est](long, const GaussianNatural<Scalar>&, GaussianPair<Scalar>& g) { est.evaluate(g); }};
  // One step only: γ₀ is the Theorem 1 schedule's (or the variant's) first step, times the control's
  // factor when one is given, so that a control perturbs the algorithm under test, not replaces it.
  const auto algorithm = schedule_for<Scalar>(ctx.variant(), StepSchedule<Scalar>::theorem1());
  const auto schedule = StepSchedule<Scalar>::constant(gamma ? *gamma * algorithm.at(0) : algorithm.at(0));
  long count = 0;
  const protocols::ConjugateNgd<Scalar>* impl = conjugate_ngd_for<Scalar>(ctx.variant());
  for_each_batch(inst.data.n(), inst.batch, kEnumerationLimit, [&](const std::vector<Index>& idx) {
    if (!out.ok) return;
    GaussianNatural<Scalar> eta1;
    bool stepped = false;
    if (impl != nullptr) {
      // One trajectory of the implementation per batch: start, then its step(0, η₀, batch) with its
      // own γ₀ and estimate. The control's γ₀ = (1 − δ)·γ₀ cannot be handed (the implementation owns
      // its schedule): it is formed from the returned step, η₀ + (1 − δ)(η₁ − η₀).
      const auto fixed_batch = [&idx](long, MinibatchGradient<Scalar>& e) { e.set_indices(idx); };
      const auto res = blr_run(model, inst.batch, fixed_batch, StepSchedule<Scalar>::theorem1(), ctx.variant(), Scalar(1),
                               Sampling::kWithReplacement, NoAveraging{}, RunOptions{1});
      if (res.failure) {
        out.ok = false;
        return;
      }
      eta1 = res.last;
      if (gamma != nullptr) {
        const GaussianNatural<Scalar> eta0 = standard_natural<Scalar>(model.d());
        eta1 = GaussianNatural<Scalar>(eta0 + *gamma * (eta1 - eta0));
      }
      stepped = true;
    }
    if (!stepped) {
      est.set_indices(idx);
      VariantEstimator<decltype(fixed), Scalar> estimator{fixed, estimator_parts<Scalar>(ctx.variant())};
      NgdStepper<Scalar> stepper(prior_for<Scalar>(ctx.variant(), model.prior_natural()), standard_natural<Scalar>(model.d()));
      NoAverage none;
      const auto res = run_trajectory(stepper, estimator, schedule, none, RunOptions{1, true});
      if (res.failure) {
        out.ok = false;
        return;
      }
      eta1 = res.last;
    }
    const auto q1 = natural_to_moments(eta1);
    out.ekl += kl_gaussian(q1, post);
    out.ekl_rev += kl_gaussian(post, q1);
    ++count;
  });
  if (!out.ok || count == 0) {
    out.ok = false;
    return out;
  }
  out.ekl /= Scalar(count);
  out.ekl_rev /= Scalar(count);
  MinibatchGradient<Scalar> probe(model, inst.batch);
  out.sigma0 = step_variance_exact(probe, standard_natural<Scalar>(model.d()), schedule.at(0), kEnumerationLimit);
  return out;
}

template <class Scalar>
std::vector<ClaimRecord> run_impl(const RunContext& ctx) {
  using std::abs;
  std::vector<ClaimRecord> out;
  const std::string prec = scalar_name<Scalar>();
  // A conjugate-NGD implementation without an mp50 form: in mp50 one skipped record, never the
  // library's records in its name.
  if (ctx.variant() != nullptr && ctx.variant()->protocol == protocols::kConjugateNgd && conjugate_ngd_for<Scalar>(ctx.variant()) == nullptr) {
    out.push_back(skipped_record(kId, "(implementation)", prec, Kind::kClaim, "the conjugate-ngd implementation has no mp50 form"));
    return out;
  }
  const auto instances = blr_instances(ctx);
  for (const auto& inst : instances) {
    if (batch_count(inst.data.n(), inst.batch, kEnumerationLimit) < 0) continue;  // full-mode instances too large to enumerate
    // mp50 adds nothing to an inequality with an O(1) margin beyond one instance (cost: quick mode).
    if (std::is_same_v<Scalar, mp50> && !ctx.full && &inst != &instances.front()) continue;
    Stopwatch sw;
    const auto model = make_model<Scalar>(inst);
    const auto post = posterior_by_conditioning(model);
    const auto fs = first_step<Scalar>(model, inst, post, ctx, nullptr);
    const double lhs = fs.ok ? to_double(fs.ekl) : std::nan("");
    const double rhs = fs.ok ? to_double(fs.sigma0) : std::nan("");
    out.push_back(inequality_record(kId, inst.name + "/gamma0=1", prec, Kind::kClaim, lhs, rhs, sw.seconds(),
                                    "exact over all n^M = " + std::to_string(batch_count(inst.data.n(), inst.batch, kEnumerationLimit)) +
                                        " batches; lhs = E KL(q1 || posterior) (posterior by data-space conditioning), rhs = sigma_0^2 "
                                        "(eq. (12), enumeration); E KL(posterior || q1) = " + fmt(to_double(fs.ekl_rev)) +
                                        ", so lhs/rhs = E KL(q1||p) / E[KL(q1||p) + KL(p||q1)]",
                                    "nats"));
  }
  // Zero variance: every batch gives the exact gradient.
  const auto zinst = zero_variance_instance(ctx);
  const auto model = make_model<Scalar>(zinst);
  const auto post = posterior_by_conditioning(model);
  const Scalar beta = kl_budget(post, model);
  {
    Stopwatch sw;
    const auto fs = first_step<Scalar>(model, zinst, post, ctx, nullptr);
    const Scalar err = fs.ok ? Scalar(abs(fs.ekl - fs.sigma0)) : Scalar(std::numeric_limits<double>::quiet_NaN());
    out.push_back(identity_record<Scalar>(kId, zinst.name + "/zero-variance", Kind::kClaim, err, beta, sw.seconds(),
                                          "rows +-x, targets +-y: every batch gives g = grad l exactly; |E KL(q1||p) - sigma_0^2| (nats, "
                                          "both 0 exactly) against the KL rounding budget; E KL = " + fmt(to_double(fs.ekl)) +
                                              ", sigma_0^2 = " + fmt(to_double(fs.sigma0))));
  }
  {
    // Control: γ₀ = 1 − δ. KL(q₁ ‖ p) = (δ²/2)·vᵀ∇²A(η*)v + O(δ³), v = η₀ − η* (closed form, double).
    Stopwatch sw;
    const auto md = make_model<double>(zinst);
    const auto pd = posterior_by_conditioning(md);
    const GaussianNatural<double> star = moments_to_natural(pd);
    const GaussianPair<double> v = standard_natural<double>(md.d()) - star;
    const Vec<double> a = v.first + 2.0 * v.second * pd.mean;
    const double c2 = a.dot(pd.cov * a) + 2.0 * (v.second * pd.cov * v.second * pd.cov).trace();
    const Scalar cb = claim_budget<Scalar>(beta);
    const Scalar delta_min = Scalar(std::sqrt(2.0 * to_double(cb) / c2));
    const Scalar gamma = Scalar(1) - Scalar(kControlMultiple) * delta_min;
    const auto fs = first_step<Scalar>(model, zinst, post, ctx, &gamma);
    const Scalar err = fs.ok ? Scalar(abs(fs.ekl - fs.sigma0)) : Scalar(std::numeric_limits<double>::quiet_NaN());
    ClaimRecord r = identity_record<Scalar>(kId, zinst.name + "/zero-variance/gamma0-below-1", Kind::kControl, err, cb, sw.seconds(),
                                            violation_note("1 - gamma_0", to_double(Scalar(1) - gamma), to_double(delta_min),
                                                           "KL(q1||p) = (delta^2/2) v^T Hess A v, quadratic; sigma_0^2 stays 0"));
    // Against an implementation the shortened step is formed by the kit from the one it returned.
    out.push_back(conjugate_ngd_for<Scalar>(ctx.variant()) != nullptr ? injected_control(std::move(r)) : std::move(r));
  }
  if constexpr (std::is_same_v<Scalar, double>) {
    // Control re-run through the algorithm under test: the zero-variance hypothesis broken by data.
    // With γ₀ = 1 the exact step lands on the posterior, so σ₀² = E[KL(q₁‖p) + KL(p‖q₁)] and the
    // record's lhs |E KL(q₁‖p) − σ₀²| is E KL(p‖q₁) = σ₀²/2 + O(δ³) (the two KLs agree at second
    // order). σ₀²(δ) = c·δ² + O(δ³), c = σ₀²(δ₀)/δ₀² from the kit's enumeration (eq. (12), not the
    // algorithm under test) at δ₀ = 1e-3, so the record breaks from δ_min = √(2β'/c) (β' the claim's
    // budget; derived) and runs at kControlMultiple·δ_min, where lhs ≈ 16β'. Double only: in mp50
    // δ_min is about 1e-23, below the resolution of the double data the instance is built from.
    Stopwatch sw;
    const Scalar cb = claim_budget<Scalar>(beta);
    auto sigma0_at = [&](double delta) {
      const auto mp = make_model<double>(zero_variance_instance(ctx, delta));
      MinibatchGradient<double> probe(mp, zinst.batch);
      return step_variance_exact(probe, standard_natural<double>(mp.d()), 1.0, kEnumerationLimit);
    };
    constexpr double kProbe = 1e-3;
    const double c = sigma0_at(kProbe) / (kProbe * kProbe);
    const double delta_min = std::sqrt(2.0 * to_double(cb) / c);
    const double delta = kControlMultiple * delta_min;
    const auto pinst = zero_variance_instance(ctx, delta);
    const auto pmodel = make_model<Scalar>(pinst);
    const auto ppost = posterior_by_conditioning(pmodel);
    const auto fs = first_step<Scalar>(pmodel, pinst, ppost, ctx, nullptr);
    const Scalar err = fs.ok ? Scalar(abs(fs.ekl - fs.sigma0)) : Scalar(std::numeric_limits<double>::quiet_NaN());
    out.push_back(identity_record<Scalar>(kId, zinst.name + "/zero-variance/perturbed-data", Kind::kControl, err, cb, sw.seconds(),
                                          violation_note("the targets' relative perturbation", delta, delta_min,
                                                         "y_i x_i differ by 2 delta: sigma_0^2 = c delta^2 (c = " + fmt(c) +
                                                             " by the kit's enumeration), lhs = E KL(p||q1) ~ sigma_0^2 / 2; sigma_0^2 = " +
                                                             fmt(to_double(fs.sigma0)))));
  }
  return out;
}

std::vector<ClaimRecord> run(const RunContext& ctx) { return run_precisions(ctx, run_impl<double>, run_impl<mp50>); }

const Registrar kReg({kId, "at t = 0 with gamma_0 = 1: E f(mu_1) - f(mu*) = E KL(q_1 || posterior) <= sigma_0^2; zero variance reaches mu* in one step",
                      "Wu & Gardner 2024, Theorem 1 (first step); docs/math.md §4.5", "[R]", run, CostHint{}, {protocols::kConjugateNgd}});

}}  // namespace
}  // namespace ngvi::claims
