#pragma once
/// @file
/// NaturalStepper<F>: the step in natural parameters of the stochastic natural-gradient methods, for
/// any family F (docs/math.md §2.4; Hoffman et al. 2013, eq. (10)). The point λ and the direction ĝ
/// are F::Natural, and one step of size ρ is
/// \f[ \lambda \leftarrow (1-\rho)\,\lambda + \rho\,(\lambda_p + \hat g) \f]
/// through natural_update (optim/natural_update.hpp, the update written once), followed by F's
/// domain check F::in_domain: a step whose λ leaves Ω is undone and reported (StepStatus), which ends
/// the engine's run with the last valid iterate.
///
/// Instances: SVI's global step (optim/steppers/svi.hpp: svi::SviStepper, F the model's family of its
/// global variable, λ_p its prior; LDA's topics a Product<DirichletFamily>), and Paquet's option (b)
/// under Algorithm 1 (optim/steppers/paquet_svb.hpp: F = MfFamily, every node's ĝ formed from the
/// sweep's start, then one step of the whole Λ). The full Gaussian's NGD
/// stepper (optim/steppers/ngd_gaussian.hpp) is this step specialised to the full Gaussian: its fused
/// kernel forms the same entries and the Cholesky factor of the new precision, the Gaussian's domain
/// check, in one pass, so it does not go through here.
#include <concepts>
#include <utility>
#include <vector>

#include "ngvi/expfam/family.hpp"
#include "ngvi/kernels/execution.hpp"
#include "ngvi/linalg/validate.hpp"
#include "ngvi/optim/engine.hpp"
#include "ngvi/optim/natural_update.hpp"

namespace ngvi {

/// What a step in natural parameters needs of a family: its scalar, its natural parameter (a vector
/// space, ParameterSpace) and the domain Ω of that parameter (in_domain, which never throws). Every
/// ExponentialFamily (expfam/family.hpp) is one; so is a model's family of its global variables that
/// the kit has no full family type for (gmm::GlobalFamily).
template <class F>
concept NaturalDomain = requires(const F& f, const typename F::Natural& eta) {
  typename F::Scalar;
  typename F::Natural;
  { f.in_domain(eta) } -> std::same_as<bool>;
} && ParameterSpace<typename F::Natural, typename F::Scalar>;

/// A family whose natural parameter is a matrix of components, one per column, each checked against
/// the component's domain on its own (Product<F>: LDA's topics). NaturalStepper takes its step by
/// columns.
template <class F>
concept ColumnDomain = requires(const F& f, const typename F::Natural& eta, Index j) {
  { f.component_in_domain(eta, j) } -> std::same_as<bool>;
  { f.components() } -> std::convertible_to<Index>;
  eta.col(j);
};

/// The iterate λ ∈ Ω of F and the step λ ← (1 − ρ)λ + ρ(λ_p + ĝ) (file comment).
/// For a ColumnDomain family the step goes column by column: each column's update (natural_update's
/// two roundings) and then its domain check while it is in cache, the columns on the execution
/// context's pool when there is one. Every entry is the same function of the same entries whatever
/// the pool, so the iterate is bitwise the same for any number of threads.
/// @tparam F a NaturalDomain (any ExponentialFamily).
template <NaturalDomain F>
class NaturalStepper {
 public:
  using Family = F;
  using Scalar = typename F::Scalar;
  using Point = typename F::Natural;
  using Direction = typename F::Natural;

  /// @param family F (with its dimensions).
  /// @param lambda0 the first iterate, in Ω.
  /// @param prior λ_p, the natural parameter the step pulls toward (the prior's, for SVI).
  /// @throws std::invalid_argument naming 'lambda0' if its shape is not the prior's (for matrix-shaped
  ///         parameters); std::domain_error naming 'lambda0' if it is not in Ω.
  /// @param exec the pool a ColumnDomain family's step runs its columns on (no pool: in turn).
  NaturalStepper(F family, Point lambda0, Point prior, kernels::ExecutionContext exec = kernels::sequential())
      : f_(std::move(family)), lambda_(std::move(lambda0)), prior_(std::move(prior)), exec_(exec) {
    constexpr const char* fn = "ngvi::NaturalStepper";
    if constexpr (requires { lambda_.rows(); lambda_.cols(); })
      if (lambda_.rows() != prior_.rows() || lambda_.cols() != prior_.cols()) throw_size(fn, "lambda0", "has the wrong shape (not the prior's)");
    if (!f_.in_domain(lambda_)) throw_domain(fn, "lambda0", "is outside the domain of the family's natural parameter");
  }

  /// Replaces the iterate (the stepper of a system whose sweep takes this step on some sweeps only
  /// hands it its iterate first). @throws as the constructor ('lambda').
  void reset(const Point& lambda) {
    constexpr const char* fn = "ngvi::NaturalStepper::reset";
    if constexpr (requires { lambda.rows(); lambda.cols(); })
      if (lambda.rows() != prior_.rows() || lambda.cols() != prior_.cols()) throw_size(fn, "lambda", "has the wrong shape (not the prior's)");
    if (!f_.in_domain(lambda)) throw_domain(fn, "lambda", "is outside the domain of the family's natural parameter");
    lambda_ = lambda;
  }

  const Point& point() const { return lambda_; }
  const Point& prior() const { return prior_; }
  const F& family() const { return f_; }
  /// A zero of the parameter's shape, for the estimator to overwrite.
  Direction make_direction() const { return Direction(prior_ - prior_); }

  /// λ ← (1 − ρ)λ + ρ(λ_p + ĝ); if that λ is outside Ω, λ is put back and the failure returned.
  StepStatus step(long, const Scalar& rho, const Direction& ghat) {
    // The candidate is formed beside λ (no copy of λ first) and takes its place only inside Ω.
    bool inside = true;
    if constexpr (ColumnDomain<F>) {
      if (ghat.rows() != lambda_.rows() || ghat.cols() != lambda_.cols()) return StepStatus::left("ghat", "has the wrong shape (not lambda's)");
      next_.resize(lambda_.rows(), lambda_.cols());
      const Index n = lambda_.cols();
      column_ok_.assign(static_cast<std::size_t>(n), 1);
      parallel::for_each_tile(exec_.pool, n, [&](long j) {
        natural_update_beside(next_.col(j), lambda_.col(j), prior_.col(j), ghat.col(j), rho);
        column_ok_[static_cast<std::size_t>(j)] = f_.component_in_domain(next_, j) ? 1 : 0;
      });
      for (const char ok : column_ok_) inside = inside && ok != 0;
    } else {
      natural_update(next_, lambda_, prior_, ghat, rho);
      inside = f_.in_domain(next_);
    }
    if (!inside) return StepStatus::left("lambda", "left the domain of the family's natural parameter");
    std::swap(lambda_, next_);
    return StepStatus::fine();
  }

 private:
  F f_;
  Point lambda_, prior_, next_;
  kernels::ExecutionContext exec_;
  std::vector<char> column_ok_;  // the column tiles' domain checks of the last step
};

}  // namespace ngvi
