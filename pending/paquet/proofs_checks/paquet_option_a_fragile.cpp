// DESCRIPTION
// Claim paquet.option_a_fragile (Paquet 2014, Sec. 3: ρ₁ = 1/512 needed for option (a), 1/64 for
// option (b); docs/systems.md B.6-B.8.4): with C = 1, the largest stable first step ρ₁ = 2^(−k),
// k = 0..9 (ρ_t = (t + τ)^(−0.6), τ = ρ₁^(−1/0.6) − 1), is no larger for option (a) than for option (b).
// "Stable" = no divergence (engine failure or non-finite ELBO) within T = 400 sweeps; the largest
// stable ρ₁ is the first k of the scan k = 0, 1, … whose run is stable (2^(−10) when none is).
// Reference: the thresholds measured by the runs themselves, on the B.7 generator, 3 data seeds.
// Record: lhs = ρ₁*(a), rhs = ρ₁*(b).
// Negative control: the comparison with more children on the left, ρ₁*(b, C = 8) against
// ρ₁*(b, C = 1): more children make larger steps stable, so it comes out broken.
#include "paquet_common.hpp"

namespace ngvi::claims::paquet {
namespace {

constexpr const char* kId = "paquet.option_a_fragile";
constexpr long kSweeps = 400;

double threshold(const RatingMatrix& d, const MfNatural<double>& q0, PaquetOption opt, long C, std::uint64_t seed) {
  for (int k = 0; k <= 9; ++k) {
    PaquetOptions o;
    o.children = C;
    o.option = opt;
    const double rho1 = std::ldexp(1.0, -k);
    if (!run(d, q0, o, delayed_schedule(rho1), kSweeps, seed, 3 + static_cast<std::uint64_t>(k)).diverged) return rho1;
  }
  return std::ldexp(1.0, -10);
}

std::vector<ClaimRecord> run_claim(const RunContext& ctx) {
  std::vector<ClaimRecord> out;
  if (!ctx.wants("double")) return out;
  const int seeds = ctx.full ? 5 : 3;
  for (int sd = 0; sd < seeds; ++sd) {
    Stopwatch sw;
    const std::uint64_t seed = ctx.seed + 900 + static_cast<std::uint64_t>(sd);
    const auto d = b7_data(seed);
    const auto q0 = b7_init(d, 5, seed);
    const double a = threshold(d, q0, PaquetOption::kSequential, 1, seed);
    const double b = threshold(d, q0, PaquetOption::kSimultaneous, 1, seed);
    out.push_back(inequality_record(kId, "b7/seed" + std::to_string(sd) + "/C=1", "double", Kind::kClaim, a, b, sw.seconds(),
                                    "largest stable rho_1 = 2^-k: option (a) (lhs) vs option (b) (rhs), T = 400 sweeps", "rho_1"));
    if (sd == 0) {
      Stopwatch sw2;
      const double b8 = threshold(d, q0, PaquetOption::kSimultaneous, 8, seed);
      out.push_back(inequality_record(kId, "b7/seed0/control-b-C=8-vs-b-C=1", "double", Kind::kControl, b8, b, sw2.seconds(),
                                      "largest stable rho_1: option (b) with C = 8 (lhs) vs C = 1 (rhs)", "rho_1"));
    }
  }
  return out;
}

const Registrar kReg({kId, "C = 1: the largest stable rho_1 = 2^-k (k = 0..9) of option (a) is no larger than that of option (b)",
                      "Paquet 2014, Sec. 3; docs/systems.md B.6-B.8", "[R]", run_claim});

}  // namespace
}  // namespace ngvi::claims::paquet
