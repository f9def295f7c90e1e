#pragma once
/// @file
/// SGD on the square-root parameterisation (m, L) of q = N(m, LLᵀ), L lower triangular, as parts of
/// the trajectory engine (docs/math.md §7.1-7.2; Wu & Gardner 2024, Appendix F): the stepper
///   m ← m − γ∇_m f,   L ← L − γ∇_L f,   then L_ii ← max(L_ii, ε_clamp)
/// (the projection of Appendix F), which ends the run when an iterate is not finite (a step size
/// too large); the estimators of (∇_m f, ∇_L f) are in sgd_mL.hpp (Bayesian linear regression, a
/// closed form on a mini-batch) and sgd_mL_nonconjugate.hpp (Price or reparameterisation draws).
#include <utility>

#include "ngvi/expfam/gaussian_params.hpp"
#include "ngvi/linalg/spd.hpp"
#include "ngvi/optim/engine.hpp"

namespace ngvi {

/// A point (m, L) or a gradient (∇_m, ∇_L): a vector space.
template <class Scalar>
struct SqrtParam {
  Vec<Scalar> m;
  Mat<Scalar> l;
  SqrtParam& operator+=(const SqrtParam& o) {
    m += o.m;
    l += o.l;
    return *this;
  }
  SqrtParam& operator*=(const Scalar& s) {
    m *= s;
    l *= s;
    return *this;
  }
  friend SqrtParam operator+(SqrtParam a, const SqrtParam& b) { return a += b; }
  friend SqrtParam operator-(SqrtParam a, const SqrtParam& b) {
    a.m -= b.m;
    a.l -= b.l;
    return a;
  }
  friend SqrtParam operator*(const Scalar& s, SqrtParam a) { return a *= s; }
  /// q = N(m, LLᵀ).
  GaussianMoments<Scalar> moments() const {
    Mat<Scalar> s = l * l.transpose();
    return GaussianMoments<Scalar>{m, symmetrise(s)};
  }
};

/// In place: L_ii ← max(L_ii, ε_clamp).
template <class Scalar>
void clamp_diagonal(Mat<Scalar>& l, const Scalar& eps_clamp) {
  for (Index i = 0; i < l.rows(); ++i)
    if (!(l(i, i) >= eps_clamp)) l(i, i) = eps_clamp;
}

template <class Scalar_>
class SgdSqrtStepper {
 public:
  using Scalar = Scalar_;
  using Point = SqrtParam<Scalar>;
  using Direction = SqrtParam<Scalar>;

  /// @throws std::domain_error naming 'clamp' unless ε_clamp is finite and > 0; std::invalid_argument
  ///         naming 'q0' (L not square of m's size).
  SgdSqrtStepper(SqrtParam<Scalar> q0, const Scalar& clamp) : cur_(std::move(q0)), next_(cur_), clamp_(clamp) {
    constexpr const char* f = "ngvi::SgdSqrtStepper";
    if (!(clamp > Scalar(0)) || !is_finite_scalar(clamp)) throw_domain(f, "clamp", "must be finite and positive");
    if (cur_.l.rows() != cur_.m.size() || cur_.l.cols() != cur_.m.size()) throw_size(f, "q0", "L must be d x d for m of size d");
  }
  Index dim() const { return cur_.m.size(); }
  const Point& point() const { return cur_; }
  Direction make_direction() const { return Direction{Vec<Scalar>::Zero(dim()), Mat<Scalar>::Zero(dim(), dim())}; }
  const Scalar& clamp() const { return clamp_; }

  /// One step, then the clamp; an iterate that is not finite is not kept (the run ends there).
  StepStatus step(long, const Scalar& gamma, const Direction& g) {
    next_.m = cur_.m - gamma * g.m;
    next_.l = cur_.l - gamma * g.l;
    clamp_diagonal(next_.l, clamp_);
    if (!is_finite_scalar(next_.m.squaredNorm() + next_.l.squaredNorm()))
      return StepStatus::left("(m, L)", "is not finite (the step size is too large)");
    std::swap(cur_, next_);
    return StepStatus::fine();
  }

 private:
  Point cur_, next_;
  Scalar clamp_;
};

}  // namespace ngvi
