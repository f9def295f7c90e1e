#pragma once
/// @file
/// The Dirichlet family Dir(α) on the (K−1)-simplex as an exponential family.
///
/// Convention: the natural parameter is η = α itself (not α − 1), with T(x) = log x and the base
/// measure h(x) = Πₖ xₖ⁻¹ on the simplex, so that q(x) = h(x) exp(⟨α, log x⟩ − A(α)). Then
///   Ω = {α > 0},  A(α) = Σₖ lgamma(αₖ) − lgamma(α₀),  α₀ = Σₖ αₖ,
///   μ = ∇A(α) = E[log xₖ] = ψ(αₖ) − ψ(α₀)            (Boost.Math digamma; dirichlet_mean_map),
///   F(α) = ∇²A(α) = diag(ψ'(αₖ)) − ψ'(α₀) 11ᵀ        (Boost.Math trigamma), positive definite,
///   M = {μ : Σₖ exp(μₖ) < 1}: by Jensen exp E[log xₖ] < E[xₖ], whose sum is 1, and every such μ
///       is the mean of a Dirichlet (M is the interior of the convex hull of {log x : x ∈ simplex}),
///   A*(μ) = ⟨α, μ⟩ − A(α) at α = ∇A*(μ), the negative entropy relative to h.
/// ∇A* has no closed form: to_natural solves ψ(αₖ) − ψ(α₀) = μₖ by Newton's method on the concave
/// L(α) = ⟨α, μ⟩ − A(α) (Minka 2000, "Estimating a Dirichlet distribution", §1–2: the Hessian
/// −F(α) is a diagonal plus a rank one, inverted by Sherman–Morrison in O(K)), started from Minka's
/// approximation α₀ ≈ (K − 1) / (−2 log Σₖ exp μₖ), αₖ = α₀ exp(μₖ)/Σ exp μ, and safeguarded:
/// the step is halved until α stays positive and the residual or L improves. It stops when the
/// residual ‖μ − ∇A(α)‖_∞ is at most dirichlet_newton_tolerance (below), and throws if that takes
/// more than max_newton_iterations() steps.
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <limits>
#include <stdexcept>

#include <Eigen/Eigenvalues>

#include "ngvi/expfam/family.hpp"
#include "ngvi/special/gamma_functions.hpp"

namespace ngvi {

/// The Newton tolerance of DirichletFamily::to_natural, on the residual r = μ − (ψ(α) − ψ(α₀)):
/// \f[ \|r\|_\infty \le 4\,\gamma_{16}\,\max_k\big(|\mu_k| + |\psi(\alpha_k)| + |\psi(\alpha_0)|\big). \f]
/// Derived: each entry of r is a difference of three terms, each known to a few ulps (Boost's
/// digamma is accurate to a few eps), so r cannot be computed more accurately than a small multiple
/// of u times the size of its terms; γ₁₆ covers the evaluation of ψ and the two subtractions,
/// 4 = kBudgetSafety as for every budget.
template <class Scalar>
Scalar dirichlet_newton_tolerance(const Scalar& term_scale) {
  return rounding_budget<Scalar>(16) * term_scale;
}

/// The Dirichlet's mean map μ = ∇A(α), E[log xᵢ] = ψ(αᵢ) − ψ(α₀), α₀ = Σⱼ αⱼ, of the k entries at
/// `alpha` into `mu` (which may alias it): the one definition of the map, which DirichletFamily::to_mean
/// and the models (LDA's topics and documents, the mixture's weights) call. α₀ is summed in index order,
/// so the result does not depend on the vector width of the build. k ≥ 1 (k = 1 gives 0). No check of
/// α > 0: the callers' parameters are in the domain (DirichletFamily::to_mean checks it first).
template <class Scalar>
void dirichlet_mean_map(const Scalar* alpha, Index k, Scalar* mu) {
  // α₀ by Eigen's (vectorised) sum: LDA's topics sum V entries per topic every minibatch.
  const Scalar a0 = Eigen::Map<const Vec<Scalar>>(alpha, k).sum();
  const Scalar psi0 = special::digamma(a0);
  for (Index i = 0; i < k; ++i) mu[i] = special::digamma(alpha[i]) - psi0;
}

/// The mean map of each column of `alpha` (a Product<DirichletFamily>'s natural parameter, one
/// Dirichlet per column), column by column through dirichlet_mean_map.
template <class Scalar>
Mat<Scalar> dirichlet_mean_map_columns(const Mat<Scalar>& alpha) {
  Mat<Scalar> mu(alpha.rows(), alpha.cols());
  for (Index j = 0; j < alpha.cols(); ++j) dirichlet_mean_map(alpha.col(j).data(), alpha.rows(), mu.col(j).data());
  return mu;
}

/// α is a Dirichlet parameter: every one of its k entries finite and positive.
template <class Scalar>
bool dirichlet_in_domain(const Scalar* alpha, Index k) {
  if constexpr (std::is_same_v<Scalar, double>) {
    // Without early exit, so that the check vectorises (LDA checks V × K entries every step): NaN fails
    // the first comparison, ±inf one of the two.
    bool ok = true;
    for (Index i = 0; i < k; ++i) ok &= (alpha[i] > 0.0) & (alpha[i] <= std::numeric_limits<double>::max());
    return ok;
  }
  for (Index i = 0; i < k; ++i)
    if (!(is_finite_scalar(alpha[i]) && alpha[i] > Scalar(0))) return false;
  return true;
}

/// The outcome of a Newton solve of DirichletFamily::to_natural_report.
template <class Scalar>
struct DirichletNewtonReport {
  Vec<Scalar> alpha;
  int iterations = 0;
  Scalar residual;   ///< ‖μ − ∇A(α)‖_∞ at the returned α
  Scalar tolerance;  ///< dirichlet_newton_tolerance at the returned α
};

template <class ScalarT>
class DirichletFamily {
 public:
  using Scalar = ScalarT;
  using Natural = Vec<Scalar>;
  using Expectation = Vec<Scalar>;

