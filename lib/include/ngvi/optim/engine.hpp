#pragma once
/// @file
/// The trajectory engine: every stochastic optimiser of the kit is one loop, this one, over four
/// parts that can be swapped (docs/engine.md):
///
///   stepper    the iterate and its update: `point()`, `step(t, γ_t, direction)`;
///   estimator  draws and evaluates the direction the stepper needs at step t: `estimate(t, stepper, dir)`;
///   schedule   γ_t (or ρ_t) for t = 0, 1, 2, …: `at(t)`;
///   averager   what the run returns besides the last iterate: Theorem 1's t-weighted μ̄_T, a uniform
///              or tail average, or none: `add(t, stepper)`, `value()`;
///
/// and any number of observers (checkpoints, recorders, progress lines, early stop), all through one
/// interface: `on_step(const StepEvent&)`, optionally `on_start(stepper, T)` and `stop()`.
///
/// One step t of run_trajectory, for t = 0, …, T − 1:
///   1. γ_t = schedule.at(t)   (with options.theorem_steps, γ_t ∉ (0, 1] ends the run: Remark 2, Theorem 1)
///   2. estimator.estimate(t, stepper, dir)
///   3. stepper.step(t, γ_t, dir)          → the iterate of step t + 1
///   4. averager.add(t + 1, stepper)        (may convert the iterate, and so find it outside the domain)
///   5. observers see StepEvent{t, γ_t, stepper, averager, dir}; any observer's stop() ends the run.
///
/// One failure convention. A step whose update leaves the family's domain (or whose estimate or
/// update raises a std::domain_error or std::invalid_argument) ends the run; the Trajectory returned
/// holds the last valid iterate and a StepFailure naming the step t whose update failed, the argument
/// and the condition. Nothing is thrown for that: Trajectory::value_or_throw() turns it into a
/// TrajectoryError for callers who want an exception. Invalid options (a negative T, checkpoints out
/// of order, a schedule outside (0, 1] when the theorem's steps are required) throw before any step.
///
/// Execution. A stepper may hold a kernels::ExecutionContext (`execution()`); when it says so for the
/// stepper's order, the estimate of step t + 1 runs beside the average of step t on two threads (both
/// only read the iterate), with results bitwise those of the sequential loop. An estimator that does
/// not read the iterate (PointFreeEstimator: a data sub-sample's gradient of a conjugate model, whose
/// ĝ does not depend on η) has its estimate of step t + 1 made beside the whole of step t (update,
/// conversion and average), into a second direction; the results are again bitwise the sequential
/// loop's.
#include <chrono>
#include <concepts>
#include <cstdio>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ngvi/kernels/execution.hpp"
#include "ngvi/linalg/validate.hpp"

namespace ngvi {

/// What a stepper or an averager reports about one step.
struct StepStatus {
  bool ok = true;
  std::string argument;   ///< what left its domain, e.g. "eta"
  std::string condition;  ///< the violated condition, one line
  static StepStatus fine() { return {}; }
  static StepStatus left(std::string argument, std::string condition) { return {false, std::move(argument), std::move(condition)}; }
  explicit operator bool() const { return ok; }
};

/// Why a trajectory ended before T steps.
struct StepFailure {
  enum class Kind { kDomain, kSize };
  long step = -1;         ///< the step t whose update (or estimate) failed; the last valid iterate is that of step t
  Kind kind = Kind::kDomain;
  std::string argument;
  std::string condition;
  /// One line: "step t: argument 'eta' left Omega ...".
  std::string message() const { return "step " + std::to_string(step) + ": argument '" + argument + "' " + condition; }
};

/// The error of a failed trajectory, for callers who want one (Trajectory::value_or_throw).
template <class Point>
class TrajectoryError : public std::domain_error {
 public:
  TrajectoryError(const std::string& msg, StepFailure failure, Point last) : std::domain_error(msg), failure_(std::move(failure)), last_(std::move(last)) {}
  const StepFailure& failure() const { return failure_; }
  /// The last valid iterate.
  const Point& last_valid() const { return last_; }

 private:
  StepFailure failure_;
  Point last_;
};

/// The result of every run: the last valid iterate, the averager's value, and how the run ended.
template <class Point, class Average>
struct Trajectory {
  Point last;                                 ///< iterate of step `steps` (the last valid one)
  long steps = 0;                             ///< steps completed
  std::optional<Average> average;             ///< the averager's value (when it kept any)
  std::vector<Average> checkpoint_averages;   ///< the averager's value at each RunOptions checkpoint reached
  std::optional<StepFailure> failure;         ///< set when a step failed
  bool stopped = false;                       ///< an observer ended the run early

