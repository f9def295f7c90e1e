#pragma once
/// @file
/// Eq. (15) NGD on up to L replicates at once, one per SIMD lane, for the Monte Carlo workloads of
/// Theorem 1 (many replicates of long trajectories at small d): the lane parts of
/// steppers/ngd_lanes.hpp run by the trajectory engine, and each lane's result unpacked as the
/// one-replicate route's NgdResult. The cost per replicate-step is in bench/README.md
/// (BM_Thm1WorkloadLanes against BM_Thm1Workload); the work is the same O(M d² + d³) per replicate,
/// without blocking for cache, so it is not meant for d in the hundreds.
#include <string>
#include <vector>

#include "ngvi/optim/ngd_driver.hpp"
#include "ngvi/optim/steppers/ngd_lanes.hpp"

namespace ngvi {

/// Lanes per group.
inline constexpr int kNgdLanes = kernels::kLanes;

/// Runs options.steps steps of eq. (15) NGD from η₀ on lane ℓ for each stream ℓ, and returns one
/// NgdResult per stream, in order; streams are advanced as the one-replicate route advances its
/// stream. options.average and options.checkpoints have their run_ngd meaning; options.theorem_steps
/// requires γ_t ∈ (0, 1]. A lane whose iterate leaves Ω ends the run of every lane: each result then
/// carries the failure (naming the lane) and its last valid iterate.
/// @throws std::invalid_argument naming 'streams' (empty or more than L), 'batch' (< 1), 'eta0'
///         (shape), 'options.steps' (< 0); std::domain_error naming 'schedule', 'options.checkpoints'
///         or 'gradient_scale' (not finite).
template <class Scalar, int L = kNgdLanes, class Schedule>
std::vector<NgdResult<Scalar>> run_ngd_minibatch_lanes(const LinearRegression<Scalar>& model, const GaussianNatural<Scalar>& eta0,
                                                       Index batch, std::vector<random::Stream>& streams, const Schedule& schedule,
                                                       const NgdOptions& options, const Scalar& gradient_scale = Scalar(1)) {
  constexpr const char* f = "ngvi::run_ngd_minibatch_lanes";
  require_pair_shape(eta0, f, "eta0");
  if (eta0.dim() != model.d()) throw_size(f, "eta0", "must have the model's dimension d = " + std::to_string(model.d()));
  if (!options.checkpoints.empty() && !options.average) throw_domain(f, "options.checkpoints", "need options.average");
  LaneMinibatchEstimator<Scalar, L> est(model, batch, streams, gradient_scale);
  LaneNgdStepper<Scalar, L> stepper(model.prior_natural(), eta0);
  const int used = static_cast<int>(streams.size());
  LaneMeanAverage<Scalar, L> avg(model.d(), used, options.average);
  const auto tr = run_trajectory(stepper, est, schedule, avg, RunOptions{options.steps, options.theorem_steps, options.checkpoints});

  std::vector<NgdResult<Scalar>> results(static_cast<std::size_t>(used));
  for (int l = 0; l < used; ++l) {
    auto& res = results[static_cast<std::size_t>(l)];
    res.last = tr.steps == 0 ? eta0 : stepper.lane(l);
    res.steps = tr.steps;
    res.failure = tr.failure;
    res.stopped = tr.stopped;
    if (tr.average) res.average = GaussianExpectation<Scalar>(stepper.unpack(tr.average->first, tr.average->second, l));
    for (const auto& cp : tr.checkpoint_averages) res.checkpoint_averages.emplace_back(stepper.unpack(cp.first, cp.second, l));
    streams[static_cast<std::size_t>(l)] = est.streams()[static_cast<std::size_t>(l)];
  }
  return results;
}

}  // namespace ngvi
