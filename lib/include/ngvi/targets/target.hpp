#pragma once
/// @file
/// What a target log density must provide to the LSK natural-gradient VI of optim/lsk_ngvi.hpp
/// (docs/systems.md §C.1): an unnormalised log density log π on R^d, its gradient, optionally its
/// Hessian, the dimension, and optionally a data sub-sampling view π_B whose likelihood is scaled by
/// n/|B| so that E_B[log π_B] = log π.
///
/// A type T is a target when it names its scalar as `T::Scalar` and has
///   `Index dim() const`, `Scalar log_density(const Vec<Scalar>&) const`,
///   `Vec<Scalar> gradient(const Vec<Scalar>&) const`.
/// Optional capabilities, detected at compile time:
///   `Mat<Scalar> hessian(const Vec<Scalar>&) const`                       (HessianTarget);
///   `Index n_data() const` and `subsample(const std::vector<Index>&) const` returning a target
///   (SubsampledTarget);
///   `expected_log_density(q)`, `expected_gradient(q)`, `expected_hessian(q)` for q = N(m, Σ) in
///   closed form (ExactExpectationTarget: quadratic targets, used by the exact-expectation checks);
///   `evaluate(z, bool with_hessian)` returning TargetEval, a fused evaluation that saves work.
#include <concepts>
#include <vector>

#include "ngvi/expfam/gaussian_params.hpp"
#include "ngvi/scalar/types.hpp"

namespace ngvi {

/// Value, gradient and (when asked) Hessian of log π at one point.
template <class Scalar>
struct TargetEval {
  Scalar value;
  Vec<Scalar> grad;
  Mat<Scalar> hess;
};

template <class T>
concept Target = requires(const T& t, const Vec<typename T::Scalar>& z) {
  typename T::Scalar;
  { t.dim() } -> std::convertible_to<Index>;
  { t.log_density(z) } -> std::convertible_to<typename T::Scalar>;
  { t.gradient(z) } -> std::convertible_to<Vec<typename T::Scalar>>;
};

template <class T>
concept HessianTarget = Target<T> && requires(const T& t, const Vec<typename T::Scalar>& z) {
  { t.hessian(z) } -> std::convertible_to<Mat<typename T::Scalar>>;
};

template <class T>
concept SubsampledTarget = Target<T> && requires(const T& t, const std::vector<Index>& batch) {
  { t.n_data() } -> std::convertible_to<Index>;
  { t.subsample(batch) } -> Target;
};

template <class T>
concept ExactExpectationTarget = Target<T> && requires(const T& t, const GaussianMoments<typename T::Scalar>& q) {
  { t.expected_log_density(q) } -> std::convertible_to<typename T::Scalar>;
  { t.expected_gradient(q) } -> std::convertible_to<Vec<typename T::Scalar>>;
  { t.expected_hessian(q) } -> std::convertible_to<Mat<typename T::Scalar>>;
};

template <class T>
concept FusedTarget = Target<T> && requires(const T& t, const Vec<typename T::Scalar>& z) {
  { t.evaluate(z, true) } -> std::convertible_to<TargetEval<typename T::Scalar>>;
};

/// Value, gradient and (if `with_hessian` and the target has one) Hessian of log π at z, through the
/// fused `evaluate` when the target offers it.
template <Target T>
TargetEval<typename T::Scalar> evaluate_target(const T& t, const Vec<typename T::Scalar>& z, bool with_hessian) {
  if constexpr (FusedTarget<T>) {
    return t.evaluate(z, with_hessian);
  } else {
    TargetEval<typename T::Scalar> e{t.log_density(z), t.gradient(z), {}};
    if constexpr (HessianTarget<T>)
      if (with_hessian) e.hess = t.hessian(z);
    return e;
  }
}

}  // namespace ngvi
