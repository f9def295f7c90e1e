#pragma once
/// @file
/// The reference of vpng.logistic_auc: the optimum of the mean-field Gaussian ELBO of Bayesian
/// logistic regression (prior N(0, s_p² I)), found by a route independent of the optimisers under
/// test: damped Newton on the exact ELBO in (μ, σ), every datum's expectations E ℓ^(k) by the
/// library's Gauss–Hermite route for logistic regression (models/logistic_regression.hpp,
/// logistic_expect_rule, which the VPNG runs do not use: they sample) (docs/systems.md D.6).
///
/// With q = N(μ, diag σ²) and a_n = x_nᵀw ~ N(m_n, v_n), m_n = x_nᵀμ, v_n = Σ_i x_ni² σ_i²,
///   ELBO(μ, σ) = Σ_n E f_n(a_n) + Σ_i [log σ_i − (μ_i² + σ_i²)/(2s_p²)] + const,
///   f_n(a) = y_n a − log(1 + eᵃ).
/// Derivatives of E f(a) in (m, v) by Bonnet's and Price's theorems: ∂_m = E f′, ∂_v = E f″/2,
/// ∂²_m = E f″, ∂_m∂_v = E f‴/2, ∂²_v = E f⁗/4 (e1..e4 of logistic_expect_rule); the chain rule
/// through ∂v_n/∂σ_i = 2x_ni²σ_i. The ELBO is concave in (μ, σ) for a log-concave likelihood (the Gaussian
/// KL bound is concave in (μ, C), Σ = CCᵀ; Challis & Barber 2013, JMLR 14, Theorem 3; the
/// mean-field σ is a diagonal C), so the stationary point Newton reaches is the unique maximiser.
/// More: every term is concave and the prior's is −‖z‖²/(2s_p²) in z = (μ, σ) plus the concave
/// Σ log σ_i, so −∇²ELBO ⪰ I/s_p² and any z is within s_p²‖∇ELBO(z)‖₂ of the maximiser z*
/// (strong concavity). The claim turns that distance into an interval for the optimum's AUC.
#include <cmath>
#include <limits>

#include "ngvi/models/logistic_regression.hpp"

namespace ngvi::claims::vpng {

struct MeanFieldOptimum {
  Vec<double> mu, sigma;
  double elbo = 0;       ///< up to the constant: Σ_n E f_n + Σ_i [log σ_i − (μ_i² + σ_i²)/(2s_p²)]
  double grad_norm = 0;  ///< ‖∇ELBO‖₂ at (mu, sigma)
  int iterations = 0;
  bool converged = false;
};

/// The ELBO above at (mu, sigma); with grad and hess non-null also its gradient and Hessian in
/// (μ, σ) (2D entries, μ first).
inline double logistic_mf_elbo(const Mat<double>& x, const Vec<double>& y, double prior_var, const QuadratureRule<double>& rule,
                               const Vec<double>& mu, const Vec<double>& sigma, Vec<double>* grad, Mat<double>* hess) {
  const Index dim = mu.size();
  double elbo = 0;
  if (grad != nullptr) {
    grad->setZero(2 * dim);
    hess->setZero(2 * dim, 2 * dim);
  }
  Vec<double> dv(dim);
  for (Index n = 0; n < x.rows(); ++n) {
    const Vec<double> xn = x.row(n).transpose();
    const double m = xn.dot(mu);
    const double v = (xn.array().square() * sigma.array().square()).sum();
    const auto e = logistic_expect_rule(rule, y(n), m, v);  // E ℓ^(k)(a), a ~ N(m, v), k = 0..4
    elbo += e.e0;
    if (grad == nullptr) continue;
    dv = 2 * xn.array().square() * sigma.array();  // ∂v/∂σ
    grad->head(dim) += e.e1 * xn;
    grad->tail(dim) += e.e2 / 2 * dv;
    hess->topLeftCorner(dim, dim) += e.e2 * xn * xn.transpose();
    hess->topRightCorner(dim, dim) += e.e3 / 2 * xn * dv.transpose();
    hess->bottomRightCorner(dim, dim) += e.e4 / 4 * dv * dv.transpose();
    hess->bottomRightCorner(dim, dim).diagonal() += e.e2 * xn.array().square().matrix();  // (e2/2)·∂²v/∂σ², ∂²v/∂σ_i² = 2x_ni²
  }
  for (Index i = 0; i < dim; ++i) {
    elbo += std::log(sigma(i)) - (mu(i) * mu(i) + sigma(i) * sigma(i)) / (2 * prior_var);
    if (grad == nullptr) continue;
    (*grad)(i) -= mu(i) / prior_var;
    (*grad)(dim + i) += 1 / sigma(i) - sigma(i) / prior_var;
    (*hess)(i, i) -= 1 / prior_var;
    (*hess)(dim + i, dim + i) -= 1 / (sigma(i) * sigma(i)) + 1 / prior_var;
  }
  if (grad != nullptr) hess->bottomLeftCorner(dim, dim) = hess->topRightCorner(dim, dim).transpose();
  return elbo;
}

/// The maximiser of logistic_mf_elbo by Newton's method from μ = 0, σ = 0.1·s_p, each step halved
/// until it is accepted (a gradient step where the Newton step is not an ascent direction). A step is
/// accepted when σ stays positive and the ELBO rises; or, once the rise a step can bring (about
/// ‖g‖²/‖H‖) is below the ELBO's rounding (16ε|ELBO|), when the ELBO stays within that rounding and
/// ‖∇ELBO‖ falls: a test on the ELBO alone stalls near ‖g‖ ≈ √(ε|ELBO|‖H‖), 1e-6 on the quick
/// instance, above the gradient's own rounding floor. Stops when ‖∇ELBO‖₂ ≤ grad_tol or after
/// max_iterations (converged = false).
inline MeanFieldOptimum logistic_mean_field_optimum(const Mat<double>& x, const Vec<double>& y, double prior_var, double grad_tol,
                                                   int nodes = 64, int max_iterations = 100) {
  const Index dim = x.cols();
  const auto rule = gauss_hermite_rule<double>(nodes);
  MeanFieldOptimum r;
  r.mu = Vec<double>::Zero(dim);
  r.sigma = Vec<double>::Constant(dim, std::sqrt(prior_var) / 10);
  Vec<double> g, step, g_new;
  Mat<double> h, h_new;
  r.elbo = logistic_mf_elbo(x, y, prior_var, rule, r.mu, r.sigma, &g, &h);
  for (; r.iterations < max_iterations && !(g.norm() <= grad_tol); ++r.iterations) {
    step = -h.ldlt().solve(g);
    if (!(g.dot(step) > 0)) step = g;
    const double rounding = 16 * std::numeric_limits<double>::epsilon() * (1 + std::abs(r.elbo));
    bool moved = false;
    for (double t = 1; t > 1e-12 && !moved; t /= 2) {
      const Vec<double> mu = r.mu + t * step.head(dim), sigma = r.sigma + t * step.tail(dim);
      if (!(sigma.array() > 0).all()) continue;
      const double e = logistic_mf_elbo(x, y, prior_var, rule, mu, sigma, &g_new, &h_new);
      if (e > r.elbo || (e >= r.elbo - rounding && g_new.norm() < g.norm())) {
        r.mu = mu;
        r.sigma = sigma;
        r.elbo = e;
        g.swap(g_new);
        h.swap(h_new);
        moved = true;
      }
    }
    if (!moved) break;
  }
  r.grad_norm = g.norm();
  r.converged = r.grad_norm <= grad_tol;
  return r;
}

}  // namespace ngvi::claims::vpng
