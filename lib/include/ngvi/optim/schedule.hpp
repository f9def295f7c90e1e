#pragma once
/// @file
/// Step-size schedules γ_t, t = 0, 1, 2, … (docs/math.md §4.5, §7.1; docs/systems.md §A.2, §B.6):
///   theorem1      γ_t = 2/(t+2)                (Wu & Gardner 2024, Theorem 1; γ_0 = 1)
///   constant      γ_t = c
///   polynomial    γ_t = scale·(t+1+τ)^(−κ)   (Robbins–Monro; SVI forgetting rate κ, delay τ)
///   inverse_time  γ_t = c/(t + t0)             ("linearly decreasing", Appendix F SGD baseline)
/// The polynomial schedule is Robbins–Monro's (t' + τ)^(−κ) with t' = t + 1 (so that the first
/// step, t = 0, uses t' = 1 as in Hoffman et al. 2013), optionally scaled: γ_t = scale·(t+1+τ)^(−κ).
#include <cmath>
#include <sstream>
#include <string>

#include "ngvi/linalg/validate.hpp"

namespace ngvi {

template <class Scalar>
class StepSchedule {
 public:
  enum class Kind { kTheorem1, kConstant, kPolynomial, kInverseTime };

  /// γ_t = 2/(t+2).
  static StepSchedule theorem1() { return StepSchedule(Kind::kTheorem1, Scalar(1), Scalar(0), Scalar(0)); }

  /// γ_t = c, c > 0.
  static StepSchedule constant(const Scalar& c) {
    if (!(c > Scalar(0)) || !is_finite_scalar(c)) throw_domain("ngvi::StepSchedule::constant", "c", "must be finite and positive");
    return StepSchedule(Kind::kConstant, c, Scalar(0), Scalar(0));
  }

  /// γ_t = scale·(t + 1 + τ)^(−κ), κ ∈ [0, 1], τ ≥ 0, scale > 0.
  static StepSchedule polynomial(const Scalar& kappa, const Scalar& tau, const Scalar& scale = Scalar(1)) {
    constexpr const char* f = "ngvi::StepSchedule::polynomial";
    if (!(kappa >= Scalar(0) && kappa <= Scalar(1))) throw_domain(f, "kappa", "must lie in [0, 1]");
    if (!(tau >= Scalar(0)) || !is_finite_scalar(tau)) throw_domain(f, "tau", "must be finite and >= 0");
    if (!(scale > Scalar(0)) || !is_finite_scalar(scale)) throw_domain(f, "scale", "must be finite and positive");
    return StepSchedule(Kind::kPolynomial, scale, kappa, tau);
  }

  /// γ_t = c/(t + t0), c > 0, t0 > 0.
  static StepSchedule inverse_time(const Scalar& c, const Scalar& t0) {
    constexpr const char* f = "ngvi::StepSchedule::inverse_time";
    if (!(c > Scalar(0)) || !is_finite_scalar(c)) throw_domain(f, "c", "must be finite and positive");
    if (!(t0 > Scalar(0)) || !is_finite_scalar(t0)) throw_domain(f, "t0", "must be finite and positive");
    return StepSchedule(Kind::kInverseTime, c, Scalar(0), t0);
  }

  /// γ_t for iteration t ≥ 0.
  Scalar at(long t) const {
    using std::pow;
    switch (kind_) {
      case Kind::kTheorem1: return Scalar(2) / Scalar(t + 2);
      case Kind::kConstant: return c_;
      case Kind::kPolynomial: return c_ * pow(Scalar(t + 1) + b_, -a_);
      case Kind::kInverseTime: return c_ / (Scalar(t) + b_);
    }
    return c_;
  }

  Kind kind() const { return kind_; }

  /// The polynomial schedule's κ, τ and scale (γ_t = scale·(t + 1 + τ)^(−κ)).
  /// @throws std::domain_error naming 'kind' for a schedule of another kind.
  const Scalar& kappa() const { return polynomial_part(a_, "kappa"); }
  const Scalar& tau() const { return polynomial_part(b_, "tau"); }
  const Scalar& scale() const { return polynomial_part(c_, "scale"); }

  /// True when every γ_t lies in (0, 1] (what Remark 2 and Theorem 1 need).
  bool within_unit_interval() const {
    switch (kind_) {
      case Kind::kTheorem1: return true;
      case Kind::kConstant: return c_ <= Scalar(1);
      case Kind::kPolynomial: return at(0) <= Scalar(1);  // decreasing in t
      case Kind::kInverseTime: return at(0) <= Scalar(1);
    }
    return false;
  }

  /// The schedule as a formula, e.g. "0.5*(t+1+10)^-0.7", for records and reports.
  std::string describe() const {
    std::ostringstream s;
    s.precision(6);
    switch (kind_) {
      case Kind::kTheorem1: s << "2/(t+2)"; break;
      case Kind::kConstant: s << "constant " << c_; break;
      case Kind::kPolynomial: s << c_ << "*(t+1+" << b_ << ")^-" << a_; break;
      case Kind::kInverseTime: s << c_ << "/(t+" << b_ << ")"; break;
    }
    return s.str();
  }

 private:
  StepSchedule(Kind k, Scalar c, Scalar a, Scalar b) : kind_(k), c_(std::move(c)), a_(std::move(a)), b_(std::move(b)) {}
  const Scalar& polynomial_part(const Scalar& x, const char* what) const {
    if (kind_ != Kind::kPolynomial)
      throw_domain(std::string("ngvi::StepSchedule::") + what, "kind", "must be polynomial (the schedule is " + describe() + ")");
    return x;
  }
  Kind kind_;
  Scalar c_;  // constant, scale or numerator
  Scalar a_;  // polynomial exponent κ
  Scalar b_;  // polynomial offset τ or inverse-time offset t0
};

}  // namespace ngvi
