#pragma once
/// @file
/// Stochastic NGD for a full-covariance Gaussian q with a Gaussian prior, as a stepper of the
/// trajectory engine (optim/engine.hpp; docs/math.md §2.4, eq. (8)):
/// \f[ \eta_{t+1} = (1-\gamma_t)\,\eta_t + \gamma_t\,(\eta_p + \hat g_t). \f]
/// The update does no factorisation; the iterate is converted to (m, S) only when a part asks
/// (moments(): the t-weighted average of Theorem 1, a recorder), with one LDLᵀ factorisation into
/// a workspace sized once, and that conversion is where leaving Ω (−η₂ not positive definite) is
/// found. The stepper keeps two buffers: step t writes η_{t+1} into the other one, so η_t stays
/// available (previous(), rollback()) at no cost.
///
/// The averagers here: MeanAverage (Theorem 1's μ̄_T = 2/(T(T+1)) Σ t μ_t, or uniform weights, in
/// expectation parameters, optim/averaging.hpp) and the engine's PointAverage (tail or other
/// averages of η).
#include <optional>
#include <utility>

#include "ngvi/expfam/gaussian_maps.hpp"
#include "ngvi/kernels/execution.hpp"
#include "ngvi/kernels/natural_update.hpp"
#include "ngvi/kernels/spd_inverse.hpp"
#include "ngvi/optim/averaging.hpp"
#include "ngvi/optim/engine.hpp"

namespace ngvi {

/// Workspace for η → (m, S) without allocation: Λ = −2η₂, S = Λ⁻¹ by one LDLᵀ factorisation
/// (spd_inverse_in_place), m = Sη₁. With tile threads (kernels::TileThreads), the tiles of the inverse's products and, from
/// order kTiledOrder, of the set-up of Λ and of m = Sη₁ run on it, with the same result as without.
template <class Scalar>
class MomentWorkspace {
 public:
  explicit MomentWorkspace(Index d, kernels::TileThreads tiles = {}) : precision_(d, d), cov_(d, d), tmp_(d, d), mean_(d), tiles_(tiles) {}

  /// Converts η; returns false (leaving the outputs unspecified) if −η₂ is not positive definite.
  /// Only the lower triangle of η₂ is read (η₂ is symmetric in Ω), and Λ is formed on it.
  bool convert(const GaussianNatural<Scalar>& eta);
  const Vec<Scalar>& mean() const { return mean_; }
  const Mat<Scalar>& cov() const { return cov_; }
  void set_tiles(kernels::TileThreads tiles) { tiles_ = tiles; }

 private:
  Mat<Scalar> precision_, cov_, tmp_;
  Vec<Scalar> mean_;
  kernels::TileThreads tiles_;
};

// Out of the class body (not inline), so that an explicit instantiation declaration
// (NGVI_EXTERN_TEMPLATES, below) keeps every translation unit but one from instantiating it.
template <class Scalar>
bool MomentWorkspace<Scalar>::convert(const GaussianNatural<Scalar>& eta) {
  const Index d = eta.dim();
  const Mat<Scalar>& e2 = eta.eta2();
  for_each_column_tile(tiles_, d, [&](Index j0, Index w) {
    for (Index j = j0; j < j0 + w; ++j)
      for (Index i = j; i < d; ++i) precision_(i, j) = -(e2(i, j) + e2(i, j));  // −2η₂ exactly, without a multiplication
  });
  if (!spd_inverse_in_place(precision_, cov_, tmp_, tiles_)) return false;
  if (d < kTiledOrder) {
    mean_.noalias() = cov_ * eta.eta1();
  } else {  // S is exactly symmetric: the entries of m in tile J are S's columns J dotted with η₁
    for_each_column_tile(tiles_, d, [&](Index j0, Index w) { mean_.segment(j0, w).noalias() = cov_.middleCols(j0, w).transpose() * eta.eta1(); });
  }
  return true;
}

/// The stepper. Direction: ĝ = (ĝ₁, ĝ₂), the estimate of ∇_μ E_q[log p(y|z)].
template <class Scalar_>
class NgdStepper {
 public:
  using Scalar = Scalar_;
  using Point = GaussianNatural<Scalar>;
  using Direction = GaussianPair<Scalar>;

  /// @throws std::invalid_argument naming 'eta0' or 'eta_prior' on a shape mismatch.
  NgdStepper(GaussianNatural<Scalar> eta_prior, GaussianNatural<Scalar> eta0, kernels::ExecutionContext exec = {})
      : prior_(std::move(eta_prior)), cur_(std::move(eta0)), other_(cur_), exec_(exec), ws_(cur_.dim()) {
    constexpr const char* f = "ngvi::NgdStepper";
    require_pair_shape(cur_, f, "eta0");
    require_pair_shape(prior_, f, "eta_prior");
    if (prior_.dim() != cur_.dim()) throw_size(f, "eta_prior", "has a different dimension from 'eta0'");
  }

  Index dim() const { return cur_.dim(); }
  const Point& point() const { return cur_; }
  /// η_t after step t (the iterate before the last step).
  const Point& previous() const { return other_; }
  const Point& prior() const { return prior_; }
  Direction make_direction() const { return Direction{Vec<Scalar>::Zero(dim()), Mat<Scalar>::Zero(dim(), dim())}; }
  const kernels::ExecutionContext& execution() const { return exec_; }
  /// The threads the products of one step use (the caller alone when the engine overlaps instead).
  kernels::TileThreads tiles(bool converts) const { return exec_.tiles(dim(), converts); }

