#pragma once
/// @file
/// A Bayesian Gaussian mixture with known isotropic variance as an SVI model (docs/systems.md A.3; the
/// variant is the kit's choice):
///   π ~ Dir(α₀ 1_K), μ_k ~ N(m₀, s₀² I_d), z_n ~ Cat(π), x_n | z_n = k ~ N(μ_k, σ² I_d), σ² known;
///   q(π) = Dir(γ), q(μ_k) = N(m_k, s_k² I_d), q(z_n) = Cat(φ_n).
/// Global parameter (gmm::Global): K × (d + 2), row k = (γ_k, η1_k, η2_k) with η1_k = m_k/s_k² ∈ R^d and
/// η2_k = −1/(2 s_k²) (the natural parameters of q(μ_k)); its first column γ is the natural parameter
/// of the weights' Dirichlet q(π) (the kit's Dirichlet natural parameter is α itself,
/// expfam/dirichlet.hpp), whose mean map E log π = ψ(γ) − ψ(Σγ) is dirichlet_mean_map's.
/// Local step (one local variable per point, so its fixed point is one update):
///   log φ_nk = E log π_k + x_nᵀ m_k/σ² − (‖m_k‖² + d s_k²)/(2σ²) + const, normalised by log-sum-exp.
/// Statistics of point n: (φ_nk, φ_nk x_n/σ², −φ_nk/(2σ²)); prior (α₀, m₀/s₀², −1/(2 s₀²)).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include <boost/math/constants/constants.hpp>

#include <Eigen/Dense>

#include "ngvi/expfam/dirichlet.hpp"
#include "ngvi/linalg/validate.hpp"
#include "ngvi/special/gamma_functions.hpp"
#include "ngvi/random/stream.hpp"
#include "ngvi/scalar/types.hpp"

namespace ngvi::gmm {

/// The mixture's global natural parameter: K × (d + 2), row k = (γ_k, η1_k, η2_k) (file comment).
template <class Scalar>
using Global = Eigen::Array<Scalar, Eigen::Dynamic, Eigen::Dynamic>;

/// The parts of the mixture's local step that a variant may replace (optim/variant.hpp: filed under
/// kPartSystemSvi beside svi::SviParts, one struct per scalar type); an empty part is the library's.
/// Each is called once per component and local step, never per point.
template <class Scalar>
struct GmmParts {
  /// E‖μ_k‖² under q(μ_k) = N(m_k, s_k² I_d), given ‖m_k‖², s_k² and d, in place of ‖m_k‖² + d s_k²
  /// (the quadratic term of log φ_nk).
  std::function<Scalar(const Scalar& mean_sq_norm, const Scalar& var, Index d)> expected_sq_norm;
};

template <class Scalar>
struct GmmOptions {
  long components = 3;               ///< K
  Scalar alpha0 = Scalar(1);         ///< α₀
  Scalar sigma2 = Scalar(1);         ///< σ², known
  Scalar s0_2 = Scalar(100);         ///< s₀²
  Vec<Scalar> m0;                    ///< m₀ (empty: zero)
  GmmParts<Scalar> parts;            ///< replaced parts of the local step (a variant's; empty: the library's)
};

/// The family of the global variables, q(π) Π_k q(μ_k) = Dir(γ) Π_k N(m_k, s_k² I_d), as SVI's step
/// needs it (svi::SviModel): its natural parameter (Global, K × (d + 2)) and its domain.
template <class Scalar_>
struct GlobalFamily {
  using Scalar = Scalar_;
  using Natural = Global<Scalar>;
  Index components = 0;  ///< K
  Index dim = 0;         ///< d

  /// λ is K × (d + 2) and finite, γ a Dirichlet parameter (γ_k > 0) and every η2_k < 0.
  bool in_domain(const Natural& l) const {
    if (l.rows() != components || l.cols() != dim + 2) return false;
    for (Index i = 0; i < l.size(); ++i)
      if (!is_finite_scalar(l.data()[i])) return false;
    if (!dirichlet_in_domain(l.col(0).data(), components)) return false;
    for (Index k = 0; k < components; ++k)
      if (!(l(k, dim + 1) < Scalar(0))) return false;
    return true;
  }
};

/// The moment form of a global parameter: γ, means m_k (rows), variances s_k².
template <class Scalar>
struct GmmMoments {
  Vec<Scalar> gamma;
  Mat<Scalar> means;  ///< K × d
  Vec<Scalar> var;    ///< s_k²
};

template <class Scalar_>
class GmmModel {
 public:
  using Scalar = Scalar_;
  using Family = GlobalFamily<Scalar>;
  using Global = gmm::Global<Scalar>;

