// DESCRIPTION
// Claims lemma7.eta1_variance and lemma8.eta2_variance (Wu & Gardner 2024, Lemmas 7–8; docs/math.md
// §5.4, tag [R]): for the eq. (15) estimator with M indices drawn with replacement,
//   E‖Δ₁‖² = (n²/(M s_e⁴)) V1,   E‖Δ₂‖_F² = (n²/(4 M s_e⁴)) V2,
// Δ = ĝ^ℓ − ∇ℓ, V1, V2 the population variances of y_i x_i and x_i x_iᵀ (equalities).
// Reference: the left side by exact enumeration of all n^M equally likely ordered batches through
// the library's estimator; the right side from the data moments (bounds/blr_constants.hpp), an
// independent route. Relative error against 4·γ_ops·κ with ops = n^M + n + 2Md (summation over the
// enumeration, the moments and the batch sums; Higham Thm 3.5) and κ = mean‖a_i‖²/V (the
// cancellation in the centred second moment, a_i = y_i x_i or x_i x_iᵀ), computed in double.
// Runs in double and mp50. Negative control: the same enumeration without replacement (all
// ordered M-tuples of distinct indices), whose variance carries the factor (n − M)/(n − 1).
#include "blr_common.hpp"

namespace ngvi::claims {
namespace {


template <class Scalar>
std::pair<Scalar, Scalar> enumerate(const LinearRegression<Scalar>& model, long batch, bool distinct) {
  MinibatchGradient<Scalar> est(model, batch);
  const auto exact = model.loglik_gradient();
  Scalar s1(0), s2(0);
  long count = 0;
  GaussianPair<Scalar> g;
  for_each_batch(model.n(), batch, 1L << 22, [&](const std::vector<Index>& idx) {
    if (distinct)
      for (std::size_t a = 0; a < idx.size(); ++a)
        for (std::size_t b = a + 1; b < idx.size(); ++b)
          if (idx[a] == idx[b]) return;
    est.set_indices(idx);
    est.evaluate(g);
    s1 += (g.first - exact.first).squaredNorm();
    s2 += (g.second - exact.second).squaredNorm();
    ++count;
  });
  return {s1 / Scalar(static_cast<double>(count)), s2 / Scalar(static_cast<double>(count))};
}

std::vector<BlrInstance> instances(const RunContext& ctx) {
  auto v = blr_instances(ctx);
  data::Rng rng(ctx.seed + 29);
  v.push_back({"well-n8-d2-M3", data::synthetic_regression(8, 2, 1.0, 0.7, ctx.seed + 5), Mat<double>::Identity(2, 2), 0.5, 3});
  if (ctx.full) {
    for (auto& inst : v)
      if (inst.data.n() > 100) inst.batch = 2;  // n^M enumerable: n² batches
  }
  return v;
}

template <class Scalar>
std::vector<ClaimRecord> run_impl(const RunContext& ctx, int which) {
  using std::abs;
  std::vector<ClaimRecord> out;
  const char* id = which == 7 ? "lemma7.eta1_variance" : "lemma8.eta2_variance";
  for (const auto& inst : instances(ctx)) {
    // mp50 shows the identity itself; one instance with n^M up to 4096 does that, and the
    // 195 364 batches of the diabetes table are left to double.
    if (!std::is_same_v<Scalar, double> && batch_count(inst.data.n(), inst.batch, kEnumerationLimit) < 0) continue;
    Stopwatch sw;
    const auto model = make_model<Scalar>(inst);
    const auto c = blr_constants<Scalar>(inst.data, inst.prior_cov, inst.noise_var, inst.batch);
    const auto cd = blr_constants<double>(inst.data, inst.prior_cov, inst.noise_var, inst.batch);
    const auto [e1, e2] = enumerate(model, inst.batch, false);
    const Scalar rhs = which == 7 ? lemma7_rhs(c) : lemma8_rhs(c);
    const Scalar lhs = which == 7 ? e1 : e2;
    double raw = 0;
    for (Index i = 0; i < inst.data.n(); ++i) {
      const double nx2 = inst.data.X.row(i).squaredNorm();
      raw += which == 7 ? inst.data.y(i) * inst.data.y(i) * nx2 : nx2 * nx2;
    }
    raw /= static_cast<double>(inst.data.n());
    const double kappa = std::max(1.0, raw / (which == 7 ? cd.v1 : cd.v2));
    const long count = batch_count(inst.data.n(), inst.batch, 1L << 22);
    const Scalar budget = rounding_budget<Scalar>(count + inst.data.n() + 2 * inst.batch * inst.data.d(), Scalar(kappa));
    out.push_back(identity_record<Scalar>(id, inst.name, Kind::kClaim, Scalar(abs(lhs - rhs) / rhs), budget, sw.seconds(),
                                          "enumerated " + std::to_string(count) + " batches; E = " + fmt(to_double(lhs)) +
                                              ", formula = " + fmt(to_double(rhs)) + " " + kDerived));
    Stopwatch sw2;
    const auto [w1, w2] = enumerate(model, inst.batch, true);
    const Scalar wl = which == 7 ? w1 : w2;
    out.push_back(identity_record<Scalar>(id, inst.name + "/without-replacement", Kind::kControl, Scalar(abs(wl - rhs) / rhs),
                                          budget, sw2.seconds(), "distinct indices: E = " + fmt(to_double(wl))));
  }
  return out;
}

std::vector<ClaimRecord> run7(const RunContext& ctx) {
  return run_precisions(ctx, [](const RunContext& c) { return run_impl<double>(c, 7); },
                        [](const RunContext& c) { return run_impl<mp50>(c, 7); });
}
std::vector<ClaimRecord> run8(const RunContext& ctx) {
  return run_precisions(ctx, [](const RunContext& c) { return run_impl<double>(c, 8); },
                        [](const RunContext& c) { return run_impl<mp50>(c, 8); });
}

const Registrar kReg7({"lemma7.eta1_variance", "E|Delta1|^2 = (n^2/(M s^4)) V1 for eq. (15) with replacement (exact enumeration)",
                       "Wu & Gardner 2024, Lemma 7; docs/math.md §5.4", "[R]", run7});
const Registrar kReg8({"lemma8.eta2_variance", "E|Delta2|_F^2 = (n^2/(4 M s^4)) V2 for eq. (15) with replacement (exact enumeration)",
                       "Wu & Gardner 2024, Lemma 8; docs/math.md §5.4", "[R]", run8});

}  // namespace
}  // namespace ngvi::claims
