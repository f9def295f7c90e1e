#pragma once
/// @file
/// The full-covariance Gaussian N(m, S) on R^d behind the ExponentialFamily concept: an adapter over
/// the existing types and functions (GaussianNatural, GaussianExpectation, log_partition,
/// natural_to_expectation, kl_gaussian, fisher_apply, ...; docs/math.md §1.2), which stay the API
/// the rest of the kit uses. Flat coordinates are (η₁, vec(η₂)) with the full d × d matrix, so the
/// pairing ⟨a, b⟩ = a₁ᵀb₁ + tr(a₂ᵀb₂) is their dot product; the tangent directions are symmetric
/// (size() = d + d(d+1)/2: eᵢ, then Eᵢᵢ and Eᵢⱼ + Eⱼᵢ for i > j, column by column).
#include "ngvi/expfam/bregman.hpp"
#include "ngvi/expfam/family.hpp"
#include "ngvi/expfam/fisher.hpp"
#include "ngvi/expfam/kl.hpp"
#include "ngvi/expfam/log_partition.hpp"

namespace ngvi {

template <class ScalarT>
class FullGaussian {
 public:
  using Scalar = ScalarT;
  using Natural = GaussianNatural<Scalar>;
  using Expectation = GaussianExpectation<Scalar>;

  /// @throws std::invalid_argument naming 'd' if d < 1.
  explicit FullGaussian(Index d) : d_(d) { require_positive_dim(d, "ngvi::FullGaussian", "d"); }

  template <class S>
  FullGaussian<S> rebind() const { return FullGaussian<S>(d_); }

  Index dim() const { return d_; }
  Index flat_size() const { return d_ + d_ * d_; }
  Index size() const { return d_ + d_ * (d_ + 1) / 2; }

  /// η ∈ Ω: finite, shapes agree, −η₂ symmetric positive definite (the validating factorisation).
  bool in_domain(const Natural& eta) const {
    if (eta.dim() != d_) return false;
    try {
      validate_natural(eta, "ngvi::FullGaussian::in_domain", "eta");
    } catch (const std::exception&) {
      return false;
    }
    return true;
  }
  bool in_mean_domain(const Expectation& mu) const {
    if (mu.dim() != d_) return false;
    try {
      validate_expectation(mu, "ngvi::FullGaussian::in_mean_domain", "mu");
    } catch (const std::exception&) {
      return false;
    }
    return true;
  }

  Scalar log_partition(const Natural& eta) const { return ngvi::log_partition(eta); }
  Scalar conjugate(const Expectation& mu) const { return conjugate_log_partition(mu); }
  Expectation to_mean(const Natural& eta) const { return natural_to_expectation(eta); }
  Natural to_natural(const Expectation& mu) const { return expectation_to_natural(mu); }
  Scalar pairing(const Natural& eta, const Expectation& mu) const { return ngvi::pairing<Scalar>(eta, mu); }
  Scalar kl(const Natural& q, const Natural& p) const { return kl_gaussian(q, p); }
  Scalar bregman_log_partition(const Natural& eta, const Natural& eta_ref) const {
    return ngvi::bregman_log_partition(eta, eta_ref);
  }
  Scalar bregman_conjugate(const Expectation& mu, const Expectation& mu_ref) const {
    return ngvi::bregman_conjugate(mu, mu_ref);
  }
  Expectation fisher_apply(const Natural& eta, const Natural& v) const { return Expectation(ngvi::fisher_apply(eta, v)); }
  Natural fisher_inverse_apply(const Expectation& mu, const Expectation& u) const {
    return Natural(ngvi::fisher_inverse_apply(mu, u));
  }
  Vec<Scalar> flatten_natural(const Natural& eta) const { return flatten(eta); }
  Vec<Scalar> flatten_expectation(const Expectation& mu) const { return flatten(mu); }
  Natural unflatten_natural(const Eigen::Ref<const Vec<Scalar>>& v) const {
    return Natural(unflatten(v, "ngvi::FullGaussian::unflatten_natural"));
  }
  Expectation unflatten_expectation(const Eigen::Ref<const Vec<Scalar>>& v) const {
    return Expectation(unflatten(v, "ngvi::FullGaussian::unflatten_expectation"));
  }
  Natural direction(Index i) const {
    Natural e(Vec<Scalar>::Zero(d_), Mat<Scalar>::Zero(d_, d_));
    if (i < d_) {
      e.eta1()(i) = Scalar(1);
      return e;
    }
    Index k = i - d_;
    for (Index j = 0; j < d_; ++j) {
      const Index len = d_ - j;
      if (k < len) {
        e.eta2()(j + k, j) = Scalar(1);
        e.eta2()(j, j + k) = Scalar(1);
        return e;
      }
      k -= len;
    }
    throw_size("ngvi::FullGaussian::direction", "i", "is not below size()");
  }

 private:
  Vec<Scalar> flatten(const GaussianPair<Scalar>& x) const {
    Vec<Scalar> v(d_ + d_ * d_);
    v.head(d_) = x.first;
    v.tail(d_ * d_) = Eigen::Map<const Vec<Scalar>>(x.second.data(), d_ * d_);
    return v;
  }
  GaussianPair<Scalar> unflatten(const Eigen::Ref<const Vec<Scalar>>& v, std::string_view func) const {
    if (v.size() != d_ + d_ * d_) throw_size(func, "v", "has a size other than d + d*d");
    return GaussianPair<Scalar>{v.head(d_), Eigen::Map<const Mat<Scalar>>(v.data() + d_, d_, d_)};
  }

  Index d_;
};

}  // namespace ngvi
