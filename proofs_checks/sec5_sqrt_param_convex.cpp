// DESCRIPTION
// Claim sec5.sqrt_param.convex (Wu & Gardner 2024, Section 5 and the proof of Proposition 1, after
// Domke 2020; docs/math.md §6.3, tag [R]): in the square-root parameterisation (m, L), q = N(m, LLᵀ),
// the logistic and Poisson negative ELBOs show no negative curvature at the very distributions where
// they are certified non-convex in μ (sec5.*.nonconvex): the non-convexity belongs to the
// expectation parameterisation, not to the objective as a function of q.
// Reference: the Hessian of f∘φ in (m, vech L) by central second differences of the model's negative
// ELBO (no Hessian formula involved), step h = ε^{1/4}; λ_min in double. The claim holds when
// λ_min ≥ −tol, tol = kFdEnvelope·√ε·(1 + |f|): the second difference errs by at most
// h²·M₄/12 + 4ε|f|/h² = √ε(M₄/12 + 4|f|) at h = ε^{1/4}, and kFdEnvelope = 64 assumes a fourth-
// derivative envelope M₄ ≤ 720(1 + |f|) on the step box (the smooth, O(1)-scaled instances below).
// Instances (logistic in double only in the quick run): logistic n = 40 (n = 200 under ctx.full), x = 1, y = 1, q = N(0, diag(.5, .5)); Poisson d = 1, x = 1, q = N(1, 1);
// Poisson d = 2, X = I, q = N((1, 1), I).
// Negative control: the same finite-difference Hessian in the Frobenius-isometric μ coordinates at
// the same q, which has a negative eigenvalue (so "no negative curvature" is broken).
#include "nonconjugate_common.hpp"

namespace ngvi::claims {
namespace {

constexpr const char* kId = "sec5.sqrt_param.convex";
constexpr int kFdEnvelope = 64;

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

template <class Scalar, class Model>
void check_point(std::vector<ClaimRecord>& out, const std::string& name, const Model& model, const GaussianMoments<Scalar>& q) {
  using std::abs;
  using std::sqrt;
  const Index d = q.dim();
  const Scalar h = sqrt(sqrt(eps<Scalar>()));
  const Scalar f0 = model.neg_elbo(q);
  const double tol = to_double(Scalar(Scalar(kFdEnvelope) * sqrt(eps<Scalar>()) * (Scalar(1) + abs(f0))));
  {
    Stopwatch sw;
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
      return model.neg_elbo_mL(Vec<Scalar>(x.head(d)), lx);
    };
    const double lmin = min_eigenvalue_double<Scalar>(fd_hessian<Scalar>(f, x0, h));
    out.push_back(inequality_record(kId, name + "/(m,L)", scalar_name<Scalar>(), Kind::kClaim, -lmin, tol, sw.seconds(),
                                    "lambda_min(Hessian in (m, L)) = " + fmt_double(lmin) + ", tol " + fmt_double(tol)));
  }
  {
    Stopwatch sw;
    const auto mu = moments_to_expectation(q);
    const Index p = Model::isometric_size(d);
    auto f = [&](const Vec<Scalar>& c) {
      GaussianExpectation<Scalar> m2 = mu;
      for (Index k = 0; k < p; ++k) m2 += c(k) * Model::template isometric_basis<Scalar>(d, k);
      return model.neg_elbo(expectation_to_moments(m2));
    };
    const double lmin = min_eigenvalue_double<Scalar>(fd_hessian<Scalar>(f, Vec<Scalar>(Vec<Scalar>::Zero(p)), h));
    out.push_back(inequality_record(kId, name + "/mu(control)", scalar_name<Scalar>(), Kind::kControl, -lmin, tol, sw.seconds(),
                                    "lambda_min(Hessian in mu) = " + fmt_double(lmin) + ", tol " + fmt_double(tol)));
  }
}

template <class Scalar>
std::vector<ClaimRecord> run_impl(const RunContext& ctx) {
  std::vector<ClaimRecord> out;
  // The logistic instance costs ~10 s in mp50 (60 objective evaluations of 40 × 32 quadrature
  // nodes each, twice), so in the quick run it is checked in double only.
  if (std::is_same_v<Scalar, double> || ctx.full) {
    const Index n = (ctx.full && std::is_same_v<Scalar, double>) ? 200 : 40;  // mp50 at n = 200 takes 80 s
    const auto model = make_logistic_regression(logistic_ones<Scalar>(n), standard_normal_prior<Scalar>(2), 32);
    check_point<Scalar>(out, "logistic-n" + std::to_string(n) + "-q=N(0,diag(.5,.5))", model,
                        GaussianMoments<Scalar>{Vec<Scalar>::Zero(2), Mat<Scalar>(Scalar(0.5) * Mat<Scalar>::Identity(2, 2))});
  }
  {
    const auto model = make_poisson_regression(poisson_rows<Scalar>(Mat<double>::Ones(1, 1)), standard_normal_prior<Scalar>(1));
    check_point<Scalar>(out, "poisson-d1-x1-q=N(1,1)", model, GaussianMoments<Scalar>{Vec<Scalar>::Ones(1), Mat<Scalar>::Identity(1, 1)});
  }
  {
    const auto model = make_poisson_regression(poisson_rows<Scalar>(Mat<double>::Identity(2, 2)), standard_normal_prior<Scalar>(2));
    check_point<Scalar>(out, "poisson-d2-X=I-q=N((1,1),I)", model, GaussianMoments<Scalar>{Vec<Scalar>::Ones(2), Mat<Scalar>::Identity(2, 2)});
  }
  return out;
}

std::vector<ClaimRecord> run(const RunContext& ctx) { return run_precisions(ctx, run_impl<double>, run_impl<mp50>); }

const Registrar kReg({kId, "In (m, L) the logistic and Poisson objectives show no negative curvature where they are non-convex in mu",
                      "Wu & Gardner 2024, Section 5, Proposition 1 (after Domke 2020); docs/math.md §6.3", "[R]", run});

}  // namespace
}  // namespace ngvi::claims
