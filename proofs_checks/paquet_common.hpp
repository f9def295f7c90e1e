#pragma once
/// @file
/// Shared by the paquet.* claims: the docs/systems.md B.7 generator instances, the initial point,
/// one run of Algorithm 1 or 2 through run_trajectory, and full VB (the reference optimum).
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "ngvi/claims/check_util.hpp"
#include "ngvi/data/ratings.hpp"
#include "ngvi/optim/schedule.hpp"
#include "ngvi/optim/steppers/paquet_svb.hpp"

namespace ngvi::claims::paquet {

/// Every negative control runs at kControlMultiple times its detection limit δ_min (the kit's multiple).
inline constexpr double kControlMultiple = 4.0;

/// The greppable note of a control: "violation: <what> = <δ>; breaks from <δ_min> (<how>)", how =
/// "derived" or "measured" (a bisection over seeds, stated in the claim's DESCRIPTION).
inline std::string violation_note(const std::string& what, double delta, double delta_min, const std::string& how,
                                  const std::string& extra = {}) {
  char buf[128];
  std::snprintf(buf, sizeof buf, " = %.3g; breaks from %.3g (%s)", delta, delta_min, how.c_str());
  return "violation: " + what + buf + (extra.empty() ? "" : "; " + extra);
}

/// x with 6 significant digits.
inline std::string fmt_double(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

/// A diverged run's gap, reported as a finite number (records must be finite).
inline constexpr double kDivergedGap = 1e300;

inline RatingMatrix b7_data(std::uint64_t seed) { return data::synthetic_ratings(data::SyntheticRatingsOptions{}, seed); }

/// Precisions 1, means N(0, 0.1²) (docs/systems.md B.7), from stream (seed, 1000).
inline MfNatural<double> b7_init(const RatingMatrix& d, Index K, std::uint64_t seed) {
  random::Stream rs(seed, 1000);
  return MfNatural<double>::init(d.users, d.items, K, [&] { return rs.normal() / 10; });
}

struct RunResult {
  bool diverged = false;
  long sweeps = 0;          ///< sweeps completed
  double elbo_per_rating = std::numeric_limits<double>::quiet_NaN();
  double mid_elbo_per_rating = std::numeric_limits<double>::quiet_NaN();  ///< after `mid` sweeps (run's argument), if asked
  std::int64_t accesses = 0;
  MfNatural<double> last;
};

/// ρ_t = (t + τ)^(−κ) with τ = ρ₁^(−1/κ) − 1, so that the first step is ρ₁ (docs/systems.md B.6, derived);
/// κ = 0.6 as in the paper's figures.
inline StepSchedule<double> delayed_schedule(double rho1, double kappa = 0.6) {
  return StepSchedule<double>::polynomial(kappa, std::pow(rho1, -1 / kappa) - 1);
}

/// One run of `sweeps` engine steps; diverged when a step failed or the final ELBO is not finite.
/// With mid > 0 the ELBO per rating after `mid` sweeps is kept too (the run is the same).
/// `parts`: the sweep's parts under test (parts_for), whose schedule part, when set, replaces `sched`.
inline RunResult run(const RatingMatrix& d, const MfNatural<double>& q0, PaquetOptions o, const PaquetParts<double>& parts,
                     const StepSchedule<double>& sched, long sweeps, std::uint64_t seed, std::uint64_t stream, long mid = 0) {
  o.check_elbo = false;  // the parameters are checked every sweep; the ELBO at the end
  PaquetStepper<double> s(d, o, q0, parts);
  PaquetSampler sampler(seed, stream);
  NoAverage avg;
  RunResult r;
  const auto tr = run_trajectory(s, sampler, paquet_schedule(parts, sched), avg, sweep_options(sweeps), StopWhen{[&](const auto& e) {
                                   if (mid > 0 && e.t + 1 == mid)
                                     r.mid_elbo_per_rating = mf_elbo(d, e.stepper.point()) / static_cast<double>(d.size());
                                   return false;
                                 }});
  r.sweeps = tr.steps;
  r.accesses = s.accesses();
  r.last = tr.last;
  const double L = mf_elbo(d, tr.last);
  r.diverged = !tr.ok() || !std::isfinite(L);
  r.elbo_per_rating = L / static_cast<double>(d.size());
  return r;
}

/// Full VB: option (a), all children, ρ ≡ 1 (CAVI), until the ELBO changes by less than `tol`
/// (relative) between sweeps, or `cap` sweeps. CAVI increases the ELBO monotonically, so a stop
/// early can only lower the reference (and so shrink a gap measured against it) by at most the
/// remaining tail; tol = 1e-6 stops within 1e-3 nats/rating of the optimum on the B.7 instances
/// (measured against runs to 1e-10: 0.0008 at most over seeds 1-3), which the claims subtract from their bounds.
inline double full_vb_elbo_per_rating(const RatingMatrix& d, const MfNatural<double>& q0, double tol = 1e-6, long cap = 20000) {
  PaquetOptions o;
  PaquetStepper<double> s(d, o, q0);
  PaquetSampler sampler(0, 0);
  NoAverage avg;
  double prev = s.elbo();
  bool done = false;
  run_trajectory(s, sampler, StepSchedule<double>::constant(1.0), avg, sweep_options(cap),
                                 StopWhen{[&](const auto& e) {
                                   const double cur = e.stepper.elbo();
                                   done = std::abs(cur - prev) <= tol * std::abs(cur);
                                   prev = cur;
                                   return done;
                                 }});
  return s.elbo() / static_cast<double>(d.size());
}

/// The measured tail of full_vb_elbo_per_rating at tol = 1e-6 (nats/rating), see there.
inline constexpr double kFullVbTail = 1e-3;

/// A small network for the exact checks: 10 users, 12 items, density 0.5, rank 2.
inline RatingMatrix small_data(std::uint64_t seed, Index users = 10, Index items = 12, double density = 0.5) {
  data::SyntheticRatingsOptions o;
  o.users = users;
  o.items = items;
  o.rank = 2;
  o.density = density;
  return data::synthetic_ratings(o, seed);
}

/// Precisions in [1, 3) and means N(0, 0.5²): a point away from the optimum.
inline MfNatural<double> spread_init(const RatingMatrix& d, Index K, std::uint64_t seed) {
  random::Stream rs(seed, 2000);
  MfNatural<double> q = MfNatural<double>::init(d.users, d.items, K, [&] { return rs.normal() / 2; });
  for (auto* b : {&q.u, &q.v})
    for (Index j = 0; j < b->cols(); ++j) {
      const double p = 1 + 2 * rs.uniform01();
      (*b)(1, j) *= p;
      (*b)(0, j) = p;
    }
  return q;
}

/// The sweep's parts under test: those the context's variant files under kPartSystemPaquet (a
/// mutant of paquet_mutants.cpp replaces one), else the library's (empty). Under `ngvi verify
/// --variant NAME` / `--mutants` every paquet.* claim runs the update under test with them (the
/// references, full VB and the exact optima, stay the library's).
inline PaquetParts<double> parts_for(const RunContext& ctx) {
  const auto* p = system_parts_for<PaquetParts<double>>(ctx.variant(), kPartSystemPaquet);
  return p != nullptr ? *p : PaquetParts<double>{};
}

/// Claim bodies that take the sweep's parts (for the kill checks in tests/).
std::vector<ClaimRecord> unbiased_records(const RunContext& ctx, const PaquetParts<double>& parts);
std::vector<ClaimRecord> cavi_records(const RunContext& ctx, const PaquetParts<double>& parts);

}  // namespace ngvi::claims::paquet
