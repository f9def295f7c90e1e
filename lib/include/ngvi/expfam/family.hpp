#pragma once
/// @file
/// Exponential families as a concept (docs/math.md §1.1–1.3).
///
/// A family is q_η(x) = h(x) exp(⟨η, T(x)⟩ − A(η)) in a minimal representation, with natural
/// parameter η ∈ Ω (open, convex), expectation parameter μ = ∇A(η) = E_q[T(x)] ∈ M = int conv T,
/// and the convex conjugate A*(μ) = ⟨η, μ⟩ − A(η) at η = ∇A*(μ) (the negative entropy relative
/// to h). KL(q‖p) = D_A*(μ_q, μ_p) = D_A(η_p, η_q) (Lemma 4).
///
/// Convention. A family is a small object `F` (it may carry dimensions: d, K, the component count
/// of a product), templated on its scalar; every operation is a const member function:
///
///   F::Scalar, F::Natural, F::Expectation        types; Natural and Expectation are vector spaces
///                                                (a + b, a - b, s * a, a += b, a *= s), so that an
///                                                update λ ← (1 − ρ)λ + ρλ̂ is written once;
///   f.log_partition(η), f.conjugate(μ)           A(η) and A*(μ);
///   f.to_mean(η), f.to_natural(μ)                ∇A and ∇A* (the dual maps);
///   f.in_domain(η), f.in_mean_domain(μ)          η ∈ Ω, μ ∈ M (finite entries included); never throw;
///   f.pairing(η, μ)                              ⟨η, μ⟩ (also used between directions and gradients);
///   f.kl(η_q, η_p)                               KL(q‖p) by the family's closed form (an independent
///                                                route from the Bregman forms);
///   f.bregman_log_partition(η, η'), f.bregman_conjugate(μ, μ')   D_A and D_A* from their definitions;
///   f.fisher_apply(η, v), f.fisher_inverse_apply(μ, u)           ∇²A(η)v and ∇²A*(μ)u = F(η)⁻¹u;
///   f.flat_size(), f.flatten_natural(η), f.flatten_expectation(μ), f.unflatten_natural(v),
///   f.unflatten_expectation(v)                   coordinates: ⟨η, μ⟩ = flatten(η)ᵀ flatten(μ);
///   f.size(), f.direction(i)                     a basis of the tangent space of Ω (for a full
///                                                Gaussian, symmetric directions; size() ≤ flat_size());
///   f.template rebind<S>()                       the same family in scalar S.
///
/// Functions that need η ∈ Ω or μ ∈ M throw std::domain_error naming the argument otherwise
/// (std::invalid_argument on a dimension mismatch).
#include <concepts>

#include "ngvi/linalg/validate.hpp"
#include "ngvi/scalar/types.hpp"

namespace ngvi {

/// The vector-space operations the trajectory engine needs on parameters and directions.
template <class P, class Scalar>
concept ParameterSpace = std::copy_constructible<P> && requires(P a, const P& b, const Scalar& s) {
  { a + b } -> std::convertible_to<P>;
  { a - b } -> std::convertible_to<P>;
  { s * b } -> std::convertible_to<P>;
  a += b;
  a *= s;
};

template <class F>
concept ExponentialFamily = requires {
  typename F::Scalar;
  typename F::Natural;
  typename F::Expectation;
} && ParameterSpace<typename F::Natural, typename F::Scalar> &&
    ParameterSpace<typename F::Expectation, typename F::Scalar> &&
    requires(const F& f, const typename F::Natural& eta, const typename F::Expectation& mu,
             const Vec<typename F::Scalar>& v, Index i) {
      { f.log_partition(eta) } -> std::convertible_to<typename F::Scalar>;
      { f.conjugate(mu) } -> std::convertible_to<typename F::Scalar>;
      { f.to_mean(eta) } -> std::convertible_to<typename F::Expectation>;
      { f.to_natural(mu) } -> std::convertible_to<typename F::Natural>;
      { f.in_domain(eta) } -> std::same_as<bool>;
      { f.in_mean_domain(mu) } -> std::same_as<bool>;
      { f.pairing(eta, mu) } -> std::convertible_to<typename F::Scalar>;
      { f.kl(eta, eta) } -> std::convertible_to<typename F::Scalar>;
      { f.bregman_log_partition(eta, eta) } -> std::convertible_to<typename F::Scalar>;
      { f.bregman_conjugate(mu, mu) } -> std::convertible_to<typename F::Scalar>;
      { f.fisher_apply(eta, eta) } -> std::convertible_to<typename F::Expectation>;
      { f.fisher_inverse_apply(mu, mu) } -> std::convertible_to<typename F::Natural>;
      { f.flat_size() } -> std::convertible_to<Index>;
      { f.flatten_natural(eta) } -> std::convertible_to<Vec<typename F::Scalar>>;
      { f.flatten_expectation(mu) } -> std::convertible_to<Vec<typename F::Scalar>>;
      { f.unflatten_natural(v) } -> std::convertible_to<typename F::Natural>;
      { f.unflatten_expectation(v) } -> std::convertible_to<typename F::Expectation>;
      { f.size() } -> std::convertible_to<Index>;
      { f.direction(i) } -> std::convertible_to<typename F::Natural>;
    };

/// D_A(η, η') = A(η) − A(η') − ⟨η − η', ∇A(η')⟩ for any family, from the definition.
template <ExponentialFamily F>
typename F::Scalar generic_bregman_log_partition(const F& f, const typename F::Natural& eta,
                                                 const typename F::Natural& eta_ref) {
  const typename F::Natural diff = eta - eta_ref;
  return f.log_partition(eta) - f.log_partition(eta_ref) - f.pairing(diff, f.to_mean(eta_ref));
}

/// D_A*(μ, μ') = A*(μ) − A*(μ') − ⟨∇A*(μ'), μ − μ'⟩ for any family, from the definition.
template <ExponentialFamily F>
typename F::Scalar generic_bregman_conjugate(const F& f, const typename F::Expectation& mu,
                                             const typename F::Expectation& mu_ref) {
  const typename F::Expectation diff = mu - mu_ref;
  return f.conjugate(mu) - f.conjugate(mu_ref) - f.pairing(f.to_natural(mu_ref), diff);
}

/// Casts a vector of one scalar type to another (exact for widening casts).
template <class To, class From>
Vec<To> cast_flat(const Vec<From>& v) {
  Vec<To> out(v.size());
  for (Index i = 0; i < v.size(); ++i) out(i) = To(v(i));
  return out;
}

}  // namespace ngvi
