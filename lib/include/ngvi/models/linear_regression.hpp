#pragma once
/// @file
/// Bayesian linear regression, the conjugate Example 1 of Wu & Gardner (2024), docs/math.md §5.1:
/// \f[ z \sim N(m_p, S_p), \qquad y_i = x_i^\top z + e_i, \quad e_i \sim N(0, s_e^2), \quad i = 1..n. \f]
/// The expected log-likelihood is linear in the expectation parameter μ = (E z, E zzᵀ), so the
/// negative ELBO, its gradient, the posterior and the evidence are all closed forms. The theory
/// (Lemma 9, Corollaries 1–2, Lemma 3) takes m_p = 0; a non-zero prior mean is accepted so that
/// claims can break that hypothesis on purpose.
#include <boost/math/constants/constants.hpp>
#include <string>

#include "ngvi/data/dataset.hpp"
#include "ngvi/expfam/gaussian_maps.hpp"
#include "ngvi/expfam/kl.hpp"

namespace ngvi {

/// The model: data, prior N(m_p, S_p) and noise variance s_e². Sufficient statistics
/// Xᵀy/s_e² and XᵀX/s_e² are formed once (O(n d²)).
template <class Scalar>
class LinearRegression {
 public:
  /// @param[in] data n × d design and targets (n ≥ 1, finite).
  /// @param[in] prior_cov S_p, symmetric positive definite d × d.
  /// @param[in] noise_var s_e² > 0.
  /// @param[in] prior_mean m_p (empty for 0).
  /// @throws std::invalid_argument on a size mismatch (n = 0, d = 0, a prior of the wrong size);
  ///         std::domain_error on non-finite data, a non-SPD prior, or s_e² ≤ 0.
  LinearRegression(Dataset<Scalar> data, const Mat<Scalar>& prior_cov, const Scalar& noise_var,
                   Vec<Scalar> prior_mean = Vec<Scalar>())
      : data_(std::move(data)), noise_var_(noise_var) {
    constexpr const char* f = "ngvi::LinearRegression";
    validate_dataset(data_, f, "data");
    if (!(noise_var > Scalar(0)) || !is_finite_scalar(noise_var)) throw_domain(f, "noise_var", "must be finite and > 0");
    const Index d = data_.d();
    if (prior_cov.rows() != d || prior_cov.cols() != d)
      throw_size(f, "prior_cov", "must be " + std::to_string(d) + " x " + std::to_string(d));
    if (prior_mean.size() == 0) prior_mean = Vec<Scalar>::Zero(d);
    if (prior_mean.size() != d) throw_size(f, "prior_mean", "must have " + std::to_string(d) + " entries");
    require_finite(prior_mean, f, "prior_mean");
    const SpdFactor<Scalar> fp(prior_cov, f, "prior_cov");
    prior_ = GaussianMoments<Scalar>{prior_mean, prior_cov};
    prior_precision_ = fp.inverse();
    prior_log_det_ = fp.log_det();
    Mat<Scalar> e2 = prior_precision_;
    e2 *= Scalar(-0.5);
    eta_prior_ = GaussianNatural<Scalar>(fp.solve(prior_mean), std::move(e2));
    xty_ = data_.X.transpose() * data_.y;
    xty_ /= noise_var_;
    Mat<Scalar> g = Mat<Scalar>::Zero(d, d);
    g.template selfadjointView<Eigen::Lower>().rankUpdate(data_.X.transpose());
    xtx_ = g.template selfadjointView<Eigen::Lower>();
    xtx_ /= noise_var_;
    yty_ = data_.y.squaredNorm();
  }

  Index n() const { return data_.n(); }
  Index d() const { return data_.d(); }
  const Dataset<Scalar>& data() const { return data_; }
  const Scalar& noise_var() const { return noise_var_; }
  const GaussianMoments<Scalar>& prior() const { return prior_; }
  const Mat<Scalar>& prior_precision() const { return prior_precision_; }
  /// η_p = (S_p⁻¹ m_p, −½ S_p⁻¹).
  const GaussianNatural<Scalar>& prior_natural() const { return eta_prior_; }

  /// The exact gradient of the expected log-likelihood in μ, \f$ (X^\top y/s_e^2,\; -X^\top X/(2 s_e^2)) \f$
  /// (independent of μ, docs/math.md §5.1).
  GaussianPair<Scalar> loglik_gradient() const {
    Mat<Scalar> g2 = xtx_;
    g2 *= Scalar(-0.5);
    return GaussianPair<Scalar>{xty_, std::move(g2)};
  }

  /// Posterior in natural parameters, \f$ \eta^* = \eta_p + (X^\top y/s_e^2, -X^\top X/(2 s_e^2)) \f$.
  GaussianNatural<Scalar> posterior_natural() const {
    GaussianNatural<Scalar> e = eta_prior_;
    e += loglik_gradient();
    return e;
  }
  /// \f$ S_{post} = (S_p^{-1} + X^\top X/s_e^2)^{-1},\; m_{post} = S_{post}(S_p^{-1}m_p + X^\top y/s_e^2) \f$.
  GaussianMoments<Scalar> posterior_moments() const { return natural_to_moments(posterior_natural()); }
  GaussianExpectation<Scalar> posterior_expectation() const { return natural_to_expectation(posterior_natural()); }

