#pragma once
/// @file
/// The categorical distribution on K ≥ 2 categories as a minimal exponential family.
///
/// Convention: logits relative to the last category. With probabilities p₁…p_K,
///   η_k = log(p_k / p_K), k = 1…K−1,   Ω = R^{K−1},
///   T(x) = (1[x = 1], …, 1[x = K−1]),   μ = (p₁, …, p_{K−1}),   M = {μ > 0, Σ μ < 1},
///   A(η) = log(1 + Σₖ exp ηₖ)  (evaluated with the largest of 0 and ηₖ factored out),
///   A*(μ) = Σ_{k=1}^{K} p_k log p_k with p_K = 1 − Σ μ,
///   F(η) = diag(p) − p pᵀ,   F(η)⁻¹ u = u / p + (Σ u) / p_K · 1.
#include "ngvi/expfam/family.hpp"

namespace ngvi {

template <class ScalarT>
class Categorical {
 public:
  using Scalar = ScalarT;
  using Natural = Vec<Scalar>;
  using Expectation = Vec<Scalar>;

  /// @param k number of categories, k ≥ 2. @throws std::invalid_argument naming 'k' otherwise.
  explicit Categorical(Index k) : k_(k) {
    if (k < 2) throw_size("ngvi::Categorical", "k", "must be at least 2");
  }

  template <class S>
  Categorical<S> rebind() const { return Categorical<S>(k_); }

  Index categories() const { return k_; }
  Index flat_size() const { return k_ - 1; }
  Index size() const { return k_ - 1; }

  bool in_domain(const Natural& eta) const { return eta.size() == k_ - 1 && all_finite(eta); }
  bool in_mean_domain(const Expectation& mu) const {
    if (mu.size() != k_ - 1 || !all_finite(mu)) return false;
    return mu.minCoeff() > Scalar(0) && mu.sum() < Scalar(1);
  }

