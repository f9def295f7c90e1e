// DESCRIPTION
// Claim sec5.poisson.nonconvex (Wu & Gardner 2024, Section 5; docs/math.md §6.2, tag [R]): the
// negative ELBO of Bayesian Poisson regression (log link, prior N(0, I)) is not convex in the
// expectation parameter μ: at explicit points with x_iᵀμ₁ = 1, vᵀ∇²_μ f v < 0.
// Reference: an MPFI (50-digit interval) enclosure of the closed form vᵀHv (certify/
// curvature_certificate.hpp), a route independent of the model code, printed as [lo, hi]; the claim
// holds iff hi < 0 is proved. The model's own vᵀHv (double, mp50) must fall inside the enclosure
// (identity form: |v − mid| against the half-width plus the model's rounding budget).
// Instances: d = 1, x = 1, q = N(1, 1) (H₁₁ = 3 − e^{3/2}); two copies; q = N(1, 2); d = 2, X = I,
// q = N((1, 1), I) along the model's most negative eigenvector. Under ctx.full, a search on the
// breast-cancer table (bias direction, μ₁ = t·e_bias so that a_iᵀμ₁ = t) certifies the best point.
// The boundary of the claim on the subset (d = 1, x = 1, μ₁ = m = 1): there H_{μ₁μ₁}(s) =
// −e^{1+s/2} + 1/s + 2/s², the likelihood term −e^{1+s/2} against the KL term; it vanishes at s* ≈ 0.83
// (found by bisection in mp50 on this closed form). Claim instance just inside: s = s*(1 + 2⁻⁵¹)
// (kBoundaryUlps = 4 units of 2⁻⁵³), certified negative.
// Negative control: the same point just outside, s = s*(1 − 2⁻⁵¹): still on the subset
// (x_iᵀμ₁ = 1, likelihood term −e^{1+s/2} ≈ −4.1, far from zero), but the likelihood's negative
// curvature falls short of the KL term's by ≈ 4 ulp·s*·|H'(s*)| ≈ 4e-15, so vᵀHv > 0 and no certificate
// of negativity can exist. The enclosure's width (≈ 1e-48) is far below |H'(s*)|·s*·ulp ≈ 1e-15, so the
// control breaks from a violation of one ulp of s.
#include "sec5_nonconvex_common.hpp"