  /// Default cap on Newton steps: quadratic convergence from Minka's start needs about ten steps
  /// in double and a few more in 50 digits; the cap leaves room for the safeguarded phase.
  static constexpr int kDefaultMaxNewtonIterations = 200;

  /// @param k number of categories, k ≥ 2. @throws std::invalid_argument naming 'k' otherwise.
  explicit DirichletFamily(Index k, int max_newton_iterations = kDefaultMaxNewtonIterations)
      : k_(k), max_iter_(max_newton_iterations) {
    if (k < 2) throw_size("ngvi::DirichletFamily", "k", "must be at least 2");
    if (max_newton_iterations < 1) throw_domain("ngvi::DirichletFamily", "max_newton_iterations", "must be at least 1");
  }

  template <class S>
  DirichletFamily<S> rebind() const { return DirichletFamily<S>(k_, max_iter_); }

  Index dim() const { return k_; }
  int max_newton_iterations() const { return max_iter_; }
  Index flat_size() const { return k_; }
  Index size() const { return k_; }

  bool in_domain(const Natural& alpha) const { return alpha.size() == k_ && dirichlet_in_domain(alpha.data(), k_); }
  /// in_domain of the k entries at `alpha` (a column of a Product's matrix, without a copy).
  bool in_domain_flat(const Scalar* alpha) const { return dirichlet_in_domain(alpha, k_); }
  bool in_mean_domain(const Expectation& mu) const {
    using std::exp;
    if (mu.size() != k_ || !all_finite(mu)) return false;
    Scalar s(0);
    for (Index i = 0; i < k_; ++i) s += exp(mu(i));
    return s < Scalar(1);
  }

  /// A(α) = Σ lgamma(αₖ) − lgamma(α₀). @pre α > 0. @throws std::domain_error naming 'eta'.
  Scalar log_partition(const Natural& alpha) const {
    require_natural(alpha, "ngvi::DirichletFamily::log_partition", "eta");
    return log_partition_unchecked(alpha);
  }
  /// μ = ψ(α) − ψ(α₀). @pre α > 0.
  Expectation to_mean(const Natural& alpha) const {
    require_natural(alpha, "ngvi::DirichletFamily::to_mean", "eta");
    return to_mean_unchecked(alpha);
  }
  /// α = ∇A*(μ) by the safeguarded Newton iteration of the file comment.
  /// @pre μ ∈ M. @throws std::domain_error naming 'mu' if μ ∉ M or Newton does not converge.
  Natural to_natural(const Expectation& mu) const { return to_natural_report(mu).alpha; }

