#pragma once
/// @file
/// Iterate averaging in expectation parameters (ngvi-math.md §4.5): Theorem 1's
/// \f[ \bar\mu_T = \frac{2}{T(T+1)} \sum_{t=1}^{T} t\,\mu_t, \f]
/// kept as a running average μ̄_t = μ̄_{t−1} + w_t(μ_t − μ̄_{t−1}) with w_t = t / Σ_{s≤t} s = 2/(t+1),
/// so memory is O(d²) whatever T is. The average of points of the convex set M stays in M.
/// A uniform-weight variant (w_t = 1/t) is offered for comparison.
#include <stdexcept>

#include "ngvi/expfam/gaussian_params.hpp"

namespace ngvi {

template <class Scalar>
class IterateAverage {
 public:
  enum class Weights { kLinear, kUniform };

  explicit IterateAverage(Weights w = Weights::kLinear) : weights_(w) {}

  /// Adds μ_t for t = count() + 1.
  void add(const GaussianPair<Scalar>& mu_t) {
    ++t_;
    if (t_ == 1) {
      avg_ = mu_t;
      return;
    }
    if (mu_t.dim() != avg_.dim()) throw std::invalid_argument("ngvi::IterateAverage::add: argument 'mu_t' has a different dimension");
    const Scalar w = weights_ == Weights::kLinear ? Scalar(2) / Scalar(t_ + 1) : Scalar(1) / Scalar(t_);
    avg_.first += w * (mu_t.first - avg_.first);
    avg_.second += w * (mu_t.second - avg_.second);
  }

  long count() const { return t_; }

  /// μ̄_T as an expectation parameter.
  /// @throws std::logic_error if nothing was added.
  GaussianExpectation<Scalar> value() const {
    if (t_ == 0) throw std::logic_error("ngvi::IterateAverage::value: no iterate was added");
    return GaussianExpectation<Scalar>(avg_);
  }

 private:
  Weights weights_;
  long t_ = 0;
  GaussianPair<Scalar> avg_;
};

}  // namespace ngvi
