#pragma once
/// @file
/// Full-rank Gaussian natural-gradient VI for any target log density, with the positive-definite
/// update of Lin, Schmidt & Khan (2020) — the algorithm of AdvancedVI.jl's KLMinNaturalGradDescent
/// (docs/systems.md §C.2). One step at q = N(m, Σ), precision S = Σ⁻¹ = L Lᵀ, step size η:
///   1. (optional) draw a mini-batch B and use π_B (likelihood scaled by n/|B|);
///   2. u_b ~ N(0, I), z_b = m + L⁻ᵀ u_b, b = 1..n;  ḡ = mean ∇log π(z_b),  l̄ = mean log π(z_b);
///      Hessian path: H̄ = mean ∇²log π(z_b);
///      gradient-only (Stein / Bonnet–Price, E[∇²f] = Σ⁻¹E[(z − m)∇fᵀ]): H̄ = L · mean u_b ∇log π(z_b)ᵀ,
///      then symmetrised (H̄ + H̄ᵀ)/2 (default), or its upper triangle copied to the lower one as
///      AdvancedVI's `Hermitian` wrapper does (LskSteinSymmetry::kUpperTriangle);
///   3. with Ĝ = S + H̄:
///      \f[ S' = S - \eta\hat G + \tfrac{\eta^2}{2}\hat G\Sigma\hat G \quad(\text{ensure\_posdef}),\qquad
///          S' = (1-\eta)S - \eta\bar H \quad(\text{otherwise}); \f]
///   4. m' = m + η S'⁻¹ ḡ (the new precision);  Σ' = S'⁻¹;
///   5. info.elbo = l̄ + H[q'] (l̄ from the old q, entropy of the new q', as in §C.2.6).
/// The LSK precision is evaluated in the algebraically equal form
/// \f[ S' = \tfrac12 S + \tfrac12 W^\top W, \qquad W = L^{-1}\big((1-\eta)S - \eta\bar H\big), \f]
/// (expand: ½S + ½(S − ηĜ)Σ(S − ηĜ) = S − ηĜ + η²/2 ĜΣĜ), a sum of an SPD and a PSD matrix, so S'
/// is SPD in floating point too, for every η > 0 and every symmetric H̄ (docs/systems.md §C.2:
/// S^{-1/2}S'S^{-1/2} = ½I + ½(I − ηA)² ⪰ ½I, A = S^{-1/2}ĜS^{-1/2}).
///
/// Failure behaviour, the engine's (optim/engine.hpp): invalid options or a q0 of the wrong dimension
/// throw before any step (std::domain_error / std::invalid_argument naming the argument); a target that
/// returns a non-finite value or a vector/matrix of the wrong size, or (ensure_posdef = false) a
/// precision that loses positive definiteness, ends the run, and the result (a Trajectory) holds the
/// last good state and a StepFailure naming the step, the kind (kSize for a wrong size) and the
/// condition. value_or_throw turns it into a TrajectoryError for callers who want an exception.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <boost/math/constants/constants.hpp>

#include "ngvi/expfam/gaussian_params.hpp"
#include "ngvi/linalg/spd.hpp"
#include "ngvi/optim/engine.hpp"
#include "ngvi/optim/schedule.hpp"
#include "ngvi/random/stream.hpp"
#include "ngvi/targets/target.hpp"

