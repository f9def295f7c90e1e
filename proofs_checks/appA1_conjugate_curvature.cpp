// DESCRIPTION
// Claim appA1.conjugate_curvature (Wu & Gardner 2024, Appendix A.1; docs/math.md §1.2, tag [R]):
//   A* is neither smooth nor strongly convex with respect to any norm: on the slice μ₁ = 0 its
//   curvature takes values above every L < ∞ and below every 1/L > 0.
// Routine under test: the library's conjugate log-partition (conjugate_log_partition,
// expfam/log_partition.hpp) in the kit's (μ₁, μ₂) parametrisation, μ₂ the second-moment matrix,
// evaluated on the ray μ = (0, sI) for d = 1 and d = 3, in double and mp50.
// Certificate: the second difference quotient along the unit (Frobenius) direction I/√d,
//   D(s) = [A*(0, (s + h)I) − 2A*(0, sI) + A*(0, (s − h)I)]/(d h²),  h = s·2⁻ᵏ,
// equals the curvature of A* at some point of the segment (mean value theorem for second
// differences, A* ∈ C²). The library's A* is not instantiable on the interval type (its Cholesky
// validation compares scalars), so the enclosure is [D_lib − E, D_lib + E] with E a derived
// rounding bound: each evaluation errs by at most 4γ_{2d+12}·(|A*| + d(2 + |log s|) + 2c₀) absolute
// (the Cholesky, the logarithms, the constant c₀, the rounding of the arguments s ± h, Higham Thm
// 3.5), the quotient adds 4γ₄ relative. k = 9 in double and 36 in mp50 balance the truncation
// x² = 2⁻²ᵏ against the rounding E/D. Ladder L = 10, 10³, 10⁶, 10¹² (and 10²⁴ with --full):
//   "above": at s = (2L)^{−1/2}(1 − 2⁻⁶), the record L ≤ D_lib − E (tightness ≈ (1 − 2⁻⁶)²);
//   "below": at s = (L/2)^{1/2}(1 + 2⁻⁶), the record D_lib + E ≤ 1/L.
// Each certificate counts only if D_lib lies within E of the closed form of the quotient,
// −log(1 − x²)/(2h²) with x = 2⁻ᵏ (computed in mp100; the curvature of the closed form is 1/(2s²)):
// otherwise its bound side is set to 0 and the record is broken.
// Negative controls (bounded-domain): the domain restricted to a compact range that just misses
// the level; the best point of the restricted range is its end, where the curvature is extremal.
//   "above", domain s ≥ a = (2L)^{−1/2}(1 + δ): D ≤ φ(x)/(2a²) with φ(x) = −log(1 − x²)/x²
//   (the quotient overestimates the curvature at s by at most φ), so L ≤ D_lib − E fails for
//   (1 + δ)²(1 − 4u)² ≥ φ(x)(1 + u_d)/(1 − u_d): δ_min = √(φ(x)(1 + u_d)/(1 − u_d))/(1 − 4u) − 1
//   ≈ x²/4 + u_d (derived; 4u covers the rounding of a in the record's precision, u_d the rounding
//   of the record's lhs and rhs to double, which also bounds what an mp50 record can resolve; δ_min
//   is computed in the record's precision: in double, mp50's 1 − 4u and 1 + u_d round to 1 and
//   δ_min to 0, a control that violates nothing).
//   "below", domain s ≤ b = (L/2)^{1/2}/(1 + δ): D ≥ 1/(2b²) (φ ≥ 1), so D_lib + E ≤ 1/L fails
//   for every δ above the rounding of b, of 1/L and of the record:
//   δ_min = (1 + 4u)√((1 + u)(1 + u_d)/(1 − u_d)) − 1 ≈ 4u + u_d (derived).
// Both run at δ = kControlMultiple·δ_min on every rung, for d = 1 and d = 3.
#include <boost/math/constants/constants.hpp>

#include "ngvi/claims/expfam_common.hpp"

