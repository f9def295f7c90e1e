#pragma once
/// @file
/// A banana-shaped (twisted Gaussian, Haario, Saksman & Tamminen 1999) non-Gaussian target on R^d,
/// d ≥ 2. With w = z₂ − b(z₁² − a²):
/// \f[ \log\pi(z) = -\tfrac d2 \log 2\pi - \log a - \frac{z_1^2}{2a^2} - \frac{w^2}{2} - \sum_{k\ge3}\frac{z_k^2}{2}, \f]
/// normalised because (z₁, z₂) ↦ (z₁, w) has unit Jacobian. Derivatives:
/// ∂₁ = −z₁/a² + 2b z₁ w, ∂₂ = −w, ∂_k = −z_k;
/// ∂₁₁ = −1/a² + 2b w − 4b² z₁², ∂₁₂ = 2b z₁, ∂₂₂ = −1, ∂_kk = −1 (indefinite where 2bw > 1/a²).
/// @pre d ≥ 2, a > 0, b finite.
#include <boost/math/constants/constants.hpp>

#include "ngvi/linalg/validate.hpp"
#include "ngvi/targets/target.hpp"

namespace ngvi {

template <class S>
class BananaTarget {
 public:
  using Scalar = S;
  /// @throws std::invalid_argument if d < 2; std::domain_error if a ≤ 0 or a, b not finite.
  BananaTarget(Index d, const Scalar& a, const Scalar& b) : d_(d), a_(a), b_(b) {
    constexpr const char* f = "BananaTarget";
    if (d < 2) throw_size(f, "d", "must be at least 2");
    if (!(a > Scalar(0)) || !is_finite_scalar(a)) throw_domain(f, "a", "must be finite and positive");
    if (!is_finite_scalar(b)) throw_domain(f, "b", "is not finite");
  }
  Index dim() const { return d_; }

  TargetEval<Scalar> evaluate(const Vec<Scalar>& z, bool with_hessian) const {
    using std::log;
    if (z.size() != d_) throw_size("BananaTarget", "z", "has dimension " + std::to_string(z.size()) + ", expected " + std::to_string(d_));
    const Scalar a2 = a_ * a_;
    const Scalar w = z(1) - b_ * (z(0) * z(0) - a2);
    const Scalar rest = z.tail(d_ - 2).squaredNorm();
    TargetEval<Scalar> e;
    e.value = -Scalar(d_) * boost::math::constants::log_root_two_pi<Scalar>() - log(a_) - z(0) * z(0) / (2 * a2) - w * w / 2 - rest / 2;
    e.grad = -z;
    e.grad(0) = -z(0) / a2 + 2 * b_ * z(0) * w;
    e.grad(1) = -w;
    if (with_hessian) {
      e.hess = -Mat<Scalar>::Identity(d_, d_);
      e.hess(0, 0) = -Scalar(1) / a2 + 2 * b_ * w - 4 * b_ * b_ * z(0) * z(0);
      e.hess(0, 1) = e.hess(1, 0) = 2 * b_ * z(0);
    }
    return e;
  }
  Scalar log_density(const Vec<Scalar>& z) const { return evaluate(z, false).value; }
  Vec<Scalar> gradient(const Vec<Scalar>& z) const { return evaluate(z, false).grad; }
  Mat<Scalar> hessian(const Vec<Scalar>& z) const { return evaluate(z, true).hess; }

 private:
  Index d_;
  Scalar a_, b_;
};

}  // namespace ngvi