  bool ok() const { return !failure.has_value(); }
  /// The trajectory, or a TrajectoryError naming `who` and the failure (carrying the last valid iterate).
  const Trajectory& value_or_throw(const std::string& who) const {
    if (failure) throw TrajectoryError<Point>(who + ": " + failure->message(), *failure, last);
    return *this;
  }
};

/// Options of a run.
struct RunOptions {
  long steps = 0;                  ///< T ≥ 0
  bool theorem_steps = false;      ///< require γ_t ∈ (0, 1] (Remark 2, Theorem 1)
  std::vector<long> checkpoints;   ///< increasing T' ≤ T at which the averager's value is also kept

  RunOptions() = default;
  explicit RunOptions(long t, bool theorem = false, std::vector<long> at = {})
      : steps(t), theorem_steps(theorem), checkpoints(std::move(at)) {}
};

// ---------------------------------------------------------------------------------------------
// The parts' interfaces.

/// The iterate and its update. `step` leaves point() at the last valid iterate when it fails.
template <class S>
concept Stepper = requires(S& s, const S& cs, long t, const typename S::Scalar& gamma, const typename S::Direction& dir) {
  typename S::Scalar;
  typename S::Point;
  typename S::Direction;
  { cs.point() } -> std::convertible_to<const typename S::Point&>;
  { cs.make_direction() } -> std::convertible_to<typename S::Direction>;
  { s.step(t, gamma, dir) } -> std::same_as<StepStatus>;
};

/// Draws and evaluates the direction for step t at the stepper's iterate.
template <class E, class S>
concept EstimatorFor = Stepper<S> && requires(E& e, long t, const S& s, typename S::Direction& dir) { e.estimate(t, s, dir); };

/// γ_t for t ≥ 0.
template <class F, class Scalar>
concept ScheduleFor = requires(const F& f, long t) {
  { f.at(t) } -> std::convertible_to<Scalar>;
};

/// Keeps what the run returns besides the last iterate.
template <class A, class S>
concept AveragerFor = Stepper<S> && requires(A& a, const A& ca, long t, S& s) {
  typename A::Value;
  { a.add(t, s) } -> std::same_as<StepStatus>;
  { ca.value() } -> std::convertible_to<std::optional<typename A::Value>>;
  { ca.converts() } -> std::convertible_to<bool>;
};

/// What observers see after each step: step t has taken the iterate from t to t + 1.
template <class S, class A>
struct StepEvent {
  long t;
  long steps;  ///< T
  const typename S::Scalar& gamma;
  const S& stepper;
  const A& averager;
  const typename S::Direction& direction;
  bool last() const { return t + 1 == steps; }
};

// ---------------------------------------------------------------------------------------------
// Averagers that need nothing of the stepper but its point.

/// No average: the run returns the last iterate only.
struct NoAverage {
  using Value = int;
  template <class S>
  StepStatus add(long, S&) {
    return StepStatus::fine();
  }
  std::optional<int> value() const { return std::nullopt; }
  bool converts() const { return false; }
  void start(long) {}
};

/// Weights of an average of the iterates 1..T.
enum class AverageWeights {
  kLinear,   ///< w_t ∝ t (Theorem 1)
  kUniform,  ///< w_t = 1
  kTail,     ///< w_t = 1 for t > T/2 (the second half), 0 before
  kLast,     ///< the last iterate only (a "no averaging" that still returns a value)
};

inline const char* to_string(AverageWeights w) {
  switch (w) {
    case AverageWeights::kLinear: return "linear";
    case AverageWeights::kUniform: return "uniform";
    case AverageWeights::kTail: return "tail";
    case AverageWeights::kLast: return "last";
  }
  return "?";
}

/// v += w (a − v), in place: member by member for the parameter pairs of the kit (no temporary, so no
/// heap allocation per step), through the vector-space operators otherwise.
template <class P, class Scalar>
void move_toward(P& v, const P& a, const Scalar& w) {
  if constexpr (requires { v.first; v.second; }) {
    v.first += w * (a.first - v.first);
    v.second += w * (a.second - v.second);
  } else if constexpr (requires { v.m; v.l; }) {
    v.m += w * (a.m - v.m);
    v.l += w * (a.l - v.l);
  } else {
    v += w * (a - v);
  }
}

/// The running average ā_t = ā_{t−1} + w_t (a_t − ā_{t−1}) of one point at a time, for any vector
/// space (Eigen types, GaussianPair, the families' parameters): w_t = 2/(t+1) (linear), 1/t (uniform),
/// 1/(t − ⌊T/2⌋) over t > ⌊T/2⌋ (tail), 1 (last).
template <class P, class Scalar>
class RunningAverage {
 public:
  explicit RunningAverage(AverageWeights w = AverageWeights::kLinear) : weights_(w) {}
  void start(long steps) {
    steps_ = steps;
    count_ = 0;
  }
  /// Sizes the storage like `like` before the run, so that no add() allocates (for parameters held
  /// in dynamic-size matrices).
  void reserve_like(const P& like) {
    if (!value_) value_ = like;
  }
  /// Adds a_t for step index t ≥ 1.
  void add(long t, const P& a) {
    if (weights_ == AverageWeights::kTail && 2 * t <= steps_ && t != steps_) return;
    ++count_;
    if (!value_) {
      value_ = a;
      return;
    }
    if (count_ == 1 || weights_ == AverageWeights::kLast) {
      *value_ = a;  // into the storage reserve_like() sized: no allocation
      return;
    }
    const Scalar w = weights_ == AverageWeights::kLinear ? Scalar(2) / Scalar(t + 1) : Scalar(1) / Scalar(count_);
    move_toward(*value_, a, w);
  }
  std::optional<P> value() const { return count_ > 0 ? value_ : std::nullopt; }
  long count() const { return count_; }
  AverageWeights weights() const { return weights_; }