  /// @param X data, N × d (rows are points).
  /// @throws std::domain_error naming the argument (empty or non-finite data, K < 1, α₀, σ², s₀² not
  ///         positive, m₀ of the wrong length).
  GmmModel(const Mat<Scalar>& X, GmmOptions<Scalar> options) : X_(&X), opt_(std::move(options)) {
    constexpr const char* f = "ngvi::gmm::GmmModel";
    if (X.rows() < 1 || X.cols() < 1) throw_domain(f, "X", "must have at least one row and one column");
    require_finite(X, f, "X");
    if (opt_.components < 1) throw_domain(f, "options.components", "must be >= 1");
    if (!(opt_.alpha0 > Scalar(0))) throw_domain(f, "options.alpha0", "must be positive");
    if (!(opt_.sigma2 > Scalar(0))) throw_domain(f, "options.sigma2", "must be positive");
    if (!(opt_.s0_2 > Scalar(0))) throw_domain(f, "options.s0_2", "must be positive");
    if (opt_.m0.size() == 0) opt_.m0 = Vec<Scalar>::Zero(X.cols());
    if (opt_.m0.size() != X.cols()) throw_size(f, "options.m0", "must have d entries");
  }

  long size() const { return X_->rows(); }
  Index dim() const { return X_->cols(); }
  long components() const { return opt_.components; }
  const GmmOptions<Scalar>& options() const { return opt_; }

  Family family() const { return Family{opt_.components, dim()}; }

  Global prior_natural() const {
    Global p(opt_.components, dim() + 2);
    for (Index k = 0; k < opt_.components; ++k) {
      p(k, 0) = opt_.alpha0;
      for (Index j = 0; j < dim(); ++j) p(k, 1 + j) = opt_.m0(j) / opt_.s0_2;
      p(k, dim() + 1) = -Scalar(1) / (2 * opt_.s0_2);
    }
    return p;
  }
  Global zero_global() const { return Global::Zero(opt_.components, dim() + 2); }

  GmmMoments<Scalar> moments(const Global& l) const {
    GmmMoments<Scalar> m{Vec<Scalar>(l.rows()), Mat<Scalar>(l.rows(), dim()), Vec<Scalar>(l.rows())};
    for (Index k = 0; k < l.rows(); ++k) {
      m.gamma(k) = l(k, 0);
      m.var(k) = -Scalar(1) / (2 * l(k, dim() + 1));
      for (Index j = 0; j < dim(); ++j) m.means(k, j) = l(k, 1 + j) * m.var(k);
    }
    return m;
  }

  /// Initial λ: γ_k = α₀ + N/K, s_k² = σ², and means at data points chosen by farthest-point
  /// traversal (Gonzalez 1985; the deterministic cousin of k-means++): the first drawn by
  /// random::Stream(seed, 0), each next the point farthest from those chosen. Points drawn uniformly
  /// put two means in one cluster now and then, a local optimum that neither SVI nor CAVI leaves.
  Global initial_lambda(std::uint64_t seed) const {
    random::Stream rng(seed, 0);
    Global l(opt_.components, dim() + 2);
    std::vector<Index> chosen{static_cast<Index>(rng.index(static_cast<std::uint64_t>(size())))};
    std::vector<Scalar> dist(static_cast<std::size_t>(size()));
    for (Index n = 0; n < size(); ++n) dist[static_cast<std::size_t>(n)] = (X_->row(n) - X_->row(chosen[0])).squaredNorm();
    while (static_cast<long>(chosen.size()) < opt_.components) {
      const Index far = static_cast<Index>(std::max_element(dist.begin(), dist.end()) - dist.begin());
      chosen.push_back(far);
      for (Index n = 0; n < size(); ++n) {
        const Scalar d2 = (X_->row(n) - X_->row(far)).squaredNorm();
        if (d2 < dist[static_cast<std::size_t>(n)]) dist[static_cast<std::size_t>(n)] = d2;
      }
    }
    for (Index k = 0; k < opt_.components; ++k) {
      l(k, 0) = opt_.alpha0 + Scalar(size()) / Scalar(opt_.components);
      for (Index j = 0; j < dim(); ++j) l(k, 1 + j) = (*X_)(chosen[static_cast<std::size_t>(k)], j) / opt_.sigma2;
      l(k, dim() + 1) = -Scalar(1) / (2 * opt_.sigma2);
    }
    return l;
  }

  /// E‖μ_k‖² = ‖m_k‖² + d s_k² for each component at the moments q (or the parts' replacement).
  Vec<Scalar> expected_sq_norms(const GmmMoments<Scalar>& q) const {
    Vec<Scalar> e(opt_.components);
    for (Index k = 0; k < opt_.components; ++k) {
      const Scalar m2 = q.means.row(k).squaredNorm();
      e(k) = opt_.parts.expected_sq_norm ? opt_.parts.expected_sq_norm(m2, q.var(k), dim()) : m2 + Scalar(dim()) * q.var(k);
    }
    return e;
  }

  /// φ_n (K) for point n at the moments of λ, with quad = expected_sq_norms(q).
  void responsibilities(const GmmMoments<Scalar>& q, const Vec<Scalar>& elog_pi, const Vec<Scalar>& quad, Index n, Scalar* phi) const {
    using std::exp;
    const Index K = opt_.components;
    Scalar mx(0);
    for (Index k = 0; k < K; ++k) {
      phi[k] = elog_pi(k) + (X_->row(n).dot(q.means.row(k))) / opt_.sigma2 - quad(k) / (2 * opt_.sigma2);
      if (k == 0 || phi[k] > mx) mx = phi[k];
    }
    Scalar z(0);
    for (Index k = 0; k < K; ++k) z += (phi[k] = exp(phi[k] - mx));
    for (Index k = 0; k < K; ++k) phi[k] /= z;
  }