  /// Log evidence
  /// \f[ \log p(y) = -\tfrac n2\log(2\pi s_e^2) - \tfrac{y^\top y}{2s_e^2} - \tfrac12 m_p^\top S_p^{-1}m_p
  ///   + \tfrac12 \eta_1^{*\top} S_{post}\,\eta_1^* + \tfrac12\log\det S_{post} - \tfrac12\log\det S_p, \f]
  /// from completing the square in z (docs/math.md §5.1).
  Scalar log_evidence() const {
    using boost::math::constants::two_pi;
    using std::log;
    const GaussianNatural<Scalar> es = posterior_natural();
    const SpdFactor<Scalar> fpost(Mat<Scalar>(Scalar(-2) * es.eta2()), "ngvi::LinearRegression::log_evidence",
                                  "posterior precision");
    const Scalar half_n = Scalar(n()) / 2;
    return -half_n * log(two_pi<Scalar>() * noise_var_) - yty_ / (2 * noise_var_) -
           prior_.mean.dot(eta_prior_.eta1()) / 2 + fpost.inv_quad(es.eta1()) / 2 - fpost.log_det() / 2 -
           prior_log_det_ / 2;
  }

  /// Negative ELBO in expectation parameters (docs/math.md §5.1):
  /// \f[ f(\mu) = \sum_i \frac{y_i^2 - 2y_i x_i^\top\mu_1 + x_i^\top\mu_2 x_i}{2 s_e^2} + \frac n2\log(2\pi s_e^2)
  ///   + \mathrm{KL}(q_\mu \,\|\, N(m_p, S_p)). \f]
  /// @pre μ ∈ M (μ₂ − μ₁μ₁ᵀ ≻ 0). @throws std::domain_error otherwise, naming 'mu'.
  Scalar neg_elbo(const GaussianExpectation<Scalar>& mu) const {
    using boost::math::constants::two_pi;
    using std::log;
    check_dim(mu, "ngvi::LinearRegression::neg_elbo", "mu");
    const GaussianMoments<Scalar> q = expectation_to_moments(mu);
    const Scalar lin = yty_ / (2 * noise_var_) - xty_.dot(mu.mu1()) + xtx_.cwiseProduct(mu.mu2()).sum() / 2;
    return lin + Scalar(n()) / 2 * log(two_pi<Scalar>() * noise_var_) + kl_gaussian(q, prior_);
  }

  /// \f$ \nabla_\mu f(\mu) = -(X^\top y/s_e^2, -X^\top X/(2s_e^2)) + (\eta - \eta_p) \f$, η = ∇A*(μ).
  /// @pre μ ∈ M. @throws std::domain_error otherwise.
  GaussianPair<Scalar> neg_elbo_gradient(const GaussianExpectation<Scalar>& mu) const {
    check_dim(mu, "ngvi::LinearRegression::neg_elbo_gradient", "mu");
    GaussianPair<Scalar> g = expectation_to_natural(mu);
    g -= eta_prior_;
    g -= loglik_gradient();
    return g;
  }

  /// KL(q ‖ posterior).
  Scalar kl_to_posterior(const GaussianMoments<Scalar>& q) const { return kl_gaussian(q, posterior_moments()); }
  /// KL(posterior ‖ q).
  Scalar kl_from_posterior(const GaussianMoments<Scalar>& q) const { return kl_gaussian(posterior_moments(), q); }

  /// Mean negative log predictive density on any dataset with the same d:
  /// \f[ \mathrm{NLPD} = -\frac1{n'}\sum_i \log N(y_i \mid x_i^\top m,\; x_i^\top S x_i + s_e^2). \f]
  /// @throws std::invalid_argument on a dimension mismatch, std::domain_error on invalid q or data.
  Scalar nlpd(const GaussianMoments<Scalar>& q, const Dataset<Scalar>& test) const {
    using boost::math::constants::two_pi;
    using std::log;
    constexpr const char* f = "ngvi::LinearRegression::nlpd";
    validate_dataset(test, f, "test");
    validate_moments(q, f, "q");
    if (test.d() != d()) throw_size(f, "test", "has a different number of columns from the model");
    if (q.dim() != d()) throw_size(f, "q", "has a different dimension from the model");
    const Vec<Scalar> mean = test.X * q.mean;
    const Mat<Scalar> xs = test.X * q.cov;
    Scalar total(0);
    for (Index i = 0; i < test.n(); ++i) {
      const Scalar var = xs.row(i).dot(test.X.row(i)) + noise_var_;
      const Scalar r = test.y(i) - mean(i);
      total += log(two_pi<Scalar>() * var) / 2 + r * r / (2 * var);
    }
    return total / Scalar(test.n());
  }

 private:
  void check_dim(const GaussianPair<Scalar>& p, const char* f, const char* arg) const {
    if (p.dim() != d() || p.second.rows() != d() || p.second.cols() != d())
      throw_size(f, arg, "has a different dimension from the model");
  }

  Dataset<Scalar> data_;
  Scalar noise_var_;
  GaussianMoments<Scalar> prior_;
  Mat<Scalar> prior_precision_;
  Scalar prior_log_det_;
  GaussianNatural<Scalar> eta_prior_;
  Vec<Scalar> xty_;  // Xᵀy / s_e²
  Mat<Scalar> xtx_;  // XᵀX / s_e², exactly symmetric
  Scalar yty_;
};

}  // namespace ngvi
