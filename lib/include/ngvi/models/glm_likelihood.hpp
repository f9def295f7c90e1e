#pragma once
/// @file
/// Pointwise log-likelihoods of the generalised linear models of the theory, with their gradients
/// and Hessians in the latent z ∈ R^d (ngvi-math.md §6.1–6.2). The design matrix rows a_iᵀ are used
/// as given: for a model with a bias, append a column of ones to X (see `with_bias_column`).
///
///   logistic (Bernoulli-logit), y_i ∈ {0, 1}, u_i = a_iᵀz:
///     ℓ(z) = Σ_i [ y_i u_i − softplus(u_i) ],  ∇ℓ = Σ_i (y_i − σ(u_i)) a_i,
///     ∇²ℓ = −Σ_i σ(u_i)(1 − σ(u_i)) a_i a_iᵀ   (concave: ∇²ℓ ≼ 0);
///   Poisson (log link), y_i ∈ {0, 1, 2, …}:
///     ℓ(z) = Σ_i [ y_i u_i − exp(u_i) − log(y_i!) ],  ∇ℓ = Σ_i (y_i − e^{u_i}) a_i,
///     ∇²ℓ = −Σ_i e^{u_i} a_i a_iᵀ   (concave).
/// softplus(u) = log(1 + e^u) is evaluated as max(u, 0) + log1p(e^{−|u|}), which neither overflows
/// nor loses the small tail.
#include <boost/math/special_functions/log1p.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <string_view>

#include "ngvi/models/dataset.hpp"

namespace ngvi {

/// softplus(u) = log(1 + e^u), stable for every u.
template <class Scalar>
Scalar softplus(const Scalar& u) {
  using std::abs;
  using std::exp;
  using boost::math::log1p;
  const Scalar zero(0);
  return (u > zero ? u : zero) + log1p(exp(-abs(u)));
}

/// σ(u) = 1/(1 + e^{−u}), evaluated without overflow.
template <class Scalar>
Scalar sigmoid(const Scalar& u) {
  using std::exp;
  if (u >= Scalar(0)) return Scalar(1) / (Scalar(1) + exp(-u));
  const Scalar e = exp(u);
  return e / (Scalar(1) + e);
}

/// X with a column of ones appended (the bias of "logistic regression with bias").
template <class Scalar>
Mat<Scalar> with_bias_column(const Mat<Scalar>& x) {
  Mat<Scalar> a(x.rows(), x.cols() + 1);
  a.leftCols(x.cols()) = x;
  a.col(x.cols()).setOnes();
  return a;
}

/// Checks labels y_i ∈ {0, 1}.
template <class Scalar>
void validate_binary_labels(const Dataset<Scalar>& data, std::string_view func) {
  validate_dataset(data, func);
  for (Index i = 0; i < data.n(); ++i)
    if (!(data.y(i) == Scalar(0) || data.y(i) == Scalar(1)))
      throw_domain(func, "data.y", "has a label outside {0, 1} at data row " + std::to_string(i + 1) + " (1-based)");
}

/// Checks counts y_i ∈ {0, 1, 2, …}.
template <class Scalar>
void validate_counts(const Dataset<Scalar>& data, std::string_view func) {
  using std::floor;
  validate_dataset(data, func);
  for (Index i = 0; i < data.n(); ++i)
    if (!(data.y(i) >= Scalar(0)) || floor(data.y(i)) != data.y(i))
      throw_domain(func, "data.y", "has a value that is not a non-negative integer count at data row " + std::to_string(i + 1) + " (1-based)");
}

template <class Scalar>
void require_latent_dim(const Dataset<Scalar>& data, const Vec<Scalar>& z, std::string_view func) {
  if (z.size() != data.d())
    throw_size(func, "z", "has dimension " + std::to_string(z.size()) + ", expected " + std::to_string(data.d()));
  require_finite(z, func, "z");
}

/// Value, gradient and Hessian of a pointwise log-likelihood at one z.
template <class Scalar>
struct LogLikDerivatives {
  Scalar value;
  Vec<Scalar> grad;
  Mat<Scalar> hess;
};

/// Logistic log-likelihood ℓ(z) and its derivatives (see the file comment).
/// @pre labels in {0, 1}; z of dimension d; all finite.
/// @throws std::domain_error / std::invalid_argument naming the argument otherwise.
template <class Scalar>
LogLikDerivatives<Scalar> logistic_loglik(const Dataset<Scalar>& data, const Vec<Scalar>& z, bool with_hessian = true) {
  constexpr const char* f = "ngvi::logistic_loglik";
  validate_binary_labels(data, f);
  require_latent_dim(data, z, f);
  const Vec<Scalar> u = data.X * z;
  LogLikDerivatives<Scalar> out{Scalar(0), Vec<Scalar>::Zero(data.d()), Mat<Scalar>()};
  Vec<Scalar> resid(data.n()), curv(data.n());
  for (Index i = 0; i < data.n(); ++i) {
    const Scalar s = sigmoid(u(i));
    out.value += data.y(i) * u(i) - softplus(u(i));
    resid(i) = data.y(i) - s;
    curv(i) = s * (Scalar(1) - s);
  }
  out.grad = data.X.transpose() * resid;
  if (with_hessian) out.hess = -(data.X.transpose() * curv.asDiagonal() * data.X);
  return out;
}

/// Poisson log-likelihood ℓ(z) (log link) and its derivatives (see the file comment).
/// @pre counts y_i non-negative integers; z of dimension d; all finite.
template <class Scalar>
LogLikDerivatives<Scalar> poisson_loglik(const Dataset<Scalar>& data, const Vec<Scalar>& z, bool with_hessian = true) {
  constexpr const char* f = "ngvi::poisson_loglik";
  using std::exp;
  using boost::math::lgamma;
  validate_counts(data, f);
  require_latent_dim(data, z, f);
  const Vec<Scalar> u = data.X * z;
  LogLikDerivatives<Scalar> out{Scalar(0), Vec<Scalar>::Zero(data.d()), Mat<Scalar>()};
  Vec<Scalar> resid(data.n()), rate(data.n());
  for (Index i = 0; i < data.n(); ++i) {
    rate(i) = exp(u(i));
    out.value += data.y(i) * u(i) - rate(i) - lgamma(data.y(i) + Scalar(1));
    resid(i) = data.y(i) - rate(i);
  }
  if (!is_finite_scalar(out.value)) throw_domain(f, "z", "gives a non-finite log-likelihood (exp(x_i^T z) overflows)");
  out.grad = data.X.transpose() * resid;
  if (with_hessian) out.hess = -(data.X.transpose() * rate.asDiagonal() * data.X);
  return out;
}

}  // namespace ngvi
