#pragma once
/// @file
/// Exact expectations over the mini-batch draws of eq. (15) NGD on a small Bayesian linear regression
/// (docs/math.md §4.5, "Exact enumeration"): every path of T steps, each step one of the n^M ordered
/// batches (with replacement), each path of probability n^{−MT}. The conjugate NGD has no other
/// randomness, so a sum over the path tree is the expectation, with no level.
///
/// The tree is walked depth first, so a shared prefix is computed once. Each node runs the library's
/// parts under test: the NgdStepper's update (steppers/ngd_gaussian.hpp), Theorem 1's MeanAverage
/// (the t-weighted μ̄_t), the MinibatchGradient's ĝ of each batch (set_indices/evaluate, computed once:
/// ĝ^ℓ does not depend on the iterate) and a schedule γ_t; a variant (optim/variant.hpp) replaces the
/// schedule, the change to ĝ and the averager's weights as it does in the claims' runs.
///
/// The reference posterior comes by an independent route, Gaussian conditioning in data space
/// (posterior_by_conditioning), never the model's natural-parameter completion of the square.
///
/// At every node (t < T) it also evaluates the terms of the proof's step 3 exactly (E_t over the
/// node's n^M children), with u = μ* and D(u, v) = D_A*(u, v) = KL(q_u ‖ q_v) (Lemma 4), and σ_t² of
/// eq. (12) in its defining form (1/γ_t) E_t⟨ĝ^ℓ − ∇ℓ, μ_{t+1} − μ̃_{t+1}⟩ (μ̃ the exact-gradient step).
#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ngvi/estimators/minibatch_gradient.hpp"
#include "ngvi/expfam/gaussian_maps.hpp"
#include "ngvi/expfam/kl.hpp"
#include "ngvi/models/linear_regression.hpp"
#include "ngvi/optim/natural_update.hpp"
#include "ngvi/optim/steppers/ngd_gaussian.hpp"
#include "ngvi/optim/variant.hpp"
#include "ngvi/parallel/replicates.hpp"
#include "ngvi/data/synthetic.hpp"
#include "ngvi/diagnostics/step_variance.hpp"
#include "ngvi/optim/engine.hpp"
#include "ngvi/scalar/budget.hpp"

