#pragma once
/// @file
/// Log-likelihood gradient estimators for Bayesian linear regression in expectation parameters
/// (ngvi-math.md §5.1–5.2). The exact gradient is `LinearRegression::loglik_gradient()`; the
/// mini-batch estimator of eq. (15) draws M indices i_1..i_M uniformly and returns
/// \f[ \hat g^{\ell} = \Big( \frac{n}{M s_e^2}\sum_{j=1}^M y_{i_j} x_{i_j},\;
///     -\frac{n}{2 M s_e^2}\sum_{j=1}^M x_{i_j} x_{i_j}^\top \Big), \f]
/// whose expectation is the exact gradient. Its second block is negative semidefinite, so Remark 2
/// makes every NGD step with γ ∈ (0, 1] valid.
///
/// Sampling. `kWithReplacement` (independent uniform indices) is eq. (15) and is what Lemmas 7–8,
/// Lemma 3 and Theorem 1 assume. `kWithoutReplacement` (M distinct indices, a uniformly random
/// M-subset) is also unbiased, because each index is included with probability M/n, but its
/// variance carries the finite-population factor (n − M)/(n − 1), so Lemmas 7–8 do not hold as
/// equalities for it: it is offered outside the theorem, for comparison.
///
/// The estimate is formed on a gathered d × M batch (columns copied from a stored Xᵀ, so each is
/// contiguous) with one symmetric rank-M update (lower triangle, then mirrored); the buffers are
/// allocated once, so evaluation does not allocate.
#include <string>
#include <vector>

#include "ngvi/models/linear_regression.hpp"
#include "ngvi/random/stream.hpp"

namespace ngvi {

enum class Sampling { kWithReplacement, kWithoutReplacement };

template <class Scalar>
class MinibatchGradient {
 public:
  /// @param[in] model the regression model (kept by reference; must outlive the estimator).
  /// @param[in] batch M ≥ 1 (and M ≤ n without replacement).
  /// @throws std::invalid_argument naming 'batch' on M < 1, or M > n without replacement.
  MinibatchGradient(const LinearRegression<Scalar>& model, Index batch, Sampling sampling = Sampling::kWithReplacement)
      : model_(model), batch_(batch), sampling_(sampling) {
    constexpr const char* f = "ngvi::MinibatchGradient";
    if (batch < 1) throw_size(f, "batch", "must be >= 1 (M = 0 draws no data)");
    if (sampling == Sampling::kWithoutReplacement && batch > model.n())
      throw_size(f, "batch", "must be <= n = " + std::to_string(model.n()) + " when sampling without replacement");
    indices_.resize(static_cast<std::size_t>(batch));
    xt_ = model.data().X.transpose();
    xb_.resize(model.d(), batch);
    yb_.resize(batch);
    if (sampling == Sampling::kWithoutReplacement) {
      perm_.resize(static_cast<std::size_t>(model.n()));
      for (Index i = 0; i < model.n(); ++i) perm_[static_cast<std::size_t>(i)] = i;
    }
    scale1_ = Scalar(model.n()) / (Scalar(batch) * model.noise_var());
    scale2_ = -scale1_ / 2;
  }

  Index batch() const { return batch_; }
  Sampling sampling() const { return sampling_; }
  const LinearRegression<Scalar>& model() const { return model_; }
  const std::vector<Index>& indices() const { return indices_; }

  /// Draws the next batch of indices from `rng` (with replacement: M uniform draws; without:
  /// a partial Fisher–Yates shuffle of a persistent permutation, which yields a uniform M-subset).
  void draw(random::Stream& rng) {
    const auto n = static_cast<std::uint64_t>(model_.n());
    if (sampling_ == Sampling::kWithReplacement) {
      for (auto& i : indices_) i = static_cast<Index>(rng.index(n));
      return;
    }
    for (std::size_t j = 0; j < indices_.size(); ++j) {
      const auto k = j + static_cast<std::size_t>(rng.index(n - j));
      std::swap(perm_[j], perm_[k]);
      indices_[j] = perm_[j];
    }
  }

  /// Uses the given indices as the current batch.
  /// @throws std::invalid_argument on a wrong count, std::domain_error on an index outside [0, n).
  void set_indices(const std::vector<Index>& idx) {
    constexpr const char* f = "ngvi::MinibatchGradient::set_indices";
    if (idx.size() != indices_.size()) throw_size(f, "idx", "must hold M = " + std::to_string(batch_) + " indices");
    for (Index i : idx)
      if (i < 0 || i >= model_.n()) throw_domain(f, "idx", "has an index outside [0, n)");
    indices_ = idx;
  }

  /// ĝ^ℓ for the current batch, written into `out` (resized on first use only).
  void evaluate(GaussianPair<Scalar>& out) {
    const Index d = model_.d();
    const auto& y = model_.data().y;
    for (Index j = 0; j < batch_; ++j) {
      const Index i = indices_[static_cast<std::size_t>(j)];
      xb_.col(j) = xt_.col(i);
      yb_(j) = y(i);
    }
    if (out.first.size() != d) out.first.resize(d);
    if (out.second.rows() != d || out.second.cols() != d) out.second.resize(d, d);
    out.first.noalias() = xb_ * yb_;
    out.first *= scale1_;
    out.second.setZero();
    out.second.template selfadjointView<Eigen::Lower>().rankUpdate(xb_, scale2_);
    for (Index j = 1; j < d; ++j)
      for (Index i = 0; i < j; ++i) out.second(i, j) = out.second(j, i);
  }

  /// Draws a batch and evaluates it (allocating convenience form).
  GaussianPair<Scalar> operator()(random::Stream& rng) {
    draw(rng);
    GaussianPair<Scalar> g;
    evaluate(g);
    return g;
  }

 private:
  const LinearRegression<Scalar>& model_;
  Index batch_;
  Sampling sampling_;
  std::vector<Index> indices_;
  std::vector<Index> perm_;
  Mat<Scalar> xt_;  // Xᵀ (d × n): row x_i of X is the contiguous column i, so gathering is a copy
  Mat<Scalar> xb_;  // gathered batch, d × M (columns x_{i_j})
  Vec<Scalar> yb_;
  Scalar scale1_;
  Scalar scale2_;
};

}  // namespace ngvi
