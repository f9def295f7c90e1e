#pragma once
/// @file
/// Instances and helpers shared by the conjugate-NGVI claims (Bayesian linear regression,
/// docs/math.md §4–5). Quick instances (make test) are small synthetic problems; the full set adds
/// larger synthetic problems and the diabetes table shipped by Debian's python3-sklearn (only when
/// it is installed; otherwise no record is emitted for it). The helpers that instantiate heavy
/// templates (the eigensolver, the Student-t quantile, the step-variance trajectory) are defined
/// once, in lib/src/claims/blr_common.cpp (compiled into the claims library, ngvi::claims).
#include <algorithm>
#include <cstdio>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ngvi/claims/check_util.hpp"
#include "ngvi/bounds/blr_constants.hpp"
#include "ngvi/data/loaders.hpp"
#include "ngvi/data/synthetic_regression.hpp"
#include "ngvi/diagnostics/step_variance.hpp"
#include "ngvi/estimators/minibatch_gradient.hpp"
#include "ngvi/models/linear_regression.hpp"
#include "ngvi/optim/ngd_driver.hpp"
#include "ngvi/optim/steppers/protocol_ngd.hpp"
#include "ngvi/optim/variant.hpp"
#include "ngvi/parallel/replicates.hpp"
#include "ngvi/stats/loglog_fit.hpp"
#include "ngvi/stats/student_t.hpp"

