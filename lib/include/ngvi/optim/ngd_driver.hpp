#pragma once
/// @file
/// Runs T stochastic NGD steps η_{t+1} = (1−γ_t)η_t + γ_t(η_p + ĝ^ℓ_t) (ngvi-math.md §2.4) with a
/// step-size schedule, Theorem 1's t-weighted average μ̄_T of the expectation parameters, and an
/// optional trajectory recorder. The conversion η → (m, S) reuses one workspace (one LDLᵀ
/// factorisation, no allocation once sized), and is done only when the average needs it.
///
/// Two threads on one trajectory. With a step pool (NgdOptions::step_pool), the orders from
/// kTiledOrder split their products into tiles (linalg/tiles.hpp). Below it the products are too
/// small to split, and the pool is used another way (run_ngd, overlaps_estimate): once η_{t+1} is
/// formed, its conversion and the average (for step t) and the estimate ĝ_{t+1} (for step t+1) only
/// read it, so the two run at once, one per thread. The work and its order within each task are those
/// of the sequential loop, so the trajectory is bitwise the same with or without the overlap.
#include <exception>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "ngvi/linalg/spd_inverse.hpp"
#include "ngvi/models/linear_regression.hpp"
#include "ngvi/optim/averaging.hpp"
#include "ngvi/optim/ngd_step.hpp"
#include "ngvi/optim/recorder.hpp"
#include "ngvi/optim/schedule.hpp"
#include "ngvi/random/stream.hpp"

namespace ngvi {

/// Workspace for η → (m, S) without allocation: Λ = −2η₂, S = Λ⁻¹ by one LDLᵀ factorisation
/// (spd_inverse_in_place), m = Sη₁. The expectation parameter μ = (m, S + mmᵀ) is not formed here:
/// the average takes (m, S) and forms S + mmᵀ inside its own pass (IterateAverage::add_moments),
/// one pass over d × d data instead of two. With a pool, the tiles of the inverse's products and,
/// from order kTiledOrder, of the set-up of Λ and of m = Sη₁ (linalg/tiles.hpp) run on it, with the
/// same result as without.
template <class Scalar>
class MomentWorkspace {
 public:
  explicit MomentWorkspace(Index d, parallel::TilePool* pool = nullptr) : precision_(d, d), cov_(d, d), tmp_(d, d), mean_(d), pool_(pool) {}

  /// Converts η; returns false (leaving the outputs unspecified) if −η₂ is not positive definite.
  /// Only the lower triangle of η₂ is read (η₂ is symmetric in Ω), and Λ is formed on it.
  bool convert(const GaussianNatural<Scalar>& eta) {
    const Index d = eta.dim();
    const Mat<Scalar>& e2 = eta.eta2();
    for_each_column_tile(pool_, d, [&](Index j0, Index w) {
      for (Index j = j0; j < j0 + w; ++j)
        for (Index i = j; i < d; ++i) precision_(i, j) = -(e2(i, j) + e2(i, j));  // −2η₂ exactly, without a multiplication
    });
    if (!spd_inverse_in_place(precision_, cov_, tmp_, pool_)) return false;
    if (d < kTiledOrder) {
      mean_.noalias() = cov_ * eta.eta1();
    } else {  // S is exactly symmetric: the entries of m in tile J are S's columns J dotted with η₁
      for_each_column_tile(pool_, d, [&](Index j0, Index w) { mean_.segment(j0, w).noalias() = cov_.middleCols(j0, w).transpose() * eta.eta1(); });
    }
    return true;
  }
  /// m and S of the last successful convert() (S exactly symmetric).
  const Vec<Scalar>& mean() const { return mean_; }
  const Mat<Scalar>& cov() const { return cov_; }

