#pragma once
/// @file
/// Posteriors of the generalised linear models of models/glm_likelihood.hpp with a Gaussian prior
/// N(0, S_p), as targets for optim/lsk_ngvi.hpp:
/// \f[ \log\pi(z) = c\,\ell(z) + \log N(z; 0, S_p), \quad
///     \nabla\log\pi = c\,\nabla\ell(z) - S_p^{-1} z, \quad \nabla^2\log\pi = c\,\nabla^2\ell(z) - S_p^{-1}, \f]
/// with ℓ the logistic or Poisson log-likelihood (docs/math.md §6.1–6.2) and c the likelihood scale:
/// c = 1 for the full data set, c = n/|B| for the mini-batch view π_B returned by `subsample(B)`, so
/// that the average of log π_B over batches drawn uniformly is log π (the rescaling AdvancedVI asks
/// of a user's `subsample`, docs/systems.md §C.2 step 1).
#include <boost/math/constants/constants.hpp>
#include <vector>

#include "ngvi/linalg/spd.hpp"
#include "ngvi/models/glm_likelihood.hpp"
#include "ngvi/targets/target.hpp"

namespace ngvi {

enum class GlmFamily { kLogistic, kPoisson };

/// @tparam S scalar type; @tparam F the likelihood (logistic: y ∈ {0,1}; Poisson: counts).
/// @pre data valid for the family (labels/counts checked), prior covariance SPD of size d, scale > 0.
/// @throws std::invalid_argument / std::domain_error naming the argument otherwise.
template <class S, GlmFamily F>
class GlmPosterior {
 public:
  using Scalar = S;

  GlmPosterior(Dataset<Scalar> data, const Mat<Scalar>& prior_cov, const Scalar& likelihood_scale = Scalar(1))
      : data_(std::move(data)), scale_(likelihood_scale) {
    if constexpr (F == GlmFamily::kLogistic) validate_binary_labels(data_, name());
    else validate_counts(data_, name());
    require_rows(prior_cov, data_.d(), name(), "prior_cov");
    const SpdFactor<Scalar> fac(prior_cov, name(), "prior_cov");
    prior_precision_ = fac.inverse();
    prior_log_norm_ = -Scalar(dim()) * boost::math::constants::log_root_two_pi<Scalar>() - fac.log_det() / 2;
    if (!(scale_ > Scalar(0)) || !is_finite_scalar(scale_)) throw_domain(name(), "likelihood_scale", "must be finite and positive");
  }

  static constexpr const char* name() {
    return F == GlmFamily::kLogistic ? "ngvi::LogisticPosterior" : "ngvi::PoissonPosterior";
  }
  Index dim() const { return data_.d(); }
  Index n_data() const { return data_.n(); }
  const Scalar& likelihood_scale() const { return scale_; }
  const Mat<Scalar>& prior_precision() const { return prior_precision_; }

  TargetEval<Scalar> evaluate(const Vec<Scalar>& z, bool with_hessian) const {
    require_latent_dim(data_, z, name());  // the data were validated at construction
    const LogLikDerivatives<Scalar> ll = F == GlmFamily::kLogistic ? detail::logistic_loglik_valid(data_, z, with_hessian)
                                                                   : detail::poisson_loglik_valid(data_, z, with_hessian);
    const Vec<Scalar> pz = prior_precision_ * z;
    TargetEval<Scalar> e{scale_ * ll.value + prior_log_norm_ - z.dot(pz) / 2, scale_ * ll.grad - pz, {}};
    if (with_hessian) e.hess = scale_ * ll.hess - prior_precision_;
    return e;
  }
  Scalar log_density(const Vec<Scalar>& z) const { return evaluate(z, false).value; }
  Vec<Scalar> gradient(const Vec<Scalar>& z) const { return evaluate(z, false).grad; }
  Mat<Scalar> hessian(const Vec<Scalar>& z) const { return evaluate(z, true).hess; }

  /// π_B: the rows in `batch` (repeats allowed), likelihood scaled by c·n/|B|.
  /// @throws std::invalid_argument if the batch is empty, std::domain_error if an index is out of range.
  GlmPosterior subsample(const std::vector<Index>& batch) const {
    if (batch.empty()) throw_size(name(), "batch", "is empty");
    Dataset<Scalar> b{Mat<Scalar>(static_cast<Index>(batch.size()), dim()), Vec<Scalar>(static_cast<Index>(batch.size()))};
    for (std::size_t k = 0; k < batch.size(); ++k) {
      const Index i = batch[k];
      if (i < 0 || i >= n_data()) throw_domain(name(), "batch", "has index " + std::to_string(i) + " outside [0, n)");
      b.X.row(static_cast<Index>(k)) = data_.X.row(i);
      b.y(static_cast<Index>(k)) = data_.y(i);
    }
    return GlmPosterior(std::move(b), prior_precision_, prior_log_norm_,
                        scale_ * Scalar(n_data()) / Scalar(static_cast<Index>(batch.size())));
  }

 private:
  GlmPosterior(Dataset<Scalar> data, Mat<Scalar> prior_precision, Scalar prior_log_norm, Scalar scale)
      : data_(std::move(data)), prior_precision_(std::move(prior_precision)), prior_log_norm_(prior_log_norm), scale_(scale) {}

  Dataset<Scalar> data_;
  Mat<Scalar> prior_precision_;
  Scalar prior_log_norm_;
  Scalar scale_;
};

template <class Scalar>
using LogisticPosterior = GlmPosterior<Scalar, GlmFamily::kLogistic>;
template <class Scalar>
using PoissonPosterior = GlmPosterior<Scalar, GlmFamily::kPoisson>;

}  // namespace ngvi
