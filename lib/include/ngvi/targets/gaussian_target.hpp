#pragma once
/// @file
/// A Gaussian target π = N(μ, Σ_π), the exactly solvable case of NGVI: log π is quadratic, so every
/// expectation under q = N(m, Σ) has a closed form and the LSK iteration can be predicted exactly
/// (ngvi-lsk derivation in proofs_checks/lsk_gaussian_target.cpp).
#include <boost/math/constants/constants.hpp>

#include "ngvi/linalg/spd.hpp"
#include "ngvi/targets/target.hpp"

namespace ngvi {

/// \f[ \log\pi(z) = -\tfrac d2\log 2\pi - \tfrac12\log\det\Sigma_\pi - \tfrac12 (z-\mu)^\top\Lambda(z-\mu),
///     \quad \nabla\log\pi = -\Lambda(z-\mu), \quad \nabla^2\log\pi = -\Lambda, \quad \Lambda = \Sigma_\pi^{-1}. \f]
/// Under q = N(m, Σ): E log π = −d/2 log 2π − ½ log det Σ_π − ½[(m−μ)ᵀΛ(m−μ) + tr(ΛΣ)],
/// E ∇log π = −Λ(m − μ), E ∇²log π = −Λ.
/// @pre Σ_π symmetric positive definite, μ finite, sizes agree.
/// @throws std::invalid_argument / std::domain_error from the constructor otherwise, naming the argument.
template <class S>
class GaussianTarget {
 public:
  using Scalar = S;

  GaussianTarget(Vec<Scalar> mean, const Mat<Scalar>& cov) : mean_(std::move(mean)) {
    constexpr const char* f = "ngvi::GaussianTarget";
    require_positive_dim(mean_.size(), f, "mean");
    require_finite(mean_, f, "mean");
    require_rows(cov, mean_.size(), f, "cov");
    const SpdFactor<Scalar> fac(cov, f, "cov");
    precision_ = fac.inverse();
    log_norm_ = -Scalar(dim()) * boost::math::constants::log_root_two_pi<Scalar>() - fac.log_det() / 2;
  }

  Index dim() const { return mean_.size(); }
  const Vec<Scalar>& mean() const { return mean_; }
  /// Λ = Σ_π⁻¹.
  const Mat<Scalar>& precision() const { return precision_; }

  Scalar log_density(const Vec<Scalar>& z) const {
    check(z, "z");
    const Vec<Scalar> r = z - mean_;
    return log_norm_ - r.dot(precision_ * r) / 2;
  }
  Vec<Scalar> gradient(const Vec<Scalar>& z) const {
    check(z, "z");
    return -(precision_ * (z - mean_));
  }
  Mat<Scalar> hessian(const Vec<Scalar>& z) const {
    check(z, "z");
    return -precision_;
  }
  Scalar expected_log_density(const GaussianMoments<Scalar>& q) const {
    check(q.mean, "q.mean");
    const Vec<Scalar> r = q.mean - mean_;
    return log_norm_ - (r.dot(precision_ * r) + precision_.cwiseProduct(q.cov).sum()) / 2;
  }
  Vec<Scalar> expected_gradient(const GaussianMoments<Scalar>& q) const { return gradient(q.mean); }
  Mat<Scalar> expected_hessian(const GaussianMoments<Scalar>& q) const { return hessian(q.mean); }

 private:
  void check(const Vec<Scalar>& z, const char* arg) const {
    if (z.size() != dim())
      throw_size("ngvi::GaussianTarget", arg, "has dimension " + std::to_string(z.size()) + ", expected " + std::to_string(dim()));
  }
  Vec<Scalar> mean_;
  Mat<Scalar> precision_;
  Scalar log_norm_;
};

}  // namespace ngvi
