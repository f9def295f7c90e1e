#pragma once
/// @file
/// The claims' use of the exact path enumeration (diagnostics/path_enumeration.hpp): the enumerable
/// instances of Theorem 1's exact records, the records built from the sums, and the search for the
/// smallest breaking shift of their controls.
#include "ngvi/claims/blr_common.hpp"
#include "ngvi/diagnostics/path_enumeration.hpp"

namespace ngvi::claims {

using diagnostics::average_features;
using diagnostics::DepthSums;
using diagnostics::enumerate_paths;
using diagnostics::NodeStep;
using diagnostics::PathEnumeration;
using diagnostics::PathSpec;
using diagnostics::posterior_by_conditioning;

/// An enumerable instance: a BlrInstance (data, S_p, s_e², M; m_p = 0) and the start q₀ = N(m₀, I).
struct ExactInstance {
  BlrInstance blr;
  Vec<double> start_mean;  ///< m₀ (empty: 0)
  double start_var = 1.0;  ///< S₀ = start_var·I
};

/// η₀ = (S₀⁻¹m₀, −½S₀⁻¹) for q₀ = N(m₀, S₀), S₀ = start_var·I.
template <class Scalar>
GaussianNatural<Scalar> start_natural(const ExactInstance& inst) {
  GaussianNatural<Scalar> eta = standard_natural<Scalar>(inst.blr.data.d());
  const Scalar v(inst.start_var);
  eta.eta2() /= v;
  if (inst.start_mean.size()) eta.eta1() = data::cast_vector<Scalar>(inst.start_mean) / v;
  return eta;
}

/// Splits spec's subtrees across the ranks and threads of a claim's run (PathSpec::distribute).
template <class Scalar>
PathSpec<Scalar> distributed(PathSpec<Scalar> spec, const RunContext& ctx) {
  spec.distribute = true;
  spec.threads = ctx.threads;
  return spec;
}

/// The enumeration of `inst` in Scalar with the posterior by conditioning; `spec.start` defaults to
/// the instance's start.
template <class Scalar>
PathEnumeration<Scalar> enumerate_instance(const ExactInstance& inst, PathSpec<Scalar> spec) {
  const auto model = make_model<Scalar>(inst.blr);
  const auto X = data::cast_matrix<Scalar>(inst.blr.data.X);
  const auto y = data::cast_vector<Scalar>(inst.blr.data.y);
  const auto post = posterior_by_conditioning<Scalar>(X, y, Vec<Scalar>::Zero(X.cols()), data::cast_matrix<Scalar>(inst.blr.prior_cov),
                                                      Scalar(inst.blr.noise_var));
  if (spec.start.dim() == 0) spec.start = start_natural<Scalar>(inst);
  return enumerate_paths<Scalar>(model, inst.blr.batch, post, spec);
}

/// Relative rounding budget of a combination of a few Gaussian KLs (derived): each KL is formed from
/// O(d³) operations (one Cholesky factor, a triangular solve, a trace, a quadratic form, two log-
/// determinants) on a covariance of condition κ, so its absolute error is γ_{32d³+64}·κ times the size
/// of its terms, which are at most d(1 + |ln κ|) times the KL's scale on these instances; the checks
/// compare sums of such KLs relative to the sum of their magnitudes.
template <class Scalar>
double kl_combination_budget(Index d, double kappa) {
  const long ops = 32 * static_cast<long>(d * d * d) + 64;
  return to_double(rounding_budget<Scalar>(ops, Scalar(kappa))) * static_cast<double>(d) * (1.0 + std::abs(std::log(kappa)));
}

/// Theorem 1's inequality at every T = 1..T_max on an enumeration: the largest lhs/rhs over T for
/// lhs = E KL(q_{μ̄_T} ‖ p) (average) or E D(μ*, μ_T) = E KL(p ‖ q_T) (last iterate), with
/// rhs = 4σ²/(T+1) and σ² = the exact max of σ_t² over every reachable state of the tree.
struct EveryT {
  double lhs = 0, rhs = 0, tightness = -1;
  long T = 0;
  double lhs_t1 = 0, rhs_t1 = 0;
};
template <class Scalar>
EveryT every_t(const PathEnumeration<Scalar>& e, bool last_iterate) {
  EveryT out;
  const double s2 = to_double(e.max_sigma2);
  for (std::size_t T = 1; T < e.depth.size(); ++T) {
    const double lhs = to_double(last_iterate ? e.depth[T].dstar : e.depth[T].kl_avg);
    const double rhs = 4.0 * s2 / (static_cast<double>(T) + 1.0);
    if (T == 1) {
      out.lhs_t1 = lhs;
      out.rhs_t1 = rhs;
    }
    // NaN-safe: a NaN ratio is taken as the worst.
    const double ratio = lhs / rhs;
    if (!(ratio <= out.tightness) || out.T == 0) {
      out.tightness = ratio;
      out.lhs = lhs;
      out.rhs = rhs;
      out.T = static_cast<long>(T);
    }
  }
  return out;
}

/// The every-T record of claim `id` on an enumeration of `inst` to depth `depth` (the context's variant;
/// the schedule `gamma`, empty for Theorem 1's): lhs/rhs of every_t at its worst T, the note starting
/// with `what` (the instance's own facts) and naming the quantity, T and σ².
template <class Scalar>
ClaimRecord every_t_record(const char* id, const ExactInstance& inst, long depth, const RunContext& ctx, Kind kind, bool last_iterate,
                           std::function<Scalar(long)> gamma, const std::string& what) {
  Stopwatch sw;
  PathSpec<Scalar> spec;
  spec.depth = depth;
  spec.variant = ctx.variant();
  spec.gamma = std::move(gamma);
  const auto e = enumerate_instance<Scalar>(inst, distributed(spec, ctx));
  const std::string name = inst.blr.name + "/T<=" + std::to_string(depth) + "/every-T";
  if (e.failed) return inequality_record(id, name, scalar_name<Scalar>(), kind, std::nan(""), 0.0, sw.seconds(), "an iterate left Omega");
  const auto et = every_t(e, last_iterate);
  const std::string lhs = last_iterate ? "E KL(p || q_{mu_T}) = E D(mu*, mu_T)" : "E KL(q_mubar_T || p)";
  return inequality_record(id, name, scalar_name<Scalar>(), kind, et.lhs, et.rhs, sw.seconds(),
                           join_notes(what, "exact " + lhs + " over n^(MT) paths vs 4 sigma^2/(T+1) at every T = 1.." + std::to_string(depth) +
                                                "; largest lhs/rhs at T = " + std::to_string(et.T) +
                                                "; sigma^2 = exact max of sigma_t^2 over the " + std::to_string(e.nodes) +
                                                " reachable states = " + fmt(to_double(e.max_sigma2)) + " (at t = " +
                                                std::to_string(e.argmax_sigma2_t) + ")"));
}

/// γ_t = 2/(t + 2 + δ') (δ' > 0: γ₀ < 1, the start is not erased).
template <class Scalar>
std::function<Scalar(long)> shifted_theorem1(double shift) {
  return [shift](long t) { return Scalar(2) / (Scalar(t + 2) + Scalar(shift)); };
}

/// The smallest δ' in [lo, hi] (log bisection, double) at which the every-T bound of `inst` with
/// γ_t = 2/(t+2+δ') breaks on an enumeration of depth `depth`; NaN if it holds at hi.
inline double smallest_breaking_shift(const ExactInstance& inst, long depth, bool last_iterate, const RunContext& ctx, double lo = 1e-14,
                                      double hi = 1.0) {
  auto broken = [&](double shift) {
    PathSpec<double> spec;
    spec.depth = depth;
    spec.gamma = shifted_theorem1<double>(shift);
    const auto e = enumerate_instance<double>(inst, distributed(spec, ctx));
    return e.failed || !(every_t(e, last_iterate).tightness <= 1.0);
  };
  if (!broken(hi)) return std::numeric_limits<double>::quiet_NaN();
  if (broken(lo)) return lo;
  for (int i = 0; i < 48 && hi / lo > 1.0 + 1e-3; ++i) {
    const double mid = std::sqrt(lo * hi);
    (broken(mid) ? hi : lo) = mid;
  }
  return hi;
}

inline std::string path_string(const std::vector<int>& p) {
  if (p.empty()) return "root";
  std::string s;
  for (int b : p) s += (s.empty() ? "" : ",") + std::to_string(b);
  return "batches (" + s + ")";
}

/// The enumeration depths of an instance in double and in mp50.
struct ExactDepths {
  long dbl, mp;
};

/// The instances of thm1.exact and thm1.last_iterate: n = 3, M = 1 (3 batches per step) and n = 2,
/// M = 2 (4 ordered batches), d = 2, S_p = I, s_e² = 0.5, q₀ = N(0, I). Quick depths keep the
/// enumerations to about a thousand paths; --full goes to 3^10 = 59049 and 4^8 = 65536 paths in double.
inline std::vector<std::pair<ExactInstance, ExactDepths>> theorem1_exact_instances(const RunContext& ctx) {
  std::vector<std::pair<ExactInstance, ExactDepths>> v;
  const ExactDepths a = ctx.full ? ExactDepths{10, 7} : ExactDepths{6, 4};
  const ExactDepths b = ctx.full ? ExactDepths{8, 5} : ExactDepths{5, 3};
  v.push_back({ExactInstance{{"n3-d2-M1", data::synthetic_regression(3, 2, 1.0, 0.7, ctx.seed + 31), Mat<double>::Identity(2, 2), 0.5, 1}, {}}, a});
  v.push_back({ExactInstance{{"n2-d2-M2", data::synthetic_regression(2, 2, 10.0, 0.7, ctx.seed + 32), Mat<double>::Identity(2, 2), 0.5, 2}, {}}, b});
  return v;
}

/// A violation note whose δ_min was measured (a bisection on the exact enumeration), not derived.
inline std::string measured_note(std::string note) {
  const std::string from = "(derived)";
  if (const auto k = note.find(from); k != std::string::npos) note.replace(k, from.size(), "(measured: bisection on the exact enumeration)");
  return note;
}

}  // namespace ngvi::claims