namespace ngvi::diagnostics {

/// p(z | y) for z ~ N(m_p, S_p), y = Xz + e, e ~ N(0, s_e² I), by conditioning the joint Gaussian of
/// (z, y) on y (data space, an n × n solve): with K = X S_p Xᵀ + s_e² I and G = S_p Xᵀ,
///   m = m_p + G K⁻¹(y − X m_p),   S = S_p − G K⁻¹ Gᵀ.
/// @throws std::domain_error naming 'noise_var' if K is not positive definite.
template <class Scalar>
GaussianMoments<Scalar> posterior_by_conditioning(const Mat<Scalar>& X, const Vec<Scalar>& y, const Vec<Scalar>& m_p,
                                                  const Mat<Scalar>& S_p, const Scalar& noise_var) {
  const Index n = X.rows();
  const Mat<Scalar> G = S_p * X.transpose();
  Mat<Scalar> K = X * G;
  for (Index i = 0; i < n; ++i) K(i, i) += noise_var;
  Eigen::LLT<Mat<Scalar>> llt(K);
  if (llt.info() != Eigen::Success)
    throw_domain("ngvi::diagnostics::posterior_by_conditioning", "noise_var", "gives X S_p X^T + s_e^2 I not positive definite");
  const Vec<Scalar> r = y - X * m_p;
  GaussianMoments<Scalar> post;
  post.mean = m_p + G * llt.solve(r);
  Mat<Scalar> S = S_p - G * llt.solve(Mat<Scalar>(G.transpose()));
  post.cov = (S + S.transpose()) / Scalar(2);
  return post;
}

/// What to enumerate.
template <class Scalar>
struct PathSpec {
  long depth = 1;                          ///< T_max ≥ 1
  GaussianNatural<Scalar> start;           ///< η₀ (empty: q₀ = N(0, I))
  std::function<Scalar(long)> gamma;       ///< γ_t (empty: the library's 2/(t+2), or the variant's)
  Scalar grad_scale = Scalar(1);           ///< ĝ multiplied by this (1: eq. (15); a control's bias)
  const Variant* variant = nullptr;        ///< the algorithm under test (null: the library's)
  bool node_checks = true;                 ///< evaluate step 3's terms at every node
  /// Walk the subtrees below depth subtree_cut as work items split across the ranks of a process group
  /// and `threads` threads (parallel::run_work_items). Off: the same items one after the other in this
  /// process. The results are the same either way (the sums are grouped by subtree in both). Turn it on
  /// only where every rank runs the same enumerations in the same order (a claim's run under `ngvi
  /// verify`), since the gather is collective.
  bool distribute = false;
  int threads = 1;
};

/// Sums over the paths, per depth t = 0..T (index t); expectations over the batch draws.
template <class Scalar>
struct DepthSums {
  Scalar kl_avg = Scalar(0);       ///< E KL(q_{μ̄_t} ‖ p), t ≥ 1
  Scalar kl_avg_sq = Scalar(0);    ///< E KL(q_{μ̄_t} ‖ p)²
  Scalar gap = Scalar(0);          ///< E KL(q_{μ_t} ‖ p) = E f(μ_t) − f* (Lemmas 2, 4)
  Scalar dstar = Scalar(0);        ///< E KL(p ‖ q_{μ_t}) = E D(μ*, μ_t)
  Scalar sigma2 = Scalar(0);       ///< E σ_t² (t < T)
  Scalar max_sigma2 = Scalar(0);   ///< max of σ_t² over the nodes at depth t (t < T)
  Scalar dstep = Scalar(0);        ///< E D(μ_{t+1}, μ_t) = E KL(q_{t+1} ‖ q_t), stored at t (t < T)
  Vec<Scalar> feat;                ///< E v(μ̄_t), v = average_features (empty until a path reaches t)
  Mat<Scalar> feat_sq;             ///< E v(μ̄_t) v(μ̄_t)ᵀ
};
template <class Scalar>
auto serial_fields(DepthSums<Scalar>& x) {
  return std::tie(x.kl_avg, x.kl_avg_sq, x.gap, x.dstar, x.sigma2, x.max_sigma2, x.dstep, x.feat, x.feat_sq);
}

/// The coordinates of an averaged iterate μ̄ = (μ̄₁, μ̄₂) as one vector: μ̄₁, then the lower triangle of
/// μ̄₂ by columns (d + d(d+1)/2 entries). Their expectations are linear in μ̄, so a bias in ĝ moves them
/// at first order (E KL, minimal at the posterior, moves at second order).
template <class Scalar>
Vec<Scalar> average_features(const GaussianExpectation<Scalar>& mu) {
  const Index d = mu.mu1().size();
  Vec<Scalar> v(d + d * (d + 1) / 2);
  v.head(d) = mu.mu1();
  Index k = d;
  for (Index j = 0; j < d; ++j)
    for (Index i = j; i < d; ++i) v(k++) = mu.mu2()(i, j);
  return v;
}

/// The step-3 check at one node: lhs = E_t f(μ_{t+1}) − f(μ*), the full right side (with the term
/// (1 − 1/γ_t) E_t D(μ_{t+1}, μ_t), an identity for this f), and the descent right side without it.
template <class Scalar>
struct NodeStep {
  long t = 0;
  std::vector<int> path;           ///< batch numbers from the root
  Scalar lhs = Scalar(0), rhs_full = Scalar(0), rhs_descent = Scalar(0), scale = Scalar(0), third = Scalar(0);
};
template <class Scalar>
auto serial_fields(NodeStep<Scalar>& x) {
  return std::tie(x.t, x.path, x.lhs, x.rhs_full, x.rhs_descent, x.scale, x.third);
}

template <class Scalar>
struct PathEnumeration {
  std::vector<DepthSums<Scalar>> depth;   ///< size T + 1
  Scalar max_sigma2 = Scalar(0);          ///< max σ_t² over every node of the tree (t < T)
  long argmax_sigma2_t = 0;
  long nodes = 0;                          ///< nodes visited (excluding the root)
  long batches = 0;                        ///< n^M
  bool failed = false;                     ///< an iterate left Ω
  // Step 3 over the nodes: the largest relative residual of the identity, and the largest ratio
  // lhs / rhs_descent (the descent inequality's tightness), with their nodes.
  Scalar max_identity_residual = Scalar(0);
  NodeStep<Scalar> worst_identity, worst_descent, worst_descent_after_root;
  Scalar max_descent_ratio = Scalar(-1), max_descent_ratio_after_root = Scalar(-1);
  Scalar max_cov_condition = Scalar(1);   ///< the largest κ(S) of a node's covariance
  bool checked = false;                    ///< some node's step 3 was evaluated (worst_* are set)
};
template <class Scalar>
auto serial_fields(PathEnumeration<Scalar>& x) {
  return std::tie(x.depth, x.max_sigma2, x.argmax_sigma2_t, x.nodes, x.batches, x.failed, x.max_identity_residual, x.worst_identity,
                  x.worst_descent, x.worst_descent_after_root, x.max_descent_ratio, x.max_descent_ratio_after_root, x.max_cov_condition,
                  x.checked);
}

namespace detail {

// κ(S) = λ_max/λ_min in double (it only sizes a rounding budget).
template <class Scalar>
Scalar cov_condition(const Mat<Scalar>& S) {
  const Eigen::SelfAdjointEigenSolver<Mat<double>> es(data::cast_matrix<double>(S), Eigen::EigenvaluesOnly);
  return Scalar(es.eigenvalues().maxCoeff() / es.eigenvalues().minCoeff());
}

template <class Scalar>
GaussianExpectation<Scalar> to_expectation(const GaussianMoments<Scalar>& q) {
  Mat<Scalar> m2 = q.cov + q.mean * q.mean.transpose();
  return GaussianExpectation<Scalar>(GaussianPair<Scalar>{q.mean, std::move(m2)});
}

// A subtree below the cut: its root's stepper, average, moments, probability and batch path.
template <class Scalar>
struct Subtree {
  NgdStepper<Scalar> stepper;
  MeanAverage<NgdStepper<Scalar>> average;
  GaussianMoments<Scalar> q;
  Scalar prob;
  std::vector<int> path;
};

// The depth whose nodes root the work items: the smallest c ≥ 1 with n^{Mc} ≥ 64 subtrees (enough to
// share among a few ranks or threads evenly), at most T − 1; 0 (no cut) when T < 2. It depends on
// the tree only, so the grouping of the sums, and so the results, do not depend on who walks it.
inline long subtree_cut(long batches, long depth) {
  long c = 1, items = batches;
  while (items < 64 && c < depth - 1) {
    items *= batches;
    ++c;
  }
  return depth < 2 ? 0 : c;
}

// Adds a subtree's sums into out (in the caller's fixed order of subtrees) and keeps the larger of
// each maximum, ties to out (the earlier).
template <class Scalar>
void merge_subtree(PathEnumeration<Scalar>& out, const PathEnumeration<Scalar>& p) {
  for (std::size_t k = 0; k < out.depth.size() && k < p.depth.size(); ++k) {
    auto& o = out.depth[k];
    const auto& q = p.depth[k];
    o.kl_avg += q.kl_avg;
    o.kl_avg_sq += q.kl_avg_sq;
    o.gap += q.gap;
    o.dstar += q.dstar;
    o.sigma2 += q.sigma2;
    o.dstep += q.dstep;
    if (q.max_sigma2 > o.max_sigma2) o.max_sigma2 = q.max_sigma2;
    if (q.feat.size() > 0) {
      if (o.feat.size() == 0) {
        o.feat = q.feat;
        o.feat_sq = q.feat_sq;
      } else {
        o.feat += q.feat;
        o.feat_sq += q.feat_sq;
      }
    }
  }
  if (p.max_sigma2 > out.max_sigma2) {
    out.max_sigma2 = p.max_sigma2;
    out.argmax_sigma2_t = p.argmax_sigma2_t;
  }
  out.nodes += p.nodes;
  out.failed = out.failed || p.failed;
  if (p.checked) {
    if (!out.checked || p.max_identity_residual > out.max_identity_residual) {
      out.max_identity_residual = p.max_identity_residual;
      out.worst_identity = p.worst_identity;
    }
    if (p.max_descent_ratio > out.max_descent_ratio) {
      out.max_descent_ratio = p.max_descent_ratio;
      out.worst_descent = p.worst_descent;
    }
    if (p.max_descent_ratio_after_root > out.max_descent_ratio_after_root) {
      out.max_descent_ratio_after_root = p.max_descent_ratio_after_root;
      out.worst_descent_after_root = p.worst_descent_after_root;
    }
    out.checked = true;
  }
  if (p.max_cov_condition > out.max_cov_condition) out.max_cov_condition = p.max_cov_condition;
}

/// The walker's KL divergences share their arguments (the posterior is in three per child, a child's q
/// in three, the node's q_t in two), so each Gaussian is factored once (FactoredGaussian) and the
/// library's kl_gaussian is called on the factors. Errors name this function.
inline constexpr const char* kWalkerFunc = "ngvi::diagnostics::enumerate_paths";

template <class Scalar>
struct Walker {
  const LinearRegression<Scalar>& model;
  const GaussianMoments<Scalar>& post;
  const PathSpec<Scalar>& spec;
  const std::function<Scalar(long)>& gamma;
  const std::vector<std::vector<GaussianPair<Scalar>>>& ghat;  // [t][batch], after the scale and the variant's change
  const GaussianPair<Scalar>& grad;                            // ∇ℓ, exact
  PathEnumeration<Scalar>& out;
  Scalar pb;                               // n^{−M}
  std::vector<int> path;
  long cut = 0;                            // > 0: the children at this depth are queued in `subtrees`, not walked
  std::vector<Subtree<Scalar>>* subtrees = nullptr;
  std::optional<FactoredGaussian<Scalar>> post_f{};  // `post`, factored at the first visit

