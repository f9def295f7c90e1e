// DESCRIPTION
// Claim remark2.price_negdef (Wu & Gardner 2024, Remark 2 and eq. (11); docs/math.md §3.1–3.2, tag [R]):
//   for a log-concave likelihood the Bonnet/Price estimate of the covariance block,
//   ĝ₂ = (1/2K) Σ_k ∇²ℓ(z_k), is negative semidefinite on every draw.
// Instances sit on the boundary of the claim, where it could fail: a design of rank one
// (rows a_i = s_i·(1, 5/16), d = 2), so ĝ₂ = ½ (1/K) Σ_k Σ_i ℓ_i''(u_ik) a_i a_iᵀ is rank one and its largest
// eigenvalue is exactly 0, not safely negative: any sign error, lost factor or positive term in the
// estimate shows at once. q = N(0, 4I), so draws reach the tails of ℓ''.
// Reference: λ_max(ĝ₂) of the 2 × 2 estimate in closed form, in the claim's precision; the record is
// the identity λ_max = 0 within rounding (≤ 0 by the claim, ≥ 0 because a rank-one 2 × 2 matrix has a
// null vector): lhs = max over draws of |λ_max|/‖ĝ₂‖_F, budget
// rounding_budget(nK + d + 8) (entrywise rounding of a sum of nK same-sign rank-one terms, Higham
// Thm 3.5, plus the closed form). Tightness is not defined: the exact λ_max is 0, so the budget
// bounds rounding noise, not a quantity of the theory.
// Claim instances: logistic and Poisson regression (the library's likelihoods) on n = 12 rows, and
// the logistic likelihood written out with ℓ''(u) = δ − ψ(u) at δ = 0 (n = 1), K = 1 and K = 4.
// Negative control: the same hand-written likelihood with δ = kTilt > 0, ℓ(u) = yu − softplus(u) + δu²/2:
// sup ℓ'' = δ, a non-log-concavity of δ against the logistic curvature's maximum 1/4. ĝ₂ has a
// positive eigenvalue on a draw iff ψ(u) < δ (K = 1), i.e. |u| > u_δ ≈ log(1/δ).
#include "nonconjugate_common.hpp"
#include "ngvi/estimators/price.hpp"

