// DESCRIPTION
// Claim lemma6.inverse_gap (Wu & Gardner 2024, Lemma 6; docs/math.md §5.4, tag [R]):
//   if A, B ≽ cI with c > 0, then ‖A⁻¹ − B⁻¹‖_F ≤ c⁻²‖A − B‖_F.
// Routine under test: lemma6_constant (bounds/blr_constants.hpp), which returns c⁻²; the right side
// is lemma6_constant(c)·‖A − B‖_F evaluated in the record's precision (double or mp50).
// Reference: the left side from inverses computed in mp100 (Cholesky, Eigen's LLT), an independent
// route more precise than either record precision; it rounds once to double for the record.
// Instances whose λ_min is known exactly: A = c_A I + GGᵀ with G a d × (d − 1) matrix of dyadic
// entries j/16 (|j| ≤ 8), so GGᵀ ≽ 0 is singular and λ_min(A) = c_A exactly; every entry of A, B
// and A − B is a multiple of 2⁻⁸ of modest size, exact in double and mp50. c = min(c_A, c_B) (the
// largest c the hypothesis allows), c_A, c_B ∈ {1, 9/8, ..., 2}, seeded from the run's seed; two
// random pairs each for d = 2, 3, 10 (B drawn again if it equals A). Random pairs whose tightness is
// below 1e-3 are `vacuous`.
// Tight family (evidence that the constant c⁻² is attained): A = cI, B = cI + εuuᵀ with
// u = (1, −1, 1, 1)/2 (d = 4, unit, dyadic), for which ‖A⁻¹ − B⁻¹‖_F = ε/(c(c + ε)) and the
// tightness is exactly c/(c + ε) → 1 as ε → 0; recorded at ε/c = 2⁻⁴, 2⁻¹⁰, 2⁻³⁰.
// Negative control (floor-too-high): the hypothesis A, B ≽ c'I violated by c' = (1 + δ)c on the
// tight instance with ε/c = 2⁻³⁰ (λ_min(A) = c < c'). The bound becomes ε/(c²(1 + δ)²), below the
// left side once (1 + δ)² > (1 + ε/c)(1 + β)/(1 − u_d), β the rounding budget of the right side
// (its evaluation in the record's precision plus the rounding to double) and u_d the rounding of
// the left side to double: δ_min = √((1 + ε/c)(1 + β)/(1 − u_d)) − 1 ≈ ε/(2c) (derived); the
// control runs at δ = kControlMultiple·δ_min.
#include <boost/random/uniform_int_distribution.hpp>

#include "ngvi/claims/blr_common.hpp"
#include "ngvi/claims/expfam_common.hpp"

