// An implementation of the conjugate-NGD protocol written outside the kit (the README's "Putting
// your own implementation to the claims"), put to thm1.rate and x.unbiased_iterate through the
// installed claims library. Usage: claims_consumer OFFSET, OFFSET the schedule's index shift (0: the
// theorem's γ_t = 2/(t+2); 1: the schedule indexed from t = 1, γ_t = 2/(t+3)). Prints one line per
// record and a verdict line; exits 0 when the claims pass, 1 when they fail, 2 on a usage error.
#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

// The claims' installed fixtures (#include <ngvi/claims/...>): the Bayesian linear regression
// instances the conjugate claims run on, here put to the implementation below with one full-batch step
// at γ = 1, which lands on the posterior (Lemma 2) whatever the instance.
#include <ngvi/claims/blr_common.hpp>

// --- protocol example begin ---
#include <ngvi/claims/registry.hpp>
#include <ngvi/protocols/conjugate_ngd.hpp>

// NGD for Bayesian linear regression: eq. (15)'s mini-batch gradient, gamma_t = 2/(t + offset + 2).
ngvi::protocols::ConjugateNgd<double> my_ngd(long offset) {
  ngvi::protocols::ConjugateNgd<double> impl{"my-ngd", "1.0", {}};
  impl.start = [offset](const ngvi::protocols::BlrProblem<double>& p) {
    ngvi::protocols::ConjugateNgdTrajectory<double> run;
    run.step = [&p, offset](long t, const ngvi::GaussianNatural<double>& eta, std::span<const ngvi::Index> batch) {
      const double gamma = 2.0 / static_cast<double>(t + offset + 2);
      const double scale = static_cast<double>(p.X.rows()) / static_cast<double>(batch.size()) / p.noise_var;
      ngvi::GaussianNatural<double> target = p.prior_natural;  // eta_p + g-hat
      for (ngvi::Index i : batch) {
        target.first += scale * p.y(i) * p.X.row(i).transpose();
        target.second -= (scale / 2) * p.X.row(i).transpose() * p.X.row(i);
      }
      return (1 - gamma) * eta + gamma * target;
    };
    return run;
  };
  return impl;
}

// The records of one claim against the implementation (quick instances, the default seed).
std::vector<ngvi::report::ClaimRecord> check(const ngvi::Variant& mine, const std::string& claim) {
  ngvi::claims::RunContext ctx;
  ctx.set_variant(&mine);
  return ngvi::claims::run_claim(*ngvi::claims::Registry::instance().find(claim), ctx);
}
// --- protocol example end ---

int main(int argc, char** argv) {
  if (argc != 2 || (std::string(argv[1]) != "0" && std::string(argv[1]) != "1")) {
    std::fprintf(stderr, "usage: claims_consumer OFFSET (argument 'OFFSET' must be 0 or 1)\n");
    return 2;
  }
  // Through the fixtures: every quick instance, one step of the implementation on the whole data set
  // (batch = all n rows, each once: M = n) at t = 0. With offset 0 its γ₀ is 1 and the step lands on the
  // posterior's natural parameter η_p + (Xᵀy, −XᵀX/2)/σ² (Lemma 2), which the fixture's model forms by
  // its own route. Both routes sum the same n + 1 terms, so each entry differs by at most 2γ_{n+2} times
  // the sum of its terms' magnitudes (Higham, Thm 3.5; γ_k = ku/(1 − ku)); the check is against that.
  bool fixtures_ok = true;
  for (const auto& inst : ngvi::claims::blr_instances(ngvi::claims::RunContext{})) {
    const auto model = ngvi::claims::make_model<double>(inst);
    const auto problem = ngvi::claims::blr_problem(model, model.n(), 1.0);
    const auto run = my_ngd(std::atol(argv[1])).start(problem);
    std::vector<ngvi::Index> rows(static_cast<std::size_t>(model.n()));
    for (ngvi::Index i = 0; i < model.n(); ++i) rows[static_cast<std::size_t>(i)] = i;
    const ngvi::GaussianNatural<double> eta1 = run.step(0, problem.initial, rows);
    const ngvi::GaussianNatural<double> star = model.posterior_natural();
    const auto& X = problem.X;
    const Eigen::VectorXd mag1 = problem.prior_natural.first.cwiseAbs() + X.cwiseAbs().transpose() * problem.y.cwiseAbs() / problem.noise_var;
    const Eigen::MatrixXd mag2 = problem.prior_natural.second.cwiseAbs() + X.cwiseAbs().transpose() * X.cwiseAbs() / (2 * problem.noise_var);
    const double err = std::max(((eta1.first - star.first).cwiseAbs().array() / mag1.array()).maxCoeff(),
                                ((eta1.second - star.second).cwiseAbs().array() / mag2.array()).maxCoeff());
    const double u = std::numeric_limits<double>::epsilon() / 2, k = static_cast<double>(model.n() + 2);
    const double budget = 2 * k * u / (1 - k * u);
    std::printf("fixture %s (n = %ld, d = %ld): full-batch step at t = 0 vs the posterior: %.3g of the budget\n", inst.name.c_str(),
                static_cast<long>(model.n()), static_cast<long>(model.d()), err / budget);
    if (std::atol(argv[1]) == 0 && !(err <= budget)) fixtures_ok = false;
  }
  if (!fixtures_ok) {
    std::printf("FAIL: a full-batch step with gamma_0 = 1 missed the posterior\n");
    return 1;
  }
  const ngvi::Variant mine = ngvi::Variant::conjugate_ngd(my_ngd(std::atol(argv[1])));
  std::vector<ngvi::report::ClaimRecord> all;
  for (const char* id : {"thm1.rate", "x.unbiased_iterate"}) {
    const auto recs = check(mine, id);
    all.insert(all.end(), recs.begin(), recs.end());
  }
  for (const auto& r : all)
    std::printf("%s %s %s %s\n", r.claim.c_str(), r.instance.c_str(), r.kind == ngvi::report::Kind::kClaim ? "claim" : "control",
                ngvi::report::to_string(r.verdict).c_str());
  const auto c = ngvi::report::count_records(all);
  std::printf("%ld records: %ld claims hold, %ld controls broken, %ld failures, %ld skipped\n", c.records, c.claims_hold,
              c.controls_broken, c.failures, c.skipped);
  std::printf("%s\n", c.pass() ? "PASS" : "FAIL");
  return c.pass() ? 0 : 1;
}
