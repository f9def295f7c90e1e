#pragma once
#include <Eigen/Eigenvalues>
/// @file
/// Helpers shared by claim files: record builders (errors in units of the scalar's epsilon), a
/// stopwatch, per-precision dispatch, and a 100-digit central-difference gradient used as the
/// independent reference for gradients of functions on R^d × Sym(d).
#include <chrono>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "ngvi/data/synthetic.hpp"
#include "ngvi/expfam/gaussian_params.hpp"
#include "ngvi/report/record.hpp"
#include "ngvi/scalar/budget.hpp"
#include "ngvi/scalar/traits.hpp"
#include "ngvi/claims/registry.hpp"

namespace ngvi::claims {

class Stopwatch {
 public:
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

/// κ(A) = λ_max/λ_min of a symmetric positive-definite matrix, computed in double. Defined in
/// check_util.cpp: inline here, its eigensolver was instantiated by every claim's translation unit.
double spd_condition(const Mat<double>& a);

/// The identities must hold in mp50 to 1e-40 relative (about 1e10 eps of mp50): that shows the
/// identity, not only the implementation, is right, since an implementation of a wrong formula
/// agrees with its reference only to the size of the formula's error. Part of the verdict of every
/// mp50 identity claim record (the budget is capped at it); controls keep their budget.
inline constexpr double kMp50IdentityBound = 1e-40;

/// Record for an identity: `error` and `budget` are relative errors; both are reported in units of
/// eps<Scalar>() and margin = budget − error. In mp50 a claim's budget is capped at
/// kMp50IdentityBound (the note says so). The verdict follows report::apply_verdict_rule: a NaN or
/// infinite error is an `error`, never a pass.
template <class Scalar>
ClaimRecord identity_record(const std::string& claim, const std::string& instance, Kind kind, const Scalar& error,
                            const Scalar& budget, double seconds, std::string note = {}) {
  ClaimRecord r;
  r.claim = claim;
  r.instance = instance;
  r.precision = scalar_name<Scalar>();
  r.kind = kind;
  r.form = report::Form::kIdentity;
  r.lhs = to_double(Scalar(error / eps<Scalar>()));
  r.rhs = to_double(Scalar(budget / eps<Scalar>()));
  if constexpr (std::is_same_v<Scalar, mp50>) {
    const double guard = kMp50IdentityBound / to_double(eps<mp50>());
    if (kind == Kind::kClaim && !(r.rhs <= guard)) {
      r.rhs = guard;
      note += std::string(note.empty() ? "" : "; ") + "budget capped at 1e-40 relative (mp50 identity guard)";
    }
  }
  r.margin = r.rhs - r.lhs;
  r.seconds = seconds;
  r.unit = "eps";
  r.note = std::move(note);
  report::apply_verdict_rule(r);
  return r;
}

/// Record for an inequality lhs ≤ rhs in plain units; margin = rhs − lhs, tightness = lhs/rhs. A
/// claim record with tightness below report::kVacuousTightness is `vacuous` (report::apply_verdict_rule).
inline ClaimRecord inequality_record(const std::string& claim, const std::string& instance,
                                     const std::string& precision, Kind kind, double lhs, double rhs, double seconds,
                                     std::string note = {}, std::string unit = {}) {
  ClaimRecord r;
  r.claim = claim;
  r.instance = instance;
  r.precision = precision;
  r.kind = kind;
  r.form = report::Form::kInequality;
  r.lhs = lhs;
  r.rhs = rhs;
  r.margin = rhs - lhs;
  r.seconds = seconds;
  r.unit = std::move(unit);
  r.note = std::move(note);
  report::apply_verdict_rule(r);
  return r;
}

/// Record for a difference (report::Form): `deviation` of a measured quantity from `reference`,
/// signed or absolute as the claim states it, against `budget`; margin = budget − deviation,
/// resolution = budget/|reference| (report::resolution_of). A claim record whose budget is as large
/// as its reference is `vacuous` (report::apply_verdict_rule). `deviation`, `budget` and
/// `reference` in one unit.
inline ClaimRecord difference_record(const std::string& claim, const std::string& instance, const std::string& precision,
                                     Kind kind, double deviation, double budget, double reference, double seconds,
                                     std::string note = {}, std::string unit = {}) {
  ClaimRecord r = inequality_record(claim, instance, precision, kind, deviation, budget, seconds, std::move(note), std::move(unit));
  r.form = report::Form::kDifference;
  r.resolution = report::resolution_of(budget, reference);
  report::apply_verdict_rule(r);
  return r;
}

/// Record for a check that could not run (a data set is not installed, ...): verdict `skipped`,
/// which never counts as holding; `reason` becomes the note. lhs, rhs and margin are NaN.
inline ClaimRecord skipped_record(const std::string& claim, const std::string& instance, const std::string& precision,
                                  Kind kind, std::string reason) {
  ClaimRecord r;
  r.claim = claim;
  r.instance = instance;
  r.precision = precision;
  r.kind = kind;
  r.lhs = r.rhs = r.margin = std::numeric_limits<double>::quiet_NaN();
  r.verdict = report::Verdict::kSkipped;
  r.note = "skipped: " + std::move(reason);
  report::apply_verdict_rule(r);
  return r;
}

/// Marks a negative control as injected (ClaimRecord::injected): its violation is applied by the
/// checker to a value the library already computed, or through a formula of the checker's own, not
/// by re-running the library under a violated hypothesis. The suite reports the share of these.
inline ClaimRecord injected_control(ClaimRecord r) {
  r.injected = true;
  return r;
}

/// Runs `body<double>` and `body<mp50>` for the precisions the context asks for and concatenates.
template <class FnDouble, class FnMp50>
std::vector<ClaimRecord> run_precisions(const RunContext& ctx, FnDouble&& fd, FnMp50&& fm) {
  std::vector<ClaimRecord> out;
  if (ctx.wants("double")) {
    auto r = fd(ctx);
    out.insert(out.end(), r.begin(), r.end());
  }
  if (ctx.wants("mp50")) {
    auto r = fm(ctx);
    out.insert(out.end(), r.begin(), r.end());
  }
  return out;
}

/// Relative distance ||a − b|| / ||b|| in R^d × Sym(d) with the Frobenius inner product, computed in
/// the precision of `b` (the reference).
template <class Ref>
Ref relative_pair_error(const GaussianPair<Ref>& a, const GaussianPair<Ref>& b) {
  using std::sqrt;
  const Ref diff = pair_squared_norm<Ref>(a - b);
  const Ref norm = pair_squared_norm<Ref>(b);
  return sqrt(diff / norm);
}

/// Central-difference gradient of `f` at `x` in mp100, with respect to the pairing ⟨a, b⟩ =
/// a₁ᵀb₁ + tr(a₂ᵀb₂) restricted to symmetric matrices. Step h = 10⁻³⁰·max(1, ‖x‖_max): the truncation
/// error is O(h²)·|f'''| and the rounding error O(10⁻¹⁰⁰/h), both far below 50 digits for the
/// functions the claims differentiate (log-determinants and quadratic forms of matrices with
/// condition numbers up to 1e8, whose third derivatives grow at most like κ³ = 1e24).
template <class F>
GaussianPair<mp100> fd_gradient_mp100(F&& f, const GaussianPair<mp100>& x) {
  using std::abs;
  const Index d = x.dim();
  mp100 scale(1);
  for (Index i = 0; i < d; ++i) scale = std::max(scale, mp100(abs(x.first(i))));
  for (Index i = 0; i < d * d; ++i) scale = std::max(scale, mp100(abs(x.second.data()[i])));
  const mp100 h = scale * mp100("1e-30");
  GaussianPair<mp100> g{Vec<mp100>::Zero(d), Mat<mp100>::Zero(d, d)};
  auto diff = [&](GaussianPair<mp100> dir) {
    GaussianPair<mp100> plus = x, minus = x;
    plus += h * dir;
    minus -= h * dir;
    return (f(plus) - f(minus)) / (2 * h);
  };
  for (Index i = 0; i < d; ++i) {
    GaussianPair<mp100> e{Vec<mp100>::Zero(d), Mat<mp100>::Zero(d, d)};
    e.first(i) = 1;
    g.first(i) = diff(e);
  }
  for (Index j = 0; j < d; ++j)
    for (Index i = j; i < d; ++i) {
      GaussianPair<mp100> e{Vec<mp100>::Zero(d), Mat<mp100>::Zero(d, d)};
      e.second(i, j) = 1;
      e.second(j, i) = 1;
      const mp100 dd = diff(e);
      // Along E_ii the derivative is G_ii; along E_ij + E_ji it is 2 G_ij.
      if (i == j) g.second(i, i) = dd;
      else g.second(i, j) = g.second(j, i) = dd / 2;
    }
  return g;
}

/// The instance set shared by the exponential-family claims: (dimension, condition number of the
/// covariances). Quick instances run in `make test`; the full set in `ngvi verify --full`.
struct ExpfamInstance {
  std::string name;
  Index d;
  double kappa;
};

inline std::vector<ExpfamInstance> expfam_instances(bool full) {
  std::vector<ExpfamInstance> v{{"d2-cond1e1", 2, 1e1}, {"d4-cond1e4", 4, 1e4}, {"d6-cond1e8", 6, 1e8}};
  if (full) {
    v.push_back({"d1-cond1", 1, 1.0});
    v.push_back({"d10-cond1e6", 10, 1e6});
    v.push_back({"d16-cond1e8", 16, 1e8});
  }
  return v;
}

/// Two Gaussians q, p for an instance: covariance spectra in [1, κ] and [2, 2κ], means of unit scale. Drawn in
/// double from a stream fixed by the seed and the instance, then cast exactly to Scalar.
template <class Scalar>
std::pair<GaussianMoments<Scalar>, GaussianMoments<Scalar>> instance_pair(const ExpfamInstance& inst,
                                                                          std::uint64_t seed) {
  data::Rng rng(seed ^ (static_cast<std::uint64_t>(inst.d) * 0x9E3779B97F4A7C15ULL) ^
                static_cast<std::uint64_t>(inst.kappa));
  const auto q = data::random_gaussian(inst.d, inst.kappa, rng);
  auto p = data::random_gaussian(inst.d, inst.kappa, rng);
  // Doubling p's covariance (exact in binary) keeps the pair from ever having equal covariances,
  // which would make KL symmetric and blunt controls that swap q and p.
  p.cov *= 2.0;
  return {data::cast_moments<Scalar>(q), data::cast_moments<Scalar>(p)};
}

}  // namespace ngvi::claims