namespace ngvi {

enum class LskHessianPath { kAuto, kStein };  ///< kAuto: the target's Hessian when it has one
enum class LskSteinSymmetry { kSymmetrise, kUpperTriangle };
enum class LskExpectation { kMonteCarlo, kExact };  ///< kExact needs an ExactExpectationTarget

/// Options of lsk_ngvi; names and defaults follow AdvancedVI's KLMinNaturalGradDescent (§C.1).
template <class Scalar>
struct LskOptions {
  Scalar step_size = Scalar(0);  ///< η, required: must be set to a finite value > 0
  long n_iterations = 1;
  long n_samples = 1;
  bool ensure_posdef = true;
  LskHessianPath hessian_path = LskHessianPath::kAuto;
  LskSteinSymmetry stein_symmetry = LskSteinSymmetry::kSymmetrise;
  LskExpectation expectation = LskExpectation::kMonteCarlo;
  Index batch_size = 0;  ///< 0: no sub-sampling; otherwise reshuffled mini-batches (needs a SubsampledTarget)
  std::uint64_t seed = 0;
  std::uint64_t stream_id = 0;
};

/// The iterate and everything a warm start needs.
template <class Scalar>
struct LskState {
  Vec<Scalar> mean;
  Mat<Scalar> precision;  ///< S
  Mat<Scalar> cov;        ///< Σ = S⁻¹
  Mat<Scalar> chol;       ///< L, S = L Lᵀ (lower)
  long iteration = 0;
  long epoch = 0;
  long step_in_epoch = 0;
  std::vector<Index> order;
  std::uint64_t rng_position = 0;
  GaussianMoments<Scalar> q() const { return {mean, cov}; }
};

/// Per-iteration record handed to the callback (which may append named extras).
template <class Scalar>
struct LskInfo {
  long iteration = 0;
  Scalar elbo = Scalar(0);
  long epoch = 0;
  long step = 0;
  std::vector<std::pair<std::string, double>> extra;
};

/// Monte Carlo (or exact) estimates ḡ, H̄, l̄ at one q.
template <class Scalar>
struct LskEstimates {
  Scalar log_density;
  Vec<Scalar> grad;
  Mat<Scalar> hess;
};

/// State at q0 = N(m0, Σ0): S = Σ0⁻¹ and its factor.
/// @throws std::domain_error / std::invalid_argument (from the moment validation) if Σ0 is not SPD.
template <class Scalar>
LskState<Scalar> lsk_init_state(const GaussianMoments<Scalar>& q0) {
  constexpr const char* f = "ngvi::lsk_init_state";
  require_finite(q0.mean, f, "q0.mean");
  require_rows(q0.cov, q0.dim(), f, "q0.cov");
  const SpdFactor<Scalar> fc(q0.cov, f, "q0.cov");
  LskState<Scalar> s;
  s.mean = q0.mean;
  s.cov = q0.cov;
  s.precision = fc.inverse();
  const SpdFactor<Scalar> fp(s.precision, f, "q0.cov^-1");
  s.chol = fp.lower();
  return s;
}

/// H̄ made exactly symmetric: (H̄ + H̄ᵀ)/2, or the upper triangle copied down (AdvancedVI compat).
template <class Scalar>
Mat<Scalar> lsk_symmetrise(const Mat<Scalar>& h, LskSteinSymmetry mode) {
  if (mode == LskSteinSymmetry::kSymmetrise) return symmetrise(h);
  Mat<Scalar> u = h.template triangularView<Eigen::Upper>();
  u.template triangularView<Eigen::StrictlyLower>() = h.transpose();
  return u;
}

/// The precision update of step 3 (no factorisation of the result).
/// \f[ S' = \tfrac12 S + \tfrac12 W^\top W,\ W = L^{-1}((1-\eta)S - \eta\bar H) \ \text{(ensure\_posdef)};\quad
///     S' = (1-\eta)S - \eta\bar H \ \text{(otherwise)}. \f]
/// @pre S = L Lᵀ SPD, H̄ symmetric, η > 0; sizes agree (checked).
/// @throws std::invalid_argument on a size mismatch, std::domain_error on a bad η.
template <class Scalar>
Mat<Scalar> lsk_precision_update(const Mat<Scalar>& s, const Mat<Scalar>& chol, const Mat<Scalar>& hbar,
                                 const Scalar& eta, bool ensure_posdef) {
  constexpr const char* f = "ngvi::lsk_precision_update";
  require_square(s, f, "S");
  require_rows(chol, s.rows(), f, "L");
  require_rows(hbar, s.rows(), f, "Hbar");
  require_square(hbar, f, "Hbar");
  if (!(eta > Scalar(0)) || !is_finite_scalar(eta)) throw_domain(f, "eta", "must be finite and positive");
  const Mat<Scalar> b = ((Scalar(1) - eta) * s - eta * hbar).eval();
  if (!ensure_posdef) return symmetrise(b);
  const Mat<Scalar> w = chol.template triangularView<Eigen::Lower>().solve(b);
  Mat<Scalar> out = (w.transpose() * w).eval();
  out += s;
  out *= Scalar(0.5);
  return symmetrise(out);
}

namespace lsk_detail {

template <Target T>
void check_eval(const TargetEval<typename T::Scalar>& e, Index d, bool want_hess) {
  constexpr const char* f = "ngvi::lsk_ngvi";
  if (e.grad.size() != d)
    throw_size(f, "target.gradient", "has dimension " + std::to_string(e.grad.size()) + ", expected " + std::to_string(d));
  if (!is_finite_scalar(e.value)) throw_domain(f, "target.log_density", "is not finite");
  require_finite(e.grad, f, "target.gradient");
  if (want_hess) {
    if (e.hess.rows() != d || e.hess.cols() != d) throw_size(f, "target.hessian", "is not " + std::to_string(d) + " x " + std::to_string(d));
    require_finite(e.hess, f, "target.hessian");
  }
}

}  // namespace lsk_detail

/// Monte Carlo estimates (ḡ, H̄, l̄) at the state's q with n samples from `rng` (step 2 of the file
/// comment). `use_hessian` selects the Hessian path (the target must have one).
/// @throws std::domain_error / std::invalid_argument naming target.gradient / target.hessian /
///         target.log_density if the target returns a non-finite value or a wrong size.
template <Target T>
LskEstimates<typename T::Scalar> lsk_estimate(const T& target, const LskState<typename T::Scalar>& st, long n,
                                              random::Stream& rng, bool use_hessian, LskSteinSymmetry sym) {
  using Scalar = typename T::Scalar;
  const Index d = st.mean.size();
  if (n < 1) throw_domain("ngvi::lsk_estimate", "n_samples", "must be at least 1");
  LskEstimates<Scalar> est{Scalar(0), Vec<Scalar>::Zero(d), Mat<Scalar>::Zero(d, d)};
  Mat<Scalar> ug = Mat<Scalar>::Zero(d, d);
  Vec<Scalar> u(d);
  for (long b = 0; b < n; ++b) {
    for (Index i = 0; i < d; ++i) u(i) = Scalar(rng.normal());
    const Vec<Scalar> z = st.mean + st.chol.transpose().template triangularView<Eigen::Upper>().solve(u);
    const TargetEval<Scalar> e = evaluate_target(target, z, use_hessian);
    lsk_detail::check_eval<T>(e, d, use_hessian);
    est.log_density += e.value;
    est.grad += e.grad;
    if (use_hessian) est.hess += e.hess;
    else ug.noalias() += u * e.grad.transpose();
  }
  const Scalar inv_n = Scalar(1) / Scalar(n);
  est.log_density *= inv_n;
  est.grad *= inv_n;
  if (use_hessian) est.hess = symmetrise(Mat<Scalar>(est.hess * inv_n));
  else est.hess = lsk_symmetrise(Mat<Scalar>(st.chol * ug * inv_n), sym);
  return est;
}

/// One LSK step from `st` with estimates `est` (steps 3–4). Returns the new state (counters are the
/// caller's) and the log-determinant of S' through `log_det_precision`.
/// @throws std::domain_error naming 'precision' if S' is not positive definite (ensure_posdef = false).
template <class Scalar>
LskState<Scalar> lsk_step(const LskState<Scalar>& st, const LskEstimates<Scalar>& est, const Scalar& eta,
                          bool ensure_posdef, Scalar* log_det_precision = nullptr) {
  LskState<Scalar> nx = st;
  nx.precision = lsk_precision_update(st.precision, st.chol, est.hess, eta, ensure_posdef);
  const SpdFactor<Scalar> fac(nx.precision, "ngvi::lsk_step", ensure_posdef ? "precision" : "precision (ensure_posdef = false)");
  nx.chol = fac.lower();
  nx.cov = fac.inverse();
  nx.mean = st.mean + eta * fac.solve(est.grad);
  if (log_det_precision) *log_det_precision = fac.log_det();
  return nx;
}

/// No-op callback.
struct LskNoCallback {
  template <class... A>
  void operator()(A&&...) const {}
};

/// What lsk_ngvi returns: the engine's Trajectory (`last`, the last good state, which a warm start
/// passes back to lsk_ngvi; `last.q()` its q, no averaging, as AdvancedVI; `steps`; `failure`) and
/// AdvancedVI's per-iteration trace, as the callback left it.
template <class Scalar>
struct LskRun : Trajectory<LskState<Scalar>, int> {
  std::vector<LskInfo<Scalar>> trace;
};

/// What the LSK estimator hands the stepper: the estimates at q and the sub-sampling counters after
/// this iteration's batch.
template <class Scalar>
struct LskDirection {
  LskEstimates<Scalar> est;
  long epoch = 0;
  long step_in_epoch = 0;
  std::vector<Index> order;
  std::uint64_t rng_position = 0;
};

/// The LSK stepper (steps 3-4 of the file comment); the step size is the engine's γ_t.
template <class Scalar_>
class LskStepper {
 public:
  using Scalar = Scalar_;
  using Point = LskState<Scalar>;
  using Direction = LskDirection<Scalar>;
  LskStepper(LskState<Scalar> init, bool ensure_posdef) : st_(std::move(init)), ensure_posdef_(ensure_posdef) {}
  Index dim() const { return st_.mean.size(); }
  const Point& point() const { return st_; }
  Direction make_direction() const { return Direction{}; }
  StepStatus step(long, const Scalar& eta, const Direction& dir) {
    Scalar log_det_s(0);
    LskState<Scalar> nx = lsk_step(st_, dir.est, eta, ensure_posdef_, &log_det_s);
    nx.iteration = st_.iteration + 1;
    nx.epoch = dir.epoch;
    nx.step_in_epoch = dir.step_in_epoch;
    nx.order = dir.order;
    nx.rng_position = dir.rng_position;
    require_finite(nx.mean, "ngvi::lsk_ngvi", "mean");
    const Index d = nx.mean.size();
    elbo_ = dir.est.log_density + Scalar(d) / 2 + Scalar(d) * boost::math::constants::log_root_two_pi<Scalar>() - log_det_s / 2;
    st_ = std::move(nx);
    return StepStatus::fine();
  }
  /// l̄ + H[q'] of the last step (l̄ at the old q, the entropy of the new one, §C.2.6).
  const Scalar& elbo() const { return elbo_; }