namespace ngvi::claims {
namespace { namespace NGVI_UNITY_ID {

constexpr const char* kId = "lemma6.inverse_gap";

/// ‖A⁻¹ − B⁻¹‖_F in mp100 from exact (dyadic) double inputs.
mp100 inverse_gap_mp100(const Mat<double>& a, const Mat<double>& b) {
  const Mat<mp100> am = data::cast_matrix<mp100>(a), bm = data::cast_matrix<mp100>(b);
  const Index d = a.rows();
  const Mat<mp100> ai = am.llt().solve(Mat<mp100>::Identity(d, d));
  const Mat<mp100> bi = bm.llt().solve(Mat<mp100>::Identity(d, d));
  return (ai - bi).norm();
}

/// c_I + GGᵀ with G a d × (d − 1) matrix of entries j/16, j uniform in {−8..8}: λ_min = c exactly.
Mat<double> floored_spd(Index d, double c, data::Rng& rng) {
  boost::random::uniform_int_distribution<int> ud(-8, 8);
  Mat<double> g(d, d - 1);
  for (Index j = 0; j < d - 1; ++j)
    for (Index i = 0; i < d; ++i) g(i, j) = ud(rng) / 16.0;
  return c * Mat<double>::Identity(d, d) + g * g.transpose();
}

/// Relative rounding budget of the right side c⁻²‖A − B‖_F in Scalar: d² squares and their sum,
/// a square root, c·c, a division and the product (Higham Thm 3.5: γ_{d²+4}), plus the rounding of
/// the result to double for the record (u of double).
template <class Scalar>
double rhs_budget(Index d) {
  return to_double(rounding_budget<Scalar>(static_cast<long>(d * d + 4))) + unit_roundoff<double>();
}

template <class Scalar>
std::vector<ClaimRecord> run_impl(const RunContext& ctx) {
  std::vector<ClaimRecord> out;
  const std::string prec = scalar_name<Scalar>();
  auto rhs_of = [](const Mat<double>& a, const Mat<double>& b, const Scalar& c) {
    const Mat<Scalar> diff = data::cast_matrix<Scalar>(a) - data::cast_matrix<Scalar>(b);
    return Scalar(lemma6_constant<Scalar>(c) * diff.norm());
  };

  // Random pairs with exactly known floors.
  data::Rng rng(ctx.seed ^ 0x6C656D6D6136ULL);
  boost::random::uniform_int_distribution<int> uc(0, 8);
  const std::vector<Index> dims = ctx.full ? std::vector<Index>{2, 3, 5, 10, 16} : std::vector<Index>{2, 3, 10};
  const int pairs = ctx.full ? 6 : 2;
  for (Index d : dims)
    for (int k = 0; k < pairs; ++k) {
      Stopwatch sw;
      const double ca = 1.0 + uc(rng) / 8.0, cb = 1.0 + uc(rng) / 8.0;
      const Mat<double> a = floored_spd(d, ca, rng);
      // B drawn again while it equals A (for d = 2, about 1 pair in 1300: equal floors and G = ±G_A):
      // the bound is then 0 <= 0, which carries no evidence and has no tightness to grade.
      Mat<double> b = floored_spd(d, cb, rng);
      while (b == a) b = floored_spd(d, cb, rng);
      const double c = std::min(ca, cb);
      const double lhs = to_double(inverse_gap_mp100(a, b));
      const double rhs = to_double(rhs_of(a, b, Scalar(c)));
      out.push_back(inequality_record(kId, "random-d" + std::to_string(d) + "-" + std::to_string(k), prec, Kind::kClaim,
                                      lhs, rhs, sw.seconds(),
                                      "c = min(lambda_min(A), lambda_min(B)) = " + fmt(c) + " (exact by construction)"));
    }

  // The tight family A = cI, B = cI + εuuᵀ, c = 1: tightness c/(c + ε).
  const Index dt = 4;
  Vec<double> u(dt);
  u << 0.5, -0.5, 0.5, 0.5;
  const double c = 1.0;
  auto tight_b = [&](double eps_rel) { return Mat<double>(c * Mat<double>::Identity(dt, dt) + eps_rel * c * u * u.transpose()); };
  const Mat<double> a = c * Mat<double>::Identity(dt, dt);
  for (int e : {4, 10, 30}) {
    Stopwatch sw;
    const double eps_rel = std::ldexp(1.0, -e);
    const Mat<double> b = tight_b(eps_rel);
    const double lhs = to_double(inverse_gap_mp100(a, b));
    const double rhs = to_double(rhs_of(a, b, Scalar(c)));
    out.push_back(inequality_record(kId, "tight-eps2^-" + std::to_string(e), prec, Kind::kClaim, lhs, rhs, sw.seconds(),
                                    "A = cI, B = cI + eps u u^T: tightness c/(c + eps) = " + fmt(1.0 / (1.0 + eps_rel)) +
                                        " in exact arithmetic"));
  }

  // Control: the floor c' = (1 + δ)c exceeds λ_min(A) = c.
  {
    Stopwatch sw;
    const double eps_rel = std::ldexp(1.0, -30);
    const Mat<double> b = tight_b(eps_rel);
    const double beta = rhs_budget<Scalar>(dt);
    const double ud = unit_roundoff<double>();
    // (1 + δ_min)² = (1 + ε/c)(1 + β)/(1 − u_d), computed as exp(½ log(·)) − 1 to keep its digits.
    const double delta_min = std::expm1(0.5 * (std::log1p(eps_rel) + std::log1p(beta) - std::log1p(-ud)));
    const double delta = kControlMultiple * delta_min;
    const Scalar c_off = Scalar(c) * (Scalar(1) + Scalar(delta));
    const double lhs = to_double(inverse_gap_mp100(a, b));
    const double rhs = to_double(rhs_of(a, b, c_off));
    out.push_back(inequality_record(kId, "tight-eps2^-30/floor-too-high", prec, Kind::kControl, lhs, rhs, sw.seconds(),
                                    violation_note("relative excess delta of the floor c' = (1+delta) lambda_min(A)", delta,
                                                   delta_min)));
  }
  return out;
}

std::vector<ClaimRecord> run(const RunContext& ctx) { return run_precisions(ctx, run_impl<double>, run_impl<mp50>); }

const Registrar kReg({kId, "||A^-1 - B^-1||_F <= c^-2 ||A - B||_F for A, B >= cI, c > 0",
                      "Wu & Gardner 2024, Lemma 6; docs/math.md §5.4", "[R]", run});

}}  // namespace
}  // namespace ngvi::claims
