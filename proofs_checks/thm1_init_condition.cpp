// DESCRIPTION
// Claim thm1.init_and_condition (docs/math.md §4.5 "No dependence on the start"): the right side
// 4σ²/(T+1) of Theorem 1 has no term in D(μ*, μ₀) and the problem's conditioning enters only through
// σ². Checked exactly (every mini-batch path enumerated, lib/include/ngvi/claims/path_enumeration.hpp; posterior
// by Gaussian conditioning in data space) at every T = 1..T_max on n = 3, d = 2, M = 1 instances whose
// design X = U diag(1, κ^{−1/2}) Vᵀ (U, V orthonormal, seeded) has κ(XᵀX) = κ ∈ {1, 1e4, 1e8}, from
// starts q₀ = N(m₀, I) with ‖m₀‖ ∈ {0, 1e6} (and 1e3 under --full) and q₀ = N(0, 1e-6 I) (far from μ*
// in D(μ*, μ₀) through its covariance), with σ² the exact max of σ_t² over
// every reachable state: E KL(q_{μ̄_T} ‖ p) ≤ 4σ²/(T+1) in every case, in double and mp50
// (deterministic). With γ₀ = 1 the first step forms η₁ = 0·η₀ + (η_p + ĝ₀), so the start is erased
// exactly, in every precision; the double records hold up to the rounding of the n^{MT}-term sums
// (relative γ_{n^{MT}}, far below their margins).
// Contrast (control): γ_t = 2/(t+2+δ'), γ₀ = 2/(2+δ') < 1, from q₀ = N(0, 1e-6 I) on the κ = 1e4
// instance: the start keeps the weight δ'(1+δ')/((T+δ')(T+1+δ')) and the bound (σ² from the states
// reached) fails; δ'_min, the smallest δ' that breaks it, is measured by a log bisection on the exact
// enumeration (depth kControlDepth); the control runs at 4δ'_min. A start far in the mean only
// (‖m₀‖ = 1e6) is not a reliable contrast: σ_t² at the states it leaves behind grows like the squared
// leftover mean, as the KL does, and on some data (seeds 1, 2, 11 of 50) no δ' ≤ 1 breaks the bound.
#include <Eigen/QR>

#include "ngvi/claims/expfam_common.hpp"
#include "ngvi/claims/path_enumeration.hpp"

namespace ngvi::claims {
namespace { namespace NGVI_UNITY_ID {

constexpr const char* kId = "thm1.init_and_condition";
constexpr long kControlDepth = 3;

// n = 3, d = 2: X = U diag(1, κ^{-1/2}) Vᵀ, y = X z + 0.7 ε with z, ε standard normal (seeded).
Dataset<double> conditioned_design(double kappa, std::uint64_t seed) {
  data::Rng rng(seed);
  const Mat<double> a = data::gaussian_matrix(3, 2, rng);
  Eigen::HouseholderQR<Mat<double>> qr(a);
  const Mat<double> U = qr.householderQ() * Mat<double>::Identity(3, 2);
  const Mat<double> b = data::gaussian_matrix(2, 2, rng);
  Eigen::HouseholderQR<Mat<double>> qv(b);
  const Mat<double> V = qv.householderQ() * Mat<double>::Identity(2, 2);
  Vec<double> s(2);
  s << 1.0, 1.0 / std::sqrt(kappa);
  Dataset<double> d;
  d.X = U * s.asDiagonal() * V.transpose();
  const Mat<double> z = data::gaussian_matrix(2, 1, rng), eps = data::gaussian_matrix(3, 1, rng);
  d.y = d.X * z.col(0) + 0.7 * eps.col(0);
  return d;
}

// q₀ = N(m₀, s₀I) with ‖m₀‖ = m0 along (1, 1)/√2.
ExactInstance make_instance(double kappa, double m0, double s0, std::uint64_t seed) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "kappa%.0e-m0_%.0e-S0_%.0eI", kappa, m0, s0);
  ExactInstance inst{{buf, conditioned_design(kappa, seed), Mat<double>::Identity(2, 2), 0.5, 1}, {}};
  if (m0 > 0) inst.start_mean = Vec<double>::Constant(2, m0 / std::sqrt(2.0));
  inst.start_var = s0;
  return inst;
}

// The instance's facts for the every-T note: κ(XᵀX) and the start.
std::string start_note(const ExactInstance& inst) {
  const Mat<double> xtx = inst.blr.data.X.transpose() * inst.blr.data.X;
  return "kappa(X^T X) = " + fmt(spd_condition(xtx)) + ", q_0 = N(m_0, " + fmt(inst.start_var) + " I), |m_0| = " +
         fmt(inst.start_mean.size() ? inst.start_mean.norm() : 0.0);
}

std::vector<ClaimRecord> run(const RunContext& ctx) {
  std::vector<ClaimRecord> out;
  const long dd = ctx.full ? 8 : 5, dm = ctx.full ? 6 : 3;
  // (‖m₀‖, s₀): the standard start, far in the mean, far in the covariance (D(μ*, μ₀) large).
  std::vector<std::pair<double, double>> starts{{0.0, 1.0}, {1e6, 1.0}, {0.0, 1e-6}};
  if (ctx.full) starts.push_back({1e3, 1.0});
  for (double kappa : {1.0, 1e4, 1e8})
    for (const auto& [m0, s0] : starts) {
      const auto inst = make_instance(kappa, m0, s0, ctx.seed + 41);
      if (ctx.wants("double")) out.push_back(every_t_record<double>(kId, inst, dd, ctx, Kind::kClaim, false, {}, start_note(inst)));
      if (ctx.wants("mp50")) out.push_back(every_t_record<mp50>(kId, inst, dm, ctx, Kind::kClaim, false, {}, start_note(inst)));
    }
  if (ctx.wants("double")) {
    Stopwatch sw;
    const auto inst = make_instance(1e4, 0.0, 1e-6, ctx.seed + 41);
    const double shift_min = smallest_breaking_shift(inst, kControlDepth, false, ctx);
    // NaN (no δ' ≤ 1 breaks it) would make the schedule NaN: the control then runs at δ' = 1 and holds.
    const double shift = std::isnan(shift_min) ? 1.0 : kControlMultiple * shift_min;
    auto r = every_t_record<double>(kId, inst, kControlDepth, ctx, Kind::kControl, false, shifted_theorem1<double>(shift),
                                    join_notes(violation_note("gamma_t = 2/(t+2+delta'), gamma_0 = 2/(2+delta') < 1 from q_0 = N(0, 1e-6 I); delta'",
                                                              shift, shift_min, "the start is not erased"),
                                               start_note(inst)));
    r.note = measured_note(r.note);
    r.seconds += sw.seconds();
    out.push_back(std::move(r));
  }
  return out;
}

const Registrar kReg({kId, "E KL(q_mubar_T || posterior) <= 4 sigma^2/(T+1) at every T whatever kappa(X^T X) in [1, 1e8] and |m_0| up to 1e6",
                      "Wu & Gardner 2024, Theorem 1 (side statement); docs/math.md §4.5 (No dependence on the start)", "[R]", run,
                      CostHint{0.09, 7.3}});

}}  // namespace
}  // namespace ngvi::claims
