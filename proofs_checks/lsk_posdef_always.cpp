// DESCRIPTION
// Claim lsk.posdef_always (Lin, Schmidt & Khan 2020; docs/systems.md §C.2 PD property and §C.7.4; [D]):
// with ensure_posdef the LSK precision update S' = S − ηĜ + (η²/2)ĜS⁻¹Ĝ, Ĝ = S + H̄, satisfies
// S^{-1/2}S'S^{-1/2} = ½I + ½(I − ηA)² ⪰ ½I (A = S^{-1/2}ĜS^{-1/2}) for every η > 0 and every symmetric
// H̄, indefinite ones included.
// Instances: d = 5, S random SPD with κ(S) ≤ 1e3, η ∈ {1/10, 1/2, 1, 2} (the §C.7.4 set), H̄ drawn
// adversarially as H̄ = L A Lᵀ − S with S = LLᵀ and A = Q diag(α) Qᵀ whose eigenvalues mix signs and
// scales 10^[−2, 3], one of them set to 1/η so that ½I + ½(I − ηA)² has smallest eigenvalue exactly ½
// (the tightest case); 1000 draws per η in the full run, 100 in the quick one.
// Reference: λ_min(L⁻¹S'L⁻ᵀ) computed in mp100 (Cholesky and cyclic Jacobi) from S and the
// output S' of lsk_precision_update, cast exactly. Budget per draw: the computed S' = ½S + ½WᵀW,
// W = L⁻¹((1 − η)S − ηH̄), carries rounding |δS'| ≤ γ_ops(|S| + |W|ᵀ|W|) with ops = 4d + 8 (forming B,
// the triangular solve, Higham Thm 8.5, and the product, Thm 3.5); whitening multiplies by κ(S) and
// ‖L⁻¹WᵀWL⁻ᵀ‖ = ‖I − ηA‖², so λ_min ≥ ½ − 4γ_ops·κ(S)·(1 + ‖I − ηA‖₂)². The record's lhs is the worst
// (½ − λ_min)/budget over the draws, to be ≤ 1. A second record checks the whitened identity itself,
// ‖L⁻¹S'L⁻ᵀ − ½(I + (I − ηA)²)‖_F ≤ d·budget (Frobenius ≤ √d·spectral, with room), so an update that
// stays SPD for a wrong reason (e.g. a lost factor ½) is caught.
// Negative control: the update with its second-order term weighted by 1 − δ (lsk_update_weighted, a
// small violation of ensure_posdef): whitened ½I + ½(I − ηA)² − δ(η²/2)A², whose eigenvalue at
// a = 1/η is ½ − δ/2, so the record breaks once δ > 2·min_k(budget_k + λ_min,k − ½) (printed in the
// note; in mp50 set by the double-formed draw, not the budget); δ = 2⁻³³ (double), 2⁻⁸⁰ (mp50).
// Against an lsk-update implementation (protocols/lsk_update.hpp; in double, and in mp50 when it has an
// mp50 form, else a skipped mp50 record): the update under test is its
// step (m = 0, ḡ = 0, S and H̄ of the draw; one trajectory per η with ensure_posdef = true, steps t = 0,
// 1, … the draws), and the control's plain update its step on a second trajectory with ensure_posdef =
// false: the control combines the implementation's own two updates, so an implementation whose plain
// update is wrong, or that ignores ensure_posdef, is seen there too. The budget is the one derived
// above for the Cholesky form ½S + ½WᵀW; an implementation that forms S⁻¹ explicitly carries up to a
// further factor κ(S) of rounding (docs/engine.md, "lsk-update").
#include <Eigen/Eigenvalues>
#include <cstdio>
#include <memory>
#include <type_traits>

#include "ngvi/claims/check_util.hpp"
#include "lsk_common.hpp"
#include "ngvi/optim/lsk_ngvi.hpp"
#include "ngvi/optim/steppers/protocol_lsk_update.hpp"
#include "ngvi/optim/variant.hpp"

