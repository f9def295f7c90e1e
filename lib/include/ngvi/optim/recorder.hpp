#pragma once
/// @file
/// Trajectory recorder: every k steps (and at the last step) it stores the step t, the negative
/// ELBO f, KL(q_t ‖ posterior), the NLPD on a chosen dataset and the iterate η_t, so memory is
/// O(T/k · d²) whatever T is. What is evaluated is a callable, so the recorder serves any model;
/// `blr_recorder` builds the one for Bayesian linear regression (docs/math.md §5.1, §7.1).
#include <functional>
#include <vector>

#include "ngvi/models/linear_regression.hpp"

namespace ngvi {

template <class Scalar>
struct TrajectoryPoint {
  long t = 0;
  Scalar f{};      ///< negative ELBO f(μ_t)
  Scalar kl{};     ///< KL(q_t ‖ posterior)
  Scalar nlpd{};   ///< mean negative log predictive density
  GaussianNatural<Scalar> eta;
};

template <class Scalar>
class TrajectoryRecorder {
 public:
  using Evaluator = std::function<TrajectoryPoint<Scalar>(long, const GaussianNatural<Scalar>&)>;

  /// @param[in] every k ≥ 1.
  /// @param[in] evaluate fills f, kl and nlpd of a point (t and η are set by the recorder).
  /// @throws std::domain_error naming 'every' if k < 1.
  TrajectoryRecorder(long every, Evaluator evaluate) : every_(every), evaluate_(std::move(evaluate)) {
    if (every < 1) throw_domain("ngvi::TrajectoryRecorder", "every", "must be >= 1");
  }

  long every() const { return every_; }

  /// Records η_t when t is a multiple of k or `last` is set (each t at most once).
  void observe(long t, const GaussianNatural<Scalar>& eta, bool last = false) {
    if (!(t % every_ == 0 || last)) return;
    if (!points_.empty() && points_.back().t == t) return;
    TrajectoryPoint<Scalar> p = evaluate_(t, eta);
    p.t = t;
    p.eta = eta;
    points_.push_back(std::move(p));
  }

  const std::vector<TrajectoryPoint<Scalar>>& points() const { return points_; }
  void clear() { points_.clear(); }

 private:
  long every_;
  Evaluator evaluate_;
  std::vector<TrajectoryPoint<Scalar>> points_;
};

/// Recorder for Bayesian linear regression: f(μ_t), KL(q_t ‖ posterior) and NLPD on `nlpd_data`
/// (the training set when empty). The model and data are copied into the evaluator.
template <class Scalar>
TrajectoryRecorder<Scalar> blr_recorder(const LinearRegression<Scalar>& model, long every,
                                        const Dataset<Scalar>* nlpd_data = nullptr) {
  const Dataset<Scalar> data = nlpd_data ? *nlpd_data : model.data();
  const GaussianMoments<Scalar> post = model.posterior_moments();
  return TrajectoryRecorder<Scalar>(every, [model, data, post](long, const GaussianNatural<Scalar>& eta) {
    TrajectoryPoint<Scalar> p;
    const GaussianMoments<Scalar> q = natural_to_moments(eta);
    p.f = model.neg_elbo(moments_to_expectation(q));
    p.kl = kl_gaussian(q, post);
    p.nlpd = model.nlpd(q, data);
    return p;
  });
}

}  // namespace ngvi
