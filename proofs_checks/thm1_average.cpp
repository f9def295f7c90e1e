// DESCRIPTION
// Claim thm1.average (docs/math.md §5.2, "The average is Theorem 1's", tag [X]): the average a run
// reports is Theorem 1's μ̄_T = (2/(T(T+1))) Σ_{t=1}^T t μ_t (§4.5), the average whose rate thm1.rate
// checks. One run of T = 100 steps per instance, through the algorithm under test (the library's
// averager, a variant's, or an implementation's own average); the reference is the definition,
// recomputed in mp50 from the iterates μ_t = ∇A(η_t) an observer saw (not from the averager).
// Budget (derived): γ_{4T+8d²}·κ(S)·(max_t |μ_t| / |μ̄_T|), T running updates and a moment map per
// iterate.
// Negative control: the same iterates averaged with the weights t^{1+δ} / Σ_s s^{1+δ} in place of
// t / Σ_s s. Its error e(δ) against μ̄_T is linear in δ to first order (the second-order term is below
// 1e-6 of the first at the δ run), so the smallest δ the budget can see is δ_min = budget / e′(0),
// e′(0) = e(δ₀)/δ₀ from mp50 at δ₀ = 1e-12; the control runs at kBentMultiple·δ_min. The bent weights
// are applied by the claim to the run's iterates (an implementation's average cannot be handed other
// weights), so the control is marked injected.
// An implementation that keeps no average of its own gets a skipped record: the claim would average
// its iterates itself and check the kit, not the implementation.
// Separate from thm1.rate (whose 200 runs of up to 3000 steps per instance read the same average)
// so that an error in an average is seen in about a hundred steps per instance.
#include <cstdio>
#include <string>

#include "ngvi/claims/blr_common.hpp"