namespace ngvi::claims {
namespace { namespace NGVI_UNITY_ID {

constexpr const char* kId = "lsk.posdef_always";

/// The control's violation: the second-order term (η²/2)ĜS⁻¹Ĝ weighted by 1 − δ instead of 1
/// (lsk_update_weighted). Whitened, the update is ½I + ½(I − ηA)² − δ(η²/2)A², whose eigenvalue at
/// the draw's eigenvalue a = 1/η of A is ½ − δ/2: λ_min falls below ½ by δ/2, and the record
/// (½ − λ_min)/budget exceeds 1 once δ > 2·min_k(budget_k + λ_min,k − ½), λ_min,k that of the claim's
/// update at draw k (printed in the note). In double this is twice the smallest per-draw budget
/// γ_28·κ(S)·(1 + ‖I − ηA‖)²: at seed 1, 2e-13 (η ≤ 1) to 2.7e-12 (η = 2), and up to 2e-11 over seeds
/// 1–100 (seed 97, η = 1); δ = 2⁻³³ ≈ 1.2e-10 is 6× the largest. In mp50 the budget (1e-47) is not the limit: the draw's A is formed in double, so its
/// eigenvalue is 1/η only to about 1e-16·η‖A‖ and λ_min exceeds ½ by ½(1 − ηa)² ≤ 2e-26; δ = 2⁻⁸⁰
/// ≈ 8e-25 is 20× that bound.
template <class Scalar>
double control_delta() {
  if constexpr (std::is_same_v<Scalar, double>) return 0x1p-33;
  else return 0x1p-80;
}

struct Draw {
  Mat<double> s, a;
};

Draw draw(data::Rng& rng, Index d, double eta) {
  boost::random::uniform_01<double> u01;
  const double kappa = std::pow(10.0, 3 * u01(rng));
  Draw out{data::random_spd(d, kappa, rng), Mat<double>()};
  const Mat<double> q = data::random_orthogonal(d, rng);
  Vec<double> alpha(d);
  for (Index i = 0; i < d; ++i) alpha(i) = (u01(rng) < 0.5 ? -1.0 : 1.0) * std::pow(10.0, -2 + 5 * u01(rng));
  alpha(0) = 1.0 / eta;
  out.a = symmetrise(Mat<double>(q * alpha.asDiagonal() * q.transpose()));
  return out;
}

template <class Scalar>
std::vector<ClaimRecord> run_impl(const RunContext& ctx) {
  std::vector<ClaimRecord> out;
  const Index d = 5;
  const int draws = ctx.full ? 1000 : (std::is_same_v<Scalar, double> ? 100 : 25);
  const std::string prec = scalar_name<Scalar>();
  const protocols::LskUpdateOf<Scalar>* impl = lsk_update_for<Scalar>(ctx.variant());
  if (lsk_update_lacks<Scalar>(ctx.variant())) {
    out.push_back(lsk_precision_skipped<Scalar>(kId));
    return out;
  }
  for (int eta_k : {0, 1, 2, 3}) {
    const Scalar eta = eta_k == 0 ? Scalar(1) / 10 : eta_k == 1 ? Scalar(1) / 2 : eta_k == 2 ? Scalar(1) : Scalar(2);
    const double eta_d = to_double(eta);
    Stopwatch sw;
    data::Rng rng(ctx.seed ^ (0xB0B5ULL + static_cast<std::uint64_t>(eta_k)));
    double worst_id = 0, worst = -1e300, worst_ctrl = -1e300, min_lam = 1e300, max_gap_ctrl = -1e300, min_budget = 1e300, max_budget = 0, worst_plain = -1e300;
    const mp100 c_ctrl = 1 - mp100(control_delta<Scalar>());
    // The implementation's two trajectories at this η: the update under test and the plain one.
    std::unique_ptr<LskUpdateRunner<Scalar>> with_term, plain;
    if (impl != nullptr) {
      with_term = std::make_unique<LskUpdateRunner<Scalar>>(*impl, protocols::LskProblemOf<Scalar>{d, eta, true});
      plain = std::make_unique<LskUpdateRunner<Scalar>>(*impl, protocols::LskProblemOf<Scalar>{d, eta, false});
    }
    for (int k = 0; k < draws; ++k) {
      const Draw dr = draw(rng, d, eta_d);
      const Mat<Scalar> s = data::cast_matrix<Scalar>(dr.s);
      const Mat<Scalar> l = SpdFactor<Scalar>(s, "lsk.posdef_always", "S").lower();
      const Mat<Scalar> h = symmetrise(Mat<Scalar>(l * data::cast_matrix<Scalar>(dr.a) * l.transpose() - s));

      // Reference in mp100: the whitened matrix and the exact A of the computed H̄.
      const Mat<mp100> s100 = s.template cast<mp100>();
      const Eigen::LLT<Mat<mp100>> llt(s100);
      const Mat<mp100> l100 = llt.matrixL();
      // L⁻¹ M L⁻ᵀ, symmetrised, in mp100.
      auto whiten_mp = [&](const Mat<mp100>& m) {
        const Mat<mp100> t = l100.template triangularView<Eigen::Lower>().solve(m);
        const Mat<mp100> w = l100.template triangularView<Eigen::Lower>().solve(Mat<mp100>(t.transpose()));
        return Mat<mp100>((w + w.transpose()) / 2);
      };
      auto whiten = [&](const Mat<Scalar>& m) { return whiten_mp(m.template cast<mp100>()); };
      const Mat<mp100> a100 = whiten(Mat<Scalar>(s + h));
      const Mat<mp100> i_minus = Mat<mp100>::Identity(d, d) - mp100(eta) * a100;
      const double norm_im = to_double(mp100(jacobi_eigenvalues<mp100>(i_minus).cwiseAbs().maxCoeff()));
      const Eigen::SelfAdjointEigenSolver<Mat<double>> ess(dr.s, Eigen::EigenvaluesOnly);
      const double kappa_s = ess.eigenvalues().maxCoeff() / ess.eigenvalues().minCoeff();
      const double budget = to_double(rounding_budget<Scalar>(4 * d + 8, Scalar(kappa_s))) * (1 + norm_im) * (1 + norm_im);

      // The update under test: the library's (ensure_posdef as asked), the context's variant of it, or
      // an implementation's step.
      Mat<Scalar> sp_pd;
      Mat<mp100> sp0, sp1;
      if (impl != nullptr) {
        const Vec<Scalar> zero = Vec<Scalar>::Zero(d);
        sp_pd = with_term->step(k, zero, s, zero, h).precision;
        sp0 = plain->step(k, zero, s, zero, h).precision.template cast<mp100>();
        sp1 = sp_pd.template cast<mp100>();
      } else {
        sp_pd = lsk_precision_update(s, l, h, eta, lsk_posdef_for<Scalar>(ctx.variant(), true));
        // The control: the library's updates with and without the term, combined in mp100 with weight 1 − δ.
        sp0 = lsk_precision_update(s, l, h, eta, false).template cast<mp100>();
        sp1 = lsk_posdef_for<Scalar>(ctx.variant(), true) ? sp_pd.template cast<mp100>()
                                                          : lsk_precision_update(s, l, h, eta, true).template cast<mp100>();
      }
      const mp100 lam_pd = jacobi_eigenvalues<mp100>(whiten(sp_pd)).minCoeff();
      const double lm = to_double(lam_pd);
      const Mat<mp100> spc = sp0 + c_ctrl * (sp1 - sp0);
      // ½ − λ_min in mp100: the shift δ/2 is below double's resolution of ½ in mp50.
      const mp100 gap_c = mp100(1) / 2 - jacobi_eigenvalues<mp100>(whiten_mp(spc)).minCoeff();
      const mp100 gap_1 = mp100(1) / 2 - lam_pd;
      min_budget = std::min(min_budget, budget - to_double(gap_1));
      // The whitened update itself: L⁻¹S'L⁻ᵀ = ½I + ½(I − ηA)² (the identity behind the guarantee).
      const Mat<mp100> target_m = (Mat<mp100>::Identity(d, d) + i_minus * i_minus) / 2;
      const double id_err = to_double(mp100((whiten(sp_pd) - target_m).norm()));
      worst_id = std::max(worst_id, id_err / (budget * d));
      // ½ − λ_min from mp100 (in double, ½ − λ_min of an mp50 update rounds to 0).
      worst = std::max(worst, to_double(gap_1) / budget);
      max_budget = std::max(max_budget, budget);
      worst_ctrl = std::max(worst_ctrl, to_double(gap_c) / budget);
      // The plain update the library (or the implementation) computed with ensure_posdef = false.
      const mp100 gap_plain = mp100(1) / 2 - jacobi_eigenvalues<mp100>(whiten_mp(sp0)).minCoeff();
      worst_plain = std::max(worst_plain, to_double(gap_plain) / budget);
      min_lam = std::min(min_lam, lm);
      max_gap_ctrl = std::max(max_gap_ctrl, to_double(gap_c));
    }
    char note[320];
    std::snprintf(note, sizeof note, "%d draws, d=5: min lambda_min(S^-1/2 S' S^-1/2) = %.17g (>= 1/2 - budget)", draws, min_lam);
    const std::string name = "d5-eta" + std::string(eta_k == 0 ? "1/10" : eta_k == 1 ? "1/2" : eta_k == 2 ? "1" : "2");
    // A difference (report::Form): the signed deviation ½ − λ_min of λ_min from its floor ½, in units of
    // each draw's budget; the reference ½ is 0.5/budget of those units, so the resolution is the
    // largest budget over ½.
    out.push_back(difference_record(kId, name, prec, Kind::kClaim, worst, 1.0, 0.5 / max_budget, sw.seconds(), note, "budget"));
    // An identity (report::Form): the update's error against its rounding budget, in units of it.
    out.push_back(inequality_record(kId, name + "/whitened-identity", prec, Kind::kClaim, worst_id, 1.0, sw.seconds(),
                                    "max ||L^-1 S' L^-T - (I + (I - eta A)^2)/2||_F / (d budget)", "budget"));
    out.back().form = report::Form::kIdentity;
    report::apply_verdict_rule(out.back());
    std::snprintf(note, sizeof note,
                  "violation: second-order term weight 1 - delta, delta = %.3g; breaks from 2 min_k (budget_k + lambda_k - 1/2) = %.3g (derived); "
                  "min lambda_min = 1/2 - %.3g",
                  control_delta<Scalar>(), 2 * min_budget, max_gap_ctrl);
    out.push_back(injected_control(inequality_record(kId, name + "/term-weight-1-delta", prec, Kind::kControl, worst_ctrl, 1.0, sw.seconds(), note, "budget")));
    // Control re-run through the library (or the implementation): its own update with ensure_posdef =
    // false. The guarantee's only lever the library exposes is that boolean, so this is the smallest
    // violation it can run (the term's weight 0 instead of 1); at the tight draw a = 1/η the whitened
    // plain update I − ηA has the eigenvalue 0, ½ below the floor.
    std::snprintf(note, sizeof note,
                  "violation: the update run with ensure_posdef = false, term weight 1 - delta with delta = 1; breaks from 2 min_k "
                  "(budget_k + lambda_k - 1/2) = %.3g (derived, as the weighted control); the library's (or implementation's) plain update",
                  2 * min_budget);
    out.push_back(inequality_record(kId, name + "/ensure-posdef-false", prec, Kind::kControl, worst_plain, 1.0, sw.seconds(), note, "budget"));
  }
  return out;
}

std::vector<ClaimRecord> run(const RunContext& ctx) { return run_precisions(ctx, run_impl<double>, run_impl<mp50>); }

const Registrar kReg({kId, "with ensure_posdef the LSK precision satisfies S^-1/2 S' S^-1/2 >= I/2 for every step and every "
                           "symmetric Hessian estimate",
                      "Lin, Schmidt & Khan 2020; docs/systems.md §C.2 (PD property), §C.7.4", "[D]", run,
                      CostHint{6, 200}, {protocols::kLskUpdate}});

}}  // namespace
}  // namespace ngvi::claims