  /// η_{t+1} = (1 − γ)η_t + γ(η_p + ĝ) into the other buffer, then the buffers swap.
  StepStatus step(long, const Scalar& gamma, const Direction& g) {
    if (g.dim() != dim() || g.second.rows() != dim() || g.second.cols() != dim())
      throw_size("ngvi::NgdStepper::step", "direction", "has a different dimension from the iterate");
    kernels::gaussian_natural_update(other_, cur_, prior_, g, gamma, exec_.tiles(dim(), converting_));
    std::swap(cur_, other_);
    converted_ = false;
    return StepStatus::fine();
  }
  /// Undoes the last step (after a part found η_{t+1} outside Ω).
  void rollback() {
    std::swap(cur_, other_);
    converted_ = false;
  }

  /// Converts the iterate to (m, S) once per step; false if −η₂ is not positive definite.
  bool moments() {
    if (!converted_) {
      ws_.set_tiles(exec_.tiles(dim(), converting_));
      ok_ = ws_.convert(cur_);
      converted_ = true;
    }
    return ok_;
  }
  const Vec<Scalar>& mean() const { return ws_.mean(); }
  const Mat<Scalar>& cov() const { return ws_.cov(); }
  /// Tells the stepper that a part converts every iterate (so the engine may overlap).
  void set_converting(bool c) { converting_ = c; }

 private:
  Point prior_, cur_, other_;
  kernels::ExecutionContext exec_;
  MomentWorkspace<Scalar> ws_;
  bool converted_ = false, ok_ = false, converting_ = true;
};

/// An average of the expectation parameters μ_t = (m_t, S_t + m_t m_tᵀ), t = 1..T, for any stepper
/// with moments(), mean(), cov(): Theorem 1's μ̄_T = 2/(T(T+1)) Σ t μ_t (linear weights), uniform
/// weights, the uniform average over t > T/2 (tail), or μ_T alone (last). Every iterate is converted
/// (so leaving Ω is found at the step it happens), whatever the weights.
template <class S>
class MeanAverage {
 public:
  using Scalar = typename S::Scalar;
  using Value = GaussianExpectation<Scalar>;
  explicit MeanAverage(AverageWeights w = AverageWeights::kLinear, bool enabled = true)
      : weights_(w), avg_(w == AverageWeights::kLinear ? IterateAverage<Scalar>::Weights::kLinear : IterateAverage<Scalar>::Weights::kUniform),
        enabled_(enabled) {}
  /// Theorem 1's linear or the uniform weights (the IterateAverage vocabulary).
  MeanAverage(typename IterateAverage<Scalar>::Weights w, bool enabled)
      : MeanAverage(w == IterateAverage<Scalar>::Weights::kLinear ? AverageWeights::kLinear : AverageWeights::kUniform, enabled) {}
  void start(long steps) { steps_ = steps; }
  StepStatus add(long t, S& s) {
    if (!enabled_) return StepStatus::fine();
    if (!s.moments()) return StepStatus::left("eta", "left Omega (-eta2 not positive definite)");
    if (weights_ == AverageWeights::kTail && 2 * t <= steps_ && t != steps_) return StepStatus::fine();
    if (weights_ == AverageWeights::kLast) avg_.reset();
    avg_.add_moments(s.mean(), s.cov(), s.tiles(true));
    return StepStatus::fine();
  }
  std::optional<Value> value() const {
    if (avg_.count() == 0) return std::nullopt;
    return avg_.value();
  }
  bool converts() const { return enabled_; }
  long count() const { return avg_.count(); }
  AverageWeights weights() const { return weights_; }

 private:
  AverageWeights weights_;
  IterateAverage<Scalar> avg_;
  bool enabled_;
  long steps_ = 0;
};

/// The estimator that returns ĝ from a callable fn(t, η_t, ĝ) (the form of hand-made estimators).
template <class Fn>
struct FunctionEstimator {
  Fn fn;
  template <class S>
  void estimate(long t, const S& s, typename S::Direction& g) {
    fn(t, s.point(), g);
  }
};
template <class Fn>
FunctionEstimator(Fn) -> FunctionEstimator<Fn>;

/// ĝ from a data sub-sampling estimator with draw(rng) and evaluate(ĝ) (MinibatchGradient, eq. (15)),
/// drawing from `rng`. ĝ does not depend on the iterate (a conjugate model's), so the engine may
/// make ĝ_{t+1} beside step t (PointFreeEstimator).
template <class Minibatch, class Stream>
struct MinibatchEstimator {
  static constexpr bool reads_point = false;
  Minibatch& estimator;
  Stream& rng;
  template <class S>
  void estimate(long, const S&, typename S::Direction& g) {
    estimator.draw(rng);
    estimator.evaluate(g);
  }
};
template <class Minibatch, class Stream>
MinibatchEstimator(Minibatch&, Stream&) -> MinibatchEstimator<Minibatch, Stream>;

/// The estimator that returns the same direction at every step (the exact gradient of a conjugate model).
template <class Direction>
struct ExactEstimator {
  static constexpr bool reads_point = false;
  const Direction& g;
  template <class S>
  void estimate(long, const S&, typename S::Direction& out) {
    out = g;
  }
};
template <class Direction>
ExactEstimator(const Direction&) -> ExactEstimator<Direction>;

#ifdef NGVI_EXTERN_TEMPLATES
// In-tree targets take these instantiations from lib/src/hot_loop_instantiations_*.cpp.
extern template class MomentWorkspace<double>;
extern template class MomentWorkspace<mp50>;
#endif

}  // namespace ngvi