 private:
  AverageWeights weights_;
  long steps_ = 0;
  long count_ = 0;
  std::optional<P> value_;
};

/// An average of the stepper's point (natural parameters for the NGD steppers).
template <class S>
class PointAverage {
 public:
  using Value = typename S::Point;
  explicit PointAverage(AverageWeights w = AverageWeights::kLinear) : avg_(w) {}
  void start(long steps) { avg_.start(steps); }
  void start(long steps, const S& s) {
    avg_.start(steps);
    avg_.reserve_like(s.point());
  }
  StepStatus add(long t, const S& s) {
    avg_.add(t, s.point());
    return StepStatus::fine();
  }
  std::optional<Value> value() const { return avg_.value(); }
  bool converts() const { return false; }
  AverageWeights weights() const { return avg_.weights(); }

 private:
  RunningAverage<Value, typename S::Scalar> avg_;
};

// ---------------------------------------------------------------------------------------------
// Observers.

/// Calls fn(event) after every step (a lambda observer).
template <class Fn>
struct OnStep {
  Fn fn;
  template <class Event>
  void on_step(const Event& e) {
    fn(e);
  }
};
template <class Fn>
OnStep(Fn) -> OnStep<Fn>;

/// Ends the run after the first step at which pred(event) holds.
template <class Pred>
class StopWhen {
 public:
  explicit StopWhen(Pred p) : pred_(std::move(p)) {}
  template <class Event>
  void on_step(const Event& e) {
    if (!stop_ && pred_(e)) stop_ = true;
  }
  bool stop() const { return stop_; }

 private:
  Pred pred_;
  bool stop_ = false;
};

/// One progress line on stderr, "label: step t/T", at most every `every_seconds` once `after_seconds`
/// have passed (short runs print nothing), and a final line for a run that printed any.
class Progress {
 public:
  Progress(std::string label, double after_seconds = 1, double every_seconds = 10)
      : label_(std::move(label)), after_(after_seconds), every_(every_seconds), start_(std::chrono::steady_clock::now()), last_(start_) {}
  template <class S>
  void on_start(const S&, long steps) {
    steps_ = steps;
  }
  template <class Event>
  void on_step(const Event& e) {
    if (((e.t + 1) & 255) != 0 && !e.last()) return;  // the clock is read every 256 steps
    const auto now = std::chrono::steady_clock::now();
    const double since = std::chrono::duration<double>(now - start_).count();
    if (since < after_ || (printed_ && std::chrono::duration<double>(now - last_).count() < every_ && !e.last())) return;
    if (!printed_ && e.last()) return;
    std::fprintf(stderr, "%s: step %ld/%ld (%.0f s)\n", label_.c_str(), e.t + 1, steps_, since);
    printed_ = true;
    last_ = now;
  }

