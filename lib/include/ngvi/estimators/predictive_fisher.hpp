#pragma once
/// @file
/// The variational predictive Fisher F_r of Tang & Ranganath (2019) for a mean-field Gaussian
/// q(z) = N(μ, diag σ²) in λ = (μ, ω = log σ), and the estimator part that fills the direction a
/// preconditioned stepper needs (docs/systems.md D.1, D.4). With z = g(ε; λ) = μ + σ ⊙ ε the
/// Jacobian is J = ∂z/∂λ = [I_D, diag(σ ⊙ ε)] and (docs/systems.md D.4, derived)
/// \f[ F_r = \mathbb{E}_\varepsilon\big[J^\top G(z) J\big], \qquad
///     G(z) = \mathbb{E}_{x' \sim p(x'|z)}[\nabla_z \log p(x'|z)\,\nabla_z \log p(x'|z)^\top]. \f]
/// Routes, all dense (a small model's F_r is formed whole, no K-FAC):
///   exact        for a G that does not depend on z (Gaussian likelihoods): E[ε] = 0 and
///                E[εεᵀ] = I give F_r = blockdiag(G, diag(σ_i² G_ii)) in closed form (for a model
///                whose G varies with z the estimator's kExact is the plug-in G(μ), not F_r);
///   analytic     the inner expectation analytic, ε sampled: (1/K) Σ_k J_kᵀ G(z_k) J_k;
///   sampled      ε and x' sampled: (1/K) Σ_k s_k s_kᵀ with s_k = J_kᵀ ∇_z log p(x'_k | z_k).
/// Every estimate is a sum of positive semidefinite terms, so F̂_r + δI is positive definite for
/// every δ > 0 (in exact arithmetic; in floating point for δ above the rounding of the sum).
/// The estimate of F_r is a part: a caller may give the estimator its own (FisherRequest, below),
/// which then reads the point, the route and draws asked for, the model's G and the estimator's stream.
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ngvi/linalg/validate.hpp"
#include "ngvi/models/vpng_models.hpp"
#include "ngvi/scalar/types.hpp"

