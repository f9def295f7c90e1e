// DESCRIPTION
// Claim cor_svgp.titsias (Wu & Gardner 2024, the SVGP corollary of Section 4; docs/math.md §5.5,
// tag [R]): sparse variational GP regression is Example 1 with x_i = K_ZZ⁻¹k_i and S_p = K_ZZ, so
// (a) conjugate NGD reaches the SVGP optimum, which is Titsias' closed-form q(u), and (b) Lemma 3
// applies: σ_t² ≤ σ².
// Instance (seeded from the run's seed): n = 20 inputs z_i uniform on [−3, 3], y_i = sin z_i + 0.3ε_i,
// RBF kernel k(a, b) = exp(−(a − b)²/2), m = 4 inducing points Z = (−9/4, −3/4, 3/4, 9/4), jitter
// 2⁻²⁰ on the diagonal of K_ZZ, s_e² = 1/4, batch M = 2 (n^M = 400 batches). The instance is the
// pair (K_ZZ, X) in double, X the n × m matrix of rows x_iᵀ = (K_ZZ⁻¹k_i)ᵀ.
// (a) Routine under test: one step of the library's NGD update (natural_update) with γ = 1 and the
// exact gradient from q₀ = N(0, I) (the conjugate step lands on the optimum, docs/math.md §2.4), then
// natural_to_moments, in double and mp50. Reference: Titsias' optimum in mp100 from the kernel
// matrices, Σ = (K_ZZ + s_e⁻²K_ZXK_XZ)⁻¹, S = K_ZZΣK_ZZ, m = s_e⁻²K_ZZΣK_ZXy with K_ZX = K_ZZXᵀ
// (an algebraically different route from the natural-parameter sum K_ZZ⁻¹ + s_e⁻²XᵀX). Relative error
// of (m, S) against 4γ_ops·κ, ops = expfam_ops(m) + nm, κ = κ(K_ZZ)·κ(S⁻¹)·(1 + ‖m‖²/λ_min(S)).
// (b) Lemma 3's σ² (lemma3_sigma2, from the data constants) against max_t σ_t², measured exactly
// (all 400 batches) on the variance grid of a T = 60 eq. (15) trajectory (blr_common.hpp), in double.
// The bound is loose by construction (docs/math.md §5.4), so this record is `vacuous` (listed, not
// evidence); its tightness is reported.
// Theorem 1's bound on this instance is not checked here.
// Negative control (prior-not-KZZ): the hypothesis S_p = K_ZZ broken by a relative δ, the library's
// model built with S_p = (1 + δ)K_ZZ. The posterior moves by ∂(m, S)/∂δ = (dm, dS) with
// dS = S K_ZZ⁻¹ S and dm = s_e⁻² dS Xᵀy (at δ = 0), so the relative error is δ·s₁ + O(δ²) with
// s₁ = ‖(dm, dS)‖/‖(m, S)‖ (mp100); δ_min = budget/s₁ (derived), run at kControlMultiple·δ_min.
#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>

#include "ngvi/claims/blr_common.hpp"
#include "ngvi/claims/expfam_common.hpp"