  /// to_natural with the iteration count, the final residual and the tolerance.
  DirichletNewtonReport<Scalar> to_natural_report(const Expectation& mu) const {
    using std::abs;
    using std::exp;
    using std::log;
    using std::max;
    constexpr const char* kFunc = "ngvi::DirichletFamily::to_natural";
    require_mean(mu, kFunc, "mu");
    Scalar sum_exp(0);
    for (Index i = 0; i < k_; ++i) sum_exp += exp(mu(i));
    // Minka's start: E[log x_k] ≈ log p_k − (1 − p_k)/(2 α₀ p_k), p = exp(μ)/Σ exp μ, gives
    // Σ p_k (log p_k − μ_k) = −log Σ exp μ ≈ (K − 1)/(2α₀).
    const Scalar alpha0 = Scalar(k_ - 1) / (Scalar(-2) * log(sum_exp));
    Natural alpha(k_);
    for (Index i = 0; i < k_; ++i) alpha(i) = alpha0 * exp(mu(i)) / sum_exp;

    DirichletNewtonReport<Scalar> rep;
    Vec<Scalar> r(k_), step(k_), trial(k_), r_trial(k_);
    Scalar tol;
    auto residual = [&](const Natural& a, Vec<Scalar>* out, Scalar* tolerance) {
      const Scalar psi0 = special::digamma(a.sum());
      Scalar scale(0);
      for (Index i = 0; i < k_; ++i) {
        const Scalar psi = special::digamma(a(i));
        (*out)(i) = mu(i) - (psi - psi0);
        scale = max(scale, Scalar(abs(mu(i)) + abs(psi) + abs(psi0)));
      }
      *tolerance = dirichlet_newton_tolerance<Scalar>(scale);
      return Scalar(out->cwiseAbs().maxCoeff());
    };
    auto objective = [&](const Natural& a) { return a.dot(mu) - log_partition_unchecked(a); };
    Scalar rn = residual(alpha, &r, &tol);
    int it = 0;
    while (!(rn <= tol)) {
      if (it >= max_iter_ || !(rn == rn))
        throw_domain(kFunc, "mu",
                     "is too close to the boundary of the Dirichlet mean set: the Newton iteration did not reach "
                     "its tolerance within " + std::to_string(max_iter_) + " steps");
      ++it;
      // Newton step Δ = F(α)⁻¹ r with F = diag(q) − c 11ᵀ, q = ψ'(α), c = ψ'(α₀) (Sherman–Morrison).
      const Scalar c = special::trigamma(alpha.sum());
      Scalar sum_rq(0), sum_iq(0);
      for (Index i = 0; i < k_; ++i) {
        const Scalar q = special::trigamma(alpha(i));
        step(i) = r(i) / q;
        sum_rq += step(i);
        sum_iq += Scalar(1) / q;
      }
      const Scalar b = sum_rq / (Scalar(1) / c - sum_iq);
      for (Index i = 0; i < k_; ++i) step(i) += b / special::trigamma(alpha(i));
      const Scalar l0 = objective(alpha);
      Scalar t(1);
      bool accepted = false;
      for (int halvings = 0; halvings < 60 && !accepted; ++halvings, t /= 2) {
        trial = alpha + t * step;
        if (!(trial.minCoeff() > Scalar(0))) continue;
        Scalar tol_trial;
        const Scalar rn_trial = residual(trial, &r_trial, &tol_trial);
        if (rn_trial < rn || objective(trial) > l0) {
          alpha = trial;
          r = r_trial;
          rn = rn_trial;
          tol = tol_trial;
          accepted = true;
        }
      }
      if (!accepted)
        throw_domain(kFunc, "mu", "admits no Newton step that improves the residual (at the limit of working precision)");
    }
    rep.alpha = std::move(alpha);
    rep.iterations = it;
    rep.residual = rn;
    rep.tolerance = tol;
    return rep;
  }