  Scalar log_partition(const Natural& eta) const {
    require_natural(eta, "ngvi::Categorical::log_partition", "eta");
    return log_partition_unchecked(eta);
  }
  /// μ_k = exp(η_k − A(η)).
  Expectation to_mean(const Natural& eta) const {
    using std::exp;
    require_natural(eta, "ngvi::Categorical::to_mean", "eta");
    const Scalar a = log_partition_unchecked(eta);
    Expectation mu(k_ - 1);
    for (Index i = 0; i < k_ - 1; ++i) mu(i) = exp(eta(i) - a);
    return mu;
  }
  /// η_k = log μ_k − log(1 − Σ μ).
  Natural to_natural(const Expectation& mu) const {
    using std::log;
    require_mean(mu, "ngvi::Categorical::to_natural", "mu");
    const Scalar log_last = log(Scalar(Scalar(1) - mu.sum()));
    Natural eta(k_ - 1);
    for (Index i = 0; i < k_ - 1; ++i) eta(i) = log(mu(i)) - log_last;
    return eta;
  }
  Scalar conjugate(const Expectation& mu) const {
    using std::log;
    require_mean(mu, "ngvi::Categorical::conjugate", "mu");
    const Scalar last = Scalar(1) - mu.sum();
    Scalar a = last * log(last);
    for (Index i = 0; i < k_ - 1; ++i) a += mu(i) * log(mu(i));
    return a;
  }
  Scalar pairing(const Natural& eta, const Expectation& mu) const {
    if (eta.size() != k_ - 1 || mu.size() != k_ - 1) throw_size("ngvi::Categorical::pairing", "mu", "has a size other than K - 1");
    return eta.dot(mu);
  }
  /// KL(q‖p) = Σ_{k=1}^{K} q_k (log q_k − log p_k) over all K probabilities, with
  /// q_k = exp(η_k)/(1 + Σ exp η) formed explicitly (the last with η_K = 0).
  Scalar kl(const Natural& q, const Natural& p) const {
    using std::exp;
    using std::log;
    require_natural(q, "ngvi::Categorical::kl", "q");
    require_natural(p, "ngvi::Categorical::kl", "p");
    const Vec<Scalar> pq = probabilities(q);
    const Vec<Scalar> pp = probabilities(p);
    Scalar k(0);
    for (Index i = 0; i < k_; ++i) k += pq(i) * log(pq(i) / pp(i));
    return k;
  }
  Scalar bregman_log_partition(const Natural& eta, const Natural& eta_ref) const {
    return generic_bregman_log_partition(*this, eta, eta_ref);
  }
  Scalar bregman_conjugate(const Expectation& mu, const Expectation& mu_ref) const {
    return generic_bregman_conjugate(*this, mu, mu_ref);
  }
  /// F(η) v = p ∘ v − p (pᵀ v).
  Expectation fisher_apply(const Natural& eta, const Natural& v) const {
    require_size(v, "ngvi::Categorical::fisher_apply", "v");
    const Expectation p = to_mean(eta);
    const Scalar pv = p.dot(v);
    return (p.cwiseProduct(v) - pv * p).eval();
  }
  /// F⁻¹ u = u / μ + (Σ u) / p_K, p_K = 1 − Σ μ.
  Natural fisher_inverse_apply(const Expectation& mu, const Expectation& u) const {
    require_mean(mu, "ngvi::Categorical::fisher_inverse_apply", "mu");
    require_size(u, "ngvi::Categorical::fisher_inverse_apply", "u");
    const Scalar c = u.sum() / (Scalar(1) - mu.sum());
    Natural out(k_ - 1);
    for (Index i = 0; i < k_ - 1; ++i) out(i) = u(i) / mu(i) + c;
    return out;
  }
  /// All K probabilities (softmax of (η, 0)).
  Vec<Scalar> probabilities(const Natural& eta) const {
    using std::exp;
    using std::max;
    require_natural(eta, "ngvi::Categorical::probabilities", "eta");
    Scalar m(0);
    for (Index i = 0; i < k_ - 1; ++i) m = max(m, eta(i));
    Vec<Scalar> p(k_);
    for (Index i = 0; i < k_ - 1; ++i) p(i) = exp(eta(i) - m);
    p(k_ - 1) = exp(-m);
    const Scalar s = p.sum();
    p /= s;
    return p;
  }
  Vec<Scalar> flatten_natural(const Natural& eta) const { return eta; }
  Vec<Scalar> flatten_expectation(const Expectation& mu) const { return mu; }
  Natural unflatten_natural(const Eigen::Ref<const Vec<Scalar>>& v) const {
    require_size(v, "ngvi::Categorical::unflatten_natural", "v");
    return v;
  }
  Expectation unflatten_expectation(const Eigen::Ref<const Vec<Scalar>>& v) const {
    require_size(v, "ngvi::Categorical::unflatten_expectation", "v");
    return v;
  }
  Natural direction(Index i) const { return Natural::Unit(k_ - 1, i); }

 private:
  template <class V>
  void require_size(const V& v, std::string_view func, std::string_view arg) const {
    if (v.size() != k_ - 1)
      throw_size(func, arg, "has size " + std::to_string(v.size()) + ", expected K - 1 = " + std::to_string(k_ - 1));
  }
  void require_natural(const Natural& eta, std::string_view func, std::string_view arg) const {
    require_size(eta, func, arg);
    require_finite(eta, func, arg);
  }
  void require_mean(const Expectation& mu, std::string_view func, std::string_view arg) const {
    require_size(mu, func, arg);
    require_finite(mu, func, arg);
    if (!in_mean_domain(mu))
      throw_domain(func, arg, "is not a vector of category probabilities: needs every entry > 0 and sum < 1");
  }
  Scalar log_partition_unchecked(const Natural& eta) const {
    using std::exp;
    using std::log;
    using std::max;
    Scalar m(0);
    for (Index i = 0; i < k_ - 1; ++i) m = max(m, eta(i));
    Scalar s = exp(-m);
    for (Index i = 0; i < k_ - 1; ++i) s += exp(eta(i) - m);
    return m + log(s);
  }

  Index k_;
};

}  // namespace ngvi
