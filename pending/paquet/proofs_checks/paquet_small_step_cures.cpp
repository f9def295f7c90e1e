// DESCRIPTION
// Claim paquet.small_step_cures (Paquet 2014, Sec. 3; docs/systems.md B.6-B.8.4): with at most C = 1
// child per node, a small first step ρ₁ = 1/64 (ρ_t = (t + τ)^(−0.6), τ = 64^(1/0.6) − 1) cures the
// divergence: both options converge to within 0.01 nats/rating of full VB.
// Reference: full VB = CAVI (all children, ρ ≡ 1) until the ELBO changes by < 1e-6 relative; its
// measured shortfall from the optimum (≤ 1e-3 nats/rating) is subtracted from the 0.01 bound.
// Instances: quick, a network with the B.7 degrees at half the size (150 users × 300 items,
// density 0.2: 60 ratings per user, 30 per item) for 20000 sweeps; full, the B.7 generator itself.
// Record: lhs = ELBO/rating of full VB − that of the run (a diverged run counts as 1e300),
// rhs = 0.01 − 1e-3.
// Negative control: the first step ρ₁ = 1 (τ = 0): the run diverges.
#include "paquet_common.hpp"

namespace ngvi::claims::paquet {
namespace {

constexpr const char* kId = "paquet.small_step_cures";
constexpr double kGap = 0.01;

std::vector<ClaimRecord> run_claim(const RunContext& ctx) {
  std::vector<ClaimRecord> out;
  if (!ctx.wants("double")) return out;
  const std::uint64_t seed = ctx.seed + 800;
  data::SyntheticRatingsOptions so;
  if (!ctx.full) {
    so.users = 150;
    so.items = 300;
    so.density = 0.2;
  }
  const auto d = data::synthetic_ratings(so, seed);
  const auto q0 = b7_init(d, 5, seed);
  const double full = full_vb_elbo_per_rating(d, q0);
  const long sweeps = 20000;
  for (auto opt : {PaquetOption::kSequential, PaquetOption::kSimultaneous})
    for (int control = 0; control < 2; ++control) {
      Stopwatch sw;
      PaquetOptions o;
      o.children = 1;
      o.option = opt;
      const auto r = run(d, q0, o, delayed_schedule(control ? 1.0 : 1.0 / 64), control ? 400 : sweeps, seed, 2);
      const double gap = r.diverged ? kDivergedGap : full - r.elbo_per_rating;
      out.push_back(inequality_record(kId, std::string(ctx.full ? "b7" : "b7-half") + "/option-" + to_string(opt) + (control ? "/control-rho1=1" : "/rho1=1/64"),
                                      "double", control ? Kind::kControl : Kind::kClaim, gap, kGap - kFullVbTail, sw.seconds(),
                                      "full-VB ELBO/rating " + std::to_string(full) + " minus the run's after " + std::to_string(r.sweeps) +
                                          " sweeps, C = 1",
                                      "nats/rating"));
    }
  return out;
}

const Registrar kReg({kId, "C = 1 with rho_1 = 1/64 converges for both options to within 0.01 nats/rating of full VB",
                      "Paquet 2014, Sec. 3; docs/systems.md B.6-B.8", "[R]", run_claim});

}  // namespace
}  // namespace ngvi::claims::paquet
