#pragma once
/// @file
/// Pointwise log-likelihoods of the generalised linear models of the theory, with their gradients
/// and Hessians in the latent z ∈ R^d (docs/math.md §6.1–6.2). The design matrix rows a_iᵀ are used
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
#include <string>
#include <string_view>
#include <utility>

#include "ngvi/data/dataset.hpp"
#include "ngvi/kernels/rank_update.hpp"

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

namespace detail {

/// One datum's contribution to ℓ at u = a_iᵀz: its value, its residual r = ∂ℓ_i/∂u (the gradient
/// is Σ_i r_i a_i) and its curvature c = −∂²ℓ_i/∂u² ≥ 0 (the Hessian is −Σ_i c_i a_i a_iᵀ).
template <class Scalar>
struct GlmDatum {
  Scalar value, resid, curv;
};

/// Bernoulli-logit datum: e^{−|u|} is shared by σ(u) and softplus(u). Without kValue the value is
/// left 0 (the estimators' block forms need the derivatives only, and log1p is a large part of the
/// cost; bench/README.md).
template <class Scalar, bool kValue = true>
GlmDatum<Scalar> logistic_datum(const Scalar& y, const Scalar& u) {
  using std::abs;
  using std::exp;
  using boost::math::log1p;
  const Scalar zero(0), one(1);
  const Scalar e = exp(-abs(u));
  const Scalar s = u >= zero ? one / (one + e) : e / (one + e);
  Scalar value(0);
  if constexpr (kValue) value = y * u - ((u > zero ? u : zero) + log1p(e));
  return {value, y - s, s * (one - s)};
}

/// Poisson (log link) datum: rate e^u is both the residual's subtrahend and the curvature. Without
/// kValue the value is left 0.
template <class Scalar, bool kValue = true>
GlmDatum<Scalar> poisson_datum(const Scalar& y, const Scalar& u) {
  using std::exp;
  using boost::math::lgamma;
  const Scalar rate = exp(u);
  Scalar value(0);
  if constexpr (kValue) value = y * u - rate - lgamma(y + Scalar(1));
  return {value, y - rate, rate};
}

/// The logistic kernel of logistic_loglik, on data and z that are already valid. σ(u) and
/// softplus(u) share one exponential, e^{−|u|}: σ(u) = 1/(1 + e^{−u}) for u ≥ 0 and e^{u}/(1 + e^{u})
/// below, as `sigmoid` evaluates them, and softplus(u) = max(u, 0) + log1p(e^{−|u|}) as `softplus`
/// does, so the values are those of the two functions, with one exponential per datum instead
/// of two.
template <class Scalar>
LogLikDerivatives<Scalar> logistic_loglik_valid(const Dataset<Scalar>& data, const Vec<Scalar>& z, bool with_hessian) {
  const Vec<Scalar> u = data.X * z;
  LogLikDerivatives<Scalar> out{Scalar(0), Vec<Scalar>::Zero(data.d()), Mat<Scalar>()};
  Vec<Scalar> resid(data.n()), curv(data.n());
  for (Index i = 0; i < data.n(); ++i) {
    const GlmDatum<Scalar> t = logistic_datum(data.y(i), u(i));
    out.value += t.value;
    resid(i) = t.resid;
    curv(i) = t.curv;
  }
  out.grad = data.X.transpose() * resid;
  if (with_hessian) out.hess = -(data.X.transpose() * curv.asDiagonal() * data.X);
  return out;
}

/// The Poisson kernel of poisson_loglik, on data and z that are already valid (the overflow of
/// exp(x_iᵀz) is still reported, naming 'z').
template <class Scalar>
LogLikDerivatives<Scalar> poisson_loglik_valid(const Dataset<Scalar>& data, const Vec<Scalar>& z, bool with_hessian) {
  const Vec<Scalar> u = data.X * z;
  LogLikDerivatives<Scalar> out{Scalar(0), Vec<Scalar>::Zero(data.d()), Mat<Scalar>()};
  Vec<Scalar> resid(data.n()), rate(data.n());
  for (Index i = 0; i < data.n(); ++i) {
    const GlmDatum<Scalar> t = poisson_datum(data.y(i), u(i));
    out.value += t.value;
    resid(i) = t.resid;
    rate(i) = t.curv;
  }
  if (!is_finite_scalar(out.value)) throw_domain("ngvi::poisson_loglik", "z", "gives a non-finite log-likelihood (exp(x_i^T z) overflows)");
  out.grad = data.X.transpose() * resid;
  if (with_hessian) out.hess = -(data.X.transpose() * rate.asDiagonal() * data.X);
  return out;
}

}  // namespace detail

/// Buffers of the GLMs' block forms (and of any block log-likelihood, estimators/price.hpp): sized on
/// first use and reused, so a block evaluation does not allocate once they are sized, up to the
/// order at which Eigen's product kernels take their packing buffers from the heap
/// (bench/README.md).
template <class Scalar>
struct BlockWork {
  Mat<Scalar> resid;  ///< n × K: the linear predictors U = X Z, then the residuals
  Vec<Scalar> curv;   ///< n: the curvature sums Σ_k c_ik, then the weights √c̄_i
  Vec<Scalar> rbar;   ///< n: the mean residuals r̄
  Mat<Scalar> rows;   ///< d × n: Xᵀ diag(√c̄), whose Gram product is −H̄
};

