// DESCRIPTION
// Claim sec5.sqrt_param.convex (Wu & Gardner 2024, Section 5 and the proof of Proposition 1, after
// Domke 2020; docs/math.md §6.3, tag [R]): in the square-root parameterisation (m, L), q = N(m, LLᵀ),
// the logistic and Poisson negative ELBOs are 1-strongly convex (λ_min of the Hessian in (m, vech L)
// ≥ 1, the prior's precision: E_q ½‖z‖² = ½(‖m‖² + ‖L‖_F²) has Hessian I, −Σ log L_ii is convex, and
// E_q[−ℓ(m + Lε)] is convex for log-concave ℓ) at the very distributions where they are certified
// non-convex in μ (sec5.*.nonconvex): the non-convexity belongs to the expectation parameterisation.
// Reference: the Hessian of f∘φ in (m, vech L) by central second differences of the model's negative
// ELBO (no Hessian formula involved), step h = ε^{1/4}; λ_min by cyclic Jacobi in the record's
// precision and the margin λ_min + tol − 1 formed in it (in mp50 tol ≈ 1e-22 is below double's
// resolution of 1: a double eigensolver, or a margin formed in double, judged the attained bound
// λ_min = 1 as 1 ≤ 1 + 0, margin 0, broken). The claim holds when 1 ≤ λ_min + tol, tol = kFdEnvelope·√ε·(1 + |f|): the second difference errs by at most
// h²·M₄/12 + 4ε|f|/h² = √ε(M₄/12 + 4|f|) at h = ε^{1/4}, and kFdEnvelope = 64 assumes a fourth-
// derivative envelope M₄ ≤ 720(1 + |f|) on the step box (the smooth, O(1)-scaled instances below).
// The bound is attained for logistic regression (along m ∝ (1, −1) the likelihood adds no curvature),
// so there the record's tightness is 1 up to tol.
// Instances (logistic in double only in the quick run): logistic n = 40 (n = 200 under ctx.full), x = 1, y = 1, q = N(0, diag(.5, .5)); Poisson d = 1, x = 1, q = N(1, 1);
// Poisson d = 2, X = I, q = N((1, 1), I); and Poisson d = 2 with the one datum x = (1, 0), q = N((1, 0), I),
// where the bound is attained: u = xᵀ(m + Lε) = m₁ + L₁₁ε₁ does not involve m₂ or L₂₁, so along those
// coordinates the Hessian is the prior's, exactly 1. In μ this point is the d = 1 point again (the datum
// sees coordinate 1 only; the KL's curvature along v = (e₁, 0) at m = e₁, S = I is 1 + 2 = 3 as at d = 1),
// so vᵀ∇²_μ f v = 3 − e^{3/2} < 0 (docs/math.md §6.2): it is non-convex in μ.
// Negative controls: the likelihood tilted by δ‖z‖²/2, not log-concave by δ (sup λ_max ∇²ℓ_δ = δ).
// Its expectation δ(‖m‖² + ‖L‖_F²)/2 lowers every eigenvalue by exactly δ, so a control breaks from
// δ_min = λ_min − 1 + tol, which is tol (derived) at the points where λ_min = 1 is attained (logistic and
// the Poisson x = (1, 0) point); δ = kControlMultiple·tol. No smaller violation of log-concavity can
// break the claim anywhere: for any ℓ_δ with sup λ_max ∇²ℓ_δ ≤ δ the second derivative of E_q[ℓ_δ(m + Lε)]
// along a unit direction (a, A) is E[(a + Aε)ᵀ∇²ℓ_δ(a + Aε)] ≤ δ E‖a + Aε‖² = δ, so λ_min drops by at most δ;
// at the other two Poisson points (λ_min = 2.97, the likelihood adds curvature in every direction) a
// control would need δ ≥ 1.97, a large violation, so they carry none.
#include "ngvi/claims/expfam_common.hpp"
#include "lsk_common.hpp"
#include "nonconjugate_common.hpp"

