// DESCRIPTION
// Claim remark2.price_negdef (Wu & Gardner 2024, Remark 2 and eq. (11); docs/math.md §3.1–3.2, tag [R]):
//   for a log-concave likelihood the Bonnet/Price estimate of the covariance block,
//   ĝ₂ = (1/2K) Σ_k ∇²ℓ(z_k), is negative semidefinite on every draw.
// Reference: an independent sign test per draw, a Cholesky factorisation (in the claim's precision)
// of tol·I − ĝ₂ with tol = rounding_budget(nK + d)·‖ĝ₂‖_F (entrywise rounding of a sum of nK
// same-sign outer products, Higham Thm 3.5). The record counts draws failing the test (lhs) against
// rhs = 1/2, i.e. the claim holds iff no draw fails; the note gives max λ_max(ĝ₂)/‖ĝ₂‖_F (double).
// Instances: logistic and Poisson regression on small random data, K = 1 and K = 4.
// Negative control: a non-log-concave (Cauchy) likelihood ℓ(z) = −Σ log(1 + (y_i − a_iᵀz)²), whose
// Price estimate has a positive eigenvalue on some draws.
#include "nonconjugate_common.hpp"
#include "ngvi/estimators/price.hpp"

namespace ngvi::claims {
namespace {

constexpr const char* kId = "remark2.price_negdef";

template <class Scalar>
LogLikDerivatives<Scalar> cauchy_loglik(const Dataset<Scalar>& data, const Vec<Scalar>& z, bool) {
  using std::log;
  LogLikDerivatives<Scalar> out{Scalar(0), Vec<Scalar>::Zero(data.d()), Mat<Scalar>::Zero(data.d(), data.d())};
  for (Index i = 0; i < data.n(); ++i) {
    const Vec<Scalar> a = data.X.row(i).transpose();
    const Scalar r = data.y(i) - a.dot(z);
    const Scalar den = Scalar(1) + r * r;
    out.value -= log(den);
    out.grad += (Scalar(2) * r / den) * a;
    out.hess -= (Scalar(2) * (Scalar(1) - r * r) / (den * den)) * (a * a.transpose());
  }
  return out;
}

template <class Scalar, class LogLik>
ClaimRecord count_record(const std::string& inst, Kind kind, const LogLik& ll, Index d, long n_terms, int K, long draws, std::uint64_t seed) {
  Stopwatch sw;
  random::Stream rng(seed, static_cast<std::uint64_t>(K) * 7919 + static_cast<std::uint64_t>(kind == Kind::kControl));
  const GaussianExpectation<Scalar> mu(Vec<Scalar>::Zero(d), Mat<Scalar>::Identity(d, d));
  long failures = 0;
  double worst = -HUGE_VAL;
  for (long t = 0; t < draws; ++t) {
    const auto g = price_gradient(ll, mu, K, rng);
    const Scalar norm = g.second.norm();
    const Scalar tol = rounding_budget<Scalar>(n_terms * K + d) * norm;
    const Mat<Scalar> shifted = tol * Mat<Scalar>::Identity(d, d) - g.second;
    Eigen::LLT<Mat<Scalar>> llt(shifted);
    bool psd = llt.info() == Eigen::Success;
    if (psd)
      for (Index i = 0; i < d; ++i) psd = psd && llt.matrixLLT()(i, i) > Scalar(0);
    if (!psd) ++failures;
    if (norm > Scalar(0)) {
      const Mat<double> gd = data::cast_matrix<double>(Mat<Scalar>(g.second / norm));
      worst = std::max(worst, Eigen::SelfAdjointEigenSolver<Mat<double>>(gd, Eigen::EigenvaluesOnly).eigenvalues()(d - 1));
    }
  }
  return inequality_record(kId, inst + "/K" + std::to_string(K), scalar_name<Scalar>(), kind, static_cast<double>(failures), 0.5,
                           sw.seconds(),
                           std::to_string(failures) + "/" + std::to_string(draws) + " draws not NSD; max lambda_max/||g2||_F = " +
                               fmt_double(worst),
                           "draws");
}

template <class Scalar>
std::vector<ClaimRecord> run_impl(const RunContext& ctx) {
  std::vector<ClaimRecord> out;
  const long draws = ctx.full ? 2000 : (std::is_same_v<Scalar, double> ? 300 : 40);
  const auto logit = cast_dataset<Scalar>(random_glm_data(12, 2, false, 1.0, ctx.seed));
  const auto pois = cast_dataset<Scalar>(random_glm_data(12, 2, true, 0.5, ctx.seed + 1));
  Dataset<Scalar> cauchy{cast_dataset<Scalar>(random_glm_data(3, 2, false, 1.0, ctx.seed + 2)).X, Vec<Scalar>::Constant(3, Scalar(3))};
  auto ll_logit = [&](const Vec<Scalar>& z, bool h) { return logistic_loglik(logit, z, h); };
  auto ll_pois = [&](const Vec<Scalar>& z, bool h) { return poisson_loglik(pois, z, h); };
  auto ll_cauchy = [&](const Vec<Scalar>& z, bool h) { return cauchy_loglik(cauchy, z, h); };
  for (int K : {1, 4}) {
    out.push_back(count_record<Scalar>("logistic-n12-d3", Kind::kClaim, ll_logit, 3, 12, K, draws, ctx.seed));
    out.push_back(count_record<Scalar>("poisson-n12-d3", Kind::kClaim, ll_pois, 3, 12, K, draws, ctx.seed + 1));
    out.push_back(count_record<Scalar>("cauchy-n3-d3(non-log-concave)", Kind::kControl, ll_cauchy, 3, 3, K, draws, ctx.seed + 2));
  }
  return out;
}

std::vector<ClaimRecord> run(const RunContext& ctx) { return run_precisions(ctx, run_impl<double>, run_impl<mp50>); }

const Registrar kReg({kId, "For a log-concave likelihood the Price estimate of the covariance block is NSD on every draw",
                      "Wu & Gardner 2024, Remark 2, eq. (11); docs/math.md §3.1-3.2", "[R]", run});

}  // namespace
}  // namespace ngvi::claims