namespace ngvi {

/// Which matrix the estimator puts beside the gradient.
enum class FisherRoute {
  kNone,      ///< none (plain gradient, q-Fisher NG: their preconditioners need only λ)
  kExact,     ///< F_r in closed form (models with a constant G)
  kAnalytic,  ///< F_r with the inner expectation analytic, ε sampled
  kSampled,   ///< F_r with ε and x' sampled
};

inline const char* to_string(FisherRoute r) {
  switch (r) {
    case FisherRoute::kNone: return "none";
    case FisherRoute::kExact: return "exact";
    case FisherRoute::kAnalytic: return "analytic";
    case FisherRoute::kSampled: return "sampled";
  }
  return "?";
}

/// What the estimator hands the stepper: ∇̂L and, when asked for, a curvature matrix.
template <class Scalar>
struct MeanFieldDirection {
  Vec<Scalar> grad;
  Mat<Scalar> fisher;
  bool has_fisher = false;
};

/// J = [I, diag(σ ⊙ ε)] as a D × 2D matrix.
template <class Scalar>
Mat<Scalar> reparam_jacobian(const Vec<Scalar>& sigma, const Vec<Scalar>& eps_draw) {
  const Index d = sigma.size();
  Mat<Scalar> j = Mat<Scalar>::Zero(d, 2 * d);
  for (Index i = 0; i < d; ++i) {
    j(i, i) = Scalar(1);
    j(i, d + i) = sigma(i) * eps_draw(i);
  }
  return j;
}

/// F_r in closed form for a constant G: blockdiag(G, diag(σ_i² G_ii)).
/// @throws std::invalid_argument naming 'g' (not square) or 'sigma' (not one entry per row of g).
template <class Scalar>
Mat<Scalar> predictive_fisher_exact(const Mat<Scalar>& g, const Vec<Scalar>& sigma) {
  constexpr const char* f = "ngvi::predictive_fisher_exact";
  require_square(g, f, "g");
  if (sigma.size() != g.rows()) throw_size(f, "sigma", "must have one entry per row of g");
  const Index d = g.rows();
  Mat<Scalar> out = Mat<Scalar>::Zero(2 * d, 2 * d);
  out.topLeftCorner(d, d) = g;
  for (Index i = 0; i < d; ++i) out(d + i, d + i) = sigma(i) * sigma(i) * g(i, i);
  return out;
}

/// The q-Fisher of N(μ, diag σ²) in (μ, ω): diag(1/σ², 2) (docs/systems.md D.4).
template <class Scalar>
Mat<Scalar> q_fisher(const Vec<Scalar>& lambda) {
  const Index d = lambda.size() / 2;
  const Vec<Scalar> s = mf_sigma(lambda);
  Mat<Scalar> out = Mat<Scalar>::Zero(2 * d, 2 * d);
  for (Index i = 0; i < d; ++i) {
    out(i, i) = Scalar(1) / (s(i) * s(i));
    out(d + i, d + i) = Scalar(2);
  }
  return out;
}

/// Monte Carlo F̂_r from `draws` ε-draws, the inner expectation analytic (kAnalytic) or by one x'
/// draw per ε (kSampled).
template <class Scalar, class Model, class Rng>
Mat<Scalar> predictive_fisher_mc(const Model& model, const Vec<Scalar>& lambda, long draws, FisherRoute route, Rng& rng) {
  constexpr const char* f = "ngvi::predictive_fisher_mc";
  if (draws < 1) throw_size(f, "draws", "must be >= 1");
  if (route != FisherRoute::kAnalytic && route != FisherRoute::kSampled) throw_size(f, "route", "must be analytic or sampled");
  const Index d = model.dim();
  if (lambda.size() != 2 * d) throw_size(f, "lambda", "must have 2 D entries (mu, omega)");
  const Vec<Scalar> mu = mf_mu(lambda), sigma = mf_sigma(lambda);
  Mat<Scalar> acc = Mat<Scalar>::Zero(2 * d, 2 * d);
  Vec<Scalar> e(d);
  for (long k = 0; k < draws; ++k) {
    for (Index i = 0; i < d; ++i) e(i) = Scalar(rng.normal());
    const Vec<Scalar> z = mu + sigma.cwiseProduct(e);
    const Mat<Scalar> j = reparam_jacobian(sigma, e);
    if (route == FisherRoute::kAnalytic) {
      acc.noalias() += j.transpose() * model.predictive_fisher(z) * j;
    } else {
      const Vec<Scalar> s = j.transpose() * model.sample_predictive_score(z, rng);
      acc.noalias() += s * s.transpose();
    }
  }
  acc /= Scalar(draws);
  symmetrise_in_place(acc);
  return acc;
}

/// The reparameterisation gradient of the ELBO from `draws` ε-draws (docs/systems.md D.4):
/// ∇_μ = mean_k ∇ℓ(z_k) − μ/σ0², ∇_ω = mean_k ∇ℓ(z_k) ⊙ σ ⊙ ε_k + 1 − σ²/σ0².
template <class Scalar, class Model, class Rng>
Vec<Scalar> elbo_gradient_reparam(const Model& model, const Vec<Scalar>& lambda, long draws, Rng& rng) {
  constexpr const char* f = "ngvi::elbo_gradient_reparam";
  if (draws < 1) throw_size(f, "draws", "must be >= 1");
  const Index d = model.dim();
  if (lambda.size() != 2 * d) throw_size(f, "lambda", "must have 2 D entries (mu, omega)");
  const Vec<Scalar> mu = mf_mu(lambda), sigma = mf_sigma(lambda);
  Vec<Scalar> g = Vec<Scalar>::Zero(2 * d), e(d);
  for (long k = 0; k < draws; ++k) {
    for (Index i = 0; i < d; ++i) e(i) = Scalar(rng.normal());
    const Vec<Scalar> gz = model.loglik_grad(Vec<Scalar>(mu + sigma.cwiseProduct(e)));
    g.head(d) += gz;
    g.tail(d) += gz.cwiseProduct(sigma).cwiseProduct(e);
  }
  g /= Scalar(draws);
  return g + mf_neg_kl_gradient(lambda, model.prior_variance());
}

/// Monte Carlo estimate of the ELBO from `draws` ε-draws.
template <class Scalar, class Model, class Rng>
Scalar elbo_estimate(const Model& model, const Vec<Scalar>& lambda, long draws, Rng& rng) {
  const Index d = model.dim();
  const Vec<Scalar> mu = mf_mu(lambda), sigma = mf_sigma(lambda);
  Scalar acc(0);
  Vec<Scalar> e(d);
  for (long k = 0; k < draws; ++k) {
    for (Index i = 0; i < d; ++i) e(i) = Scalar(rng.normal());
    acc += model.loglik(Vec<Scalar>(mu + sigma.cwiseProduct(e)));
  }
  return acc / Scalar(draws) + mf_neg_kl(lambda, model.prior_variance());
}

/// Options of the estimator part.
struct PredictiveFisherOptions {
  long grad_draws = 10;    ///< ε-draws for ∇̂L; 0 = the model's exact gradient (model.elbo_gradient)
  FisherRoute route = FisherRoute::kNone;
  long fisher_draws = 1;   ///< ε-draws for F̂_r (kAnalytic, kSampled)
};

/// What an estimate of F_r given in place of the library's reads, at one step: the point λ, the
/// route and number of ε-draws asked for, the model's G(z), one predictive score
/// ∇_z log p(x' | z) with x' ~ p(x' | z), and one standard normal draw, both from the estimator's
/// stream (so the estimate is a pure function of the run's seed and stream id).
template <class Scalar>
struct FisherRequest {
  const Vec<Scalar>* lambda = nullptr;
  FisherRoute route = FisherRoute::kNone;
  long draws = 0;
  std::function<Mat<Scalar>(const Vec<Scalar>& z)> g;
  std::function<Vec<Scalar>(const Vec<Scalar>& z)> sampled_score;
  std::function<double()> normal;
};

/// An estimate of F_r in place of the route's (the VPNG preconditioner's part; called once per step).
template <class Scalar>
using FisherEstimate = std::function<Mat<Scalar>(const FisherRequest<Scalar>&)>;

/// The estimator part of run_trajectory: at the stepper's λ it fills ∇̂L and, per the route, F̂_r
/// (or, when given, `fisher`'s estimate in its place for every route but kNone).
/// Its draws come from its own stream, so a run is a pure function of (seed, stream id).
template <class Model, class Rng>
class PredictiveFisherEstimator {
 public:
  using Scalar = typename Model::value_type;