  void visit(long t, const NgdStepper<Scalar>& st, const MeanAverage<NgdStepper<Scalar>>& avg, const GaussianMoments<Scalar>& qt,
             const Scalar& prob) {
    if (t == spec.depth || out.failed) return;
    if (!post_f) post_f.emplace(post, kWalkerFunc, "post");
    std::optional<FactoredGaussian<Scalar>> qt_f;  // q_t, factored when the node's checks need it
    if (spec.node_checks) qt_f.emplace(qt, kWalkerFunc, "q_t");
    const Scalar g = gamma(t);
    const Scalar child_prob = prob * pb;
    // μ̃_{t+1}: the exact-gradient step from η_t (the same update, ĝ = ∇ℓ).
    GaussianNatural<Scalar> ex = st.point();
    natural_update(ex, model.prior_natural(), grad, g);
    const GaussianExpectation<Scalar> mu_ex = natural_to_expectation(ex);
    Scalar e_gap(0), e_dstar(0), e_dstep(0), e_inner(0);
    auto& ds = out.depth[static_cast<std::size_t>(t + 1)];
    const auto& gt = ghat[static_cast<std::size_t>(t)];
    for (std::size_t b = 0; b < gt.size(); ++b) {
      NgdStepper<Scalar> s = st;
      MeanAverage<NgdStepper<Scalar>> a = avg;
      s.step(t, g, gt[b]);
      if (!a.add(t + 1, s).ok || !s.moments()) {
        out.failed = true;
        return;
      }
      const GaussianMoments<Scalar> q{s.mean(), s.cov()};
      const FactoredGaussian<Scalar> q_f(q, kWalkerFunc, "q");
      const auto abar = a.value();
      Scalar kl_avg(0);
      if (abar) {
        const GaussianMoments<Scalar> qa = expectation_to_moments(*abar);
        kl_avg = kl_gaussian(FactoredGaussian<Scalar>(qa, kWalkerFunc, "q_avg"), *post_f);
      }
      const Scalar gap = kl_gaussian(q_f, *post_f), dstar = kl_gaussian(*post_f, q_f);
      ds.kl_avg += child_prob * kl_avg;
      ds.kl_avg_sq += child_prob * kl_avg * kl_avg;
      if (abar) {
        const Vec<Scalar> v = average_features(*abar);
        if (ds.feat.size() == 0) {
          ds.feat = Vec<Scalar>::Zero(v.size());
          ds.feat_sq = Mat<Scalar>::Zero(v.size(), v.size());
        }
        ds.feat += child_prob * v;
        ds.feat_sq += child_prob * (v * v.transpose());
      }
      ds.gap += child_prob * gap;
      ds.dstar += child_prob * dstar;
      ++out.nodes;
      if (spec.node_checks) {
        const Scalar dstep = kl_gaussian(q_f, *qt_f);
        const GaussianPair<Scalar> delta = gt[b] - grad;
        const GaussianPair<Scalar> dmu = to_expectation(q) - mu_ex;
        e_gap += pb * gap;
        e_dstar += pb * dstar;
        e_dstep += pb * dstep;
        e_inner += pb * pairing(delta, dmu);
        const Scalar k = cov_condition(q.cov);
        if (k > out.max_cov_condition) out.max_cov_condition = k;
      }
      path.push_back(static_cast<int>(b));
      if (t + 1 == cut)
        subtrees->push_back(Subtree<Scalar>{std::move(s), std::move(a), q, child_prob, path});
      else
        visit(t + 1, s, a, q, child_prob);
      path.pop_back();
      if (out.failed) return;
    }
    if (!spec.node_checks) return;
    using std::abs;
    const Scalar sigma2 = e_inner / g;  // eq. (12)
    auto& dt = out.depth[static_cast<std::size_t>(t)];
    dt.sigma2 += prob * sigma2;
    dt.dstep += prob * e_dstep;
    if (sigma2 > dt.max_sigma2) dt.max_sigma2 = sigma2;
    if (sigma2 > out.max_sigma2) {
      out.max_sigma2 = sigma2;
      out.argmax_sigma2_t = t;
    }
    // Step 3 with u = μ*: f(μ_{t+1}) − f(u) = KL(q_{t+1} ‖ p), D(u, μ_t) = KL(p ‖ q_t).
    const Scalar inv = Scalar(1) / g;
    const Scalar d_u_t = kl_gaussian(*post_f, *qt_f);
    NodeStep<Scalar> ns;
    ns.t = t;
    ns.lhs = e_gap;
    ns.third = (Scalar(1) - inv) * e_dstep;
    ns.rhs_descent = (inv - Scalar(1)) * d_u_t - inv * e_dstar + g * sigma2;
    ns.rhs_full = ns.rhs_descent + ns.third;
    ns.scale = abs(e_gap) + abs((inv - Scalar(1)) * d_u_t) + abs(inv * e_dstar) + abs(ns.third) + abs(g * sigma2);
    const Scalar resid = abs(ns.lhs - ns.rhs_full) / ns.scale;
    const Scalar ratio = ns.lhs / ns.rhs_descent;
    if (resid > out.max_identity_residual || !out.checked) {
      out.max_identity_residual = resid;
      ns.path = path;
      out.worst_identity = ns;
    }
    if (ratio > out.max_descent_ratio) {
      out.max_descent_ratio = ratio;
      ns.path = path;
      out.worst_descent = ns;
    }
    if (t > 0 && ratio > out.max_descent_ratio_after_root) {
      out.max_descent_ratio_after_root = ratio;
      ns.path = path;
      out.worst_descent_after_root = ns;
    }
    out.checked = true;
  }
};

}  // namespace detail

/// Enumerates every batch path of `spec.depth` steps of eq. (15) NGD on `model` (mini-batches of size
/// `batch`, with replacement) against the reference posterior `post`.
/// @throws std::invalid_argument naming 'spec.depth' (< 1) or 'batch' (n^M · depth too many paths).
template <class Scalar>
PathEnumeration<Scalar> enumerate_paths(const LinearRegression<Scalar>& model, Index batch, const GaussianMoments<Scalar>& post,
                                        const PathSpec<Scalar>& spec) {
  constexpr const char* f = "ngvi::diagnostics::enumerate_paths";
  if (spec.depth < 1) throw_size(f, "spec.depth", "must be >= 1");
  constexpr long kPathLimit = 1L << 22;  // leaves
  const long nb = batch_count(model.n(), batch, kPathLimit);
  if (nb < 0) throw_size(f, "batch", "gives n^M above the path limit");
  long leaves = 1;
  for (long t = 0; t < spec.depth; ++t) {
    if (leaves > kPathLimit / nb) throw_size(f, "spec.depth", "gives n^(M T) above the path limit");
    leaves *= nb;
  }
  PathEnumeration<Scalar> out;
  out.depth.assign(static_cast<std::size_t>(spec.depth + 1), DepthSums<Scalar>{});
  out.batches = nb;
  const NgdParts<Scalar>* parts = estimator_parts<Scalar>(spec.variant);  // its `estimate` only (below)
  const auto lib_schedule = schedule_for<Scalar>(spec.variant, StepSchedule<Scalar>::theorem1());
  std::function<Scalar(long)> gamma = spec.gamma ? spec.gamma : std::function<Scalar(long)>([lib_schedule](long t) { return lib_schedule.at(t); });
  MinibatchGradient<Scalar> est(model, batch);
  std::vector<GaussianPair<Scalar>> ghat;
  for_each_batch(model.n(), batch, kPathLimit, [&](const std::vector<Index>& idx) {
    est.set_indices(idx);
    GaussianPair<Scalar> g;
    est.evaluate(g);
    if (spec.grad_scale != Scalar(1)) g *= spec.grad_scale;
    ghat.push_back(std::move(g));
  });
  const GaussianNatural<Scalar> eta0 = spec.start.dim() > 0 ? spec.start : standard_natural<Scalar>(model.d());
  NgdStepper<Scalar> root(model.prior_natural(), eta0);
  // Variants with estimate_at or a sampling scheme are outside the enumeration (the caller's Monte
  // Carlo route runs them).
  MeanAverage<NgdStepper<Scalar>> avg(averaging_for<Scalar>(spec.variant));
  avg.start(spec.depth);
  if (!root.moments()) throw_domain(f, "spec.start", "is not in Omega (-eta2 not positive definite)");
  const GaussianMoments<Scalar> q0{root.mean(), root.cov()};
  out.depth[0].gap = kl_gaussian(q0, post);
  out.depth[0].dstar = kl_gaussian(post, q0);
  // ĝ_t of every batch at every depth, with the variant's change to ĝ_t (which may depend on t).
  std::vector<std::vector<GaussianPair<Scalar>>> table(static_cast<std::size_t>(spec.depth), ghat);
  if (parts && parts->estimate)
    for (long t = 0; t < spec.depth; ++t)
      for (auto& g : table[static_cast<std::size_t>(t)]) parts->estimate(t, g);
  // The tree down to the cut in this process; the subtrees below it as work items, their sums added in
  // subtree order (detail::subtree_cut).
  const GaussianPair<Scalar> grad = model.loglik_gradient();
  const long cut = detail::subtree_cut(nb, spec.depth);
  std::vector<detail::Subtree<Scalar>> subtrees;
  detail::Walker<Scalar> w{model, post, spec, gamma, table, grad, out, Scalar(1) / Scalar(nb), {}, cut, &subtrees};
  w.visit(0, root, avg, q0, Scalar(1));
  if (out.failed || subtrees.empty()) return out;
  auto walk = [&](long i) {
    const auto& st = subtrees[static_cast<std::size_t>(i)];
    PathEnumeration<Scalar> part;
    part.depth.assign(static_cast<std::size_t>(spec.depth + 1), DepthSums<Scalar>{});
    detail::Walker<Scalar> sw{model, post, spec, gamma, table, grad, part, Scalar(1) / Scalar(nb), st.path};
    sw.visit(cut, st.stepper, st.average, st.q, st.prob);
    return part;
  };
  if (spec.distribute) {
    for (const auto& part : parallel::run_work_items(static_cast<long>(subtrees.size()), spec.threads, walk)) detail::merge_subtree(out, part);
  } else {
    for (long i = 0; i < static_cast<long>(subtrees.size()); ++i) detail::merge_subtree(out, walk(i));
  }
  return out;
}

}  // namespace ngvi::diagnostics
