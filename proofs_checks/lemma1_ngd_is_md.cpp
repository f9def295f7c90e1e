// DESCRIPTION
// Claim lemma1.ngd_is_md (Wu & Gardner 2024, Lemma 1 and eqs. (7)–(10); docs/math.md §2.2–2.3, [R]):
//   for f(η) = KL(q_η‖p) with p fixed, the natural-gradient step F(η)⁻¹∇_η f equals the mirror
//   step ∇_μ f = ∇A*(μ) − ∇A*(μ_p) = η − η_p.
// Reference: ∇_η f is a central difference of the closed-form KL in mp100 (it never uses the Fisher
// metric nor the mirror formula). Two routes are checked: the residual F(η)·(mirror step) − ∇_η f,
// with F applied by fisher_apply (∇²A), and the step F(η)⁻¹∇_η f itself, with F⁻¹ applied by
// fisher_inverse_apply (∇²A*), compared with the mirror step. Errors are relative, in eps, against
// 4·γ_ops·κ_map·ρ, where κ_map = map_condition (the error of S from the Cholesky inverse) and
// ρ = (‖S‖₂(1 + ‖m‖))²‖v‖ / ‖F v‖ is the conditioning of the products S V S, S(2Vm + v₁) relative
// to their result (Higham Thm 3.5: |fl(AB) − AB| ≤ γ_k|A||B|), evaluated in double on the instance.
// The inverse route maps a gradient of size ~κ² back to a step of size ~1, so it loses κ² of
// relative accuracy however it is computed; it is run only where κ ≤ kInverseRouteMaxKappa, where
// that loss still leaves the 1e-40 relative agreement in mp50 meaningful. The residual route
// carries the claim at every condition number.
// Negative control: the plain gradient ∇_η f taken as the step.
#include "expfam_common.hpp"

namespace ngvi::claims {
namespace {

constexpr const char* kId = "lemma1.ngd_is_md";
constexpr double kInverseRouteMaxKappa = 1e4;

template <class Scalar>
std::vector<ClaimRecord> run_impl(const RunContext& ctx) {
  std::vector<ClaimRecord> out;
  for (const auto& inst : expfam_instances(ctx.full)) {
    Stopwatch sw;
    const auto [qd, pd] = instance_pair<double>(inst, ctx.seed);
    const auto [q, p] = instance_pair<Scalar>(inst, ctx.seed);
    const double cond = std::max(map_condition(qd), map_condition(pd));

    const auto eta_q = moments_to_natural(q);
    const auto mu_q = moments_to_expectation(q);
    const auto mu_p = moments_to_expectation(p);
    const GaussianPair<Scalar> mirror = expectation_to_natural(mu_q) - expectation_to_natural(mu_p);

    const GaussianMoments<mp100> p100 = data::cast_moments<mp100>(p);
    const auto f100 = [&p100](const GaussianPair<mp100>& x) {
      return kl_gaussian(natural_to_moments(GaussianNatural<mp100>(x)), p100);
    };
    const GaussianPair<mp100> grad_eta = fd_gradient_mp100(f100, to_mp100<Scalar>(eta_q));

    const double s_norm = Eigen::SelfAdjointEigenSolver<Mat<double>>(qd.cov, Eigen::EigenvaluesOnly).eigenvalues().maxCoeff();
    const GaussianPair<double> v_d = data::cast_pair<double>(mirror);
    const double rho = std::pow(s_norm * (1 + qd.mean.norm()), 2) * std::sqrt(pair_squared_norm(v_d)) /
                       std::sqrt(to_double(pair_squared_norm(grad_eta)));
    const Scalar budget = rounding_budget<Scalar>(expfam_ops(inst.d), Scalar(cond) * Scalar(std::max(1.0, rho)));
    const GaussianPair<mp100> fm = to_mp100<Scalar>(fisher_apply(eta_q, mirror));
    const Scalar err_res = Scalar(relative_pair_error<mp100>(fm, grad_eta));
    out.push_back(identity_record<Scalar>(kId, inst.name + "/residual", Kind::kClaim, err_res, budget, sw.seconds(),
                                          "F(eta)(eta - eta_p) vs mp100 central difference of KL"));

    Stopwatch sw2;
    const GaussianPair<Scalar> grad_eta_s = data::cast_pair<Scalar>(grad_eta);
    if (inst.kappa <= kInverseRouteMaxKappa) {
      const GaussianPair<Scalar> ng_step = fisher_inverse_apply(mu_q, grad_eta_s);
      const Scalar err_inv = relative_pair_error<Scalar>(ng_step, mirror);
      out.push_back(identity_record<Scalar>(kId, inst.name + "/inverse", Kind::kClaim, err_inv, budget, sw2.seconds(),
                                            "F(eta)^-1 grad_eta f vs eta - eta_p"));
    }

    Stopwatch sw3;
    const Scalar err_plain = relative_pair_error<Scalar>(grad_eta_s, mirror);
    out.push_back(identity_record<Scalar>(kId, inst.name + "/plain-gradient", Kind::kControl, err_plain, budget,
                                          sw3.seconds(), "grad_eta f taken as the step"));
  }
  return out;
}

std::vector<ClaimRecord> run(const RunContext& ctx) { return run_precisions(ctx, run_impl<double>, run_impl<mp50>); }

const Registrar kReg({kId, "natural-gradient step F^-1 grad_eta f equals the mirror step grad_mu f",
                      "Wu & Gardner 2024, Lemma 1, eqs. (7)-(10); docs/math.md §2.2-2.3", "[R]", run});

}  // namespace
}  // namespace ngvi::claims