  /// E log π of q(π) = Dir(γ): the Dirichlet's mean map (dirichlet_mean_map).
  Vec<Scalar> expected_log_pi(const Vec<Scalar>& gamma) const {
    Vec<Scalar> e(gamma.size());
    dirichlet_mean_map(gamma.data(), gamma.size(), e.data());
    return e;
  }

  /// svi::SviModel: stats = Σ_{n∈S} (φ_nk, φ_nk x_n/σ², −φ_nk/(2σ²)).
  void local_statistics(const Global& lambda, std::span<const long> batch, std::uint64_t, Global& stats) const {
    const auto q = moments(lambda);
    const Vec<Scalar> elog_pi = expected_log_pi(q.gamma);
    const Vec<Scalar> quad = expected_sq_norms(q);
    stats = zero_global();
    std::vector<Scalar> phi(static_cast<std::size_t>(opt_.components));
    for (long n : batch) {
      responsibilities(q, elog_pi, quad, n, phi.data());
      for (Index k = 0; k < opt_.components; ++k) {
        const Scalar p = phi[static_cast<std::size_t>(k)];
        stats(k, 0) += p;
        for (Index j = 0; j < dim(); ++j) stats(k, 1 + j) += p * (*X_)(n, j) / opt_.sigma2;
        stats(k, dim() + 1) -= p / (2 * opt_.sigma2);
      }
    }
  }

  /// The ELBO of docs/systems.md A.3 (derived) over all points, with φ at its optimum for λ.
  Scalar elbo(const Global& lambda) const {
    using special::lgamma;
    using std::log;
    const Scalar two_pi = boost::math::constants::two_pi<Scalar>();
    const auto q = moments(lambda);
    const Vec<Scalar> elog_pi = expected_log_pi(q.gamma);
    const Index K = opt_.components, d = dim();
    Scalar v = lgamma(Scalar(K) * opt_.alpha0) - Scalar(K) * lgamma(opt_.alpha0) - lgamma(q.gamma.sum());
    for (Index k = 0; k < K; ++k) {
      v += (opt_.alpha0 - q.gamma(k)) * elog_pi(k) + lgamma(q.gamma(k));
      v += -Scalar(d) / 2 * log(two_pi * opt_.s0_2) - ((q.means.row(k) - opt_.m0.transpose()).squaredNorm() + Scalar(d) * q.var(k)) / (2 * opt_.s0_2);
      v += Scalar(d) / 2 * (log(two_pi * q.var(k)) + Scalar(1));
    }
    std::vector<Scalar> phi(static_cast<std::size_t>(K));
    // The evaluator's φ is the optimum's, whatever the local step's parts (a mutant changes the fit,
    // not the measure of it).
    Vec<Scalar> quad(K);
    for (Index k = 0; k < K; ++k) quad(k) = q.means.row(k).squaredNorm() + Scalar(d) * q.var(k);
    for (Index n = 0; n < size(); ++n) {
      responsibilities(q, elog_pi, quad, n, phi.data());
      for (Index k = 0; k < K; ++k) {
        const Scalar p = phi[static_cast<std::size_t>(k)];
        if (!(p > Scalar(0))) continue;
        v += p * (elog_pi(k) - log(p) - Scalar(d) / 2 * log(two_pi * opt_.sigma2) -
                  ((X_->row(n) - q.means.row(k)).squaredNorm() + Scalar(d) * q.var(k)) / (2 * opt_.sigma2));
      }
    }
    return v;
  }

 private:
  const Mat<Scalar>* X_;
  GmmOptions<Scalar> opt_;
};

/// K well-separated isotropic clusters (docs/systems.md A.5 6): N points, point n in cluster n mod K,
/// x = μ_k + σ ε. With `centre`, each cluster's points are shifted so that their sample mean is μ_k
/// exactly (the estimand of the recovery check is then μ_k, not μ_k plus its sampling error).
inline Mat<double> gmm_clusters(const Mat<double>& mu, double sigma, long n, bool centre, std::uint64_t seed) {
  const Index K = mu.rows(), d = mu.cols();
  Mat<double> X(n, d);
  random::Stream rng(seed, 0);
  for (Index i = 0; i < n; ++i)
    for (Index j = 0; j < d; ++j) X(i, j) = mu(i % K, j) + sigma * rng.normal();
  if (centre)
    for (Index k = 0; k < K; ++k) {
      Vec<double> m = Vec<double>::Zero(d);
      long c = 0;
      for (Index i = k; i < n; i += K, ++c) m += X.row(i).transpose();
      m /= double(c);
      for (Index i = k; i < n; i += K) X.row(i) += (mu.row(k).transpose() - m).transpose();
    }
  return X;
}

}  // namespace ngvi::gmm
