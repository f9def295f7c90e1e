#pragma once
/// @file
/// Bayesian matrix factorisation as a Bayesian network (Paquet 2014, Sec. 3; docs/systems.md B.4):
///   r_mn | u_m, v_n ~ N(u_mᵀ v_n, 1) for (m, n) ∈ Ω,   u_mk ~ N(0, 1),   v_nk ~ N(0, 1),
/// with the fully factorised q(U, V) = Π_{m,k} q(u_mk) Π_{n,k} q(v_nk), every factor a univariate
/// Gaussian held by its natural parameter in the paper's convention λ = (precision, precision·mean)
/// (a linear reparametrisation of the canonical (precision·mean, −precision/2); convex combinations
/// commute with it, so natural_update acts on either alike).
///
/// The hidden nodes are the u_mk and the v_nk; the children of u_mk are the N_m ratings of user m
/// (those of v_nk the N_n ratings of item n), its co-parents u_mk' (k' ≠ k) and v_n. Eq. (7):
/// \f[ \lambda^{temp}_{mk} = (1, 0) + \frac{N_m}{C} \sum_{n \in \mathcal C}
///     \big( Var_q[v_{nk}] + E_q[v_{nk}]^2,\; E_q[v_{nk}] (r_{mn} - \sum_{k' \ne k} E_q[u_{mk'}] E_q[v_{nk'}]) \big) \f]
/// (symmetric for v_nk). With all children it is the exact coordinate (CAVI) update.
///
/// The closed-form ELBO (docs/systems.md B.5, derived), with s the variances:
/// \f[ L = -\tfrac{|\Omega|}{2}\ln 2\pi - \tfrac12 \sum_{(m,n)\in\Omega} \Big[ (r_{mn} - \sum_k \mu^u_{mk}\mu^v_{nk})^2
///       + \sum_k \big( E[u_{mk}^2]E[v_{nk}^2] - (\mu^u_{mk}\mu^v_{nk})^2 \big) \Big] - \sum KL(q \| N(0,1)) \f]
/// where E[u²]E[v²] − (μ^u μ^v)² is evaluated as (μ^u)² s^v + s^u (μ^v)² + s^u s^v (the same number
/// without the cancellation) and KL(N(μ, s) ‖ N(0, 1)) = ½(μ² + s − 1 − ln s).
#include <boost/math/constants/constants.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "ngvi/data/rating_matrix.hpp"
#include "ngvi/linalg/validate.hpp"
#include "ngvi/scalar/types.hpp"

namespace ngvi {

/// The variational parameters: column m·K + k of `u` is λ of q(u_mk) = (precision, precision·mean),
/// column n·K + k of `v` that of q(v_nk).
template <class Scalar>
struct MfNatural {
  using Block = Eigen::Array<Scalar, 2, Eigen::Dynamic>;
  Index K = 0;
  Block u;
  Block v;

  /// All precisions 1, means drawn by `mean` (a callable returning one mean per call; the order is
  /// u then v, node by node).
  template <class MeanFn>
  static MfNatural init(Index users, Index items, Index K, MeanFn&& mean) {
    if (K < 1) throw_domain("ngvi::MfNatural::init", "K", "must be >= 1");
    MfNatural q;
    q.K = K;
    q.u.resize(2, users * K);
    q.v.resize(2, items * K);
    for (Index j = 0; j < q.u.cols(); ++j) q.u.col(j) << Scalar(1), Scalar(mean());
    for (Index j = 0; j < q.v.cols(); ++j) q.v.col(j) << Scalar(1), Scalar(mean());
    return q;
  }

  /// Every factor's λ the prior's, (1, 0) (N(0, 1)), with the shapes of `like`.
  static MfNatural prior_like(const MfNatural& like) {
    MfNatural q;
    q.K = like.K;
    q.u.resize(2, like.u.cols());
    q.v.resize(2, like.v.cols());
    q.u.row(0).setConstant(Scalar(1));
    q.u.row(1).setZero();
    q.v.row(0).setConstant(Scalar(1));
    q.v.row(1).setZero();
    return q;
  }