namespace ngvi::claims {
namespace { namespace NGVI_UNITY_ID {

constexpr const char* kId = "remark2.price_negdef";

/// Variance of q = N(0, s²I), and draws per record: kDraws for the one-row likelihoods in both
/// precisions and for the n = 12 GLMs in double; the GLMs in mp50 cost 2 ms a draw, so kDrawsMp50Glm.
constexpr double kPriorScale2 = 4.0;
constexpr long kDraws = 300;
constexpr long kDrawsMp50Glm = 40;

/// Tilt of the control. With a = (1, 1), u ~ N(0, 2·kPriorScale2) = N(0, 8) and a draw shows the
/// non-concavity iff |u| > u_δ, ψ(u_δ) = δ: p(δ) = 2Φ̄(u_δ/√8). The control breaks with probability
/// 1/2 when kDraws·p = ln 2: p = 0.00231, u_δ = 8.63, δ_min = ψ(8.63) = 1.8e-4 (derived). At
/// δ = 2.5e-3 (14 δ_min), u_δ = 5.99, p = 0.034 and kDraws·p = 10.2: it misses with probability e^−10.2
/// = 4e-5.
constexpr double kTilt = 2.5e-3;
constexpr double kTiltMin = 1.8e-4;

/// ℓ(z) = Σ_i [y_i u_i − softplus(u_i) + δ u_i²/2], u_i = a_iᵀz, with ℓ'' = δ − ψ(u) written out
/// (not built as an NSD matrix: the sign of each weight is the likelihood's own).
template <class Scalar>
LogLikDerivatives<Scalar> tilted_logistic_loglik(const Dataset<Scalar>& data, const Scalar& tilt, const Vec<Scalar>& z, bool) {
  using std::exp;
  using std::log;
  LogLikDerivatives<Scalar> out{Scalar(0), Vec<Scalar>::Zero(data.d()), Mat<Scalar>::Zero(data.d(), data.d())};
  for (Index i = 0; i < data.n(); ++i) {
    const Vec<Scalar> a = data.X.row(i).transpose();
    const Scalar u = a.dot(z);
    const Scalar sig = Scalar(1) / (Scalar(1) + exp(-u));
    const Scalar psi = sig * (Scalar(1) - sig);
    const Scalar softplus = u > 0 ? u + log(Scalar(1) + exp(-u)) : log(Scalar(1) + exp(u));
    out.value += data.y(i) * u - softplus + tilt * u * u / 2;
    out.grad += (data.y(i) - sig + tilt * u) * a;
    out.hess += (tilt - psi) * (a * a.transpose());
  }
  return out;
}

/// n rows s_i·(1, 5/16) with s_i dyadic-rounded N(0, 1) draws (rank one), labels from the seed. The
/// entries of ĝ₂ are rounded differently, so the computed λ_max is rounding noise, not an exact 0.
Dataset<double> rank_one_design(Index n, bool poisson, std::uint64_t seed) {
  const auto base = random_glm_data(n, 1, poisson, 1.0, seed);
  Dataset<double> out{Mat<double>(n, 2), base.y};
  for (Index i = 0; i < n; ++i) {
    out.X(i, 0) = base.X(i, 0);
    out.X(i, 1) = 0.3125 * base.X(i, 0);  // exact in double: the rows stay proportional in mp50
  }
  return out;
}

template <class Scalar, class LogLik>
ClaimRecord lambda_record(const std::string& inst, Kind kind, const LogLik& ll, long n_terms, int K, long draws, std::uint64_t seed,
                          const std::string& extra) {
  using std::abs;
  using std::max;
  Stopwatch sw;
  random::Stream rng(seed, static_cast<std::uint64_t>(K) * 7919 + static_cast<std::uint64_t>(kind == Kind::kControl));
  const GaussianExpectation<Scalar> mu(Vec<Scalar>::Zero(2), Mat<Scalar>(Scalar(kPriorScale2) * Mat<Scalar>::Identity(2, 2)));
  Scalar worst(0);
  long positive = 0;
  const Scalar budget = rounding_budget<Scalar>(n_terms * K + 2 + 8);
  for (long t = 0; t < draws; ++t) {
    const auto g = price_gradient(ll, mu, K, rng);
    const Scalar norm = g.second.norm();
    if (!(norm > Scalar(0))) continue;  // ĝ₂ = 0 is NSD (every weight underflowed)
    const Scalar ratio = lambda_max_2x2<Scalar>(g.second) / norm;
    if (ratio > budget) ++positive;
    worst = max(worst, Scalar(abs(ratio)));
  }
  return identity_record<Scalar>(kId, inst + "/K" + std::to_string(K), kind, worst, budget, sw.seconds(),
                                 std::to_string(positive) + "/" + std::to_string(draws) +
                                     " draws with lambda_max(g2) > budget*||g2||_F ; max |lambda_max|/||g2||_F is lhs (exact 0 under log-concavity: rank-one design)" +
                                     extra);
}

template <class Scalar>
std::vector<ClaimRecord> run_impl(const RunContext& ctx) {
  std::vector<ClaimRecord> out;
  const auto logit = cast_dataset<Scalar>(rank_one_design(12, false, ctx.seed));
  const auto pois = cast_dataset<Scalar>(rank_one_design(12, true, ctx.seed + 1));
  const Dataset<Scalar> one{Mat<Scalar>::Ones(1, 2), Vec<Scalar>::Ones(1)};
  const Scalar zero(0), tilt(kTilt);
  auto ll_logit = [&](const Vec<Scalar>& z, bool h) { return logistic_loglik(logit, z, h); };
  auto ll_pois = [&](const Vec<Scalar>& z, bool h) { return poisson_loglik(pois, z, h); };
  auto ll_flat = [&](const Vec<Scalar>& z, bool h) { return tilted_logistic_loglik(one, zero, z, h); };
  auto ll_tilt = [&](const Vec<Scalar>& z, bool h) { return tilted_logistic_loglik(one, tilt, z, h); };
  const long glm_draws = std::is_same_v<Scalar, double> || ctx.full ? kDraws : kDrawsMp50Glm;
  for (int K : {1, 4}) {
    out.push_back(lambda_record<Scalar>("logistic-rank1-n12-d2", Kind::kClaim, ll_logit, 12, K, glm_draws, ctx.seed, ""));
    out.push_back(lambda_record<Scalar>("poisson-rank1-n12-d2", Kind::kClaim, ll_pois, 12, K, glm_draws, ctx.seed + 1, ""));
    out.push_back(lambda_record<Scalar>("logistic-tilt0-n1-d2", Kind::kClaim, ll_flat, 1, K, kDraws, ctx.seed + 2, ""));
  }
  out.push_back(lambda_record<Scalar>("logistic-tilt-n1-d2(non-log-concave)", Kind::kControl, ll_tilt, 1, 1, kDraws, ctx.seed + 2,
                                      "; violation: sup l'' = " + fmt_double(kTilt) + "; breaks from " + fmt_double(kTiltMin) +
                                          " (derived: " + std::to_string(kDraws) + " draws reach psi(u) < delta with probability 1/2)"));
  return out;
}

std::vector<ClaimRecord> run(const RunContext& ctx) { return run_precisions(ctx, run_impl<double>, run_impl<mp50>); }

const Registrar kReg({kId, "For a log-concave likelihood the Price estimate of the covariance block is NSD on every draw",
                      "Wu & Gardner 2024, Remark 2, eq. (11); docs/math.md §3.1-3.2", "[R]", run});

}}  // namespace
}  // namespace ngvi::claims