namespace detail {

/// The per-point pass shared by the block forms: overwrites `r` with the residuals R = (r_ik) at the
/// linear predictors U = X Z (n × K), and when `csum` is given sets it to the curvature sums
/// Σ_k c_ik. `datum(y, u)` is the family's GlmDatum (its value is not used). Throws naming 'z' if a
/// derivative it keeps at some z_k is not finite (the Poisson rate overflows).
template <class Scalar, class Datum>
void glm_block_residuals(const Dataset<Scalar>& data, const Mat<Scalar>& z, Mat<Scalar>& r, Vec<Scalar>* csum, std::string_view func,
                         Datum&& datum) {
  const Index n = data.n(), k = z.cols();
  r.noalias() = data.X * z;
  if (csum != nullptr) csum->setZero(n);
  for (Index c = 0; c < k; ++c) {
    Scalar check(0);  // finite exactly when every kept residual and curvature of this point is
    for (Index i = 0; i < n; ++i) {
      const GlmDatum<Scalar> t = datum(data.y(i), r(i, c));
      r(i, c) = t.resid;
      check += t.resid;
      if (csum != nullptr) {
        check += t.curv;
        (*csum)(i) += t.curv;
      }
    }
    if (!is_finite_scalar(check)) throw_domain(func, "z", "gives non-finite log-likelihood derivatives at sample " + std::to_string(c));
  }
}

/// Sample means over the K columns z_k of `z` of a GLM log-likelihood's gradient and (when asked)
/// Hessian, from one product U = X Z: with r_ik and c_ik the residual and curvature of datum i at
/// u_ik,
///   ḡ = (1/K) Σ_k Xᵀ r_k = Xᵀ r̄,   H̄ = −(1/K) Σ_k Xᵀ diag(c_k) X = −Xᵀ diag(c̄) X,
/// since the Hessian is linear in the curvatures: one weighted Gram product for all K points where
/// the point-by-point route forms K of them. The families are log-concave (c ≥ 0), so the Gram
/// product is that of the rows scaled by √c̄ (symmetric_gram: a symmetric rank-n update, half the
/// multiply-adds of the general product, above its small-size switch). Throws as
/// glm_block_residuals, and naming 'z' if a curvature is negative.
template <class Scalar, class Datum>
void glm_block_means(const Dataset<Scalar>& data, const Mat<Scalar>& z, bool with_hessian, Vec<Scalar>& gbar, Mat<Scalar>& hbar,
                     BlockWork<Scalar>& w, std::string_view func, Datum&& datum) {
  using std::sqrt;
  glm_block_residuals<Scalar>(data, z, w.resid, with_hessian ? &w.curv : nullptr, func, std::forward<Datum>(datum));
  const Scalar inv_k = Scalar(1) / Scalar(z.cols());
  w.rbar.noalias() = w.resid.rowwise().sum();
  w.rbar *= inv_k;
  gbar.noalias() = data.X.transpose() * w.rbar;
  if (!with_hessian) return;
  for (Index i = 0; i < data.n(); ++i) {
    if (!(w.curv(i) >= Scalar(0)))
      throw_domain(func, "z", "gives a negative curvature at datum " + std::to_string(i) + " (the block Hessian needs a log-concave family)");
    w.curv(i) = sqrt(w.curv(i) * inv_k);
  }
  w.rows.noalias() = data.X.transpose() * w.curv.asDiagonal();
  symmetric_gram(hbar, w.rows, Scalar(-1));
}

/// The gradients ∇ℓ(z_k) = Xᵀ r_k as the columns of `grads` (d × K), from one product U = X Z and
/// one product Xᵀ R. Throws as glm_block_residuals.
template <class Scalar, class Datum>
void glm_block_gradients(const Dataset<Scalar>& data, const Mat<Scalar>& z, Mat<Scalar>& grads, BlockWork<Scalar>& w, std::string_view func,
                         Datum&& datum) {
  glm_block_residuals<Scalar>(data, z, w.resid, nullptr, func, std::forward<Datum>(datum));
  grads.noalias() = data.X.transpose() * w.resid;
}

}  // namespace detail

/// Logistic log-likelihood ℓ(z) and its derivatives (see the file comment). The data are
/// validated on every call (O(nd)); a model built on them (`make_logistic_regression`) validates
/// them once and checks only z in its `loglik`, which is the form for the estimators' inner loops.
/// @pre labels in {0, 1}; z of dimension d; all finite.
/// @throws std::domain_error / std::invalid_argument naming the argument otherwise.
template <class Scalar>
LogLikDerivatives<Scalar> logistic_loglik(const Dataset<Scalar>& data, const Vec<Scalar>& z, bool with_hessian = true) {
  constexpr const char* f = "ngvi::logistic_loglik";
  validate_binary_labels(data, f);
  require_latent_dim(data, z, f);
  return detail::logistic_loglik_valid(data, z, with_hessian);
}

/// Poisson log-likelihood ℓ(z) (log link) and its derivatives (see the file comment); the data are
/// validated on every call, as for logistic_loglik.
/// @pre counts y_i non-negative integers; z of dimension d; all finite.
template <class Scalar>
LogLikDerivatives<Scalar> poisson_loglik(const Dataset<Scalar>& data, const Vec<Scalar>& z, bool with_hessian = true) {
  constexpr const char* f = "ngvi::poisson_loglik";
  validate_counts(data, f);
  require_latent_dim(data, z, f);
  return detail::poisson_loglik_valid(data, z, with_hessian);
}

}  // namespace ngvi
