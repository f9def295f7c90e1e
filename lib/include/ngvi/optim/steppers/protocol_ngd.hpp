#pragma once
/// @file
/// A conjugate-NGD implementation given as a value (protocols/conjugate_ngd.hpp) as the trajectory
/// engine's stepper, so that the claims run it through the same loop, random streams, observers and
/// failure convention as the library's NgdStepper:
///
///   ProtocolNgdStepper    Direction = the batch indices the claim drew; step(t, γ, batch) calls the
///                         implementation's step(t, η_t, batch) and checks what it returns (shape,
///                         finite entries); moments()/mean()/cov() convert the iterate as NgdStepper
///                         does, so MeanAverage averages it with Theorem 1's weights;
///   BatchIndices          the estimator: draws eq. (15)'s batch with a MinibatchGradient's draw (the
///                         same indices the library's route draws from the same stream);
///   ImplementationAverage the averager when the implementation keeps its own average: its value after
///                         each step (or each step the engine reads), checked for shape and finite
///                         entries.
///
/// Whatever the implementation throws, and whatever it returns that the protocol does not allow (a
/// wrong shape, a non-finite entry, a matrix that is not symmetric), is an ImplementationError naming
/// the protocol call, the step and the implementation. It is not a StepFailure (which the claims read
/// as data: an iterate that left Ω): it leaves the trajectory, the replicates and the claim, and
/// claims::run_claim writes it as the claim's one error record; the rest of the run goes on.
#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ngvi/linalg/validate.hpp"
#include "ngvi/optim/engine.hpp"
#include "ngvi/optim/steppers/ngd_gaussian.hpp"
#include "ngvi/optim/steppers/protocol_common.hpp"
#include "ngvi/protocols/conjugate_ngd.hpp"

namespace ngvi {


template <class Scalar_>
class ProtocolNgdStepper {
 public:
  using Scalar = Scalar_;
  using Point = GaussianNatural<Scalar>;
  using Direction = std::vector<Index>;

  /// Starts one trajectory of `impl` on `problem` (the stepper keeps the problem for the implementation).
  /// @throws ImplementationError naming the protocol call 'start' if the implementation throws or returns
  ///         no step function.
  ProtocolNgdStepper(const protocols::ConjugateNgd<Scalar>& impl, protocols::BlrProblem<Scalar> problem)
      : name_(impl.name),
        problem_(std::move(problem)),
        traj_(start_trajectory(protocols::kConjugateNgd, impl, problem_, &protocols::ConjugateNgdTrajectory<Scalar>::step, "step")),
        cur_(problem_.initial),
        other_(cur_),
        ws_(cur_.dim()) {}
  ProtocolNgdStepper(const ProtocolNgdStepper&) = delete;
  ProtocolNgdStepper& operator=(const ProtocolNgdStepper&) = delete;

  Index dim() const { return cur_.dim(); }
  const Point& point() const { return cur_; }
  const Point& previous() const { return other_; }
  Direction make_direction() const { return Direction(static_cast<std::size_t>(problem_.batch), 0); }
  const protocols::BlrProblem<Scalar>& problem() const { return problem_; }

  /// η_{t+1} = the implementation's step(t, η_t, batch); γ is the claim's and is not handed (the
  /// implementation owns its schedule).
  StepStatus step(long t, const Scalar&, const Direction& batch) {
    Point next;
    try {
      next = traj_.step(t, cur_, std::span<const Index>(batch.data(), batch.size()));
    } catch (const std::exception& e) {
      fail_call("step", t, std::string("threw: ") + e.what());
    }
    check_pair(next, "step", t);
    symmetrise(next.second, "step", "eta2", t);
    other_ = std::move(cur_);
    cur_ = std::move(next);
    converted_ = false;
    return StepStatus::fine();
  }
  void rollback() {
    std::swap(cur_, other_);
    converted_ = false;
  }

  bool moments() {
    if (!converted_) {
      ok_ = ws_.convert(cur_);
      converted_ = true;
    }
    return ok_;
  }
  const Vec<Scalar>& mean() const { return ws_.mean(); }
  const Mat<Scalar>& cov() const { return ws_.cov(); }
  kernels::TileThreads tiles(bool) const { return {}; }

  /// True when the implementation keeps its own average.
  bool has_average() const { return static_cast<bool>(traj_.average); }
  /// The implementation's average after step t, checked.
  GaussianExpectation<Scalar> implementation_average(long t) const {
    GaussianExpectation<Scalar> v;
    try {
      v = traj_.average();
    } catch (const std::exception& e) {
      fail_call("average", t, std::string("threw: ") + e.what());
    }
    check_pair(v, "average", t);
    symmetrise(v.second, "average", "a second moment", t);
    return v;
  }