  // The vector space of the parameter, entry by entry (ParameterSpace, expfam/family.hpp): what the
  // family-generic step needs (optim/steppers/natural.hpp). Shapes are the caller's to match.
  MfNatural& operator+=(const MfNatural& b) {
    u += b.u;
    v += b.v;
    return *this;
  }
  MfNatural& operator*=(const Scalar& s) {
    u *= s;
    v *= s;
    return *this;
  }
  friend MfNatural operator+(MfNatural a, const MfNatural& b) { return a += b; }
  friend MfNatural operator-(MfNatural a, const MfNatural& b) {
    a.u -= b.u;
    a.v -= b.v;
    return a;
  }
  friend MfNatural operator*(const Scalar& s, MfNatural b) { return b *= s; }
  friend MfNatural operator*(MfNatural b, const Scalar& s) { return b *= s; }
};

/// The family of the network's variational parameter as the family-generic step sees it
/// (NaturalDomain, optim/steppers/natural.hpp): λ an MfNatural, and its domain Ω every entry finite
/// and every precision positive.
template <class Scalar_>
struct MfFamily {
  using Scalar = Scalar_;
  using Natural = MfNatural<Scalar>;
  bool in_domain(const Natural& q) const {
    for (const auto* b : {&q.u, &q.v})
      for (Index j = 0; j < b->cols(); ++j)
        if (!((*b)(0, j) > Scalar(0)) || !is_finite_scalar((*b)(0, j)) || !is_finite_scalar((*b)(1, j))) return false;
    return true;
  }
};

/// out ← (1 − ρ)λ + ρ(λ_p + ĝ) for the network's parameter, block by block without a temporary: the
/// entries and roundings of natural_update (optim/natural_update.hpp), which the family-generic step
/// calls (found by argument-dependent lookup).
template <class Scalar>
void natural_update(MfNatural<Scalar>& out, const MfNatural<Scalar>& lambda, const MfNatural<Scalar>& prior,
                    const MfNatural<Scalar>& ghat, const Scalar& rho) {
  const Scalar keep = Scalar(1) - rho;
  out.K = lambda.K;
  if (&out == &lambda) {
    out.u *= keep;
    out.v *= keep;
  } else {
    out.u = lambda.u * keep;
    out.v = lambda.v * keep;
  }
  out.u += rho * (prior.u + ghat.u);
  out.v += rho * (prior.v + ghat.v);
}

/// Means and variances of every factor, E[x] = λ₂/λ₁ and Var[x] = 1/λ₁.
template <class Scalar>
struct MfMoments {
  std::vector<Scalar> mu_u, s_u, mu_v, s_v;
  void assign_from(const MfNatural<Scalar>& q) {
    auto one = [](const typename MfNatural<Scalar>::Block& b, std::vector<Scalar>& mu, std::vector<Scalar>& s) {
      mu.resize(static_cast<std::size_t>(b.cols()));
      s.resize(static_cast<std::size_t>(b.cols()));
      for (Index j = 0; j < b.cols(); ++j) {
        s[static_cast<std::size_t>(j)] = Scalar(1) / b(0, j);
        mu[static_cast<std::size_t>(j)] = b(1, j) / b(0, j);
      }
    };
    one(q.u, mu_u, s_u);
    one(q.v, mu_v, s_v);
  }
};

/// The closed-form ELBO L[q] (file comment). A non-positive precision gives NaN (q is not a
/// distribution there); non-finite parameters propagate.
/// @throws std::invalid_argument naming 'q' if its shapes do not match `data`.
template <class Scalar>
Scalar mf_elbo(const RatingMatrix& data, const MfNatural<Scalar>& q) {
  using std::log;
  const Index K = q.K;
  if (K < 1 || q.u.cols() != data.users * K || q.v.cols() != data.items * K)
    throw_size("ngvi::mf_elbo", "q", "must have users*K and items*K columns for the data");
  MfMoments<Scalar> mo;
  mo.assign_from(q);
  for (Index j = 0; j < q.u.cols(); ++j)
    if (!(q.u(0, j) > Scalar(0))) return std::numeric_limits<Scalar>::quiet_NaN();
  for (Index j = 0; j < q.v.cols(); ++j)
    if (!(q.v(0, j) > Scalar(0))) return std::numeric_limits<Scalar>::quiet_NaN();
  Scalar sq(0);
  for (Index e = 0; e < data.size(); ++e) {
    const std::size_t bu = static_cast<std::size_t>(data.user[e]) * K, bv = static_cast<std::size_t>(data.item[e]) * K;
    Scalar pred(0), extra(0);
    for (Index k = 0; k < K; ++k) {
      const Scalar& mu = mo.mu_u[bu + k];
      const Scalar& su = mo.s_u[bu + k];
      const Scalar& mv = mo.mu_v[bv + k];
      const Scalar& sv = mo.s_v[bv + k];
      pred += mu * mv;
      extra += mu * mu * sv + su * mv * mv + su * sv;
    }
    const Scalar res = Scalar(data.value[e]) - pred;
    sq += res * res + extra;
  }
  Scalar kl(0);
  auto add_kl = [&](const std::vector<Scalar>& mu, const std::vector<Scalar>& s) {
    for (std::size_t j = 0; j < mu.size(); ++j) kl += mu[j] * mu[j] + s[j] - Scalar(1) - log(s[j]);
  };
  add_kl(mo.mu_u, mo.s_u);
  add_kl(mo.mu_v, mo.s_v);
  return -Scalar(data.size()) * boost::math::constants::log_root_two_pi<Scalar>() - sq / 2 - kl / 2;
}

/// The exact coordinate optimum λ*_i of one factor, read off the closed-form ELBO (a reference
/// independent of eq. 7's code): with m₁ = E[x], m₂ = E[x²] of the factor and s = m₂ − m₁²,
/// G(m₁, m₂) = L − ½ ln s is affine in (m₁, m₂) (the likelihood and the prior's cross-entropy are
/// linear in the factor's moments; −½ ln s is its entropy term), and the maximiser of L over the
/// factor is the Gaussian with precision·mean = ∂G/∂m₁ and precision = −2 ∂G/∂m₂. The two slopes are
/// exact differences of G at three moment pairs (h = ¼, s kept positive).
template <class Scalar>
Eigen::Array<Scalar, 2, 1> mf_coordinate_optimum(const RatingMatrix& data, const MfNatural<Scalar>& q, bool user_side, Index row,
                                                 Index k) {
  using std::log;
  const Index col = row * q.K + k;
  const auto& b = user_side ? q.u : q.v;
  const Scalar m1 = b(1, col) / b(0, col);
  const Scalar s = Scalar(1) / b(0, col);
  auto G = [&](const Scalar& a1, const Scalar& a2) {
    MfNatural<Scalar> p = q;
    auto& bb = user_side ? p.u : p.v;
    const Scalar ss = a2 - a1 * a1;
    bb(0, col) = Scalar(1) / ss;
    bb(1, col) = a1 / ss;
    return mf_elbo(data, p) - log(ss) / 2;
  };
  const Scalar h = Scalar(1) / 4;
  const Scalar m2 = s + m1 * m1;
  const Scalar g0 = G(m1, m2);
  // Moving m₁ by h with m₂ raised by 2 h m₁ + h² keeps s unchanged; then the m₂ slope is subtracted.
  const Scalar g2 = G(m1, m2 + h);
  const Scalar dm2 = (g2 - g0) / h;
  const Scalar g1 = G(m1 + h, m2 + 2 * h * m1 + h * h);
  const Scalar dm1 = ((g1 - g0) - dm2 * (2 * h * m1 + h * h)) / h;
  Eigen::Array<Scalar, 2, 1> out;
  out << -2 * dm2, dm1;
  return out;
}

}  // namespace ngvi