namespace ngvi::claims {
namespace { namespace NGVI_UNITY_ID {

constexpr const char* kId = "sec5.poisson.nonconvex";

/// Distance of the boundary pair from s*, in units of 2⁻⁵³ relative: one ulp would already do (the
/// enclosure resolves 1e-48), and 4 keeps the pair on its side of s* after s* is rounded to double
/// (half an ulp).
constexpr int kBoundaryUlps = 4;

/// H_{μ₁μ₁} at d = 1, x = 1, m = 1 as a function of the variance s (docs/math.md §6.2).
mp50 boundary_curvature(const mp50& s) {
  using std::exp;
  return -exp(1 + s / 2) + 1 / s + 2 / (s * s);
}

/// s* with boundary_curvature(s*) = 0, by bisection on [1/2, 1] (the curvature decreases in s: each
/// term does), rounded to double.
double boundary_variance() {
  mp50 lo("0.5"), hi(1);
  for (int i = 0; i < 170; ++i) {
    const mp50 mid = (lo + hi) / 2;
    (boundary_curvature(mid) > 0 ? lo : hi) = mid;
  }
  return static_cast<double>(lo);
}

struct PoissonPoint {
  std::string name;
  Mat<double> x;
  Vec<double> m, s;
  GaussianPair<double> v;
  Kind kind;
};

GaussianPair<double> e_mu1(Index d, Index j) {
  GaussianPair<double> v{Vec<double>::Zero(d), Mat<double>::Zero(d, d)};
  v.first(j) = 1.0;
  return v;
}

std::vector<PoissonPoint> points() {
  std::vector<PoissonPoint> p;
  p.push_back({"d1-x1-q=N(1,1)", Mat<double>::Ones(1, 1), Vec<double>::Ones(1), Vec<double>::Ones(1), e_mu1(1, 0), Kind::kClaim});
  p.push_back({"d1-x1x2-q=N(1,1)", Mat<double>::Ones(2, 1), Vec<double>::Ones(1), Vec<double>::Ones(1), e_mu1(1, 0), Kind::kClaim});
  p.push_back({"d1-x1-q=N(1,2)", Mat<double>::Ones(1, 1), Vec<double>::Ones(1), Vec<double>::Constant(1, 2.0), e_mu1(1, 0), Kind::kClaim});
  // d = 2, X = I: direction = most negative eigenvector of the model's Hessian, rounded to double.
  {
    const auto model = make_poisson_regression(poisson_rows<double>(Mat<double>::Identity(2, 2)), standard_normal_prior<double>(2));
    const GaussianMoments<double> q{Vec<double>::Ones(2), Mat<double>::Identity(2, 2)};
    const Mat<double> h = model.hessian_isometric(moments_to_expectation(q));
    Eigen::SelfAdjointEigenSolver<Mat<double>> es(h);
    const Vec<double> c = es.eigenvectors().col(0);
    GaussianPair<double> v{c.head(2), Mat<double>::Zero(2, 2)};
    v.second(0, 0) = c(2);
    v.second(1, 1) = c(3);
    v.second(0, 1) = v.second(1, 0) = c(4) / std::sqrt(2.0);
    p.push_back({"d2-X=I-q=N((1,1),I)", Mat<double>::Identity(2, 2), Vec<double>::Ones(2), Vec<double>::Ones(2), v, Kind::kClaim});
  }
  const double s_star = boundary_variance();
  const double step = kBoundaryUlps * std::ldexp(1.0, -53);
  p.push_back({"d1-x1-m1-s=s*(1+2^-51)(just inside)", Mat<double>::Ones(1, 1), Vec<double>::Ones(1),
               Vec<double>::Constant(1, s_star * (1 + step)), e_mu1(1, 0), Kind::kClaim});
  p.push_back({"d1-x1-m1-s=s*(1-2^-51)(KL term wins)", Mat<double>::Ones(1, 1), Vec<double>::Ones(1),
               Vec<double>::Constant(1, s_star * (1 - step)), e_mu1(1, 0), Kind::kControl});
  return p;
}

template <class Scalar>
std::vector<ClaimRecord> run_impl(const RunContext& ctx) {
  std::vector<ClaimRecord> out;
  const bool dbl = std::is_same_v<Scalar, double>;
  auto run_point = [&](const PoissonPoint& p, const std::string& extra) {
    Stopwatch sw;
    const auto cert = certify::certify_poisson_curvature(p.x, p.m, p.s, p.v);
    const double cert_seconds = sw.seconds();
    if (dbl) out.push_back(certificate_record(kId, p.name, p.kind, cert, cert_seconds, extra));
    if (p.kind == Kind::kClaim) {
      Stopwatch sw2;
      const auto model = make_poisson_regression(poisson_rows<Scalar>(p.x), standard_normal_prior<Scalar>(p.x.cols()));
      const GaussianMoments<Scalar> q{data::cast_vector<Scalar>(p.m), Mat<Scalar>(data::cast_vector<Scalar>(p.s).asDiagonal())};
      const Scalar val = model.hessian_quadratic_form(moments_to_expectation(q), data::cast_pair<Scalar>(p.v));
      out.push_back(consistency_record<Scalar>(kId, p.name, val, cert, 0.0, 16 * p.x.rows() * p.x.cols() * p.x.cols() + 64, sw2.seconds()));
    }
  };
  for (const auto& p : points())
    run_point(p, p.kind == Kind::kControl
                     ? "; s = " + fmt_double(p.s(0)) + "; violation: s*/s - 1 = " + std::to_string(kBoundaryUlps) +
                           " x 2^-53; breaks from 2^-53 (derived: enclosure width 1e-48 << |dH/ds| s* 2^-53)"
                     : std::string());
  if (ctx.full && dbl) {
    const auto bc = breast_cancer_with_bias();
    if (!bc) {
      out.push_back(skipped_record(kId, "breast-cancer-search", "double", Kind::kClaim,
                                   "breast_cancer table not installed (python3-sklearn)"));
    } else {
      Stopwatch sw;
      const Index d = bc->d();
      Dataset<double> counts{bc->X, bc->y};
      const auto model = make_poisson_regression(counts, standard_normal_prior<double>(d));
      double best = HUGE_VAL;
      double best_t = 0, best_s = 0;
      for (double t : {0.5, 1.0, 1.5})
        for (double s : {0.02, 0.05, 0.1, 0.2}) {
          Vec<double> m = Vec<double>::Zero(d);
          m(d - 1) = t;
          const GaussianMoments<double> q{m, Mat<double>(s * Mat<double>::Identity(d, d))};
          const double val = model.hessian_quadratic_form(moments_to_expectation(q), e_mu1(d, d - 1));
          if (val < best) { best = val; best_t = t; best_s = s; }
        }
      Vec<double> m = Vec<double>::Zero(d);
      m(d - 1) = best_t;
      const PoissonPoint p{"breast-cancer-search-best(t=" + fmt_double(best_t) + ",s=" + fmt_double(best_s) + ")", bc->X, m,
                           Vec<double>::Constant(d, best_s), e_mu1(d, d - 1), Kind::kClaim};
      const auto cert = certify::certify_poisson_curvature(p.x, p.m, p.s, p.v);
      out.push_back(certificate_record(kId, p.name, p.kind, cert, sw.seconds(),
                                       "; n=" + std::to_string(bc->n()) + ", searched 12 points, model value " + fmt_double(best)));
    }
  }
  return out;
}

std::vector<ClaimRecord> run(const RunContext& ctx) { return run_precisions(ctx, run_impl<double>, run_impl<mp50>); }

const Registrar kReg({kId, "The Poisson-regression negative ELBO has certified negative curvature in mu",
                      "Wu & Gardner 2024, Section 5; docs/math.md §6.2", "[R]", run});

}}  // namespace
}  // namespace ngvi::claims