 private:
  LskState<Scalar> st_;
  bool ensure_posdef_;
  Scalar elbo_ = Scalar(0);
};

/// The LSK estimator (step 2 of the file comment): Monte Carlo, exact, or on reshuffled mini-batches.
template <Target T>
class LskEstimator {
 public:
  using Scalar = typename T::Scalar;
  LskEstimator(const T& target, const LskOptions<Scalar>& opt, bool use_hessian, random::Stream& rng)
      : target_(target), opt_(opt), use_hessian_(use_hessian), rng_(rng) {}
  template <class S>
  void estimate(long, const S& s, LskDirection<Scalar>& dir) {
    const LskState<Scalar>& st = s.point();
    dir.epoch = st.epoch;
    dir.step_in_epoch = st.step_in_epoch;
    dir.order = st.order;
    if (opt_.expectation == LskExpectation::kExact) {
      if constexpr (ExactExpectationTarget<T>) {
        const GaussianMoments<Scalar> q = st.q();
        dir.est = {target_.expected_log_density(q), target_.expected_gradient(q), target_.expected_hessian(q)};
        lsk_detail::check_eval<T>(TargetEval<Scalar>{dir.est.log_density, dir.est.grad, dir.est.hess}, target_.dim(), true);
        dir.est.hess = symmetrise(dir.est.hess);
      }
    } else if (opt_.batch_size > 0) {
      if constexpr (SubsampledTarget<T>) {
        const Index n = target_.n_data();
        if (dir.order.size() != static_cast<std::size_t>(n) || dir.step_in_epoch * opt_.batch_size >= n) {
          dir.order.resize(static_cast<std::size_t>(n));
          for (Index i = 0; i < n; ++i) dir.order[static_cast<std::size_t>(i)] = i;
          for (Index i = n - 1; i > 0; --i)
            std::swap(dir.order[static_cast<std::size_t>(i)], dir.order[static_cast<std::size_t>(rng_.index(static_cast<std::uint64_t>(i + 1)))]);
          ++dir.epoch;
          dir.step_in_epoch = 0;
        }
        const Index lo = dir.step_in_epoch * opt_.batch_size;
        const Index hi = std::min(n, lo + opt_.batch_size);
        const std::vector<Index> batch(dir.order.begin() + lo, dir.order.begin() + hi);
        ++dir.step_in_epoch;
        dir.est = lsk_estimate(target_.subsample(batch), st, opt_.n_samples, rng_, use_hessian_, opt_.stein_symmetry);
      }
    } else {
      dir.est = lsk_estimate(target_, st, opt_.n_samples, rng_, use_hessian_, opt_.stein_symmetry);
    }
    dir.rng_position = rng_.position();
  }

