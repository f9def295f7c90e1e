#pragma once
/// @file
/// The Monte Carlo routes to the expected log-likelihood's gradient at a Gaussian q = N(m, LLᵀ) that
/// the kit's non-conjugate algorithms take (docs/math.md §7.2), behind one concept, and a route as a
/// value chosen at run time.
///
/// A route R (GaussianGradientRoute) is a type with
///   R::name                                         its name;
///   R::needs_lower_inverse                          whether natural_into reads L⁻¹ (else it is handed
///                                                   an empty matrix, and the stepper forms none);
///   R::natural_into(ℓ, m, L, L⁻¹, ε, scratch, ĝ)   ĝ in natural coordinates from the d × K draws ε
///                                                   (NGD's direction: MonteCarloGradient);
///   R::mL_from(ℓ, m, L, ε)                          (∇_m, ∇_L) in the square-root parameters (SGD's:
///                                                   SqrtMonteCarloGradient).
/// Shipped: PriceRoute (Bonnet–Price, with ℓ's Hessians; estimators/price.hpp) and ReparamRoute
/// (reparameterisation, gradients only; estimators/reparam.hpp). Another route is another type,
/// handed to the estimators as GradientRoute<Scalar, LogLik>::of<R>(): a value, so that the run is
/// instantiated once whatever route it takes. Callers that choose a route at run time (the ngvi
/// command, the claims' variants) hold its name (R::name); route_of finds the shipped route of that
/// name (ShippedRoutes: a route added there is chosen by its name everywhere, with no enum or
/// dispatch to edit).
#include <concepts>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>

#include "ngvi/estimators/price.hpp"
#include "ngvi/estimators/reparam.hpp"

namespace ngvi {

/// What a Monte Carlo gradient route provides for one scalar and log-likelihood (file comment).
template <class R, class Scalar, class LogLik>
concept GaussianGradientRoute =
    requires(const LogLik& loglik, const Vec<Scalar>& m, const Mat<Scalar>& l, const Mat<Scalar>& l_inv, const Mat<Scalar>& eps,
             MonteCarloScratch<Scalar>& scratch, GaussianPair<Scalar>& g) {
      { R::name } -> std::convertible_to<std::string_view>;
      { R::needs_lower_inverse } -> std::convertible_to<bool>;
      R::template natural_into<Scalar, LogLik>(loglik, m, l, l_inv, eps, scratch, g);
      { R::template mL_from<Scalar, LogLik>(loglik, m, l, eps) } -> std::same_as<SqrtParamGradient<Scalar>>;
    };

/// Bonnet–Price: ĝ = (ḡ − H̄m, ½H̄) with ḡ, H̄ the draws' mean gradient and Hessian of ℓ.
struct PriceRoute {
  static constexpr std::string_view name = "price";
  static constexpr bool needs_lower_inverse = false;
  template <class Scalar, class LogLik>
  static void natural_into(const LogLik& loglik, const Vec<Scalar>& m, const Mat<Scalar>& l, const Mat<Scalar>& /*l_inv*/,
                           const Mat<Scalar>& eps, MonteCarloScratch<Scalar>& s, GaussianPair<Scalar>& g) {
    price_gradient_into(loglik, m, l, eps, s, g);
  }
  template <class Scalar, class LogLik>
  static SqrtParamGradient<Scalar> mL_from(const LogLik& loglik, const Vec<Scalar>& m, const Mat<Scalar>& l, const Mat<Scalar>& eps) {
    return price_gradient_mL_from(loglik, m, l, eps);
  }
};

/// Reparameterisation (Algorithm 1): gradients of ℓ only, through the Cholesky backward pass.
struct ReparamRoute {
  static constexpr std::string_view name = "reparam";
  static constexpr bool needs_lower_inverse = true;
  template <class Scalar, class LogLik>
  static void natural_into(const LogLik& loglik, const Vec<Scalar>& m, const Mat<Scalar>& l, const Mat<Scalar>& l_inv,
                           const Mat<Scalar>& eps, MonteCarloScratch<Scalar>& s, GaussianPair<Scalar>& g) {
    reparam_gradient_into(loglik, m, l, l_inv, eps, s, g);
  }
  template <class Scalar, class LogLik>
  static SqrtParamGradient<Scalar> mL_from(const LogLik& loglik, const Vec<Scalar>& m, const Mat<Scalar>& l, const Mat<Scalar>& eps) {
    return reparam_gradient_mL_from(loglik, m, l, eps);
  }
};

/// A route as a value for one scalar and log-likelihood: its name and its two functions.
template <class Scalar, class LogLik>
struct GradientRoute {
  std::string_view name;
  bool needs_lower_inverse = true;
  void (*natural_into)(const LogLik&, const Vec<Scalar>&, const Mat<Scalar>&, const Mat<Scalar>&, const Mat<Scalar>&,
                       MonteCarloScratch<Scalar>&, GaussianPair<Scalar>&) = nullptr;
  SqrtParamGradient<Scalar> (*mL_from)(const LogLik&, const Vec<Scalar>&, const Mat<Scalar>&, const Mat<Scalar>&) = nullptr;

  template <class R>
    requires GaussianGradientRoute<R, Scalar, LogLik>
  static GradientRoute of() {
    return {R::name, R::needs_lower_inverse, &R::template natural_into<Scalar, LogLik>, &R::template mL_from<Scalar, LogLik>};
  }
};

/// The shipped routes, for callers that choose one by its name at run time (route_of).
using ShippedRoutes = std::tuple<PriceRoute, ReparamRoute>;

/// The shipped routes' names, comma-separated ("price, reparam"), for messages.
inline std::string shipped_route_names() {
  return std::apply([](auto... r) {
    std::string s;
    ((s += (s.empty() ? "" : ", ") + std::string(decltype(r)::name)), ...);
    return s;
  }, ShippedRoutes{});
}

/// The shipped route named `name`.
/// @throws std::invalid_argument naming the route when no shipped route has that name.
template <class Scalar, class LogLik>
GradientRoute<Scalar, LogLik> route_of(std::string_view name) {
  GradientRoute<Scalar, LogLik> out;
  const bool found = std::apply([&](auto... r) {
    return ((decltype(r)::name == name ? (out = GradientRoute<Scalar, LogLik>::template of<decltype(r)>(), true) : false) || ...);
  }, ShippedRoutes{});
  if (!found) throw std::invalid_argument("gradient route: '" + std::string(name) + "' is not a shipped route (" + shipped_route_names() + ")");
  return out;
}

}  // namespace ngvi