  /// A*(μ) = ⟨α, μ⟩ − A(α), α = ∇A*(μ).
  Scalar conjugate(const Expectation& mu) const {
    const Natural alpha = to_natural(mu);
    return alpha.dot(mu) - log_partition_unchecked(alpha);
  }
  Scalar pairing(const Natural& eta, const Expectation& mu) const {
    if (eta.size() != k_ || mu.size() != k_) throw_size("ngvi::DirichletFamily::pairing", "mu", "has a size other than K");
    return eta.dot(mu);
  }
  /// KL(Dir(α) ‖ Dir(β)) = log Γ(α₀) − Σ log Γ(αₖ) − log Γ(β₀) + Σ log Γ(βₖ) + Σ (αₖ − βₖ)(ψ(αₖ) − ψ(α₀)),
  /// E_q[log q − log p] written out term by term.
  Scalar kl(const Natural& q, const Natural& p) const {
    require_natural(q, "ngvi::DirichletFamily::kl", "q");
    require_natural(p, "ngvi::DirichletFamily::kl", "p");
    const Scalar a0 = q.sum();
    const Scalar psi0 = special::digamma(a0);
    Scalar k = special::lgamma(a0) - special::lgamma(Scalar(p.sum()));
    for (Index i = 0; i < k_; ++i) k += special::lgamma(p(i)) - special::lgamma(q(i)) + (q(i) - p(i)) * (special::digamma(q(i)) - psi0);
    return k;
  }
  Scalar bregman_log_partition(const Natural& eta, const Natural& eta_ref) const {
    return generic_bregman_log_partition(*this, eta, eta_ref);
  }
  Scalar bregman_conjugate(const Expectation& mu, const Expectation& mu_ref) const {
    return generic_bregman_conjugate(*this, mu, mu_ref);
  }
  /// F(α) v = ψ'(α) ∘ v − ψ'(α₀) (Σ v).
  Expectation fisher_apply(const Natural& alpha, const Natural& v) const {
    require_natural(alpha, "ngvi::DirichletFamily::fisher_apply", "eta");
    require_size(v, "ngvi::DirichletFamily::fisher_apply", "v");
    const Scalar c = special::trigamma(alpha.sum()) * v.sum();
    Expectation out(k_);
    for (Index i = 0; i < k_; ++i) out(i) = special::trigamma(alpha(i)) * v(i) - c;
    return out;
  }
  /// F(α)⁻¹ u at α = ∇A*(μ), by Sherman–Morrison: (u + b 1) / ψ'(α), b = Σ(u/ψ'(α)) / (1/ψ'(α₀) − Σ 1/ψ'(α)).
  Natural fisher_inverse_apply(const Expectation& mu, const Expectation& u) const {
    require_size(u, "ngvi::DirichletFamily::fisher_inverse_apply", "u");
    const Natural alpha = to_natural(mu);
    const Scalar c = special::trigamma(alpha.sum());
    Natural out(k_);
    Scalar su(0), si(0);
    for (Index i = 0; i < k_; ++i) {
      const Scalar q = special::trigamma(alpha(i));
      out(i) = u(i) / q;
      su += out(i);
      si += Scalar(1) / q;
    }
    const Scalar b = su / (Scalar(1) / c - si);
    for (Index i = 0; i < k_; ++i) out(i) += b / special::trigamma(alpha(i));
    return out;
  }
  Vec<Scalar> flatten_natural(const Natural& eta) const { return eta; }
  Vec<Scalar> flatten_expectation(const Expectation& mu) const { return mu; }
  Natural unflatten_natural(const Eigen::Ref<const Vec<Scalar>>& v) const {
    require_size(v, "ngvi::DirichletFamily::unflatten_natural", "v");
    return v;
  }
  Expectation unflatten_expectation(const Eigen::Ref<const Vec<Scalar>>& v) const {
    require_size(v, "ngvi::DirichletFamily::unflatten_expectation", "v");
    return v;
  }
  Natural direction(Index i) const { return Natural::Unit(k_, i); }

