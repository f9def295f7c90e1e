// DESCRIPTION
// Claim prop1.unique_stationary (Wu & Gardner 2024, Proposition 1; docs/math.md §6.3, tag [R]): for
// a log-concave, differentiable likelihood with Gaussian prior, f(μ) has a unique stationary point,
// so stochastic NGD (Price gradient) from any start reaches the same q.
// Reference: the stationary point q* itself, by an independent route: NGD with the exact gradient
// ∇_μ E_q ℓ (Gauss–Hermite quadrature per datum for logistic, closed form for Poisson), no Monte
// Carlo, iterated until the stationarity residual η_p + ∇_μ E_q ℓ − η is below 1e-13 relative.
// (Until this version the reference was SGD in (m, L), whose Poisson runs overflowed on many seeds
// and inflated the tolerance to 1e14.)
// Test (level α = kLevel per record): the tolerance comes from the Monte Carlo error of the estimate
// the run uses, never from the algorithm's own runs (which a biased estimator would drag along: a run
// from q* drifts to the wrong limit, and a floor measured on it grows with the bug). Linearised about
// η*, NGD with the Price estimate is e_{t+1} = (I − γ_t A)e_t + γ_t ξ_t, A = I − ∂(g∘μ)/∂η (exact
// gradient g, central differences of the quadrature) and Cov ξ = Σ₁/K, Σ₁ the covariance of one
// draw's direction (∇ℓ(z) − ∇²ℓ(z)m*, ½∇²ℓ(z)) over z ~ q* (kSigmaDraws draws of a stream of its own;
// about 1% relative error on its trace). The tail average's covariance C follows exactly from the
// recursion, and E KL_sym(q̄_T, q*) = tr(F C) to second order, F = ∂μ/∂η at η*. Near q*, KL_sym is a
// weighted sum Σ λ_k χ²₁ with Σ λ_k = E; its least favourable case, one direction, gives
//   tol = χ²₁⁻¹(1 − α/S) · E
// (for α/S ≤ 0.2 a single direction has the largest upper quantile for a given sum of weights),
// which bounds the false-alarm probability of the max over S starts by α (union bound; docs/math.md
// §6.3). The claim: max over NGD starts of KL_sym(q_NGD, q*) ≤ tol. Measured (throwaway) against
// the old floor of 10 runs from q*: their mean over E was 0.30–1.71 over quick seeds 1–40 (mean of
// 10 weighted χ² draws) and 0.75–1.25 in --full (seeds 1–3); the largest KL_sym over E of any start
// was 7.1 in 240 quick starts at 3000 steps (tol: 15.9·E) and 5.4 in --full (tol: 19.5·E). Under the mutant
// price-without-hm (the Price gradient without −H̄m) KL_sym is 4.2 against E = 1.4e-4 (broken).
// Instances: logistic and Poisson regression on small random data (n = 30, two features + bias);
// quick: 3 random starts, 12000 steps; full: 20 starts, 20000 steps; double only. Starts: means from
// N(0, I) truncated at 2.5 sd, variances uniform in [0.25, 2.25].
// Negative control: what the claim rules out is a run whose limit is not q*. The control runs NGD on
// the objective with prior N(0, I/(1 + δ)), whose stationary point q*_δ (by the same exact iteration)
// lies at KL_sym(q*_δ, q*) = kControlExcess · tol; δ_min, where that distance equals tol, is the
// smallest shift of the stationary point the check can see.
#include "nonconjugate_common.hpp"
#include "ngvi/optim/ngd_nonconjugate.hpp"
#include "ngvi/models/logistic_regression.hpp"
#include "ngvi/models/poisson_regression.hpp"
#include "ngvi/optim/fixed_point.hpp"

#include <boost/math/distributions/chi_squared.hpp>

