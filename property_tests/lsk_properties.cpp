// Properties of the Lin–Schmidt–Khan precision update (docs/systems.md §C.2, claim lsk.posdef_always):
// with ensure_posdef the new precision is SPD and its whitened form L⁻¹S'L⁻ᵀ = ½I + ½(I − ηA)² has
// λ_min ≥ ½ up to rounding, for every step η ∈ (0, 10] and every symmetric Hessian estimate (adversarial
// generators in lsk_generators.hpp). Without ensure_posdef RapidCheck finds, and shrinks, a case that
// loses positive definiteness.
// Budget: 4·γ_{4d+8}·κ(S)·(1 + ‖I − ηA‖)², as derived in proofs_checks/lsk_posdef_always.cpp, doubled
// for the rounding of this check's own long-double whitening (whose unit roundoff is 2^-64 < 2^-53).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <Eigen/Eigenvalues>

#include "lsk_generators.hpp"
#include "ngvi/optim/lsk_ngvi.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

Mat<long double> whiten(const Mat<double>& l, const Mat<double>& m) {
  const Mat<long double> ll = l.cast<long double>();
  const Mat<long double> t = ll.triangularView<Eigen::Lower>().solve(m.cast<long double>());
  const Mat<long double> w = ll.triangularView<Eigen::Lower>().solve(Mat<long double>(t.transpose()));
  return (w + w.transpose()) / 2;
}

long double lambda_min(const Mat<long double>& a) {
  return Eigen::SelfAdjointEigenSolver<Mat<long double>>(a, Eigen::EigenvaluesOnly).eigenvalues().minCoeff();
}

struct Case {
  Mat<double> s, l, h;
  double eta;
};

Case make_case() {
  const auto spec = *gen::spd_spec(1, 8, 1e4);
  const double eta = *gen::lsk_step_size();
  const auto hs = *gen::hess_spec();
  RC_TAG(gen::hess_kind_name(hs.kind));
  RC_CLASSIFY(eta > 1, "eta > 1");
  Case c;
  c.s = gen::spd_from<double>(spec);
  c.l = SpdFactor<double>(c.s, "lsk_properties", "S").lower();
  c.h = gen::hessian_from(hs, c.s, c.l, eta);
  c.eta = eta;
  return c;
}

RC_GTEST_PROP(LskProperties, PosdefAlwaysWithEnsurePosdef, ()) {
  const Case c = make_case();
  const Index d = c.s.rows();
  const Mat<double> sp = lsk_precision_update(c.s, c.l, c.h, c.eta, true);
  RC_ASSERT(is_spd(sp));
  const Mat<long double> a = whiten(c.l, Mat<double>(c.s + c.h));
  const Mat<long double> im = Mat<long double>::Identity(d, d) - static_cast<long double>(c.eta) * a;
  const long double norm_im = Eigen::SelfAdjointEigenSolver<Mat<long double>>(im, Eigen::EigenvaluesOnly).eigenvalues().cwiseAbs().maxCoeff();
  const Eigen::SelfAdjointEigenSolver<Mat<double>> es(c.s, Eigen::EigenvaluesOnly);
  const double kappa = es.eigenvalues().maxCoeff() / es.eigenvalues().minCoeff();
  const long double budget = 2 * static_cast<long double>(rounding_budget<double>(4 * d + 8, kappa)) * (1 + norm_im) * (1 + norm_im);
  const long double lm = lambda_min(whiten(c.l, sp));
  RC_ASSERT(lm == lm && lm >= 0.5L - budget);
}

TEST(LskProperties, WithoutEnsurePosdefACounterexampleIsFound) {
  const bool all_spd = rc::check("plain update keeps S' SPD", [] {
    const Case c = make_case();
    RC_ASSERT(is_spd(lsk_precision_update(c.s, c.l, c.h, c.eta, false)));
  });
  EXPECT_FALSE(all_spd);
}

}}  // namespace
}  // namespace ngvi
