#pragma once
/// @file
/// The SGD baseline of Wu & Gardner (2024), Appendix F (docs/math.md §7.1) for Bayesian linear
/// regression: SGD on q = N(m, LLᵀ), L lower triangular, then the projection L_ii ← max(L_ii, ε_clamp)
/// (the stepper of steppers/sgd_sqrt.hpp), with the mini-batch gradients of the negative ELBO in
/// closed form [D]:
/// \f[ \nabla_m = -\frac{n}{M s_e^2}\sum_j (y_{i_j} - x_{i_j}^\top m)\,x_{i_j} + S_p^{-1}(m - m_p), \f]
/// \f[ \nabla_L = \operatorname{tril}\Big(\frac{n}{M s_e^2}\sum_j x_{i_j}x_{i_j}^\top L + S_p^{-1}L\Big)
///     - \operatorname{diag}(1/L_{11}, \dots, 1/L_{dd}). \f]
/// With all n indices (M = n, each once) they are the exact gradient of f(m, LLᵀ).
#include <string>
#include <utility>
#include <vector>

#include "ngvi/models/linear_regression.hpp"
#include "ngvi/optim/engine.hpp"
#include "ngvi/optim/steppers/sgd_sqrt.hpp"
#include "ngvi/random/stream.hpp"

namespace ngvi {

/// The estimator: (∇_m, ∇_L) on a batch of M indices drawn with replacement from its stream.
template <class Scalar>
class SgdML {
 public:
  /// @throws std::invalid_argument naming 'batch' if M < 1; std::domain_error naming 'clamp' unless
  ///         0 < ε_clamp ≤ 1.
  SgdML(const LinearRegression<Scalar>& model, Index batch, const Scalar& clamp)
      : model_(model), batch_(batch), clamp_(clamp), indices_(static_cast<std::size_t>(batch > 0 ? batch : 0)) {
    constexpr const char* f = "ngvi::SgdML";
    if (batch < 1) throw_size(f, "batch", "must be >= 1");
    if (!(clamp > Scalar(0) && clamp <= Scalar(1))) throw_domain(f, "clamp", "must lie in (0, 1]");
  }

  const Scalar& clamp() const { return clamp_; }
  /// The stepper at q₀ = N(0, I).
  SgdSqrtStepper<Scalar> stepper() const {
    const Index d = model_.d();
    return SgdSqrtStepper<Scalar>(SqrtParam<Scalar>{Vec<Scalar>::Zero(d), Mat<Scalar>::Identity(d, d)}, clamp_);
  }

  /// Gradients (∇_m, ∇_L) at (m, L) on the batch `idx` (docs/math.md §7.1).
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

  /// Draws M indices from `rng` (with replacement).
  const std::vector<Index>& draw(random::Stream& rng) {
    for (auto& i : indices_) i = static_cast<Index>(rng.index(static_cast<std::uint64_t>(model_.n())));
    return indices_;
  }

 private:
  const LinearRegression<Scalar>& model_;
  Index batch_;
  Scalar clamp_;
  std::vector<Index> indices_;
};

/// SgdML as the engine's estimator, drawing from `rng`.
template <class Scalar>
struct SgdMLEstimator {
  SgdML<Scalar>& sgd;
  random::Stream& rng;
  template <class S>
  void estimate(long, const S& s, SqrtParam<Scalar>& g) {
    auto [gm, gl] = sgd.gradient(s.point().m, s.point().l, sgd.draw(rng));
    g.m = std::move(gm);
    g.l = std::move(gl);
  }
};

/// Runs T steps of the SGD baseline from q₀ = N(0, I) with the last iterate returned (the
/// Appendix F baseline does not average); observers see the engine's StepEvent.
template <class Scalar, class Schedule, class... Obs>
Trajectory<SqrtParam<Scalar>, int> run_sgd_mL(const LinearRegression<Scalar>& model, Index batch, const Scalar& clamp,
                                              const Schedule& schedule, long T, random::Stream& rng, Obs&&... observers) {
  SgdML<Scalar> sgd(model, batch, clamp);
  auto stepper = sgd.stepper();
  SgdMLEstimator<Scalar> est{sgd, rng};
  NoAverage none;
  return run_trajectory(stepper, est, schedule, none, RunOptions{T}, std::forward<Obs>(observers)...);
}

}  // namespace ngvi