 private:
  std::string label_;
  double after_, every_;
  std::chrono::steady_clock::time_point start_, last_;
  long steps_ = 0;
  bool printed_ = false;
};

/// An estimator that declares `static constexpr bool reads_point = false`: its estimate(t, stepper, ĝ)
/// draws and evaluates ĝ without reading the stepper, so the engine may make the estimate of step
/// t + 1 while step t updates the iterate. An estimator that does not declare it is taken to read
/// the iterate.
template <class E>
concept PointFreeEstimator = requires { requires !std::remove_cvref_t<E>::reads_point; };

namespace engine_detail {

template <class O, class S>
void start_observer(O& o, const S& s, long steps) {
  if constexpr (requires { o.on_start(s, steps); }) o.on_start(s, steps);
}
template <class O>
bool observer_stops(const O& o) {
  if constexpr (requires { o.stop(); }) return static_cast<bool>(o.stop());
  else return false;
}
template <class S>
kernels::ExecutionContext execution_of(const S& s) {
  if constexpr (requires { s.execution(); }) return s.execution();
  else return kernels::sequential();
}
template <class S>
Index dim_of(const S& s) {
  if constexpr (requires { s.dim(); }) return static_cast<Index>(s.dim());
  else return 0;
}
template <class Sch>
bool schedule_within_unit_interval(const Sch& s) {
  if constexpr (requires { s.within_unit_interval(); }) return s.within_unit_interval();
  else return true;  // checked step by step
}

}  // namespace engine_detail

/// Runs options.steps steps (see the file comment) and returns the trajectory.
/// @throws std::invalid_argument naming 'options.steps' if T < 0; std::domain_error naming
///         'options.checkpoints' (not increasing in [1, T], or without an average) or 'schedule'
///         (theorem steps required and some γ_t ∉ (0, 1], when the schedule can tell in advance).
///         Failures inside the run are returned in Trajectory::failure, not thrown.
template <class S, class E, class Sch, class A, class... Obs>
  requires Stepper<S> && EstimatorFor<E, S> && ScheduleFor<Sch, typename S::Scalar> && AveragerFor<A, S>
Trajectory<typename S::Point, typename A::Value> run_trajectory(S& stepper, E& estimator, const Sch& schedule, A& averager,
                                                                const RunOptions& options, Obs&&... observers) {
  using Scalar = typename S::Scalar;
  constexpr const char* f = "ngvi::run_trajectory";
  if (options.steps < 0) throw_size(f, "options.steps", "must be >= 0");
  for (std::size_t k = 0; k < options.checkpoints.size(); ++k)
    if (options.checkpoints[k] < 1 || options.checkpoints[k] > options.steps || (k > 0 && options.checkpoints[k] <= options.checkpoints[k - 1]))
      throw_domain(f, "options.checkpoints", "must be increasing and lie in [1, T]");
  if (!options.checkpoints.empty() && std::is_same_v<A, NoAverage>) throw_domain(f, "options.checkpoints", "need an averager");
  if (options.theorem_steps && !engine_detail::schedule_within_unit_interval(schedule))
    throw_domain(f, "schedule", "has a step outside (0, 1] (Remark 2, Theorem 1 need gamma_t <= 1)");
  if constexpr (requires { averager.start(options.steps, std::as_const(stepper)); }) averager.start(options.steps, std::as_const(stepper));
  else if constexpr (requires { averager.start(options.steps); }) averager.start(options.steps);
  if constexpr (requires { stepper.set_converting(true); }) stepper.set_converting(averager.converts());
  (engine_detail::start_observer(observers, stepper, options.steps), ...);

  Trajectory<typename S::Point, typename A::Value> out;
  typename S::Direction dir = stepper.make_direction();
  const kernels::ExecutionContext exec = engine_detail::execution_of(stepper);
  const bool overlap = exec.overlaps(engine_detail::dim_of(stepper), averager.converts());
  // A point-free estimator overlaps the whole step: ĝ_{t+1} goes into dir_next while step t reads dir.
  constexpr bool point_free = PointFreeEstimator<E>;
  std::optional<typename S::Direction> dir_next;
  if constexpr (point_free) {
    if (overlap) dir_next.emplace(stepper.make_direction());
  }
  std::size_t next_checkpoint = 0;

  auto fail = [&](long t, StepFailure::Kind kind, std::string arg, std::string cond) {
    out.failure = StepFailure{t, kind, std::move(arg), std::move(cond)};
  };
  // Runs fn; a std::domain_error / std::invalid_argument it raises becomes the failure of step t.
  auto guarded = [&](long t, auto&& fn) {
    try {
      fn();
      return true;
    } catch (const std::invalid_argument& e) {
      fail(t, StepFailure::Kind::kSize, "step", e.what());
    } catch (const std::domain_error& e) {
      fail(t, StepFailure::Kind::kDomain, "step", e.what());
    }
    return false;
  };

  bool estimated_ahead = false;
  if (overlap && options.steps > 0 && !guarded(0, [&] { estimator.estimate(0, std::as_const(stepper), dir); })) {
    out.last = stepper.point();
    return out;
  }
  estimated_ahead = overlap;
  for (long t = 0; t < options.steps; ++t) {
    const Scalar gamma = schedule.at(t);
    if (!(gamma > Scalar(0)) || !is_finite_scalar(gamma)) {
      fail(t, StepFailure::Kind::kDomain, "schedule", "gives gamma_t that is not finite and positive");
      break;
    }
    if (options.theorem_steps && !(gamma <= Scalar(1))) {
      fail(t, StepFailure::Kind::kDomain, "schedule", "gives gamma_t > 1 (Remark 2, Theorem 1 need gamma_t in (0, 1])");
      break;
    }
    if (!estimated_ahead && !guarded(t, [&] { estimator.estimate(t, std::as_const(stepper), dir); })) break;
    StepStatus st, added;
    std::exception_ptr next_error;
    const bool ahead = overlap && t + 1 < options.steps;
    bool stepped_beside = false;
    if constexpr (point_free) {
      if (ahead) {
        // Step t (update, then conversion and average) beside ĝ_{t+1}, which reads no iterate.
        if (!guarded(t, [&] {
              kernels::finish_beside_next(
                  *exec.pool, [&] { return (st = stepper.step(t, gamma, std::as_const(dir))).ok && (added = averager.add(t + 1, stepper)).ok; },
                  [&] { estimator.estimate(t + 1, std::as_const(stepper), *dir_next); }, next_error);
            }))
          break;
        stepped_beside = true;
      }
    }
    if (!stepped_beside) {
      if (!guarded(t, [&] { st = stepper.step(t, gamma, std::as_const(dir)); })) break;
      if (st && !guarded(t, [&] {
            if (ahead)
              kernels::finish_beside_next(
                  *exec.pool, [&] { return (added = averager.add(t + 1, stepper)).ok; },
                  [&] { estimator.estimate(t + 1, std::as_const(stepper), dir); }, next_error);
            else
              added = averager.add(t + 1, stepper);
          }))
        break;
    }
    if (!st) {  // (added stays fine: no average was asked of an iterate the update did not form)
      fail(t, StepFailure::Kind::kDomain, st.argument, st.condition);
      break;
    }
    if (!added) {
      if constexpr (requires { stepper.rollback(); }) stepper.rollback();
      fail(t, StepFailure::Kind::kDomain, added.argument, added.condition + " after step t = " + std::to_string(t));
      break;
    }
    out.steps = t + 1;
    if (next_checkpoint < options.checkpoints.size() && options.checkpoints[next_checkpoint] == t + 1) {
      if (auto v = averager.value()) out.checkpoint_averages.push_back(std::move(*v));
      ++next_checkpoint;
    }
    [[maybe_unused]] const StepEvent<S, A> event{t, options.steps, gamma, stepper, averager, dir};
    (observers.on_step(event), ...);
    if (next_error) {
      try {
        std::rethrow_exception(next_error);
      } catch (const std::invalid_argument& e) {
        fail(t + 1, StepFailure::Kind::kSize, "step", e.what());
      } catch (const std::domain_error& e) {
        fail(t + 1, StepFailure::Kind::kDomain, "step", e.what());
      }
      break;
    }
    if constexpr (point_free) {
      if (ahead) std::swap(dir, *dir_next);  // ĝ_{t+1} is step t + 1's direction
    }
    estimated_ahead = ahead;
    if ((engine_detail::observer_stops(observers) || ...)) {
      out.stopped = true;
      break;
    }
  }
  out.last = stepper.point();
  out.average = averager.value();
  return out;
}

}  // namespace ngvi