namespace ngvi::claims {

struct BlrInstance {
  std::string name;
  Dataset<double> data;
  Mat<double> prior_cov;
  double noise_var = 0.5;
  long batch = 2;
};

/// Quick: well conditioned (κ(XᵀX) ≈ 1 in population, S_p = I) and ill conditioned (feature
/// covariance κ = 1e3, S_p with spectrum [0.3, 3], so λ = 1/3), both n = 12, d = 3, M = 2 as in
/// the spec's check_blr.py. Full adds n = 200 problems and the standardised diabetes table.
std::vector<BlrInstance> blr_instances(const RunContext& ctx);

template <class Scalar>
LinearRegression<Scalar> make_model(const BlrInstance& inst, const Vec<double>& prior_mean = Vec<double>()) {
  return LinearRegression<Scalar>(cast_dataset<Scalar>(inst.data), data::cast_matrix<Scalar>(inst.prior_cov),
                                  Scalar(inst.noise_var),
                                  prior_mean.size() ? data::cast_vector<Scalar>(prior_mean) : Vec<Scalar>());
}

/// A prior mean whose natural parameter S_p⁻¹m_p has norm k·B along the first axis: it breaks the
/// hypothesis m_p = 0 of Lemma 9 (and so of Corollaries 1–2, Lemmas 10–11 and 3).
Vec<double> shifted_prior_mean(const BlrInstance& inst, double k);

/// Largest eigenvalue of a symmetric matrix.
double lambda_max(const Mat<double>& a);

/// Upper (or lower, with sign −1) one-sided 99% Student-t confidence bound on a mean from R samples
/// (stats/student_t.hpp): mean ± t_{0.99, R−1}·s/√R.
double t_bound99(const std::vector<double>& x, double sign = 1.0);

inline double mean_of(const std::vector<double>& x) {
  double m = 0;
  for (double v : x) m += v;
  return m / static_cast<double>(x.size());
}

inline std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

/// Steps at which σ_t² is measured along a trajectory of length T: every t < 30, then a geometric
/// grid (ratio 1.5) up to T − 1.
inline std::vector<long> variance_grid(long T) {
  std::vector<long> g;
  for (long t = 0; t < std::min(T, 30L); ++t) g.push_back(t);
  for (double t = 30; t < static_cast<double>(T); t *= 1.5) g.push_back(static_cast<long>(t));
  return g;
}

/// Batches per Monte Carlo estimate of σ_t² when n^M is above the enumeration limit.
inline constexpr long kVarianceSamples = 200;
/// Enumeration limit n^M for the exact σ_t².
inline constexpr long kEnumerationLimit = 4096;

/// max_t σ_t² over `variance_grid(T)` along one eq. (15) trajectory with γ_t = 2/(t+2) from
/// q₀ = N(0, I) (streams (seed, stream) for the trajectory and (seed, stream + 1) for the probe
/// batches), by diagnostics/step_variance.hpp: exact by enumeration when n^M ≤ kEnumerationLimit,
/// otherwise the largest one-sided 99% normal upper bound mean + z_{0.99}·se of kVarianceSamples
/// batches at each t.
struct MeasuredVariance {
  double max_sigma2 = 0;
  bool exact = false;
  long points = 0;
};

MeasuredVariance measured_sigma2(const LinearRegression<double>& model, long batch, long T, const RunContext& ctx,
                                 std::uint64_t stream);

/// KL(q_b ‖ posterior) for the limit q_b = η_p + b·∇_μE_qℓ of NGD with ĝ scaled by b (closed form):
/// the tempered point a scale-biased estimator converges to (the scale-bias controls).
double tempered_kl(const LinearRegression<double>& model, double b);

/// The scale excess δ ≥ 0 with tempered_kl(1 + δ) = target (bisection to 1e-12 relative; the KL
/// grows with δ).
double bias_for_kl(const LinearRegression<double>& model, double target);

/// The scale deficit δ ∈ (0, 1) with tempered_kl(1 − δ) = target (bisection to 1e-12 relative; the
/// KL D_A(η*, η* − δ∇ℓ) grows with δ by the monotonicity of ∇A along the line), or NaN when even
/// the prior (δ = 1) is within `target` of the posterior.
double deficit_for_kl(const LinearRegression<double>& model, double target);

/// An estimator's ĝ multiplied by `scale` (1: unchanged).
template <class Inner, class Scalar>
struct ScaledEstimator {
  Inner& inner;
  Scalar scale;
  template <class S>
  void estimate(long t, const S& s, GaussianPair<Scalar>& g) {
    inner.estimate(t, s, g);
    if (scale != Scalar(1)) g *= scale;
  }
};

/// The batch of each step drawn from `rng` (eq. (15)'s draws, or the sampling the estimator was made with).
struct StreamDraw {
  random::Stream& rng;
  template <class Est>
  void operator()(long, Est& est) const {
    est.draw(rng);
  }
};

/// The averaging a run keeps: Theorem 1's or the variant's weights (MeanAverage), or none (NoAverage).
struct NoAveraging {};

/// The problem a conjugate-NGD implementation is handed (protocols/conjugate_ngd.hpp): the model's
/// data, prior and batch size, q₀ = N(0, I), and the noise variance σ²/scale: eq. (15)'s ĝ is linear in
/// 1/σ², so an implementation handed σ²/scale estimates exactly scale·ĝ (the scale-bias controls'
/// violation, a misspecified likelihood, reaches an implementation through what it is handed).
template <class Scalar>
protocols::BlrProblem<Scalar> blr_problem(const LinearRegression<Scalar>& model, Index batch, const Scalar& scale) {
  return protocols::BlrProblem<Scalar>{model.data().X, model.data().y, model.noise_var() / scale, model.prior().mean,
                                       model.prior().cov, model.prior_natural(), batch, standard_natural<Scalar>(model.d())};
}

/// One eq. (15) NGD run from q₀ = N(0, I) of the algorithm under test: the library's conjugate
/// algorithm, the context's variant of it, or a conjugate-NGD implementation the variant hands
/// (conjugate_ngd_for). The batches of step t are set by draw(t, est) (StreamDraw: eq. (15)'s draws
/// from a stream) on an estimator with the claim's `sampling` (or the variant's); the library's
/// schedule `base` (or the variant's); ĝ scaled by `scale` (1: eq. (15)), then the variant's change
/// to ĝ; `averaging` the weights of a MeanAverage or NoAveraging. An implementation receives the
/// same batches, owns its schedule and estimate (the scale reaches it as blr_problem says) and, when
/// it keeps one, its average.
template <class Scalar, class Draw, class Base, class Averaging, class... Observers>
auto blr_run(const LinearRegression<Scalar>& model, Index batch, Draw draw, const Base& base, const Variant* variant,
             const Scalar& scale, Sampling sampling, const Averaging& averaging, const RunOptions& options, Observers&&... observers) {
  MinibatchGradient<Scalar> est(model, batch, sampling_for<Scalar>(variant, sampling));
  const auto schedule = schedule_for<Scalar>(variant, base);
  if (const auto* impl = conjugate_ngd_for<Scalar>(variant)) {
    ProtocolNgdStepper<Scalar> stepper(*impl, blr_problem(model, batch, scale));
    BatchIndices estimator{est, draw};
    // A failed call of the implementation (it threw, died, hung, answered garbage or a wrong shape)
    // is an ImplementationError thrown through the engine: it ends the claim with its message, one
    // error record naming the call (claims::run_claim), not a trajectory of NaNs.
    if constexpr (std::is_same_v<Averaging, NoAveraging>) {
      NoAverage avg;
      return run_trajectory(stepper, estimator, schedule, avg, options, observers...);
    } else {
      if (stepper.has_average()) {
        ImplementationAverage<Scalar> avg(options.checkpoints, options.steps);
        return run_trajectory(stepper, estimator, schedule, avg, options, observers...);
      }
      MeanAverage<ProtocolNgdStepper<Scalar>> avg(averaging);
      return run_trajectory(stepper, estimator, schedule, avg, options, observers...);
    }
  }
  FunctionEstimator draws{[&](long t, const GaussianNatural<Scalar>&, GaussianPair<Scalar>& g) {
    draw(t, est);
    est.evaluate(g);
  }};
  ScaledEstimator<decltype(draws), Scalar> scaled{draws, scale};
  VariantEstimator<decltype(scaled), Scalar> estimator{scaled, estimator_parts<Scalar>(variant)};
  NgdStepper<Scalar> stepper(prior_for<Scalar>(variant, model.prior_natural()), standard_natural<Scalar>(model.d()));
  if constexpr (std::is_same_v<Averaging, NoAveraging>) {
    NoAverage avg;
    return run_trajectory(stepper, estimator, schedule, avg, options, observers...);
  } else {
    MeanAverage<NgdStepper<Scalar>> avg(averaging);
    return run_trajectory(stepper, estimator, schedule, avg, options, observers...);
  }
}

/// blr_run with eq. (15)'s sampling from `rng` and the averager's weights (Theorem 1's linear ones, or
/// the variant's), returning the averages at `checkpoints`.
template <class Scalar, class Base, class... Observers>
NgdResult<Scalar> blr_replicate(const LinearRegression<Scalar>& model, Index batch, random::Stream& rng, const Base& base,
                                const std::vector<long>& checkpoints, const Variant* variant, const Scalar& scale = Scalar(1),
                                Observers&&... observers) {
  return blr_run(model, batch, StreamDraw{rng}, base, variant, scale, Sampling::kWithReplacement, averaging_for<Scalar>(variant),
                 RunOptions{checkpoints.empty() ? 0 : checkpoints.back(), true, checkpoints}, observers...);
}

/// blr_run for T steps without an average: the last natural iterate η_T is the result's `last`.
template <class Scalar, class Base>
auto blr_last_iterate(const LinearRegression<Scalar>& model, Index batch, random::Stream& rng, const Base& base, long T,
                      const Variant* variant, const Scalar& scale = Scalar(1), Sampling sampling = Sampling::kWithReplacement) {
  return blr_run(model, batch, StreamDraw{rng}, base, variant, scale, sampling, NoAveraging{}, RunOptions{T, true});
}

/// c_T = Σ_{t<T} w_t² = 2(2T+1)/(3T(T+1)) for the weights w_t = 2(t+1)/(T(T+1)) of η_T under
/// γ_t = 2/(t+2): Var(η_T,k) = c_T (n²/M) v_k (docs/math.md §5.2).
inline double iterate_variance_factor(long T) {
  const double t = static_cast<double>(T);
  return 2.0 * (2.0 * t + 1.0) / (3.0 * t * (t + 1.0));
}

/// The per-datum terms of one coordinate of eq. (15)'s ĝ^ℓ (ĝ^ℓ = (n/M) Σ_j g_{i_j}): y_i x_ia/s_e²
/// for η₁[a] (j < 0), −x_ia x_ij/(2s_e²) for η₂[a, j].
inline std::vector<double> datum_terms(const BlrInstance& inst, Index a, Index j = -1) {
  std::vector<double> v;
  for (Index i = 0; i < inst.data.n(); ++i)
    v.push_back(j < 0 ? inst.data.y(i) * inst.data.X(i, a) / inst.noise_var
                      : -inst.data.X(i, a) * inst.data.X(i, j) / (2.0 * inst.noise_var));
  return v;
}

/// Population variance (1/n) Σ (v_i − v̄)² and excess kurtosis of the values.
struct PopulationMoments {
  double var = 0;
  double kurtosis = 0;
};
inline PopulationMoments population_moments(const std::vector<double>& v) {
  const double n = static_cast<double>(v.size());
  double m = 0;
  for (double x : v) m += x;
  m /= n;
  double m2 = 0, m4 = 0;
  for (double x : v) {
    const double c2 = (x - m) * (x - m);
    m2 += c2;
    m4 += c2 * c2;
  }
  m2 /= n;
  m4 /= n;
  return {m2, m4 / (m2 * m2) - 3.0};
}

/// Label required on every printed bound value.
inline const char* kDerived = "derived (docs/math.md §5.4)";

}  // namespace ngvi::claims