namespace ngvi::claims {
namespace { namespace NGVI_UNITY_ID {

constexpr const char* kId = "sec5.sqrt_param.convex";
constexpr int kFdEnvelope = 64;

/// The controls' tilt, ℓ_δ(z) = ℓ(z) + δ‖z‖²/2: a likelihood that is not log-concave by δ (sup of
/// λ_max ∇²ℓ_δ = δ, since sup λ_max ∇²ℓ = 0 for the logistic and Poisson likelihoods). The tilt lowers
/// λ_min in (m, vech L) by exactly δ, so where λ_min = 1 is attained the control breaks from
/// δ_min = tol (derived); it runs at kControlMultiple·tol (the kit's multiple).
constexpr double kControlMultiple = 4.0;

template <class Scalar, class F>
Mat<Scalar> fd_hessian(const F& f, const Vec<Scalar>& x0, const Scalar& h) {
  const Index p = x0.size();
  Mat<Scalar> hm(p, p);
  for (Index i = 0; i < p; ++i)
    for (Index j = i; j < p; ++j) {
      auto at = [&](int si, int sj) {
        Vec<Scalar> x = x0;
        x(i) += Scalar(si) * h;
        x(j) += Scalar(sj) * h;
        return f(x);
      };
      hm(i, j) = hm(j, i) = (at(1, 1) - at(1, -1) - at(-1, 1) + at(-1, -1)) / (4 * h * h);
    }
  return hm;
}

/// λ_min of the Hessian of the negative ELBO in (m, vech L) by central second differences, with the
/// likelihood tilted by ℓ_δ(z) = ℓ(z) + δ‖z‖²/2, whose expectation is closed form: E_q ℓ_δ = E_q ℓ +
/// δ(‖m‖² + ‖L‖_F²)/2. The eigenvalue is found in Scalar (cyclic Jacobi, lsk_common.hpp; its error is
/// O(ε‖H‖), far below tol): in mp50 the tol ≈ 1e-23 is below double's resolution of 1, so an
/// eigensolver in double could not tell λ_min = 1 from 1 − tol where the bound is attained.
template <class Scalar, class Model>
Scalar lambda_min_mL(const Model& model, const GaussianMoments<Scalar>& q, const Scalar& tilt) {
  const Index d = q.dim();
  const Scalar h = sqrt(sqrt(eps<Scalar>()));
  const Mat<Scalar> l = SpdFactor<Scalar>(q.cov, kId, "q.cov").lower();
  Vec<Scalar> x0(d + d * (d + 1) / 2);
  x0.head(d) = q.mean;
  Index k = d;
  for (Index j = 0; j < d; ++j)
    for (Index i = j; i < d; ++i) x0(k++) = l(i, j);
  auto f = [&](const Vec<Scalar>& x) {
    Mat<Scalar> lx = Mat<Scalar>::Zero(d, d);
    Index kk = d;
    for (Index j = 0; j < d; ++j)
      for (Index i = j; i < d; ++i) lx(i, j) = x(kk++);
    return Scalar(model.neg_elbo_mL(Vec<Scalar>(x.head(d)), lx) - tilt * x.squaredNorm() / 2);
  };
  return jacobi_eigenvalues<Scalar>(fd_hessian<Scalar>(f, x0, h)).minCoeff();
}

/// N(0, I/p): the standard normal prior with precision p in place of 1.
template <class Scalar>
GaussianMoments<Scalar> prior_with_precision(Index d, const Scalar& p) {
  return GaussianMoments<Scalar>{Vec<Scalar>::Zero(d), Mat<Scalar>(Mat<Scalar>::Identity(d, d) / p)};
}

/// The record 1 ≤ λ_min + tol with its margin λ_min + tol − 1 formed in Scalar (in mp50, tol is below
/// double's resolution of 1: lhs and rhs print as 1 while the margin keeps the comparison).
template <class Scalar>
ClaimRecord lambda_record(const std::string& instance, Kind kind, const Scalar& lmin, const Scalar& tol, double seconds,
                          const std::string& note) {
  ClaimRecord r = inequality_record(kId, instance, scalar_name<Scalar>(), kind, 1.0, to_double(Scalar(lmin + tol)), seconds,
                                    "lambda_min(Hessian in (m, vech L)) = " + fmt_double(to_double(lmin)) + " (1 - lambda_min = " +
                                        fmt_double(to_double(Scalar(1 - lmin))) + "), tol " + fmt_double(to_double(tol)) + "; " + note);
  r.margin = to_double(Scalar(lmin + tol - 1));
  report::apply_verdict_rule(r);
  return r;
}

/// Claim: λ_min ≥ 1 (lhs = 1, rhs = λ_min + tol); control (where `attained`): the same with the tilt
/// δ = kControlMultiple·tol, which lowers every eigenvalue by exactly δ (the tilt's Hessian in (m, vech L)
/// is −δI), so it breaks once δ > λ_min − 1 + tol = tol.
/// Also, where `remake` is given (a function of the prior precision p returning the instance's model
/// with the prior N(0, I/p)), a control that re-runs the library: the model of a prior slightly
/// misspecified, precision 1 − δ with δ = kControlMultiple·tol, whose prior term's Hessian in
/// (m, vech L) has the eigenvalue 1 − δ along the direction where λ_min = 1 is attained (the
/// likelihood does not see it): λ_min falls to 1 − δ and the record breaks from δ_min = tol (derived).
template <class Scalar, class Model, class Remake = std::nullptr_t>
void check_point(std::vector<ClaimRecord>& out, const std::string& name, const Model& model, const GaussianMoments<Scalar>& q,
                 bool attained, const std::string& why, Remake remake = nullptr) {
  using std::abs;
  using std::sqrt;
  const Scalar f0 = model.neg_elbo(q);
  const Scalar tol = Scalar(kFdEnvelope) * sqrt(eps<Scalar>()) * (Scalar(1) + abs(f0));
  {
    Stopwatch sw;
    const Scalar lmin = lambda_min_mL<Scalar>(model, q, Scalar(0));
    out.push_back(lambda_record<Scalar>(name + "/(m,L)", Kind::kClaim, lmin, tol, sw.seconds(), ">= 1 (prior precision); " + why));
  }
  if (!attained) return;
  {
    Stopwatch sw;
    const Scalar tilt = Scalar(kControlMultiple) * tol;
    const Scalar lmin = lambda_min_mL<Scalar>(model, q, tilt);
    out.push_back(injected_control(lambda_record<Scalar>(name + "/(m,L)-tilted(control)", Kind::kControl, lmin, tol, sw.seconds(),
                                        violation_note("sup lambda_max(hess l) (likelihood tilted by delta |z|^2/2)", to_double(tilt),
                                                       to_double(tol), "lambda_min = 1 is attained here, so delta_min = tol"))));
  }
  if constexpr (!std::is_same_v<Remake, std::nullptr_t>) {
    Stopwatch sw;
    const Scalar delta = Scalar(kControlMultiple) * tol;
    const auto misspecified = remake(Scalar(1 - delta));
    const Scalar lmin = lambda_min_mL<Scalar>(misspecified, q, Scalar(0));
    out.push_back(lambda_record<Scalar>(name + "/(m,L)-prior-precision-1-delta(control)", Kind::kControl, lmin, tol, sw.seconds(),
                                        violation_note("the model's prior precision 1 - delta (misspecified), delta", to_double(delta),
                                                       to_double(tol), "the library's objective re-run on that model; delta_min = tol")));
  }
}

template <class Scalar>
std::vector<ClaimRecord> run_impl(const RunContext& ctx) {
  std::vector<ClaimRecord> out;
  // The logistic instance costs ~10 s in mp50 (60 objective evaluations of 40 × 32 quadrature
  // nodes each, twice), so in the quick run it is checked in double only.
  if (std::is_same_v<Scalar, double> || ctx.full) {
    const Index n = (ctx.full && std::is_same_v<Scalar, double>) ? 200 : 40;  // mp50 at n = 200 takes 80 s
    // The model with the prior N(0, I/p): p = 1 is the claim's, p = 1 − δ its re-run control's.
    const auto make = [&](const Scalar& p) { return make_logistic_regression(logistic_ones<Scalar>(n), prior_with_precision<Scalar>(2, p), 32); };
    check_point<Scalar>(out, "logistic-n" + std::to_string(n) + "-q=N(0,diag(.5,.5))", make(Scalar(1)),
                        GaussianMoments<Scalar>{Vec<Scalar>::Zero(2), Mat<Scalar>(Scalar(0.5) * Mat<Scalar>::Identity(2, 2))}, true,
                        "attained along m = (1, -1), orthogonal to every row", make);
  }
  const char* loose = "the likelihood adds curvature in every direction: no tilt below lambda_min - 1 can break it, so no control here";
  {
    const auto model = make_poisson_regression(poisson_rows<Scalar>(Mat<double>::Ones(1, 1)), standard_normal_prior<Scalar>(1));
    check_point<Scalar>(out, "poisson-d1-x1-q=N(1,1)", model, GaussianMoments<Scalar>{Vec<Scalar>::Ones(1), Mat<Scalar>::Identity(1, 1)},
                        false, loose);
  }
  {
    const auto model = make_poisson_regression(poisson_rows<Scalar>(Mat<double>::Identity(2, 2)), standard_normal_prior<Scalar>(2));
    check_point<Scalar>(out, "poisson-d2-X=I-q=N((1,1),I)", model, GaussianMoments<Scalar>{Vec<Scalar>::Ones(2), Mat<Scalar>::Identity(2, 2)},
                        false, loose);
  }
  // One datum x = (1, 0): coordinates m₂ and L₂₁ are not seen by the likelihood (λ_min = 1 attained).
  // Both precisions (λ_min and the margin in Scalar): the quick run's mp50 control.
  {
    Mat<double> x(1, 2);
    x << 1, 0;
    const auto make = [&](const Scalar& p) { return make_poisson_regression(poisson_rows<Scalar>(x), prior_with_precision<Scalar>(2, p)); };
    Vec<Scalar> m = Vec<Scalar>::Zero(2);
    m(0) = Scalar(1);
    check_point<Scalar>(out, "poisson-d2-x=(1,0)-q=N((1,0),I)", make(Scalar(1)), GaussianMoments<Scalar>{m, Mat<Scalar>::Identity(2, 2)}, true,
                        "attained along m2 and L21, which the datum does not see", make);
  }
  return out;
}

std::vector<ClaimRecord> run(const RunContext& ctx) { return run_precisions(ctx, run_impl<double>, run_impl<mp50>); }

const Registrar kReg({kId, "In (m, L) the logistic and Poisson objectives show no negative curvature where they are non-convex in mu",
                      "Wu & Gardner 2024, Section 5, Proposition 1 (after Domke 2020); docs/math.md §6.3", "[R]", run,
                      CostHint{0.01, 6.7}});

}}  // namespace
}  // namespace ngvi::claims
