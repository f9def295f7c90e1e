// DESCRIPTION
// Claim lemma1.ngd_is_md (Wu & Gardner 2024, Lemma 1 and eqs. (7)–(10); docs/math.md §2.2–2.3, [R]):
//   for f(η) = KL(q_η‖p) with p fixed, the natural-gradient step F(η)⁻¹∇_η f equals the mirror
//   step ∇_μ f = ∇A*(μ) − ∇A*(μ_p) = η − η_p.
// Reference: ∇_η f is a central difference of the closed-form KL in mp100 (it never uses the Fisher
// metric nor the mirror formula). Two routes are checked: the residual F(η)·(mirror step) − ∇_η f,
// with F applied by fisher_apply (∇²A), and the step F(η)⁻¹∇_η f itself, with F⁻¹ applied by
// fisher_inverse_apply (∇²A*), compared with the mirror step. Errors are relative, in eps, against
// 4·γ_ops·κ_map·ρ, where κ_map = map_condition (the error of S from the Cholesky inverse) and
// ρ = (‖S‖₂(1 + ‖m‖))²‖v‖ / ‖F v‖ is the conditioning of the products S V S, S(2Vm + v₁) relative
// to their result (Higham Thm 3.5: |fl(AB) − AB| ≤ γ_k|A||B|), evaluated in double on the instance.
// The inverse route maps a gradient of size ~κ² back to a step of size ~1, so it loses κ² of
// relative accuracy however it is computed; it is run only where κ ≤ kInverseRouteMaxKappa, where
// that loss still leaves the 1e-40 relative agreement in mp50 meaningful. The residual route
// carries the claim at every condition number. Where κ_map·ρ puts the double budget above 1e-6
// relative (the κ = 1e8 instance) the record's note says so: that is the conditioning, not the analysis.
// The reference gradient evaluates KL(q_η‖p) from the Cholesky factor of the precision −2η₂ with one
// logarithm per evaluation, which keeps the quick d = 10 instance fast.
// Negative control (perturbed-dual-map): the hypothesis that the mirror map is A*, i.e. that ∇A*
// inverts ∇A, violated by a relative δ: the mirror step is taken with ∇A*_δ(μ) = (S⁻¹m, −(1+δ)S⁻¹/2).
// The residual error is exactly linear in δ with sensitivity ‖F(η)(0, η_q2 − η_p2)‖/‖∇_η f‖, so the
// detection limit is δ_min = budget/sensitivity; the control runs at δ = kControlMultiple·δ_min
// (expfam_common.hpp) and its note reads "violation: ... = δ; breaks from δ_min (derived)".
// Every other family of the kit (diagonal and univariate Gaussian, Dirichlet, categorical, products;
// expfam_families.hpp) runs through one generic check body, instances named by family
// ("product_dirichlet/N=3,K=4/residual"), on f(η) = −⟨g, μ(η)⟩ + KL(q_η‖p) with a fixed, exactly
// representable g (so that the mirror step η − η_p − g is not the KL's alone): ∇_η f from central
// differences of f in mp100 along the tangent basis eᵢ (f through the family's closed-form KL),
// assembled as G = Σᵢ Dᵢeᵢ/‖eᵢ‖²; the residual F(η)(η − η_p − g) − G and the inverse route
// F(η)⁻¹G − (η − η_p − g), against 4·γ_ops·κ_map·ρ with ρ = ‖F‖₂‖v‖/‖G‖ (‖F‖₂ bounded per family) for
// the residual, and against 4·γ_ops·κ_map·κ(F) for the inverse route, which solves F x = G and so
// passes the relative errors of G and of F's entries to x multiplied by κ(F) (≥ ρ), κ(F) from F
// assembled column by column with fisher_apply (the forward map). Its control (inverse/perturbed-dual-map)
// takes the same violation to the inverse route: the step moves by δ(η_q − η_p)ⱼeⱼ, the route's error
// by δ|(η_q − η_p)ⱼ|/‖v‖, j the largest such coordinate, δ_min = budget·‖v‖/|(η_q − η_p)ⱼ|.
// Control (perturbed-dual-map): the mirror step taken with ∇A*_δ, the dual map with flat coordinate
// i scaled by (1 + δ); the step moves by δ(η_q − η_p)ᵢeᵢ and the residual error by exactly
// δ|(η_q − η_p)ᵢ|‖F(η)eᵢ‖/‖G‖ (F linear), i the coordinate where that is largest:
// δ_min = budget/that sensitivity, run at kControlMultiple·δ_min.
#include "ngvi/claims/expfam_families.hpp"

