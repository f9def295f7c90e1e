// DESCRIPTION
// Claim vpng.logistic_auc (Tang & Ranganath 2019, slides' Bayesian logistic regression table;
// docs/systems.md D.4, D.5 item 4): on strongly correlated logistic regression the VPNG posterior
// mean ranks test points almost as well as the true weights, while the q-Fisher NG and the plain
// gradient, with the same budget, do not. The slides' generator was not recoverable; the data come
// from the kit's generator (data/correlated_logistic.hpp: D = 10, c = 0.999, n = 2000 + 2000,
// √(1 − c)‖w*‖ = 8). Each method runs T = 200 steps from μ = 0, ω = 0 with 10 ε-draws per step
// (VPNG: F̂_r with the inner expectation analytic from 10 further ε-draws, δ = 1/10) at the ρ of
// {1, …, 1e−4} with the best final ELBO estimate; scores μᵀx.
// Statement on the mean over S data seeds (ctx.seed, …, ctx.seed + S − 1; S = 5, 10 under --full),
// because single seeds vary: the gradient's AUC ranges over about 0.54–0.98 across seeds and VPNG's
// gap to the oracle reached 0.047 on one seed of 22 tried; over 5 seeds every window of the 22
// had the three records below hold with margin ≥ 0.03:
//   (1) mean(oracle − VPNG test AUC) ≤ 0.03;  (2) mean VPNG − mean NG ≥ 0.1;  (3) mean VPNG − mean gradient ≥ 0.1.
// Error level: the test AUC of one seed has a sampling sd of about 0.005 (Hanley & McNeil 1982 with
// 2000 test points and AUC ≈ 0.98; about 0.012 at AUC ≈ 0.7), so the 5-seed means are known to
// about ±0.01, below every margin. Reference: the oracle is the AUC of the true w*; AUC by the
// Mann–Whitney rank sum (roc_auc, checked against pair counting in the unit tests).
// Negative controls: record (1) for the plain gradient (the method without the predictive Fisher);
// records (2)-(3) at correlation c = 0.9 (2 seeds, 5 under --full), where the likelihood's curvature is mild and all methods
// reach the same AUC. Double only (the instance is a Monte Carlo benchmark, not an identity).
#include <numeric>

#include "ngvi/data/correlated_logistic.hpp"
#include "ngvi/optim/vpng_runs.hpp"
#include "vpng_common.hpp"