  PredictiveFisherEstimator(const Model& model, PredictiveFisherOptions opt, Rng rng, FisherEstimate<Scalar> fisher = {})
      : model_(model), opt_(opt), rng_(std::move(rng)), fisher_(std::move(fisher)) {
    constexpr const char* f = "ngvi::PredictiveFisherEstimator";
    if (opt_.grad_draws < 0) throw_size(f, "options.grad_draws", "must be >= 0");
    if ((opt_.route == FisherRoute::kAnalytic || opt_.route == FisherRoute::kSampled) && opt_.fisher_draws < 1)
      throw_size(f, "options.fisher_draws", "must be >= 1 for a sampled route");
  }

  template <class Stepper>
  void estimate(long, const Stepper& s, MeanFieldDirection<Scalar>& dir) {
    static_assert(std::is_same_v<typename Stepper::Scalar, Scalar>, "the stepper's scalar must be the model's");
    const Vec<Scalar>& lambda = s.point();
    if (opt_.grad_draws == 0) {
      if constexpr (requires { model_.elbo_gradient(lambda); }) dir.grad = model_.elbo_gradient(lambda);
      else throw_size("ngvi::PredictiveFisherEstimator", "options.grad_draws", "is 0 (exact gradient) but the model has no exact ELBO gradient");
    } else {
      dir.grad = elbo_gradient_reparam<Scalar>(model_, lambda, opt_.grad_draws, rng_);
    }
    dir.has_fisher = opt_.route != FisherRoute::kNone;
    if (dir.has_fisher && fisher_) {
      FisherRequest<Scalar> r;
      r.lambda = &lambda;
      r.route = opt_.route;
      r.draws = opt_.fisher_draws;
      r.g = [this](const Vec<Scalar>& z) { return Mat<Scalar>(model_.predictive_fisher(z)); };
      r.sampled_score = [this](const Vec<Scalar>& z) { return Vec<Scalar>(model_.sample_predictive_score(z, rng_)); };
      r.normal = [this] { return static_cast<double>(rng_.normal()); };
      dir.fisher = fisher_(r);
      return;
    }
    switch (opt_.route) {
      case FisherRoute::kNone: break;
      case FisherRoute::kExact: {
        const Vec<Scalar> mu = mf_mu(lambda);
        dir.fisher = predictive_fisher_exact<Scalar>(model_.predictive_fisher(mu), mf_sigma(lambda));
        break;
      }
      case FisherRoute::kAnalytic:
      case FisherRoute::kSampled: dir.fisher = predictive_fisher_mc<Scalar>(model_, lambda, opt_.fisher_draws, opt_.route, rng_); break;
    }
  }
  const PredictiveFisherOptions& options() const { return opt_; }

 private:
  const Model& model_;
  PredictiveFisherOptions opt_;
  Rng rng_;
  FisherEstimate<Scalar> fisher_;
};

}  // namespace ngvi