namespace ngvi::claims {
namespace { namespace NGVI_UNITY_ID {

constexpr const char* kId = "lemma1.ngd_is_md";
constexpr double kInverseRouteMaxKappa = 1e4;

/// g = Σᵢ cᵢeᵢ with cᵢ ∈ {−½, 0, ½} cycling over the tangent basis: a fixed linear term, exact in
/// every scalar.
template <class F>
typename F::Natural linear_term(const F& f) {
  using Scalar = typename F::Scalar;
  typename F::Natural g = Scalar(0) * f.direction(0);
  for (Index i = 0; i < f.size(); ++i) {
    const int c = static_cast<int>(i % 3) - 1;
    if (c != 0) g += (Scalar(c) / 2) * f.direction(i);
  }
  return g;
}

/// The generic check body for every family but the full Gaussian (whose body is run_impl's loop).
template <class F>
void check_family(const FamilyInstance<F>& in, std::vector<ClaimRecord>& out) {
  using Scalar = typename F::Scalar;
  using std::sqrt;
  const F& f = in.family;
  Stopwatch sw;
  const typename F::Expectation mu_q = f.to_mean(in.eta_q);
  const typename F::Expectation mu_p = f.to_mean(in.eta_p);
  const typename F::Natural g = linear_term(f);
  const typename F::Natural nat_q = f.to_natural(mu_q);
  const typename F::Natural nat_p = f.to_natural(mu_p);
  const typename F::Natural mirror = nat_q - nat_p - g;

  // The reference gradient of f(η) = −⟨g, μ(η)⟩ + KL(q_η‖p), in mp100, from directional central
  // differences along the (orthogonal) tangent basis.
  const auto f100 = f.template rebind<mp100>();
  const auto eta_p100 = f100.unflatten_natural(cast_flat<mp100>(f.flatten_natural(in.eta_p)));
  const auto g100 = f100.unflatten_natural(cast_flat<mp100>(f.flatten_natural(g)));
  const auto phi = [&](const auto& x) { return f100.kl(x, eta_p100) - f100.pairing(g100, f100.to_mean(x)); };
  const Vec<mp100> dd = fd_directional_mp100(f100, cast_flat<mp100>(f.flatten_natural(in.eta_q)), phi);
  Vec<mp100> grad = Vec<mp100>::Zero(f.flat_size());
  for (Index i = 0; i < f.size(); ++i) {
    const Vec<mp100> e = f100.flatten_natural(f100.direction(i));
    grad += (dd(i) / e.squaredNorm()) * e;
  }
  const double grad_norm = to_double(mp100(sqrt(grad.squaredNorm())));

  const Vec<double> v_d = cast_flat<double>(f.flatten_natural(mirror));
  const double rho = in.fisher_norm * v_d.norm() / grad_norm;
  const Scalar budget = rounding_budget<Scalar>(in.ops, Scalar(in.cond) * Scalar(std::max(1.0, rho)));
  const Vec<mp100> fm = cast_flat<mp100>(f.flatten_expectation(f.fisher_apply(in.eta_q, mirror)));
  out.push_back(identity_record<Scalar>(kId, in.name + "/residual", Kind::kClaim, Scalar(flat_relative_error<mp100>(fm, grad)),
                                        budget, sw.seconds(), "F(eta)(eta - eta_p - g) vs mp100 central differences of f"));

  // F(η_q) column by column through fisher_apply (the forward map, not the inverse route under test):
  // its condition number sizes the inverse route's budget, its columns the control's sensitivities.
  Stopwatch sw2;
  const Index n = f.flat_size();
  Mat<Scalar> fisher(n, n);
  for (Index i = 0; i < n; ++i)
    fisher.col(i) = f.flatten_expectation(f.fisher_apply(in.eta_q, f.unflatten_natural(flat_unit<Scalar>(n, i))));
  const double kappa_f = spd_condition(data::cast_matrix<double>(fisher));  // F = ∇²A ≻ 0
  // The inverse route solves F x = G: the relative errors of G (its cast, u) and of F's entries (the
  // maps' cond) reach x multiplied by κ(F) however the solve is done, so its budget is cond·κ(F);
  // κ(F) ≥ ρ, since ‖v‖ = ‖F⁻¹G‖ ≤ ‖F⁻¹‖‖G‖.
  const Scalar budget_inv = rounding_budget<Scalar>(in.ops, Scalar(in.cond) * Scalar(std::max({1.0, rho, kappa_f})));
  const typename F::Expectation grad_s = f.unflatten_expectation(cast_flat<Scalar>(grad));
  const Vec<Scalar> mirror_flat = f.flatten_natural(mirror);
  const typename F::Natural ng_step = f.fisher_inverse_apply(mu_q, grad_s);
  out.push_back(identity_record<Scalar>(kId, in.name + "/inverse", Kind::kClaim,
                                        flat_relative_error<Scalar>(f.flatten_natural(ng_step), mirror_flat), budget_inv,
                                        sw2.seconds(), "F(eta)^-1 grad_eta f vs eta - eta_p - g; kappa(F) = " + fmt(kappa_f)));

  // Control: ∇A*_δ scales flat coordinate i of the dual map by (1 + δ) at both μ_q and μ_p, so the
  // mirror step moves by δ(η_q − η_p)ᵢeᵢ and the residual error by exactly δ·sᵢ,
  // sᵢ = |(η_q − η_p)ᵢ|·‖F(η_q)eᵢ‖/‖G‖ (F linear); i maximises sᵢ, δ_min = budget/sᵢ.
  Stopwatch sw3;
  const Vec<Scalar> dq = f.flatten_natural(nat_q), dp = f.flatten_natural(nat_p);
  Index i_best = 0;
  Scalar s_best(0);
  for (Index i = 0; i < n; ++i) {
    using std::abs;
    const Vec<mp100> fe = cast_flat<mp100>(Vec<Scalar>(fisher.col(i)));
    const Scalar si = abs(dq(i) - dp(i)) * Scalar(mp100(sqrt(fe.squaredNorm() / grad.squaredNorm())));
    if (si > s_best) {
      s_best = si;
      i_best = i;
    }
  }
  const Scalar cb = claim_budget<Scalar>(budget);
  const Scalar delta_min = cb / s_best;
  const Scalar delta = Scalar(kControlMultiple) * delta_min;
  Vec<Scalar> dq_delta = dq, dp_delta = dp;
  dq_delta(i_best) += delta * dq_delta(i_best);
  dp_delta(i_best) += delta * dp_delta(i_best);
  const typename F::Natural mirror_delta = f.unflatten_natural(dq_delta) - f.unflatten_natural(dp_delta) - g;
  const Vec<mp100> fm_delta = cast_flat<mp100>(f.flatten_expectation(f.fisher_apply(in.eta_q, mirror_delta)));
  out.push_back(injected_control(identity_record<Scalar>(
      kId, in.name + "/perturbed-dual-map", Kind::kControl, Scalar(flat_relative_error<mp100>(fm_delta, grad)), cb,
      sw3.seconds(),
      violation_note("relative error delta of one coordinate of the dual map grad A*", to_double(delta),
                     to_double(delta_min)))));

  // The same violation seen by the inverse route, against its own budget: the mirror step moves by
  // δ(η_q − η_p)ⱼeⱼ, so the route's relative error moves by δ|(η_q − η_p)ⱼ|/‖v‖ (first order), j the
  // coordinate where |(η_q − η_p)ⱼ| is largest: δ_min = budget_inv·‖v‖/|(η_q − η_p)ⱼ|.
  Stopwatch sw4;
  Index j_best = 0;
  for (Index i = 1; i < n; ++i) {
    using std::abs;
    if (abs(dq(i) - dp(i)) > abs(dq(j_best) - dp(j_best))) j_best = i;
  }
  {
    using std::abs;
    const Scalar cb_inv = claim_budget<Scalar>(budget_inv);
    const Scalar delta_min_inv = cb_inv * Scalar(mirror_flat.norm()) / abs(dq(j_best) - dp(j_best));
    const Scalar delta_inv = Scalar(kControlMultiple) * delta_min_inv;
    Vec<Scalar> dqj = dq, dpj = dp;
    dqj(j_best) += delta_inv * dqj(j_best);
    dpj(j_best) += delta_inv * dpj(j_best);
    const Vec<Scalar> mirror_j = f.flatten_natural(f.unflatten_natural(dqj) - f.unflatten_natural(dpj) - g);
    out.push_back(injected_control(identity_record<Scalar>(kId, in.name + "/inverse/perturbed-dual-map", Kind::kControl,
                                          flat_relative_error<Scalar>(f.flatten_natural(ng_step), mirror_j), cb_inv, sw4.seconds(),
                                          violation_note("relative error delta of one coordinate of the dual map grad A*",
                                                         to_double(delta_inv), to_double(delta_min_inv)))));
  }
}

template <class Scalar>
std::vector<ClaimRecord> run_impl(const RunContext& ctx) {
  using std::log;
  using std::sqrt;
  std::vector<ClaimRecord> out;
  for (const auto& inst : expfam_claim_instances(ctx.full)) {
    Stopwatch sw;
    const auto [qd, pd] = instance_pair<double>(inst, ctx.seed);
    const auto [q, p] = instance_pair<Scalar>(inst, ctx.seed);
    const double cond = std::max(map_condition(qd), map_condition(pd));

    const auto eta_q = moments_to_natural(q);
    const auto mu_q = moments_to_expectation(q);
    const auto mu_p = moments_to_expectation(p);
    const GaussianPair<Scalar> mirror = expectation_to_natural(mu_q) - expectation_to_natural(mu_p);

    // f(η) = KL(q_η‖p) in closed form in the precision P = −2η₂ (docs/math.md §1.3), with
    // S_p⁻¹ = L_p L_pᵀ factored once: with P = LLᵀ, m = P⁻¹η₁,
    //   2f = ‖L⁻¹L_p‖_F² + ‖L_pᵀ(m_p − m)‖² − d + log det P − log det S_p⁻¹,
    // where tr(S_p⁻¹P⁻¹) = ‖L⁻¹L_p‖_F² and log det P = log Π L_ii² (one logarithm per evaluation).
    const GaussianMoments<mp100> p100 = data::cast_moments<mp100>(p);
    const Eigen::LLT<Mat<mp100>> llt_sp(p100.cov);
    const Mat<mp100> sp_inv = llt_sp.solve(Mat<mp100>::Identity(inst.d, inst.d));
    const Eigen::LLT<Mat<mp100>> llt_pp(sp_inv);
    const Mat<mp100> lp = llt_pp.matrixL();
    mp100 prod_lp(1);
    for (Index i = 0; i < inst.d; ++i) prod_lp *= lp(i, i) * lp(i, i);
    const mp100 logdet_sp_inv = log(prod_lp);
    const auto f100 = [&](const GaussianPair<mp100>& x) {
      const Eigen::LLT<Mat<mp100>> llt(mp100(-2) * x.second);
      const Vec<mp100> m = llt.solve(x.first);
      const Mat<mp100> y = llt.matrixL().solve(lp);
      const Vec<mp100> r = lp.transpose() * (p100.mean - m);
      mp100 prod(1);
      for (Index i = 0; i < inst.d; ++i) prod *= llt.matrixLLT()(i, i) * llt.matrixLLT()(i, i);
      return (y.squaredNorm() + r.squaredNorm() - mp100(inst.d) + log(prod) - logdet_sp_inv) / 2;
    };
    const GaussianPair<mp100> grad_eta = fd_gradient_mp100(f100, to_mp100<Scalar>(eta_q));

    const double s_norm = Eigen::SelfAdjointEigenSolver<Mat<double>>(qd.cov, Eigen::EigenvaluesOnly).eigenvalues().maxCoeff();
    const GaussianPair<double> v_d = data::cast_pair<double>(mirror);
    const double rho = std::pow(s_norm * (1 + qd.mean.norm()), 2) * std::sqrt(pair_squared_norm(v_d)) /
                       std::sqrt(to_double(pair_squared_norm(grad_eta)));
    const Scalar budget = rounding_budget<Scalar>(expfam_ops(inst.d), Scalar(cond) * Scalar(std::max(1.0, rho)));
    const GaussianPair<mp100> fm = to_mp100<Scalar>(fisher_apply(eta_q, mirror));
    const Scalar err_res = Scalar(relative_pair_error<mp100>(fm, grad_eta));
    out.push_back(identity_record<Scalar>(kId, inst.name + "/residual", Kind::kClaim, err_res, budget, sw.seconds(),
                                          join_notes("F(eta)(eta - eta_p) vs mp100 central difference of KL",
                                                     conditioning_note(budget, cond * std::max(1.0, rho)))));

    Stopwatch sw2;
    const GaussianPair<Scalar> grad_eta_s = data::cast_pair<Scalar>(grad_eta);
    if (inst.kappa <= kInverseRouteMaxKappa) {
      const GaussianPair<Scalar> ng_step = fisher_inverse_apply(mu_q, grad_eta_s);
      const Scalar err_inv = relative_pair_error<Scalar>(ng_step, mirror);
      out.push_back(identity_record<Scalar>(kId, inst.name + "/inverse", Kind::kClaim, err_inv, budget, sw2.seconds(),
                                            join_notes("F(eta)^-1 grad_eta f vs eta - eta_p",
                                                       conditioning_note(budget, cond * std::max(1.0, rho)))));
    }

    // Control: the mirror step taken with a dual map perturbed by a relative δ in its second block,
    // ∇A*_δ(μ) = (S⁻¹m, −(1+δ)S⁻¹/2), so that ∇A*_δ inverts ∇A only up to δ. The step becomes
    // mirror + δ·(0, V₂), V₂ = η_q2 − η_p2, and the residual error grows exactly linearly:
    // err(δ) = δ·‖F(η)(0, V₂)‖/‖∇_η f‖ (F is linear), whence δ_min = budget/that sensitivity.
    Stopwatch sw3;
    const GaussianPair<Scalar> v2{Vec<Scalar>::Zero(inst.d), mirror.second};
    const Scalar sens = Scalar(sqrt(pair_squared_norm<mp100>(to_mp100<Scalar>(fisher_apply(eta_q, v2))) /
                                    pair_squared_norm<mp100>(grad_eta)));
    const Scalar cb = claim_budget<Scalar>(budget);
    const Scalar delta_min = cb / sens;
    const Scalar delta = Scalar(kControlMultiple) * delta_min;
    auto perturbed_dual = [&delta](const GaussianExpectation<Scalar>& mu) {
      GaussianPair<Scalar> eta = expectation_to_natural(mu);
      eta.second += delta * eta.second;
      return eta;
    };
    const GaussianPair<Scalar> mirror_delta = perturbed_dual(mu_q) - perturbed_dual(mu_p);
    const GaussianPair<mp100> fm_delta = to_mp100<Scalar>(fisher_apply(eta_q, mirror_delta));
    const Scalar err_ctl = Scalar(relative_pair_error<mp100>(fm_delta, grad_eta));
    out.push_back(injected_control(identity_record<Scalar>(
        kId, inst.name + "/perturbed-dual-map", Kind::kControl, err_ctl, cb, sw3.seconds(),
        violation_note("relative error delta of the dual map's second block -(1+delta)S^-1/2", to_double(delta),
                       to_double(delta_min)))));

    // Control re-run through the library: the Fisher taken at a point other than the one the gradient
    // is taken at (the lemma's hypothesis: both at η), F(η'_δ) of q'_δ = N(m_q, (1 + δ)S_q), applied by
    // the library's fisher_apply to the mirror step, against the mp100 ∇_η f at η. The error is
    // δ·σ_F + O(δ²), σ_F = ‖∂_δ F(η'_δ)v‖/‖∇_η f‖, measured in mp100 from the library's own fisher_apply
    // at δ₀ = 2⁻⁸⁰ (far below the record's resolution, far above mp100's rounding), whence
    // δ_min = budget/σ_F (derived); run at the kit's multiple.
    Stopwatch sw4;
    auto fisher_at = [&](const auto& d) {
      using T = std::decay_t<decltype(d)>;
      const GaussianMoments<T> qt = data::cast_moments<T>(q);
      const GaussianMoments<T> moved{qt.mean, Mat<T>((1 + d) * qt.cov)};
      return fisher_apply(moments_to_natural(moved), data::cast_pair<T>(mirror));
    };
    const mp100 d0 = ldexp(mp100(1), -80);
    const GaussianPair<mp100> f0 = fisher_at(mp100(0)), f1 = fisher_at(d0);
    const Scalar sens_f = Scalar(sqrt(pair_squared_norm<mp100>(GaussianPair<mp100>(f1 - f0)) / pair_squared_norm<mp100>(grad_eta)) / d0);
    const Scalar delta_f_min = cb / sens_f, delta_f = Scalar(kControlMultiple) * delta_f_min;
    const Scalar err_f = Scalar(relative_pair_error<mp100>(to_mp100<Scalar>(fisher_at(delta_f)), grad_eta));
    out.push_back(identity_record<Scalar>(kId, inst.name + "/fisher-at-(1+delta)S", Kind::kControl, err_f, cb, sw4.seconds(),
                                          violation_note("the Fisher at N(m, (1+delta)S) in place of q, delta", to_double(delta_f),
                                                         to_double(delta_f_min),
                                                         "the library's fisher_apply re-run at that point against grad_eta f at q")));
  }
  for_each_family_instance<Scalar>(ctx, [&out](const auto& in) { check_family(in, out); });
  return out;
}

std::vector<ClaimRecord> run(const RunContext& ctx) { return run_precisions(ctx, run_impl<double>, run_impl<mp50>); }

const Registrar kReg({kId, "natural-gradient step F^-1 grad_eta f equals the mirror step grad_mu f, for every family",
                      "Wu & Gardner 2024, Lemma 1, eqs. (7)-(10); docs/math.md §2.2-2.3", "[R]", run,
                      CostHint{0.57, 10}});

}}  // namespace
}  // namespace ngvi::claims