 private:
  template <class V>
  void require_size(const V& v, std::string_view func, std::string_view arg) const {
    if (v.size() != k_) throw_size(func, arg, "has size " + std::to_string(v.size()) + ", expected K = " + std::to_string(k_));
  }
  void require_natural(const Natural& alpha, std::string_view func, std::string_view arg) const {
    require_size(alpha, func, arg);
    require_finite(alpha, func, arg);
    if (!in_domain(alpha)) throw_domain(func, arg, "is not a Dirichlet parameter: needs every entry > 0");
  }
  void require_mean(const Expectation& mu, std::string_view func, std::string_view arg) const {
    require_size(mu, func, arg);
    require_finite(mu, func, arg);
    if (!in_mean_domain(mu))
      throw_domain(func, arg, "is not the mean of any Dirichlet: needs sum_k exp(mu_k) < 1");
  }
  Scalar log_partition_unchecked(const Natural& alpha) const {
    Scalar a = -special::lgamma(Scalar(alpha.sum()));
    for (Index i = 0; i < k_; ++i) a += special::lgamma(alpha(i));
    return a;
  }
  Expectation to_mean_unchecked(const Natural& alpha) const {
    Expectation mu(k_);
    dirichlet_mean_map(alpha.data(), k_, mu.data());
    return mu;
  }

  Index k_;
  int max_iter_;
};

/// The error scales of the Dirichlet maps at α (double; the rounding budgets of the kit's checks of
/// the family are built from them, docs/math.md §1.1). Derivation: the Newton residual r of the
/// mean-to-natural map, whose terms have size σ = maxₖ |ψ(αₖ) − ψ(α₀)| + |ψ(αₖ)| + |ψ(α₀)|, moves α by
/// ‖F⁻¹r‖ ≤ ‖F⁻¹‖₂√K‖r‖_∞, relative √K‖F⁻¹‖₂σ/‖α‖ (`newton`); μ = ψ(α) − ψ(α₀) carries σ√K/‖μ‖ of
/// cancellation (`mean_cancellation`); A = Σ log Γ(αₖ) − log Γ(α₀) carries `log_gamma_terms` =
/// Σ|log Γ(αₖ)| + |log Γ(α₀)| against |A|, A being `log_partition`. ‖F‖₂ ≤ maxₖ ψ'(αₖ) (`fisher_max`,
/// F = diag ψ'(α) − ψ'(α₀)11ᵀ ≼ diag ψ'(α)); |ψ''(x)| ≤ 2/x³ + 1/x² (`third`, the max over k).
struct DirichletConditioning {
  double newton = 0, mean_cancellation = 0, log_gamma_terms = 0, log_partition = 0, fisher_max = 0, third = 0;
};
/// @throws std::domain_error naming 'alpha' unless every αₖ is finite and positive and K ≥ 2.
inline DirichletConditioning dirichlet_conditioning(const Vec<double>& alpha) {
  const Index k = alpha.size();
  if (k < 2 || !(alpha.array() > 0).all() || !alpha.allFinite())
    throw std::domain_error("ngvi::dirichlet_conditioning: argument 'alpha' must have K >= 2 finite positive entries");
  const double a0 = alpha.sum();
  const double psi0 = special::digamma(a0);
  Mat<double> fm = Mat<double>::Constant(k, k, -special::trigamma(a0));
  DirichletConditioning c;
  double sigma = 0, mu_norm2 = 0;
  c.log_gamma_terms = std::abs(special::lgamma(a0));
  c.log_partition = -special::lgamma(a0);
  for (Index i = 0; i < k; ++i) {
    const double psi = special::digamma(alpha(i)), tri = special::trigamma(alpha(i));
    fm(i, i) += tri;
    sigma = std::max(sigma, std::abs(psi - psi0) + std::abs(psi) + std::abs(psi0));
    c.log_gamma_terms += std::abs(special::lgamma(alpha(i)));
    c.log_partition += special::lgamma(alpha(i));
    mu_norm2 += (psi - psi0) * (psi - psi0);
    c.fisher_max = std::max(c.fisher_max, tri);
    c.third = std::max(c.third, 2 / (alpha(i) * alpha(i) * alpha(i)) + 1 / (alpha(i) * alpha(i)));
  }
  const Eigen::SelfAdjointEigenSolver<Mat<double>> es(fm, Eigen::EigenvaluesOnly);
  const double sk = std::sqrt(static_cast<double>(k));
  c.newton = sk * sigma / (es.eigenvalues().minCoeff() * alpha.norm());
  c.mean_cancellation = sk * sigma / std::sqrt(mu_norm2);
  return c;
}

}  // namespace ngvi