 private:
  const T& target_;
  const LskOptions<Scalar>& opt_;
  bool use_hessian_;
  random::Stream& rng_;
};

/// Runs opt.n_iterations LSK steps from `init` (a state from lsk_init_state or a previous run) on the
/// trajectory engine, with the constant schedule γ_t = opt.step_size; observers see the engine's
/// StepEvent (e.stepper.point() is the LskState after the step, e.stepper.elbo() its info.elbo). A
/// failure inside the run (a target's non-finite value or wrong size, a precision that is not
/// positive definite with ensure_posdef = false) ends it and is returned in the trajectory.
/// @throws std::domain_error naming the option on invalid options; std::invalid_argument naming 'q0'
///         for a q0 of the wrong dimension.
template <Target T, class... Obs>
Trajectory<LskState<typename T::Scalar>, int> lsk_trajectory(const T& target, const LskState<typename T::Scalar>& init,
                                                             const LskOptions<typename T::Scalar>& opt, Obs&&... observers) {
  using Scalar = typename T::Scalar;
  constexpr const char* f = "ngvi::lsk_ngvi";
  if (!(opt.step_size > Scalar(0)) || !is_finite_scalar(opt.step_size))
    throw_domain(f, "options.step_size", "must be finite and > 0 (it is required)");
  if (opt.n_samples < 1) throw_domain(f, "options.n_samples", "must be at least 1");
  if (opt.n_iterations < 0) throw_domain(f, "options.n_iterations", "must be non-negative");
  if (opt.batch_size < 0) throw_domain(f, "options.batch_size", "must be non-negative");
  if (init.mean.size() != target.dim() || init.precision.rows() != target.dim() || init.chol.rows() != target.dim())
    throw_size(f, "q0", "has dimension " + std::to_string(init.mean.size()) + ", the target has " + std::to_string(target.dim()));
  bool use_hessian = false;
  if (opt.hessian_path == LskHessianPath::kAuto) use_hessian = HessianTarget<T>;
  if (opt.expectation == LskExpectation::kExact) {
    if constexpr (!ExactExpectationTarget<T>) throw_domain(f, "options.expectation", "is kExact but the target has no closed-form expectations");
    if (opt.batch_size > 0) throw_domain(f, "options.batch_size", "must be 0 with exact expectations");
  }
  if (opt.batch_size > 0) {
    if constexpr (!SubsampledTarget<T>) throw_domain(f, "options.batch_size", "needs a target with n_data() and subsample()");
  }
  random::Stream rng(opt.seed, opt.stream_id);
  rng.seek(init.rng_position);
  LskStepper<Scalar> stepper(init, opt.ensure_posdef);
  LskEstimator<T> est(target, opt, use_hessian, rng);
  NoAverage none;
  return run_trajectory(stepper, est, StepSchedule<Scalar>::constant(opt.step_size), none, RunOptions{opt.n_iterations},
                        std::forward<Obs>(observers)...);
}

/// Runs opt.n_iterations LSK steps from `init` (lsk_trajectory), with AdvancedVI's callback: it is
/// called as cb(iteration, q', info) after each step, info mutable, and the infos are the run's trace.
/// A failure ends the run and is returned (run.failure; the file comment), not thrown.
/// @throws as lsk_trajectory on invalid options or an init of the wrong dimension.
template <Target T, class Callback = LskNoCallback>
LskRun<typename T::Scalar> lsk_ngvi(const T& target, const LskState<typename T::Scalar>& init,
                                    const LskOptions<typename T::Scalar>& opt, Callback&& cb = {}) {
  using Scalar = typename T::Scalar;
  LskRun<Scalar> run;
  run.trace.reserve(static_cast<std::size_t>(opt.n_iterations > 0 ? opt.n_iterations : 0));
  auto record = OnStep{[&](const auto& e) {
    const LskState<Scalar>& st = e.stepper.point();
    LskInfo<Scalar> info;
    info.iteration = st.iteration;
    info.elbo = e.stepper.elbo();
    info.epoch = st.epoch;
    info.step = st.step_in_epoch;
    const GaussianMoments<Scalar> q = st.q();
    cb(st.iteration, q, info);
    run.trace.push_back(std::move(info));
  }};
  static_cast<Trajectory<LskState<Scalar>, int>&>(run) = lsk_trajectory(target, init, opt, record);
  return run;
}

/// The same from q0 = N(m0, Σ0).
template <Target T, class Callback = LskNoCallback>
LskRun<typename T::Scalar> lsk_ngvi(const T& target, const GaussianMoments<typename T::Scalar>& q0,
                                    const LskOptions<typename T::Scalar>& opt, Callback&& cb = {}) {
  return lsk_ngvi(target, lsk_init_state(q0), opt, std::forward<Callback>(cb));
}

/// Monte Carlo negative ELBO (docs/systems.md §C.3), with its own sample count:
/// \f[ \widehat{\mathcal L} = -\frac1n\sum_{i=1}^n\big[\log\pi(z_i) - \log q(z_i)\big], \quad z_i = m + C u_i,\ CC^\top = \Sigma. \f]
/// With batch_size > 0 (a SubsampledTarget) it is the average over one reshuffled epoch of batches of
/// the estimate on π_B.
/// @throws std::domain_error naming the argument on n_samples < 1, an invalid q or a non-finite log π.
template <Target T>
typename T::Scalar lsk_estimate_objective(const T& target, const GaussianMoments<typename T::Scalar>& q, long n_samples,
                                          std::uint64_t seed, std::uint64_t stream_id = 0, Index batch_size = 0) {
  using Scalar = typename T::Scalar;
  constexpr const char* f = "ngvi::lsk_estimate_objective";
  if (n_samples < 1) throw_domain(f, "n_samples", "must be at least 1");
  if (q.dim() != target.dim()) throw_size(f, "q", "has a different dimension from the target");
  require_finite(q.mean, f, "q.mean");
  const SpdFactor<Scalar> fc(q.cov, f, "q.cov");
  const Mat<Scalar> c = fc.lower();
  const Index d = q.dim();
  const Scalar log_q_const = -Scalar(d) * boost::math::constants::log_root_two_pi<Scalar>() - fc.log_det() / 2;
  random::Stream rng(seed, stream_id);
  auto one = [&](const auto& t) {
    Scalar acc(0);
    Vec<Scalar> u(d);
    for (long i = 0; i < n_samples; ++i) {
      for (Index j = 0; j < d; ++j) u(j) = Scalar(rng.normal());
      const Scalar lp = t.log_density(Vec<Scalar>(q.mean + c * u));
      if (!is_finite_scalar(lp)) throw_domain(f, "target.log_density", "is not finite");
      acc += lp - (log_q_const - u.squaredNorm() / 2);
    }
    return Scalar(-acc / Scalar(n_samples));
  };
  if (batch_size <= 0) return one(target);
  if constexpr (SubsampledTarget<T>) {
    const Index n = target.n_data();
    std::vector<Index> order(static_cast<std::size_t>(n));
    for (Index i = 0; i < n; ++i) order[static_cast<std::size_t>(i)] = i;
    for (Index i = n - 1; i > 0; --i)
      std::swap(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(rng.index(static_cast<std::uint64_t>(i + 1)))]);
    Scalar total(0);
    long batches = 0;
    for (Index lo = 0; lo < n; lo += batch_size, ++batches) {
      const std::vector<Index> b(order.begin() + lo, order.begin() + std::min(n, lo + batch_size));
      total += one(target.subsample(b));
    }
    return total / Scalar(batches);
  } else {
    throw_domain(f, "batch_size", "needs a target with n_data() and subsample()");
  }
}

}  // namespace ngvi