namespace ngvi::claims {
namespace { namespace NGVI_UNITY_ID {

constexpr const char* kId = "prop1.unique_stationary";
constexpr double kLevel = 2e-4;             ///< false-alarm level of each claim record
constexpr double kControlExcess = 3.0;      ///< the control's stationary point lies at this multiple of tol
constexpr double kFixedPointTol = 1e-13;    ///< relative stationarity residual that ends the exact iteration
constexpr int kFixedPointIters = 100000;
constexpr int kSigmaDraws = 20000;          ///< draws of z ~ q* for the Price direction's covariance Σ₁
constexpr double kDifferenceStep = 1e-5;    ///< relative step of the central differences at η*
constexpr double kStartMeanBound = 2.5;     ///< start means within this many prior sd (a truncated N(0, I))

// The stationary point q* of f by NGD with the exact gradient ∇_μ E_q ℓ (Gauss–Hermite per datum for
// logistic, closed form for Poisson: models/glm_variational.hpp), damped (ρ = 1/2), from the prior,
// until the relative stationarity residual is below kFixedPointTol (optim/fixed_point.hpp). An independent route: no Monte Carlo, no
// Price estimator.
template <class Model>
GaussianMoments<double> exact_stationary(const Model& model) {
  const auto prior = moments_to_natural(model.prior());
  const auto grad = [&model](const GaussianNatural<double>& eta) { return model.grad_expectation(natural_to_expectation(eta)); };
  return natural_to_moments(ngd_fixed_point(prior, prior, grad, 0.5, kFixedPointTol, kFixedPointIters));
}

// The prior N(0, I/(1 + δ)), δ ≥ 0: a tighter prior, whose stationary point moves towards 0 without
// bound as δ grows (a looser prior saturates: the data then fix q*).
GaussianMoments<double> tightened_prior(Index d, double delta) {
  return GaussianMoments<double>{Vec<double>::Zero(d), Mat<double>(Mat<double>::Identity(d, d) / (1 + delta))};
}

// The δ at which KL_sym(q*_δ, q*) = target, q*_δ the exact stationary point under tightened_prior(δ):
// a bracket by doubling, then bisection in log δ to 5% in KL (KL_sym grows with δ).
template <class MakeModel>
double prior_shift_for(const MakeModel& make, Index d, const GaussianMoments<double>& star, double target) {
  auto kl = [&](double delta) { return to_double(kl_symmetric(exact_stationary(make(tightened_prior(d, delta))), star)); };
  double lo = 0, hi = 0.01;
  for (int it = 0; it < 40 && kl(hi) < target; ++it) {
    lo = hi;
    hi *= 4;
  }
  for (int it = 0; it < 30; ++it) {
    const double mid = lo > 0 ? std::sqrt(lo * hi) : hi / 4;
    const double k = kl(mid);
    if (std::abs(k / target - 1) < 0.05) return mid;
    (k < target ? lo : hi) = mid;
  }
  return hi;
}

// Orthonormal coordinates of a pair (v, M), M symmetric d × d: v, then M_ii, then √2·M_ij (i < j), so
// that the pairing ⟨(v, M), (w, N)⟩ = vᵀw + tr(MN) of η and μ is the dot product of coordinates. (The
// families' flatten_natural keeps all d² entries of M, each off-diagonal twice: a covariance there is
// singular and its central differences would leave Sym(d); these coordinates span Sym(d) exactly.)
Vec<double> coords(const GaussianPair<double>& x) {
  const Index d = x.first.size();
  Vec<double> c(d + d * (d + 1) / 2);
  c.head(d) = x.first;
  Index k = d;
  for (Index i = 0; i < d; ++i) c(k++) = x.second(i, i);
  for (Index i = 0; i < d; ++i)
    for (Index j = i + 1; j < d; ++j) c(k++) = std::sqrt(2.0) * (x.second(i, j) + x.second(j, i)) / 2;
  return c;
}

GaussianNatural<double> natural_from_coords(const Vec<double>& c, Index d) {
  GaussianNatural<double> x(Vec<double>(c.head(d)), Mat<double>::Zero(d, d));
  Index k = d;
  for (Index i = 0; i < d; ++i) x.second(i, i) = c(k++);
  for (Index i = 0; i < d; ++i)
    for (Index j = i + 1; j < d; ++j) x.second(i, j) = x.second(j, i) = c(k++) / std::sqrt(2.0);
  return x;
}

/// Central differences of a map of η at η*, in the coordinates above (the columns are the partial
/// derivatives along the orthonormal basis).
template <class Map>
Mat<double> jacobian_at(const GaussianNatural<double>& star, const Map& map) {
  const Vec<double> x = coords(star);
  const Index p = x.size(), d = star.first.size();
  Mat<double> jac(p, p);
  for (Index k = 0; k < p; ++k) {
    const double h = kDifferenceStep * (1 + std::abs(x(k)));
    Vec<double> up = x, down = x;
    up(k) += h;
    down(k) -= h;
    jac.col(k) = (coords(map(natural_from_coords(up, d))) - coords(map(natural_from_coords(down, d)))) / (2 * h);
  }
  return jac;
}

/// The mean of KL_sym(q̄_T, q*) for the tail average q̄_T of the library's NGD (Price, K draws, step
/// γ_t, tail average over t > T/2) started at q*, from the linearised recursion (docs/math.md §6.3):
/// e_{t+1} = (I − γ_t A)e_t + γ_t ξ_t with A = I − ∂(g∘μ)/∂η at η* (the exact gradient, by central
/// differences of the quadrature) and ξ_t the Price estimate's error, covariance Σ₁/K with Σ₁ the
/// covariance over z ~ q* of one draw's direction (∇ℓ(z) − ∇²ℓ(z)m*, ½∇²ℓ(z)), from kSigmaDraws
/// draws of a stream of its own. The joint covariance of (e_t, Σ_tail e_t) is propagated exactly;
/// E KL_sym = tr(F C) with F = ∂μ/∂η at η* and C the tail average's covariance. Nothing here runs the
/// algorithm under test: its estimator, stepper and averager are not called, and γ_t is the claim's
/// stated schedule c/(t + t0), not the part a variant may replace.
template <class Model, class LogLik>
double linearised_noise_floor(const Model& model, const LogLik& ll, const GaussianMoments<double>& star, long T, int K,
                              const StepSchedule<double>& schedule, random::Stream rng) {
  const GaussianNatural<double> eta = moments_to_natural(star);
  const Index d = star.mean.size();
  const Mat<double> F = jacobian_at(eta, [](const GaussianNatural<double>& e) { return GaussianPair<double>(natural_to_expectation(e)); });
  const Mat<double> Jg = jacobian_at(eta, [&model](const GaussianNatural<double>& e) { return model.grad_expectation(natural_to_expectation(e)); });
  const Index p = F.rows();
  const Mat<double> A = Mat<double>::Identity(p, p) - Jg;
  // Σ₁: one draw's direction at q*, its sample covariance.
  const Mat<double> L = star.cov.llt().matrixL();
  Mat<double> draws(p, kSigmaDraws);
  for (int k = 0; k < kSigmaDraws; ++k) {
    Vec<double> eps(d);
    for (Index j = 0; j < d; ++j) eps(j) = rng.normal();
    const Vec<double> z = star.mean + L * eps;
    const auto der = ll(z, true);
    draws.col(k) = coords(GaussianPair<double>{Vec<double>(der.grad - der.hess * star.mean), Mat<double>(der.hess / 2)});
  }
  const Vec<double> mean = draws.rowwise().mean();
  const Mat<double> centred = draws.colwise() - mean;
  const Mat<double> sigma = centred * centred.transpose() / static_cast<double>(kSigmaDraws - 1) / static_cast<double>(K);
  Mat<double> pee = Mat<double>::Zero(p, p), pes = Mat<double>::Zero(p, p), pss = Mat<double>::Zero(p, p);
  long tail = 0;
  for (long t = 0; t < T; ++t) {
    const double g = schedule.at(t);
    const Mat<double> B = Mat<double>::Identity(p, p) - g * A;
    const Mat<double> pee_next = B * pee * B.transpose() + g * g * sigma;
    const Mat<double> bpes = B * pes;
    if (2 * (t + 1) > T) {  // the iterate after step t + 1 is in the tail
      pss += bpes + bpes.transpose() + pee_next;
      pes = bpes + pee_next;
      ++tail;
    } else {
      pes = bpes;
    }
    pee = pee_next;
  }
  const Mat<double> C = pss / static_cast<double>(tail * tail);
  return ((F + F.transpose()) / 2 * C).trace();
}

template <class MakeModel, class LogLik>
void run_problem_impl(std::vector<ClaimRecord>& out, const std::string& name, const MakeModel& make, const LogLik& ll, Index d,
                      const RunContext& ctx) {
  Stopwatch sw;
  const int starts = ctx.full ? 20 : 3;
  // Steps: long enough that a random start's transient is spent. The tolerance bounds the noise of the
  // tail average, not a start's residual transient: at 3000 steps one Poisson start of suite seed 7040
  // was still at KL_sym 0.1 (34 tol), 1.1e-3 at 6000 and 2e-5 at 12000 (measured, throwaway); at 12000
  // the largest lhs/tol over quick seeds 7001-7040 and 1-20 was 0.30, and 0.15 in --full (seeds 7040-7043).
  const long t_ngd = ctx.full ? 20000 : 12000;
  const int K = 8;
  const GaussianMoments<double> prior = standard_normal_prior<double>(d);
  const GaussianMoments<double> star = exact_stationary(make(prior));
  const auto schedule = StepSchedule<double>::inverse_time(4.0, 20.0);
  auto ngd = [&](const GaussianMoments<double>& q0, const GaussianMoments<double>& pr, std::uint64_t stream) {
    random::Stream rng(ctx.seed, stream);
    // The library's NGD (Price), or the context's variant of it.
    const auto run = ngd_nonconjugate_for(ctx.variant(), ll, pr, q0, schedule, K, t_ngd, rng,
                                          PriceRoute::name);
    if (!run.ok()) throw std::runtime_error("NGD left the domain at step " + std::to_string(run.failure->step));
    return natural_to_moments(run.average ? *run.average : run.last);
  };
  // The tolerance, from the Monte Carlo error of the Price estimate alone (never from the algorithm's
  // runs): the linearised mean E of KL_sym(q̄_T, q*), times the χ²₁ quantile at 1 − α/S.
  const double mean_kl = linearised_noise_floor(make(prior), ll, star, t_ngd, K, schedule, random::Stream(ctx.seed, 0x5900));
  const boost::math::chi_squared_distribution<double> one_direction(1.0);
  const double factor = boost::math::quantile(one_direction, 1.0 - kLevel / starts);
  const double tol = std::max(factor * mean_kl, to_double(rounding_budget<double>(100)));
  auto start = [&](int s) {
    random::Stream rs(ctx.seed, 0x5700 + static_cast<std::uint64_t>(s));
    Vec<double> m0(d);
    Mat<double> s0 = Mat<double>::Zero(d, d);
    for (Index j = 0; j < d; ++j) {
      // A start mean beyond kStartMeanBound prior sd is redrawn. From a start mean of −3.7 in the
      // Poisson bias (quick seed 96162) the first Price step (γ₀ = 1/5) overshoots into the region of
      // large rates, the variance collapses, and the run is still at KL_sym 3.5e3 from q* after 12000
      // steps (14 after 50000; measured, throwaway): a transient longer than any T the suite can run,
      // not a second stationary point. The claim's starts are the prior's bulk.
      do {
        m0(j) = rs.normal();
      } while (std::abs(m0(j)) > kStartMeanBound);
      s0(j, j) = 0.25 + 2 * rs.uniform01();
    }
    return GaussianMoments<double>{m0, s0};
  };
  double worst = 0;
  for (int s = 0; s < starts; ++s)
    worst = std::max(worst, to_double(kl_symmetric(ngd(start(s), prior, 0x5800 + static_cast<std::uint64_t>(s)), star)));
  ClaimRecord rec = inequality_record(kId, name + "/" + std::to_string(starts) + "-starts", "double", Kind::kClaim, worst, tol,
                                      sw.seconds(),
                                      "max KL_sym(NGD from a random start, exact q*) = " + fmt_double(worst) + "; tol = chi2_1^-1(1 - " +
                                          fmt_double(kLevel) + "/" + std::to_string(starts) + ") = " + fmt_double(factor) +
                                          " x E KL_sym " + fmt_double(mean_kl) +
                                          " (derived: linearised NGD with the Price estimate's covariance at q*, " +
                                          std::to_string(kSigmaDraws) + " draws; docs/math.md §6.3); level " + fmt_double(kLevel));
  rec.level = kLevel;
  out.push_back(std::move(rec));
  Stopwatch sw2;
  const double delta = prior_shift_for(make, d, star, kControlExcess * tol);
  const double delta_min = prior_shift_for(make, d, star, tol);
  const GaussianMoments<double> shifted = tightened_prior(d, delta);
  const double other = to_double(kl_symmetric(ngd(start(0), shifted, 0x5800), star));
  out.push_back(inequality_record(kId, name + "/prior-N(0,I/(1+delta))", "double", Kind::kControl, other, tol, sw2.seconds(),
                                  "violation: a limit other than q*: NGD with prior N(0, I/(1+delta)), delta = " + fmt_double(delta) +
                                      " (its stationary point at KL_sym = " + fmt_double(kControlExcess) +
                                      " tol from q*); breaks from delta_min = " + fmt_double(delta_min) +
                                      " (KL_sym = tol; derived from the exact stationary points); KL_sym(NGD, q*) = " +
                                      fmt_double(other)));
}

/// A run that throws (e.g. an overflowing rate) is a failed claim, recorded, never a crash.
template <class MakeModel, class LogLik>
void run_problem(std::vector<ClaimRecord>& out, const std::string& name, const MakeModel& make, const LogLik& ll, Index d,
                 const RunContext& ctx) {
  try {
    run_problem_impl(out, name, make, ll, d, ctx);
  } catch (const std::exception& e) {
    out.push_back(inequality_record(kId, name, "double", Kind::kClaim, 1.0, 0.0, 0.0, std::string("run failed: ") + e.what()));
  }
}

std::vector<ClaimRecord> run(const RunContext& ctx) {
  std::vector<ClaimRecord> out;
  if (!ctx.wants("double")) return out;  // double only: mp50 would take minutes and add no evidence here
  const auto logit = random_glm_data(30, 2, false, 1.0, ctx.seed + 11);
  const auto pois = random_glm_data(30, 2, true, 0.5, ctx.seed + 12);
  const auto prior = standard_normal_prior<double>(3);
  auto ll_logit = [&](const Vec<double>& z, bool h) { return logistic_loglik(logit, z, h); };
  auto ll_pois = [&](const Vec<double>& z, bool h) { return poisson_loglik(pois, z, h); };
  run_problem(out, "logistic-n30-d3", [&](const GaussianMoments<double>& p) { return make_logistic_regression(logit, p, 64); },
              ll_logit, 3, ctx);
  run_problem(out, "poisson-n30-d3", [&](const GaussianMoments<double>& p) { return make_poisson_regression(pois, p); }, ll_pois,
              3, ctx);
  return out;
}

const Registrar kReg({kId, "Stochastic NGD (Price) from random starts reaches the same q as SGD in (m, L) for log-concave likelihoods",
                      "Wu & Gardner 2024, Proposition 1; docs/math.md §6.3", "[R]", run,
                      CostHint{1.1, 31}});

}}  // namespace
}  // namespace ngvi::claims