namespace ngvi::claims {
namespace { namespace NGVI_UNITY_ID {

constexpr const char* kId = "appA1.conjugate_curvature";

/// log₂ of 1/x, x = h/s the relative step of the second difference, per precision.
template <class Scalar>
int step_bits() {
  return std::is_same_v<Scalar, double> ? 9 : 36;
}

template <class Scalar>
struct Quotient {
  Scalar value;  ///< D_lib
  Scalar err;    ///< E: |D_lib − D_exact| ≤ E
  bool matches_closed_form = false;
  double closed = 0;  ///< the closed form's quotient, in double
};

/// The library's second difference quotient along I/√d at μ = (0, sI), with its rounding bound and
/// the comparison against the closed form.
template <class Scalar>
Quotient<Scalar> quotient(Index d, const Scalar& s) {
  using std::abs;
  using std::ldexp;
  using std::log;
  const int k = step_bits<Scalar>();
  const Scalar h = ldexp(s, -k);
  auto astar = [&](const Scalar& v) {
    return conjugate_log_partition(GaussianExpectation<Scalar>(Vec<Scalar>::Zero(d), v * Mat<Scalar>::Identity(d, d)));
  };
  const Scalar sp = s + h, sm = s - h;
  const Scalar ap = astar(sp), a0 = astar(s), am = astar(sm);
  const Scalar c0 = abs(log_partition_constant<Scalar>(d));
  auto scale = [&](const Scalar& a, const Scalar& v) { return abs(a) + Scalar(d) * (Scalar(2) + abs(log(v))) + Scalar(2) * c0; };
  const Scalar e_num = rounding_budget<Scalar>(2 * d + 12) * (scale(ap, sp) + Scalar(2) * scale(a0, s) + scale(am, sm));
  const Scalar dh2 = Scalar(d) * h * h;
  Quotient<Scalar> q;
  q.value = (ap - Scalar(2) * a0 + am) / dh2;
  q.err = e_num / dh2 + rounding_budget<Scalar>(4) * abs(q.value);
  // Closed form of the quotient: −(d/2)[log(1 + x) + log(1 − x)]/(d h²) = −log(1 − x²)/(2h²).
  const mp100 x = ldexp(mp100(1), -k), hm = mp100(h);
  const mp100 closed = -log(mp100(1) - x * x) / (2 * hm * hm);
  q.closed = to_double(closed);
  q.matches_closed_form = abs(mp100(q.value) - closed) <= mp100(q.err);
  return q;
}

std::string dim_name(Index d) { return "d" + std::to_string(d); }

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

template <class Scalar>
std::vector<ClaimRecord> run_impl(const RunContext& ctx) {
  using std::pow;
  using std::sqrt;
  std::vector<ClaimRecord> out;
  const std::string prec = scalar_name<Scalar>();
  const Scalar rho = Scalar(1) / 64;  // the witnesses sit 2⁻⁶ inside the level
  using std::ldexp;
  using std::log1p;
  // δ_min in the record's precision: in double, 1 + u_d and 1 − 4u of mp50 round to 1 and δ_min to 0.
  const Scalar x2 = ldexp(Scalar(1), -2 * step_bits<Scalar>());
  const Scalar phi = -log1p(-x2) / x2;
  const Scalar u = unit_roundoff<Scalar>();
  const Scalar ud = Scalar(unit_roundoff<double>());  // every record rounds its lhs and rhs to double once
  const Scalar one(1);
  std::vector<int> exps{1, 3, 6, 12};
  if (ctx.full) exps.push_back(24);
  for (Index d : {Index(1), Index(3)})
    for (int e : exps) {
      const Scalar big = pow(Scalar(10), e);
      const Scalar s_hi = Scalar(1) / sqrt(Scalar(2) * big);  // curvature L at s_hi
      const Scalar s_lo = sqrt(big / Scalar(2));              // curvature 1/L at s_lo
      const std::string rung = dim_name(d) + "-L1e" + std::to_string(e);
      const double lvl = to_double(big), inv = to_double(Scalar(1) / big);
      auto closed_note = [&](const Quotient<Scalar>& q, const Scalar& s) {
        return "s = " + num(to_double(s)) + "; closed-form quotient " + num(q.closed) + ", curvature 1/(2s^2) = " +
               num(to_double(Scalar(1) / (Scalar(2) * s * s))) +
               (q.matches_closed_form ? "; library quotient within E of the closed form"
                                      : "; LIBRARY QUOTIENT OFF THE CLOSED FORM: certificate void");
      };
      {  // curvature above L
        Stopwatch sw;
        const Scalar s = s_hi * (Scalar(1) - rho);
        const auto q = quotient<Scalar>(d, s);
        const double lower = q.matches_closed_form ? to_double(Scalar(q.value - q.err)) : 0.0;
        out.push_back(inequality_record(kId, rung + "/above", prec, Kind::kClaim, lvl, lower, sw.seconds(),
                                        "certified curvature lower bound D - E >= L; " + closed_note(q, s)));
      }
      {  // curvature below 1/L
        Stopwatch sw;
        const Scalar s = s_lo * (Scalar(1) + rho);
        const auto q = quotient<Scalar>(d, s);
        const double upper = to_double(Scalar(q.value + q.err));
        out.push_back(inequality_record(kId, rung + "/below", prec, Kind::kClaim, upper, q.matches_closed_form ? inv : 0.0,
                                        sw.seconds(), "certified curvature upper bound D + E <= 1/L; " + closed_note(q, s)));
      }
      {  // control: domain s ≥ (2L)^{-1/2}(1 + δ)
        Stopwatch sw;
        const Scalar delta_min = sqrt(phi * (one + ud) / (one - ud)) / (one - 4 * u) - one;
        const Scalar delta = Scalar(kControlMultiple) * delta_min;
        const Scalar a = s_hi * (one + delta);
        const auto q = quotient<Scalar>(d, a);
        out.push_back(inequality_record(
            kId, rung + "/above/bounded-domain", prec, Kind::kControl, lvl, to_double(Scalar(q.value - q.err)), sw.seconds(),
            violation_note("domain restricted to s >= (2L)^(-1/2)(1+delta), relative delta", to_double(delta), to_double(delta_min))));
      }
      {  // control: domain s ≤ (L/2)^{1/2}/(1 + δ)
        Stopwatch sw;
        const Scalar delta_min = (one + 4 * u) * sqrt((one + u) * (one + ud) / (one - ud)) - one;
        const Scalar delta = Scalar(kControlMultiple) * delta_min;
        const Scalar b = s_lo / (one + delta);
        const auto q = quotient<Scalar>(d, b);
        out.push_back(inequality_record(
            kId, rung + "/below/bounded-domain", prec, Kind::kControl, to_double(Scalar(q.value + q.err)), inv, sw.seconds(),
            violation_note("domain restricted to s <= (L/2)^(1/2)/(1+delta), relative delta", to_double(delta), to_double(delta_min))));
      }
    }
  return out;
}

std::vector<ClaimRecord> run(const RunContext& ctx) { return run_precisions(ctx, run_impl<double>, run_impl<mp50>); }

const Registrar kReg({kId, "A* is neither smooth nor strongly convex: on mu1 = 0 its curvature exceeds every L and falls below every 1/L",
                      "Wu & Gardner 2024, Appendix A.1; docs/math.md §1.2", "[R]", run});

}}  // namespace
}  // namespace ngvi::claims