 private:
  Mat<Scalar> precision_, cov_, tmp_;
  Vec<Scalar> mean_;
  parallel::TilePool* pool_;
};

struct NgdOptions {
  long steps = 0;               ///< T ≥ 0
  bool average = true;          ///< keep μ̄_T (one conversion per step)
  bool theorem_steps = true;    ///< require γ_t ∈ (0, 1] (Remark 2, Theorem 1)
  std::vector<long> checkpoints;  ///< increasing T' ≤ T at which μ̄_{T'} is also kept (needs average)
  /// Threads for the work inside one step (parallel/tile_pool.hpp), the caller's included;
  /// nullptr runs it on the caller. From order kTiledOrder they share the tiles of the step's
  /// products; below it (from kOverlapMinOrder) two of them overlap the estimate of the next step
  /// with this step's conversion and average (see overlaps_estimate). Results are bitwise the same
  /// for any pool. Not owned; one trajectory at a time may use a pool.
  parallel::TilePool* step_pool = nullptr;
  /// Allow that overlap (it changes no result; off, a pool below kTiledOrder is not used).
  bool overlap_estimate = true;
};

/// Smallest order at which a step pool overlaps the next estimate with the conversion. Below it the
/// whole step takes under a microsecond (d = 10, M = 32: 0.63 µs alone, 0.62 µs overlapped), and
/// handing half of it to another thread gains nothing; from here it does (d = 16, M = 32: 0.96 µs
/// against 0.83 µs; d = 100, M = 256: 75.6 µs against 50.3 µs; 2 cores, AVX-512, bench/README.md).
inline constexpr Index kOverlapMinOrder = 16;

/// True when a step at order d with this pool overlaps the estimate ĝ_{t+1} with the conversion and
/// the average of step t: a pool of two threads or more, the average kept (otherwise there is no
/// conversion to overlap), and kOverlapMinOrder ≤ d < kTiledOrder (from kTiledOrder the pool takes
/// the tiles of the products instead: the overlap cannot nest them, and at d = 500, M = 256 the
/// tiles were faster, 1.67 ms against 1.95 ms for the overlap with untiled products).
inline bool overlaps_estimate(const parallel::TilePool* pool, Index d, bool average, bool allowed = true) {
  return allowed && average && pool != nullptr && pool->threads() >= 2 && d >= kOverlapMinOrder && d < kTiledOrder;
}

namespace detail {

/// finish() and next() at once, as the two tiles of one run of `pool`; returns finish()'s value.
/// An exception from finish() propagates; one from next() is handed back in `next_error`, so that
/// the caller raises errors in the sequential loop's order (the conversion of step t before the
/// estimate of step t + 1) and first does what that loop does between the two. next() is tile 0,
/// which the calling thread, already running, claims first in practice: with M ≥ d the estimate is
/// the longer task, and when a worker's core is the slower one, the step waits less. At d = 100,
/// M = 256 the step took 51–54 µs so, against 56 µs with finish() as tile 0 (2 cores, medians).
template <class Finish, class Next>
bool finish_beside_next(parallel::TilePool& pool, Finish&& finish, Next&& next, std::exception_ptr& next_error) {
  bool ok = false;
  std::exception_ptr finish_error;
  pool.run(2, [&](long task) {
    try {
      if (task == 1) ok = finish();
      else next();
    } catch (...) {
      (task == 1 ? finish_error : next_error) = std::current_exception();
    }
  });
  if (finish_error) std::rethrow_exception(finish_error);
  return ok;
}

}  // namespace detail

template <class Scalar>
struct NgdResult {
  GaussianNatural<Scalar> eta;                         ///< η_T
  std::optional<GaussianExpectation<Scalar>> average;  ///< μ̄_T (when asked and T ≥ 1)
  std::vector<GaussianExpectation<Scalar>> checkpoint_averages;  ///< μ̄_{T'} for each checkpoint T'
};

/// No-op per-step observer.
struct NoObserver {
  template <class... A>
  void operator()(const A&...) const {}
};

/// Runs T steps from η₀. `estimate(t, η_t, ghat)` writes ĝ^ℓ_t into `ghat`; `observe(t, η_t, ghat,
/// γ_t, η_{t+1})` is called after each step.
///
/// When overlaps_estimate(options.step_pool, d, options.average, options.overlap_estimate) holds,
/// estimate(t + 1, η_{t+1}, ·) runs on one thread of the pool while the other converts η_{t+1} and
/// adds it to the average; `estimate` must then not touch anything the conversion, the average or
/// the recorder use (a mini-batch estimator and its random stream do not). By then step t has used
/// ĝ_t and the observer has seen it, so ĝ_{t+1} takes its buffer. The calls and their arguments are
/// those of the sequential loop, and a failure is reported as there (a conversion's first). One
/// difference: when the conversion of step t fails, estimate(t + 1) has already run, so a random
/// stream it draws from has moved on.
/// @throws std::domain_error naming 'schedule' if theorem_steps is set and some γ_t ∉ (0, 1];
///         naming 'eta' (with the step) if an iterate leaves Ω when the average needs its μ;
///         std::invalid_argument on dimension mismatches or a negative T.
template <class Scalar, class Estimate, class Observe = NoObserver>
NgdResult<Scalar> run_ngd(const GaussianNatural<Scalar>& eta_prior, GaussianNatural<Scalar> eta0, Estimate&& estimate,
                          const StepSchedule<Scalar>& schedule, const NgdOptions& options,
                          TrajectoryRecorder<Scalar>* recorder = nullptr, Observe&& observe = Observe{}) {
  constexpr const char* f = "ngvi::run_ngd";
  constexpr bool kObserved = !std::is_same_v<std::decay_t<Observe>, NoObserver>;
  if (options.steps < 0) throw_size(f, "options.steps", "must be >= 0");
  require_pair_shape(eta0, f, "eta0");
  if (options.theorem_steps && !schedule.within_unit_interval())
    throw_domain(f, "schedule", "has a step outside (0, 1] (Remark 2, Theorem 1 need gamma_t <= 1)");
  const Index d = eta0.dim();
  NgdResult<Scalar> res;
  res.eta = std::move(eta0);
  const bool overlap = overlaps_estimate(options.step_pool, d, options.average, options.overlap_estimate);
  parallel::TilePool* const tiles = overlap ? nullptr : options.step_pool;  // below kTiledOrder: unused
  IterateAverage<Scalar> avg;
  MomentWorkspace<Scalar> ws(d, tiles);
  GaussianPair<Scalar> ghat{Vec<Scalar>::Zero(d), Mat<Scalar>::Zero(d, d)};
  GaussianNatural<Scalar> before;
  std::size_t next_checkpoint = 0;
  for (std::size_t k = 0; k < options.checkpoints.size(); ++k)
    if (options.checkpoints[k] < 1 || options.checkpoints[k] > options.steps || (k > 0 && options.checkpoints[k] <= options.checkpoints[k - 1]))
      throw_domain(f, "options.checkpoints", "must be increasing and lie in [1, T]");
  const auto& eta_now = static_cast<const GaussianNatural<Scalar>&>(res.eta);
  auto convert_and_average = [&] {
    if (!ws.convert(res.eta)) return false;
    avg.add_moments(ws.mean(), ws.cov(), tiles);
    return true;
  };
  if (recorder) recorder->observe(0, res.eta, options.steps == 0);
  if (overlap && options.steps > 0) estimate(0, eta_now, ghat);
  for (long t = 0; t < options.steps; ++t) {
    const Scalar gamma = schedule.at(t);
    if (!overlap) estimate(t, eta_now, ghat);
    if constexpr (kObserved) before = res.eta;  // η_t, for the observer only (a d² copy per step)
    if (options.theorem_steps) ngd_step_theorem(res.eta, eta_prior, ghat, gamma, tiles);
    else ngd_step(res.eta, eta_prior, ghat, gamma, tiles);
    if constexpr (kObserved)
      observe(t, static_cast<const GaussianNatural<Scalar>&>(before), static_cast<const GaussianPair<Scalar>&>(ghat), gamma, eta_now);
    std::exception_ptr next_error;
    if (options.average) {
      const bool converted =
          overlap && t + 1 < options.steps
              ? detail::finish_beside_next(*options.step_pool, convert_and_average, [&] { estimate(t + 1, eta_now, ghat); },
                                           next_error)
              : convert_and_average();
      if (!converted) throw_domain(f, "eta", "left Omega (-eta2 not positive definite) after step t = " + std::to_string(t));
      if (next_checkpoint < options.checkpoints.size() && options.checkpoints[next_checkpoint] == t + 1) {
        res.checkpoint_averages.push_back(avg.value());
        ++next_checkpoint;
      }
    }
    if (recorder) recorder->observe(t + 1, res.eta, t + 1 == options.steps);
    if (next_error) std::rethrow_exception(next_error);
  }
  if (options.average && avg.count() > 0) res.average = avg.value();
  return res;
}

/// Runs T steps of eq. (15) NGD on a linear-regression model from η₀ with the mini-batch
/// estimator drawing from `rng`. An estimator with `set_pool` (MinibatchGradient) is given
/// options.step_pool for the tiles of its Gram product, or none where the step overlaps the
/// estimate with the conversion instead (overlaps_estimate).
template <class Scalar, class Estimator>
NgdResult<Scalar> run_ngd_minibatch(const LinearRegression<Scalar>& model, const GaussianNatural<Scalar>& eta0,
                                    Estimator& estimator, random::Stream& rng, const StepSchedule<Scalar>& schedule,
                                    const NgdOptions& options, TrajectoryRecorder<Scalar>* recorder = nullptr) {
  if constexpr (requires { estimator.set_pool(options.step_pool); })
    estimator.set_pool(overlaps_estimate(options.step_pool, eta0.dim(), options.average, options.overlap_estimate) ? nullptr
                                                                                                                    : options.step_pool);
  return run_ngd(
      model.prior_natural(), eta0,
      [&](long, const GaussianNatural<Scalar>&, GaussianPair<Scalar>& g) {
        estimator.draw(rng);
        estimator.evaluate(g);
      },
      schedule, options, recorder);
}

/// q₀ = N(0, I): η₀ = (0, −½I) (ngvi-math.md §5.1).
template <class Scalar>
GaussianNatural<Scalar> standard_natural(Index d) {
  Mat<Scalar> e2 = Mat<Scalar>::Identity(d, d);
  e2 *= Scalar(-0.5);
  return GaussianNatural<Scalar>(Vec<Scalar>::Zero(d), std::move(e2));
}

}  // namespace ngvi
