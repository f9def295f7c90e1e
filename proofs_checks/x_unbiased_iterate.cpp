// DESCRIPTION
// Claim x.unbiased_iterate (docs/math.md §5.2, tag [X]): with eq. (15) gradients and γ_t = 2/(t+2),
// ĝ^ℓ does not depend on the iterate, so η_T = (2/(T(T+1))) Σ_t (t+1)(η_p + ĝ^ℓ_t) and
// E[η_T] = η* (the posterior's natural parameter) exactly, for every T ≥ 1.
// Reference: η* in closed form (models/linear_regression.hpp). Monte Carlo over R = 400
// replicates: for each of the K = d + d(d+1)/2 free coordinates of η_T, the t statistic
// |mean − η*_k|/(s_k/√R); the claim holds when the largest is below the two-sided Student-t
// quantile at family level 99% with Bonferroni correction, t_{1 − 0.01/(2K), R−1} (so the
// simultaneous confidence box covers η*). Runs in double.
// Negative control: the biased gradient with scale 1/(M s_e²) instead of n/(M s_e²); its mean is
// far from η*, so the box does not cover it.
#include "blr_common.hpp"

namespace ngvi::claims {
namespace {

constexpr const char* kId = "x.unbiased_iterate";
constexpr long kReplicates = 400;

double max_t_stat(const BlrInstance& inst, const RunContext& ctx, long T, double bias, long* coords) {
  const auto model = make_model<double>(inst);
  const auto star = model.posterior_natural();
  const Index d = model.d();
  NgdOptions opt;
  opt.steps = T;
  opt.average = false;
  const auto etas = parallel::run_replicates(kReplicates, ctx.threads, [&](long r) {
    MinibatchGradient<double> est(model, inst.batch);
    random::Stream rng(ctx.seed + 55, static_cast<std::uint64_t>(r));
    const auto res = run_ngd(
        model.prior_natural(), standard_natural<double>(d),
        [&](long, const GaussianNatural<double>&, GaussianPair<double>& g) {
          est.draw(rng);
          est.evaluate(g);
          if (bias != 1.0) g *= bias;
        },
        StepSchedule<double>::theorem1(), opt);
    std::vector<double> v;
    for (Index i = 0; i < d; ++i) v.push_back(res.last.eta1()(i) - star.eta1()(i));
    for (Index j = 0; j < d; ++j)
      for (Index i = j; i < d; ++i) v.push_back(res.last.eta2()(i, j) - star.eta2()(i, j));
    return v;
  });
  const std::size_t K = etas[0].size();
  *coords = static_cast<long>(K);
  double worst = 0;
  for (std::size_t k = 0; k < K; ++k) {
    std::vector<double> column;
    for (const auto& e : etas) column.push_back(e[k]);
    const auto me = stats::mean_and_error(column);
    const double m = me.mean, se = me.std_error;
    // A coordinate with zero spread (no batch moves it) must match exactly.
    const double stat = se > 0 ? std::abs(m) / se : (m == 0 ? 0.0 : 1e300);
    worst = std::max(worst, stat);
  }
  return worst;
}

double critical(long coords) {
  return stats::student_t_quantile(kReplicates - 1, 1.0 - 0.01 / (2.0 * static_cast<double>(coords)));
}

std::vector<ClaimRecord> run(const RunContext& ctx) {
  std::vector<ClaimRecord> out;
  if (!ctx.wants("double")) return out;
  std::vector<long> Ts{10, 100};
  if (ctx.full) Ts.push_back(1000);
  for (const auto& inst : blr_instances(ctx)) {
    for (long T : Ts) {
      Stopwatch sw;
      long K = 0;
      const double stat = max_t_stat(inst, ctx, T, 1.0, &K);
      const double crit = critical(K);
      out.push_back(inequality_record(kId, inst.name + "/T=" + std::to_string(T), "double", Kind::kClaim, stat, crit,
                                      sw.seconds(),
                                      "max |t| over " + std::to_string(K) + " coordinates, R=" + std::to_string(kReplicates) +
                                          "; rhs = Bonferroni t quantile, family level 99%",
                                      "t"));
    }
    Stopwatch sw2;
    long K = 0;
    const double stat = max_t_stat(inst, ctx, Ts.back(), 1.0 / static_cast<double>(inst.data.n()), &K);
    out.push_back(inequality_record(kId, inst.name + "/biased-scale", "double", Kind::kControl, stat, critical(K),
                                    sw2.seconds(), "gradient scale 1/(M s2) instead of n/(M s2)", "t"));
  }
  return out;
}

const Registrar kReg({kId, "E[eta_T] = eta* for eq. (15) NGD with gamma_t = 2/(t+2) (Monte Carlo, 99% simultaneous box)",
                      "docs/math.md §5.2 [X]", "[X]", run});

}  // namespace
}  // namespace ngvi::claims
