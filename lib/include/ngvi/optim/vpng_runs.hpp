#pragma once
/// @file
/// Runs of the three methods compared by Tang & Ranganath (2019) (docs/systems.md D.4) through
/// run_trajectory with one PreconditionedStepper and three preconditioner parts: the plain gradient,
/// the q-Fisher NG and VPNG; and the step-size rule of the comparison: per method, the ρ of a grid
/// with the best final ELBO estimate (common ε-draws for every candidate; non-finite runs discarded).
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "ngvi/estimators/predictive_fisher.hpp"
#include "ngvi/optim/engine.hpp"
#include "ngvi/optim/schedule.hpp"
#include "ngvi/optim/steppers/preconditioned.hpp"
#include "ngvi/random/stream.hpp"

namespace ngvi {

enum class VpngMethod { kGradient, kNg, kVpng };

inline const char* to_string(VpngMethod m) {
  switch (m) {
    case VpngMethod::kGradient: return "gradient";
    case VpngMethod::kNg: return "ng";
    case VpngMethod::kVpng: return "vpng";
  }
  return "?";
}

/// Options of one run (defaults: docs/systems.md D.4).
template <class Scalar>
struct VpngRunOptions {
  long steps = 200;                       ///< T
  long grad_draws = 10;                   ///< ε-draws for ∇̂L per step (0 = exact gradient)
  long fisher_draws = 20;                 ///< ε-draws for F̂_r per step: K draws give an ω-block that is a sum of K rank-one-dominated terms, near-singular for K ≈ D (one draw, as in the released VAE code, leaves it near δ and the steps diverge); 20 for D = 10 (docs/systems.md D.4)
  Scalar delta = Scalar(1) / 10;          ///< VPNG damping δ
  FisherRoute route = FisherRoute::kAnalytic;  ///< VPNG's route to F̂_r
  VpngParts<Scalar> parts;                ///< VPNG's parts in place of the library's (empty: the library's)
};

/// The step-size grid of docs/systems.md D.4: {1, 0.3, 0.1, …, 1e−4}.
inline std::vector<double> vpng_step_grid() { return {1, 0.3, 0.1, 0.03, 0.01, 0.003, 1e-3, 3e-4, 1e-4}; }

/// Runs `method` for options.steps steps at the constant step rho from λ0, with draws from stream
/// (seed, stream); observers as for run_trajectory. Returns the trajectory (last valid iterate and
/// failure, if any).
template <class Scalar, class Model, class... Obs>
Trajectory<Vec<Scalar>, int> run_vpng_method(const Model& model, VpngMethod method, const VpngRunOptions<Scalar>& o, const Scalar& rho,
                                             const Vec<Scalar>& lambda0, std::uint64_t seed, std::uint64_t stream, Obs&&... obs) {
  PredictiveFisherOptions eo;
  eo.grad_draws = o.grad_draws;
  eo.fisher_draws = o.fisher_draws;
  eo.route = method == VpngMethod::kVpng ? o.route : FisherRoute::kNone;
  PredictiveFisherEstimator<Model, random::Stream> est(model, eo, random::Stream(seed, stream), method == VpngMethod::kVpng ? o.parts.fisher : FisherEstimate<Scalar>{});
  const auto schedule = StepSchedule<Scalar>::constant(rho);
  NoAverage avg;
  const RunOptions ro{o.steps, false, {}};
  auto go = [&](auto pre) {
    PreconditionedStepper<Scalar, decltype(pre)> s(lambda0, std::move(pre));
    return run_trajectory(s, est, schedule, avg, ro, std::forward<Obs>(obs)...);
  };
  switch (method) {
    case VpngMethod::kGradient: return go(PlainGradient{});
    case VpngMethod::kNg: return go(QFisherNatural<Scalar>(Scalar(0)));
    case VpngMethod::kVpng: break;
  }
  return go(PredictiveFisherNatural<Scalar>(o.delta, o.parts.damping));
}

/// The result of the step-size rule.
template <class Scalar>
struct SelectedRun {
  double rho = 0;                 ///< the chosen step (0: every candidate failed)
  Vec<Scalar> lambda;             ///< its final iterate
  double elbo = -std::numeric_limits<double>::infinity();  ///< its final ELBO estimate
  std::vector<double> elbo_by_rho;  ///< per grid entry (−inf for a failed or non-finite run)
};

/// Per method, runs every ρ of `grid` (same draws) and keeps the best final ELBO estimate from
/// `elbo_draws` common ε-draws (stream (seed, elbo_stream)).
template <class Scalar, class Model>
SelectedRun<Scalar> select_step(const Model& model, VpngMethod method, const VpngRunOptions<Scalar>& o, const std::vector<double>& grid,
                                const Vec<Scalar>& lambda0, std::uint64_t seed, std::uint64_t stream, long elbo_draws = 100) {
  SelectedRun<Scalar> best;
  best.lambda = lambda0;
  for (double rho : grid) {
    const auto tr = run_vpng_method<Scalar>(model, method, o, Scalar(rho), lambda0, seed, stream);
    double value = -std::numeric_limits<double>::infinity();
    if (tr.ok() && all_finite(tr.last)) {
      random::Stream r(seed, 0x5E1EC7ULL);  // common draws for every candidate
      const double v = static_cast<double>(elbo_estimate<Scalar>(model, tr.last, elbo_draws, r));
      if (std::isfinite(v)) value = v;
    }
    best.elbo_by_rho.push_back(value);
    if (value > best.elbo) {
      best.elbo = value;
      best.rho = rho;
      best.lambda = tr.last;
    }
  }
  return best;
}

}  // namespace ngvi