namespace ngvi::claims::vpng {
namespace {

constexpr const char* kId = "vpng.logistic_auc";

struct SeedAuc {
  double oracle = 0, gradient = 0, ng = 0, vpng = 0;
};

double test_auc(const data::CorrelatedLogisticData& d, const Vec<double>& w) {
  const Vec<double> sc = d.x_test * w;
  std::vector<int> y(static_cast<std::size_t>(d.y_test.size()));
  for (Index k = 0; k < d.y_test.size(); ++k) y[static_cast<std::size_t>(k)] = d.y_test(k) == 1.0 ? 1 : 0;
  return roc_auc(std::vector<double>(sc.data(), sc.data() + sc.size()), y);
}

SeedAuc one_seed(std::uint64_t seed, double correlation, const VpngConfig& cfg) {
  data::CorrelatedLogisticOptions go;
  go.correlation = correlation;
  const auto d = data::correlated_logistic_data(go, seed);
  const LogisticModel<double> model(d.x_train, d.y_train);
  VpngRunOptions<double> o;
  o.config = cfg;
  if (o.config.route == FisherRoute::kExact) o.config.route = FisherRoute::kAnalytic;  // G varies with w: no closed form
  const Vec<double> l0 = Vec<double>::Zero(2 * model.dim());
  SeedAuc r;
  r.oracle = test_auc(d, d.w_star);
  r.gradient = test_auc(d, mf_mu(select_step<double>(model, VpngMethod::kGradient, o, vpng_step_grid(), l0, seed, 1).lambda));
  r.ng = test_auc(d, mf_mu(select_step<double>(model, VpngMethod::kNg, o, vpng_step_grid(), l0, seed, 1).lambda));
  r.vpng = test_auc(d, mf_mu(select_step<double>(model, VpngMethod::kVpng, o, vpng_step_grid(), l0, seed, 1).lambda));
  return r;
}

std::vector<ClaimRecord> run_impl(const RunContext& ctx, const VpngConfig& cfg) {
  std::vector<ClaimRecord> out;
  const int seeds = ctx.full ? 10 : 5;
  auto means_n = [&](double c, int count, double& secs) {
    Stopwatch sw;
    SeedAuc m;
    double worst_gap = 0;
    for (int k = 0; k < count; ++k) {
      const SeedAuc a = one_seed(ctx.seed + static_cast<std::uint64_t>(k), c, cfg);
      m.oracle += a.oracle / count;
      m.gradient += a.gradient / count;
      m.ng += a.ng / count;
      m.vpng += a.vpng / count;
      worst_gap = std::max(worst_gap, a.oracle - a.vpng);
    }
    secs = sw.seconds();
    return std::make_pair(m, worst_gap);
  };
  double secs = 0, secs_mild = 0;
  const auto [m, worst] = means_n(0.999, seeds, secs);
  const std::string inst = "c=0.999/" + std::to_string(seeds) + " seeds";
  const std::string note = "mean test AUC: oracle " + fmt(m.oracle) + ", gradient " + fmt(m.gradient) + ", ng " + fmt(m.ng) + ", vpng " + fmt(m.vpng) +
                           "; worst single-seed oracle - vpng " + fmt(worst);
  out.push_back(inequality_record(kId, inst + "/oracle - vpng", "double", Kind::kClaim, m.oracle - m.vpng, 0.03, secs, note, "AUC"));
  out.push_back(inequality_record(kId, inst + "/ng - vpng + 0.1", "double", Kind::kClaim, m.ng - m.vpng + 0.1, 0, 0, note, "AUC"));
  out.push_back(inequality_record(kId, inst + "/gradient - vpng + 0.1", "double", Kind::kClaim, m.gradient - m.vpng + 0.1, 0, 0, note, "AUC"));
  out.push_back(inequality_record(kId, inst + "/oracle - gradient", "double", Kind::kControl, m.oracle - m.gradient, 0.03, 0, note, "AUC"));
  {
    const auto [mm, w2] = means_n(0.9, ctx.full ? 5 : 2, secs_mild);
    (void)w2;
    const std::string inst2 = "c=0.9/" + std::to_string(ctx.full ? 5 : 2) + " seeds";
    const std::string note2 = "mean test AUC: oracle " + fmt(mm.oracle) + ", gradient " + fmt(mm.gradient) + ", ng " + fmt(mm.ng) + ", vpng " + fmt(mm.vpng);
    out.push_back(inequality_record(kId, inst2 + "/ng - vpng + 0.1", "double", Kind::kControl, mm.ng - mm.vpng + 0.1, 0, secs_mild, note2, "AUC"));
    out.push_back(inequality_record(kId, inst2 + "/gradient - vpng + 0.1", "double", Kind::kControl, mm.gradient - mm.vpng + 0.1, 0, 0, note2, "AUC"));
  }
  return out;
}

}  // namespace

std::vector<ClaimRecord> logistic_auc_records(const RunContext& ctx, const VpngConfig& cfg) {
  if (!ctx.wants("double")) return {};
  return run_impl(ctx, cfg);
}

namespace {
const Registrar kReg({kId, "On correlated logistic regression VPNG's mean test AUC is within 0.03 of the oracle's, and NG's and the gradient's are each at least 0.1 below it",
                      "Tang & Ranganath 2019 (slides: Bayesian logistic regression AUC table); docs/systems.md D.4, D.5 item 4", "[D]",
                      [](const RunContext& ctx) { return logistic_auc_records(ctx, VpngConfig{}); }});
}  // namespace

}  // namespace ngvi::claims::vpng