namespace ngvi::claims {
namespace { namespace NGVI_UNITY_ID {

constexpr const char* kId = "cor_svgp.titsias";
using R = mp100;

constexpr long kSvgpBatch = 2;
constexpr long kSvgpSteps = 60;
constexpr double kNoiseVar = 0.25;

struct SvgpInstance {
  Mat<double> kzz;  ///< K_ZZ + jitter·I
  Dataset<double> data;  ///< rows x_i = K_ZZ⁻¹k_i, targets y_i
};

SvgpInstance svgp_instance(std::uint64_t seed) {
  data::Rng rng(seed ^ 0x5356475055ULL);
  boost::random::uniform_real_distribution<double> uz(-3.0, 3.0);
  boost::random::normal_distribution<double> nd;
  const Index n = 20, m = 4;
  Vec<double> z(n), y(n), zz(m);
  for (Index i = 0; i < n; ++i) {
    z(i) = uz(rng);
    y(i) = std::sin(z(i)) + 0.3 * nd(rng);
  }
  zz << -2.25, -0.75, 0.75, 2.25;
  auto k = [](double a, double b) { return std::exp(-(a - b) * (a - b) / 2); };
  SvgpInstance s;
  s.kzz.resize(m, m);
  for (Index i = 0; i < m; ++i)
    for (Index j = 0; j < m; ++j) s.kzz(i, j) = k(zz(i), zz(j)) + (i == j ? std::ldexp(1.0, -20) : 0.0);
  Mat<double> kzx(m, n);
  for (Index i = 0; i < m; ++i)
    for (Index j = 0; j < n; ++j) kzx(i, j) = k(zz(i), z(j));
  s.data.X = s.kzz.llt().solve(kzx).transpose();
  s.data.y = y;
  return s;
}

struct RefPosterior {
  Vec<R> m;
  Mat<R> s;
  R s1;  ///< the control's sensitivity ‖(dm, dS)‖/‖(m, S)‖
};

/// Titsias' q(u) in mp100 from K_ZZ and K_ZX = K_ZZXᵀ.
RefPosterior titsias(const SvgpInstance& inst) {
  using std::sqrt;
  const Mat<R> kzz = data::cast_matrix<R>(inst.kzz);
  const Mat<R> kzx = kzz * data::cast_matrix<R>(inst.data.X).transpose();
  const Vec<R> y = data::cast_vector<R>(inst.data.y);
  const R inv_se2 = R(1) / R(kNoiseVar);
  const Index m = kzz.rows();
  const Mat<R> a = kzz + inv_se2 * kzx * kzx.transpose();
  const Mat<R> sigma = a.llt().solve(Mat<R>::Identity(m, m));
  RefPosterior p;
  p.s = kzz * sigma * kzz;
  p.m = inv_se2 * kzz * sigma * kzx * y;
  const Mat<R> kinv = kzz.llt().solve(Mat<R>::Identity(m, m));
  const Mat<R> ds = p.s * kinv * p.s;
  const Vec<R> dm = inv_se2 * ds * data::cast_matrix<R>(inst.data.X).transpose() * y;
  p.s1 = sqrt(dm.squaredNorm() + ds.squaredNorm()) / sqrt(p.m.squaredNorm() + p.s.squaredNorm());
  return p;
}

/// The library's NGD optimum: one γ = 1 step with the exact gradient from N(0, I).
template <class Scalar>
GaussianMoments<Scalar> ngd_optimum(const SvgpInstance& inst, const Mat<double>& prior_cov) {
  const LinearRegression<Scalar> model(cast_dataset<Scalar>(inst.data), data::cast_matrix<Scalar>(prior_cov), Scalar(kNoiseVar));
  auto eta = standard_natural<Scalar>(inst.data.d());
  natural_update(eta, model.prior_natural(), model.loglik_gradient(), Scalar(1));
  return natural_to_moments(eta);
}

template <class Scalar>
Scalar moments_error(const GaussianMoments<Scalar>& q, const RefPosterior& ref) {
  using std::sqrt;
  const Vec<R> dm = data::cast_vector<R>(q.mean) - ref.m;
  const Mat<R> ds = data::cast_matrix<R>(q.cov) - ref.s;
  return Scalar(sqrt(dm.squaredNorm() + ds.squaredNorm()) / sqrt(ref.m.squaredNorm() + ref.s.squaredNorm()));
}

template <class Scalar>
std::vector<ClaimRecord> run_impl(const RunContext& ctx, const SvgpInstance& inst, const RefPosterior& ref, double cond) {
  std::vector<ClaimRecord> out;
  const Index m = inst.data.d(), n = inst.data.n();
  const Scalar budget = rounding_budget<Scalar>(expfam_ops(m) + static_cast<long>(n * m), Scalar(cond));
  {
    Stopwatch sw;
    const auto q = ngd_optimum<Scalar>(inst, inst.kzz);
    out.push_back(identity_record<Scalar>(kId, "n20-m4/ngd-equals-titsias", Kind::kClaim, moments_error(q, ref), budget,
                                          sw.seconds(), conditioning_note(budget, cond)));
  }
  {
    Stopwatch sw;
    const Scalar cb = claim_budget<Scalar>(budget);
    const Scalar delta_min = cb / Scalar(ref.s1);
    const Scalar delta = Scalar(kControlMultiple) * delta_min;
    // (1 + δ)K_ZZ in double loses δ below 1e-16: the mp50 control scales the prior in Scalar.
    const LinearRegression<Scalar> model(cast_dataset<Scalar>(inst.data),
                                         Mat<Scalar>((Scalar(1) + delta) * data::cast_matrix<Scalar>(inst.kzz)),
                                         Scalar(kNoiseVar));
    auto eta = standard_natural<Scalar>(m);
    natural_update(eta, model.prior_natural(), model.loglik_gradient(), Scalar(1));
    out.push_back(identity_record<Scalar>(
        kId, "n20-m4/ngd-equals-titsias/prior-not-KZZ", Kind::kControl, moments_error(natural_to_moments(eta), ref), cb,
        sw.seconds(), violation_note("relative scale delta of S_p = (1+delta) K_ZZ", to_double(delta), to_double(delta_min))));
  }
  if constexpr (std::is_same_v<Scalar, double>) {
    Stopwatch sw;
    const LinearRegression<double> model(inst.data, inst.kzz, kNoiseVar);
    const auto mv = measured_sigma2(model, kSvgpBatch, kSvgpSteps, ctx, 0x5356);
    const auto c = blr_constants<double>(inst.data, inst.kzz, kNoiseVar, kSvgpBatch);
    const double bound = lemma3_sigma2(c);
    out.push_back(inequality_record(kId, "n20-m4/lemma3", "double", Kind::kClaim, mv.max_sigma2, bound, sw.seconds(),
                                    std::string("max_t sigma_t^2 by exact enumeration of all n^M batches (") +
                                        (mv.exact ? "exact" : "Monte Carlo") + "); sigma^2 " + kDerived));
  }
  return out;
}

std::vector<ClaimRecord> run(const RunContext& ctx) {
  const auto inst = svgp_instance(ctx.seed);
  const auto ref = titsias(inst);
  GaussianMoments<double> qd{data::cast_vector<double>(ref.m), data::cast_matrix<double>(ref.s)};
  const double cond = spd_condition(inst.kzz) * map_condition(qd);  // κ(K_ZZ)·κ(S)(1 + ‖m‖²/λ_min(S))
  return run_precisions(
      ctx, [&](const RunContext& c) { return run_impl<double>(c, inst, ref, cond); },
      [&](const RunContext& c) { return run_impl<mp50>(c, inst, ref, cond); });
}

const Registrar kReg({kId,
                      "SVGP regression is Example 1 (x_i = K_ZZ^-1 k_i, S_p = K_ZZ): NGD reaches Titsias' q(u); Lemma 3 "
                      "bounds sigma_t^2",
                      "Wu & Gardner 2024, Section 4 (SVGP corollary); docs/math.md §5.5", "[R]", run});

}}  // namespace
}  // namespace ngvi::claims
