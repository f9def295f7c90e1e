#pragma once
/// @file
/// One stepper for the plain gradient, the q-Fisher natural gradient and the variational predictive
/// natural gradient (VPNG, Tang & Ranganath 2019; docs/systems.md D.1): ascent on the ELBO in
/// λ = (μ, ω = log σ) of a mean-field Gaussian,
/// \f[ \lambda \leftarrow \lambda + \rho\, P^{-1} \hat\nabla L, \f]
/// whose preconditioner P is a part:
///   PlainGradient         P = I;
///   QFisherNatural        P = F_q + δI, F_q = diag(1/σ², 2) (δ ≥ 0; δ = 0 is the NG of D.4);
///   PredictiveFisherNatural  P = F̂_r + δI, δ > 0, F̂_r from the direction (estimators/predictive_fisher.hpp),
///                         solved by Cholesky. Its option DampingPlacement::kGradient is a mutant.
/// λ lives in R^{2D}: no update leaves the domain unless it is not finite.
#include <Eigen/Cholesky>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "ngvi/estimators/predictive_fisher.hpp"
#include "ngvi/linalg/validate.hpp"
#include "ngvi/optim/engine.hpp"

namespace ngvi {

/// P = I.
struct PlainGradient {
  static constexpr const char* name = "gradient";
  template <class Scalar>
  Vec<Scalar> solve(const Vec<Scalar>&, const MeanFieldDirection<Scalar>& d) const {
    return d.grad;
  }
};

/// P = diag(1/σ², 2) + δI: Δμ = g_μ σ²/(1 + δσ²), Δω = g_ω/(2 + δ).
template <class Scalar>
struct QFisherNatural {
  static constexpr const char* name = "ng";
  Scalar delta = Scalar(0);
  explicit QFisherNatural(Scalar damping = Scalar(0)) : delta(std::move(damping)) {
    if (!(delta >= Scalar(0)) || !is_finite_scalar(delta)) throw_domain("ngvi::QFisherNatural", "delta", "must be finite and >= 0");
  }
  Vec<Scalar> solve(const Vec<Scalar>& lambda, const MeanFieldDirection<Scalar>& d) const {
    const Index n = lambda.size() / 2;
    const Vec<Scalar> s = mf_sigma(lambda);
    Vec<Scalar> out(2 * n);
    for (Index i = 0; i < n; ++i) {
      const Scalar v = s(i) * s(i);
      out(i) = d.grad(i) * v / (Scalar(1) + delta * v);
      out(n + i) = d.grad(n + i) / (Scalar(2) + delta);
    }
    return out;
  }
};

/// Where the damping goes.
enum class DampingPlacement {
  kMatrix,    ///< (F̂_r + δI)⁻¹ ∇̂L
  kGradient,  ///< mutant: F̂_r⁻¹ (∇̂L + δ·1), damping added to the gradient instead of the matrix
};

/// P = F̂_r + δI, δ > 0.
template <class Scalar>
struct PredictiveFisherNatural {
  static constexpr const char* name = "vpng";
  Scalar delta;
  DampingPlacement placement = DampingPlacement::kMatrix;
  explicit PredictiveFisherNatural(Scalar damping, DampingPlacement where = DampingPlacement::kMatrix) : delta(std::move(damping)), placement(where) {
    if (!(delta > Scalar(0)) || !is_finite_scalar(delta)) throw_domain("ngvi::PredictiveFisherNatural", "delta", "must be finite and > 0");
  }
  /// @throws std::invalid_argument naming 'direction.fisher' if the estimator gave no matrix or one
  ///         of the wrong size; std::domain_error naming it if the damped matrix does not factorise.
  Vec<Scalar> solve(const Vec<Scalar>& lambda, const MeanFieldDirection<Scalar>& d) const {
    constexpr const char* f = "ngvi::PredictiveFisherNatural";
    if (!d.has_fisher) throw_size(f, "direction.fisher", "was not estimated (estimator route is none)");
    if (d.fisher.rows() != lambda.size() || d.fisher.cols() != lambda.size()) throw_size(f, "direction.fisher", "must be 2D x 2D");
    Mat<Scalar> p = d.fisher;
    Vec<Scalar> rhs = d.grad;
    if (placement == DampingPlacement::kMatrix) p.diagonal().array() += delta;
    else rhs.array() += delta;
    const Eigen::LLT<Mat<Scalar>> llt(p);
    if (llt.info() != Eigen::Success) throw_domain(f, "direction.fisher", "plus damping is not positive definite");
    return llt.solve(rhs);
  }
};

/// λ ← λ + ρ P⁻¹ ∇̂L.
template <class ScalarT, class Preconditioner>
class PreconditionedStepper {
 public:
  using Scalar = ScalarT;
  using Point = Vec<Scalar>;
  using Direction = MeanFieldDirection<Scalar>;

  PreconditionedStepper(Point lambda0, Preconditioner p) : lambda_(std::move(lambda0)), pre_(std::move(p)) {
    constexpr const char* f = "ngvi::PreconditionedStepper";
    if (lambda_.size() < 2 || lambda_.size() % 2 != 0) throw_size(f, "lambda0", "must have 2 D entries (mu, omega), D >= 1");
    require_finite(lambda_, f, "lambda0");
  }
  const Point& point() const { return lambda_; }
  Direction make_direction() const { return {Vec<Scalar>::Zero(lambda_.size()), Mat<Scalar>(), false}; }
  Index dim() const { return lambda_.size(); }
  const Preconditioner& preconditioner() const { return pre_; }
  /// The last update P⁻¹∇̂L (before the step size).
  const Vec<Scalar>& last_update() const { return update_; }

  StepStatus step(long, const Scalar& rho, const Direction& d) {
    if (d.grad.size() != lambda_.size()) throw_size("ngvi::PreconditionedStepper", "direction.grad", "must have the size of lambda");
    update_ = pre_.solve(lambda_, d);
    if (!all_finite(update_)) return StepStatus::left("lambda", "update is not finite");
    lambda_ += rho * update_;
    return StepStatus::fine();
  }

 private:
  Point lambda_;
  Preconditioner pre_;
  Vec<Scalar> update_;
};

/// How a VPNG run is put together: the parts' options a mutant changes.
struct VpngConfig {
  FisherRoute route = FisherRoute::kExact;
  JacobianForm jacobian = JacobianForm::kFull;
  DampingPlacement placement = DampingPlacement::kMatrix;
};

/// A named mutant of VPNG: a one-line description and how it changes the configuration.
struct VpngMutant {
  std::string name;
  std::string description;
  std::function<void(VpngConfig&)> apply;
};

/// The mutants of issue 29, for the claims and the global mutant registry.
inline std::vector<VpngMutant> vpng_mutants() {
  return {
      {"vpng-no-eps-jacobian", "F_r with J = [I, diag(sigma)]: the epsilon factor of the Jacobian's omega block dropped",
       [](VpngConfig& c) { c.jacobian = JacobianForm::kWithoutEpsilon; }},
      {"vpng-q-fisher", "the q-Fisher diag(1/sigma^2, 2) in place of F_r inside the VPNG preconditioner",
       [](VpngConfig& c) { c.route = FisherRoute::kQFisher; }},
      {"vpng-damp-gradient", "damping added to the gradient, F_r^-1 (grad + delta 1), instead of to the matrix",
       [](VpngConfig& c) { c.placement = DampingPlacement::kGradient; }},
  };
}

}  // namespace ngvi