namespace ngvi::claims {
namespace { namespace NGVI_UNITY_ID {

constexpr const char* kId = "thm1.average";
// The average's definition is checked on one run of this length.
constexpr long kAverageT = 100;
// The control runs at this multiple of its δ_min (the kit's multiple of the detection limit).
constexpr double kBentMultiple = 4.0;
// Why the control is formed by the claim, not by re-running the algorithm.
constexpr const char* kNoRerun =
    "; no re-run control: the claim is the definition of the run's own average, with no hypothesis on the run to "
    "violate, and an implementation's average cannot be handed other weights; the re-runs with a wrong average are "
    "the mutants uniform-averaging and last-iterate (average-uniform and average-last for an implementation)";

struct AverageCheck {
  double error = 0, bent_error = 0, budget = 0, delta = 0, delta_min = 0;
  bool ok = true;
  bool no_average = false;  ///< an implementation that keeps no average: nothing of its own to check
};

// The average of mus with the weights t^{1+δ} (t = 1..T), normalised, in mp50.
GaussianPair<mp50> bent_average(const std::vector<GaussianPair<mp50>>& mus, const mp50& delta) {
  using std::pow;
  mp50 total(0);
  for (std::size_t t = 1; t <= mus.size(); ++t) total += pow(mp50(static_cast<long>(t)), 1 + delta);
  GaussianPair<mp50> avg = mp50(0) * mus[0];
  for (std::size_t t = 1; t <= mus.size(); ++t) avg += (pow(mp50(static_cast<long>(t)), 1 + delta) / total) * mus[t - 1];
  return avg;
}

// The run's average at T against μ̄_T recomputed from its iterates, and the control's bent average.
AverageCheck average_check(const BlrInstance& inst, const RunContext& ctx) {
  const auto model = make_model<double>(inst);
  if (const auto* impl = conjugate_ngd_for<double>(ctx.variant())) {
    const ProtocolNgdStepper<double> probe(*impl, blr_problem(model, inst.batch, 1.0));
    if (!probe.has_average()) {
      AverageCheck out;
      out.no_average = true;
      return out;
    }
  }
  std::vector<GaussianPair<mp50>> mus;
  random::Stream rng(ctx.seed, 9500);
  OnStep record{[&](const auto& e) { mus.push_back(data::cast_pair<mp50>(GaussianPair<double>(natural_to_expectation(e.stepper.point())))); }};
  const std::vector<long> cps{kAverageT};
  const auto res = blr_replicate<double>(model, inst.batch, rng, StepSchedule<double>::theorem1(), cps, ctx.variant(), 1.0, record);
  AverageCheck out;
  if (res.failure || res.checkpoint_averages.empty() || static_cast<long>(mus.size()) != kAverageT) {
    out.ok = false;
    return out;
  }
  const mp50 T(kAverageT);
  GaussianPair<mp50> linear = mp50(0) * mus[0];
  mp50 scale(0);
  for (long t = 1; t <= kAverageT; ++t) {
    const auto& mu = mus[static_cast<std::size_t>(t - 1)];
    linear += (mp50(2 * t) / (T * (T + 1))) * mu;
    scale = std::max(scale, mp50(mu.first.cwiseAbs().maxCoeff()));
    scale = std::max(scale, mp50(mu.second.cwiseAbs().maxCoeff()));
  }
  const GaussianPair<mp50> got = data::cast_pair<mp50>(GaussianPair<double>(*res.checkpoint_averages.begin()));
  out.error = to_double(relative_pair_error<mp50>(got, linear));
  // Budget (derived): each of the T running updates v += w(a − v) and each moment map
  // (η ↦ (m, S + mmᵀ), through one Cholesky factor of −2η₂) rounds by a few eps relative to the
  // largest |μ_t| entry: γ_{4T+ops(d)} relative to that size, with the map's κ(S) factor bounded by
  // the size ratio max_t |μ_t| / |μ̄_T| that the relative error already carries.
  const double size_ratio = to_double(scale) / std::max(to_double(linear.first.cwiseAbs().maxCoeff()),
                                                        to_double(linear.second.cwiseAbs().maxCoeff()));
  const double kappa = spd_condition(natural_to_moments(res.last).cov);
  out.budget = to_double(rounding_budget<double>(4 * kAverageT + 8 * static_cast<long>(model.d() * model.d()), std::max(1.0, size_ratio * kappa)));
  const mp50 delta0("1e-12");
  const double slope = to_double(relative_pair_error<mp50>(bent_average(mus, delta0), linear) / delta0);
  out.delta_min = out.budget / slope;
  out.delta = kBentMultiple * out.delta_min;
  out.bent_error = to_double(relative_pair_error<mp50>(bent_average(mus, mp50(out.delta)), linear));
  return out;
}

std::vector<ClaimRecord> run(const RunContext& ctx) {
  std::vector<ClaimRecord> out;
  if (!ctx.wants("double")) return out;
  for (const auto& inst : blr_instances(ctx)) {
    Stopwatch sw;
    const auto avg = average_check(inst, ctx);
    const std::string name = inst.name + "/average-is-mubar/T=" + std::to_string(kAverageT);
    if (avg.no_average) {
      out.push_back(skipped_record(kId, name, "double", Kind::kClaim,
                                   "the implementation keeps no average: the claim averages its iterates with Theorem 1's weights"));
    } else if (!avg.ok) {
      out.push_back(inequality_record(kId, name, "double", Kind::kClaim, std::nan(""), avg.budget, sw.seconds(),
                                      "the run failed or reported no average at T"));
    } else {
      out.push_back(identity_record<double>(kId, name, Kind::kClaim, avg.error, avg.budget, sw.seconds(),
                                            "the run's average vs (2/(T(T+1))) sum_t t mu_t recomputed in mp50 from the iterates"));
      char viol[200];
      std::snprintf(viol, sizeof viol, "violation: weights t^(1+delta) in place of t, delta = %.3g; breaks from %.3g (derived: budget / e'(0))",
                    avg.delta, avg.delta_min);
      out.push_back(injected_control(identity_record<double>(kId, name + "/bent-weights", Kind::kControl, avg.bent_error, avg.budget, 0.0,
                                                             std::string(viol) + "; the average of the same iterates with those weights, against mubar_T" + kNoRerun)));
    }
  }
  return out;
}

const Registrar kReg({kId, "the average a run reports is Theorem 1's mubar_T = (2/(T(T+1))) sum_t t mu_t (T = 100, recomputed in mp50)",
                      "Wu & Gardner 2024, Theorem 1 (its average); docs/math.md §5.2", "[X]", run,
                      CostHint{0.001, 0.001}, {protocols::kConjugateNgd}});

}}  // namespace
}  // namespace ngvi::claims