 private:
  [[noreturn]] void fail_call(const char* call, long t, const std::string& what) const {
    throw_implementation_error(protocols::kConjugateNgd, name_, call, t, what);
  }
  template <class Pair>
  void check_pair(const Pair& p, const char* call, long t) const {
    const Index d = dim();
    if (p.first.size() != d || p.second.rows() != d || p.second.cols() != d)
      fail_call(call, t, "returned a parameter of dimension " + std::to_string(p.first.size()) + " x (" +
                             std::to_string(p.second.rows()) + ", " + std::to_string(p.second.cols()) + "), expected " +
                             std::to_string(d) + " x (" + std::to_string(d) + ", " + std::to_string(d) + ")");
    if (!all_finite(p.first) || !all_finite(p.second)) fail_call(call, t, "returned a non-finite entry");
  }

  /// The matrix the implementation returned (η₂, or the average's second moment), symmetric by the
  /// protocol, computed in floating point by a route of its own (an inverse, a product): its
  /// asymmetry is checked against the rounding of that route and the symmetric part is kept.
  /// An LU-based inverse of a d × d matrix of condition κ has a relative error of order d·ε·κ in
  /// each entry, and the mismatch of (i, j) against (j, i) is at most twice that; the budget is
  /// kAsymmetryFactor·d·ε·κ·max|A| with ε the scalar's and κ the condition of A's symmetric part (its
  /// eigenvalues' largest to smallest modulus, computed in double; infinite when singular, which
  /// admits any rounding). A matrix
  /// beyond it is not the protocol's symmetric matrix: the call fails.
  static constexpr double kAsymmetryFactor = 16;
  template <class M>
  void symmetrise(M& a, const char* call, const char* what, long t) const {
    const Mat<Scalar> sym = (a + a.transpose()) / Scalar(2);
    const Scalar scale = a.cwiseAbs().maxCoeff();
    const Scalar asym = (a - a.transpose()).cwiseAbs().maxCoeff();
    if (asym == Scalar(0)) return;
    // κ from the symmetric part's eigenvalues in double: a condition number, not a value the claims read
    // (an mp50 matrix whose smallest eigenvalue is below double's range counts as singular).
    const Mat<double> sym_d = sym.unaryExpr([](const Scalar& x) { return to_double(x); });
    const Eigen::SelfAdjointEigenSolver<Mat<double>> eig(sym_d, Eigen::EigenvaluesOnly);
    const double lo = eig.eigenvalues().cwiseAbs().minCoeff(), hi = eig.eigenvalues().cwiseAbs().maxCoeff();
    const Scalar eps = std::numeric_limits<Scalar>::epsilon();
    const Scalar budget = kAsymmetryFactor * Scalar(a.rows()) * eps * scale * (lo > 0 ? Scalar(hi / lo) : Scalar(1) / eps);
    if (!(asym <= budget)) {
      const auto g3 = [](const Scalar& x) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.3g", to_double(x));
        return std::string(buf);
      };
      fail_call(call, t, std::string("returned ") + what + " that is not symmetric: max|A - A^T| = " + g3(asym) + " exceeds the rounding budget " +
                             g3(budget) + " (16 d eps cond max|A|, eps of " + (std::is_same_v<Scalar, double> ? "double" : "the claim's precision") + ")");
    }
    a = sym;
  }

  std::string name_;
  protocols::BlrProblem<Scalar> problem_;
  protocols::ConjugateNgdTrajectory<Scalar> traj_;
  Point cur_, other_;
  MomentWorkspace<Scalar> ws_;
  bool converted_ = false, ok_ = false;
};

/// The estimator of a protocol stepper: eq. (15)'s batch drawn by `draw(t, est)` into the direction.
/// `Draw` sets est's indices (est.draw(rng), or fixed batches), as the library's route does.
template <class Minibatch, class Draw>
struct BatchIndices {
  Minibatch& est;
  Draw draw;
  template <class S>
  void estimate(long t, const S&, std::vector<Index>& batch) {
    draw(t, est);
    batch = est.indices();
  }
};
template <class Minibatch, class Draw>
BatchIndices(Minibatch&, Draw) -> BatchIndices<Minibatch, Draw>;

/// The averager of an implementation that keeps its own average (ProtocolNgdStepper::has_average):
/// converts each iterate (so leaving Ω is found at the step it happens) and reads the implementation's
/// average after each step, or, when constructed with the run's checkpoints and step count, only after
/// the steps whose average the engine reads (the checkpoints and the last step): an implementation in
/// another process then answers one call per step, not two. value() is the average read last.
template <class Scalar>
class ImplementationAverage {
 public:
  using Value = GaussianExpectation<Scalar>;
  ImplementationAverage() = default;
  ImplementationAverage(std::vector<long> checkpoints, long steps) : reads_(std::move(checkpoints)), last_(steps), every_(false) {}

  StepStatus add(long t, ProtocolNgdStepper<Scalar>& s) {
    if (!s.moments()) return StepStatus::left("eta", "left Omega (-eta2 not positive definite)");
    if (every_ || t == last_ || std::find(reads_.begin(), reads_.end(), t) != reads_.end()) value_ = s.implementation_average(t - 1);
    return StepStatus::fine();
  }
  std::optional<Value> value() const { return value_; }
  bool converts() const { return true; }

 private:
  std::vector<long> reads_;
  long last_ = 0;
  bool every_ = true;
  std::optional<Value> value_;
};

}  // namespace ngvi
