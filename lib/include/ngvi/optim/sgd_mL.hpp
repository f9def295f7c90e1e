#pragma once
/// @file
/// The SGD baseline of Wu & Gardner (2024), Appendix F (ngvi-math.md §7.1): plain stochastic
/// gradient descent on q = N(m, LLᵀ) with L lower triangular, followed by the projection
/// L_ii ← max(L_ii, ε_clamp) of the diagonal. For Bayesian linear regression the mini-batch
/// gradients of the negative ELBO are closed forms [D]:
/// \f[ \nabla_m = -\frac{n}{M s_e^2}\sum_j (y_{i_j} - x_{i_j}^\top m)\,x_{i_j} + S_p^{-1}(m - m_p), \f]
/// \f[ \nabla_L = \operatorname{tril}\Big(\frac{n}{M s_e^2}\sum_j x_{i_j}x_{i_j}^\top L + S_p^{-1}L\Big)
///     - \operatorname{diag}(1/L_{11}, \dots, 1/L_{dd}). \f]
/// With all n indices (M = n, each once) they are the exact gradient of f(m, LLᵀ).
#include <string>
#include <vector>

#include "ngvi/models/linear_regression.hpp"
#include "ngvi/random/stream.hpp"

namespace ngvi {

template <class Scalar>
class SgdML {
 public:
  /// Starts from q₀ = N(0, I).
  /// @throws std::invalid_argument naming 'batch' if M < 1; std::domain_error naming 'clamp' unless
  ///         0 < ε_clamp ≤ 1.
  SgdML(const LinearRegression<Scalar>& model, Index batch, const Scalar& clamp)
      : model_(model), batch_(batch), clamp_(clamp), m_(Vec<Scalar>::Zero(model.d())),
        l_(Mat<Scalar>::Identity(model.d(), model.d())), indices_(static_cast<std::size_t>(batch > 0 ? batch : 0)) {
    constexpr const char* f = "ngvi::SgdML";
    if (batch < 1) throw_size(f, "batch", "must be >= 1");
    if (!(clamp > Scalar(0) && clamp <= Scalar(1))) throw_domain(f, "clamp", "must lie in (0, 1]");
  }

  const Vec<Scalar>& mean() const { return m_; }
  const Mat<Scalar>& factor() const { return l_; }
  GaussianMoments<Scalar> moments() const {
    Mat<Scalar> s = l_ * l_.transpose();
    return GaussianMoments<Scalar>{m_, symmetrise(s)};
  }

  /// Gradients (∇_m, ∇_L) at (m, L) on the batch `idx` (ngvi-math.md §7.1).
  /// @throws std::domain_error naming 'L' if a diagonal entry of L is not positive.
  std::pair<Vec<Scalar>, Mat<Scalar>> gradient(const Vec<Scalar>& m, const Mat<Scalar>& l, const std::vector<Index>& idx) const {
    const Index d = model_.d();
    for (Index i = 0; i < d; ++i)
      if (!(l(i, i) > Scalar(0))) throw_domain("ngvi::SgdML::gradient", "L", "must have a positive diagonal");
    const auto& X = model_.data().X;
    const auto& y = model_.data().y;
    const Scalar scale = Scalar(model_.n()) / (Scalar(static_cast<long>(idx.size())) * model_.noise_var());
    Vec<Scalar> gm = model_.prior_precision() * (m - model_.prior().mean);
    Mat<Scalar> xx = Mat<Scalar>::Zero(d, d);
    for (Index i : idx) {
      const Scalar r = y(i) - X.row(i).dot(m);
      gm -= scale * r * X.row(i).transpose();
      xx.noalias() += X.row(i).transpose() * X.row(i);
    }
    xx *= scale;
    xx += model_.prior_precision();
    Mat<Scalar> gl = (xx * l).eval();
    gl = gl.template triangularView<Eigen::Lower>();
    for (Index i = 0; i < d; ++i) gl(i, i) -= Scalar(1) / l(i, i);
    return {std::move(gm), std::move(gl)};
  }

  /// One step with step size γ > 0 on a freshly drawn batch, then the diagonal clamp.
  /// @throws std::domain_error naming 'gamma' unless γ is finite and positive.
  void step(random::Stream& rng, const Scalar& gamma) {
    for (auto& i : indices_) i = static_cast<Index>(rng.index(static_cast<std::uint64_t>(model_.n())));
    step_on(indices_, gamma);
  }

  /// One step on the given batch, then the projection L_ii ← max(L_ii, ε_clamp).
  void step_on(const std::vector<Index>& idx, const Scalar& gamma) {
    if (!(gamma > Scalar(0)) || !is_finite_scalar(gamma)) throw_domain("ngvi::SgdML::step", "gamma", "must be finite and positive");
    auto [gm, gl] = gradient(m_, l_, idx);
    m_ -= gamma * gm;
    l_ -= gamma * gl;
    for (Index i = 0; i < l_.rows(); ++i)
      if (!(l_(i, i) >= clamp_)) l_(i, i) = clamp_;
  }

 private:
  const LinearRegression<Scalar>& model_;
  Index batch_;
  Scalar clamp_;
  Vec<Scalar> m_;
  Mat<Scalar> l_;
  std::vector<Index> indices_;
};

}  // namespace ngvi
