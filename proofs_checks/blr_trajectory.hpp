#pragma once
/// @file
/// The recorded eq. (15) NGD trajectory of the trajectory lemmas (Lemmas 5, 9–11, Corollaries 1–2;
/// docs/math.md §5.4) and the per-step statistics observed along it, shared by their claims
/// (blr_trajectory_lemmas.cpp) and by the worst-case search (search_claims.hpp). The first batch is
/// M copies of the datum i* with the largest |y_i|‖x_i‖, the second M copies of the datum closest to
/// orthogonal to x_{i*}; later batches are random (Stream(seed, 7001)).
#include <Eigen/LU>
#include <limits>

#include "ngvi/claims/blr_common.hpp"
#include "hull_distance.hpp"
#include "ngvi/claims/rounding_floor.hpp"

namespace ngvi::claims {

/// The datum with the largest |y_i|‖x_i‖ (the first on ties): M copies of it are the first batch.
inline Index extreme_datum(const BlrInstance& inst) {
  Index best = 0;
  double top = -1;
  for (Index i = 0; i < inst.data.n(); ++i) {
    const double v = std::abs(inst.data.y(i)) * inst.data.X.row(i).norm();
    if (v > top) top = v, best = i;
  }
  return best;
}

/// The datum j ≠ i* whose x_j is closest to orthogonal to x_{i*} (smallest |cos|): M copies of it are
/// the second batch, so that after two steps some direction has seen x_{i*} and not x_j.
inline Index second_datum(const BlrInstance& inst) {
  const Index is = extreme_datum(inst);
  const Vec<double> xs = inst.data.X.row(is).normalized();
  Index best = is == 0 ? 1 : 0;
  double low = 2;
  for (Index i = 0; i < inst.data.n(); ++i) {
    const double nx = inst.data.X.row(i).norm();
    if (i == is || !(nx > 0)) continue;
    const double cs = std::abs(inst.data.X.row(i).dot(xs)) / nx;
    if (cs < low) low = cs, best = i;
  }
  return best;
}

/// The estimator of eq. (15) with its first batches fixed (M copies of one datum each) and random
/// after: the recorded trajectory is a draw of eq. (15) of probability n^{−M} per fixed batch.
template <class Est, class Stream>
struct FixedFirstBatches {
  Est& est;
  Stream& rng;
  std::vector<std::vector<Index>> fixed;
  /// Sets e's batch of step t: the fixed one, else a draw from rng (also for an implementation's run).
  template <class E>
  void select(long t, E& e) {
    if (t < static_cast<long>(fixed.size())) e.set_indices(fixed[static_cast<std::size_t>(t)]);
    else e.draw(rng);
  }
  template <class S>
  void estimate(long t, const S&, typename S::Direction& g) {
    select(t, est);
    est.evaluate(g);
  }
};

/// Upper bound on dist(z, C) for C = conv{0, g_1, ..., g_n} ⊂ R^d, independent of how z was built:
/// for each (d+1)-subset of the generators (0 included), the barycentric coordinates of z are solved
/// for (one step of refinement), clamped to α ≥ 0 and rescaled to Σα ≤ 1; Σα_i g_i is then a point
/// of C and ‖z − Σα_i g_i‖ bounds the distance (Carathéodory: if z ∈ C, some subset's exact
/// coordinates are all ≥ 0). The enumeration runs when d ≤ n and C(n+1, d+1) ≤ kSubsetLimit; Wolfe's
/// minimum-norm-point weights (hull_distance.hpp) always, and the smaller of the two residuals is
/// the bound (both are valid upper bounds).
class HullCertifier {
 public:
  static constexpr double kSubsetLimit = 5000;

  explicit HullCertifier(Mat<double> generators) : g_(std::move(generators)) {
    const Index n = g_.rows(), d = g_.cols();
    // Fewer than d + 1 points (d > n): no (d+1)-subset exists (the square barycentric solve below
    // would need least squares), so only the Wolfe route runs.
    if (d > n) return;
    double count = 1;
    for (Index k = 0; k <= d; ++k) count = count * static_cast<double>(n + 1 - k) / static_cast<double>(k + 1);
    if (count > kSubsetLimit) return;
    std::vector<Index> s(static_cast<std::size_t>(d + 1));
    for (Index k = 0; k <= d; ++k) s[static_cast<std::size_t>(k)] = k;  // generator 0 is the origin, k ≥ 1 is g_{k−1}
    while (true) {
      subsets_.push_back(s);
      Index k = d;
      while (k >= 0 && s[static_cast<std::size_t>(k)] == n - d + k) --k;
      if (k < 0) break;
      ++s[static_cast<std::size_t>(k)];
      for (Index j = k + 1; j <= d; ++j) s[static_cast<std::size_t>(j)] = s[static_cast<std::size_t>(j - 1)] + 1;
    }
  }

  bool enumerated() const { return !subsets_.empty(); }

  double distance_bound(const Vec<double>& z) {
    last_wolfe_ = hull_residual(g_, z, wolfe_hull_weights(g_, z));
    if (subsets_.empty()) return last_wolfe_;
    return std::min(last_wolfe_, enumeration_bound(z));
  }

  /// The Wolfe route's bound at the last distance_bound call (the whole bound when not enumerated).
  double last_wolfe() const { return last_wolfe_; }

 private:
  double enumeration_bound(const Vec<double>& z) {
    const Index d = g_.cols();
    double best = std::numeric_limits<double>::infinity();
    const double floor = 4 * std::numeric_limits<double>::epsilon() * (z.norm() + g_.rowwise().norm().maxCoeff());
    Mat<double> a(d + 1, d + 1);
    Vec<double> b(d + 1), beta, p(d);
    b << z, 1.0;
    // Every subset is visited once, starting from the last call's best (fixed before the loop:
    // last_ moves inside it).
    const std::size_t start = last_;
    for (std::size_t k = 0; k < subsets_.size(); ++k) {
      const std::size_t which = (k + start) % subsets_.size();  // the last best subset first
      const auto& s = subsets_[which];
      for (Index j = 0; j <= d; ++j) {
        const Index gi = s[static_cast<std::size_t>(j)];
        a.col(j).head(d) = gi == 0 ? Vec<double>::Zero(d) : Vec<double>(g_.row(gi - 1).transpose());
        a(d, j) = 1.0;
      }
      Eigen::PartialPivLU<Mat<double>> lu(a);
      beta = lu.solve(b);
      beta += lu.solve(b - a * beta);
      double sum = 0;
      p.setZero();
      for (Index j = 0; j <= d; ++j) {
        const Index gi = s[static_cast<std::size_t>(j)];
        if (gi == 0 || !(beta(j) > 0)) continue;
        sum += beta(j);
      }
      const double shrink = sum > 1 ? 1 / sum : 1;
      for (Index j = 0; j <= d; ++j) {
        const Index gi = s[static_cast<std::size_t>(j)];
        if (gi == 0 || !(beta(j) > 0)) continue;
        p += (beta(j) * shrink) * g_.row(gi - 1).transpose();
      }
      const double r = (z - p).norm();
      if (r < best) {
        best = r;
        last_ = which;
      }
      if (best <= floor) break;
    }
    return best;
  }

  Mat<double> g_;  // rows g_i
  double last_wolfe_ = 0;
  std::vector<std::vector<Index>> subsets_;
  std::size_t last_ = 0;
};

/// What a trajectory run changes from the claim's setting.
struct Setup {
  Vec<double> prior_mean;   // m_p (empty: the hypothesis m_p = 0)
  double constant_step = 0;  // > 0: γ_t = constant_step at every step (Lemma 5's control)
  bool certify_hull = false;  // run the Lemma 9 enumeration (only the records that report it)
  long constant_from = 0;     // with constant_step: γ_t = 1 for t < constant_from (Lemma 5's prior-metric control)
};

struct TrajectoryStats {
  double lemma5 = 0;              // max (λ/2)/λ_min(−η₂) (+∞ once an iterate leaves Ω)
  double lemma5_scale = 0;        // max ‖η₂‖_F (for the budget)
  double lemma5_metric = 0;       // max f_t/λ_min(Lᵀ(−η₂)L), S_p = LLᵀ, f_t the floor recursion (see run_lemma5)
  double lemma9 = 0;              // max dist(η₁, C)/B upper bound
  double lemma9_wolfe = 0;        // the same from the Wolfe route alone
  double lemma9_support = -1e300; // max (⟨w,η₁⟩ − h_C(w))/B with w = η₁/‖η₁‖
  double cor1 = 0, cor2 = 0;      // max ‖η₁‖/B, ‖μ₁‖/(B/λ)
  double lemma10 = 0, lemma11 = 0;  // max lhs/rhs, the lhs net of its rounding floor: max(0, lhs − F)/rhs
  GapFloorStats lemma10_floor, lemma11_floor;  // the raw ratio, F/rhs and the steps below F (rounding_floor.hpp)
  long steps = 0;
  long left_domain_at = -1;
};

inline TrajectoryStats trajectory_stats(const BlrInstance& inst, const RunContext& ctx, long T, const Setup& setup) {
  const auto model = make_model<double>(inst, setup.prior_mean);
  const auto c = blr_constants<double>(inst.data, inst.prior_cov, inst.noise_var, inst.batch);
  MinibatchGradient<double> est(model, inst.batch);
  random::Stream rng(ctx.seed, 7001);
  const Index n = model.n();
  const double total = static_cast<double>(n) / inst.noise_var;
  const Mat<double> gens = total * (inst.data.X.array().colwise() * inst.data.y.array()).matrix();  // rows (n/s²) y_i x_iᵀ
  HullCertifier hull(gens);
  const auto exact = model.loglik_gradient();
  TrajectoryStats st;
  // Lemma 5 in the prior's metric: S_p = LLᵀ and the floor f_t of λ_min(Lᵀ(−η₂,t)L), f₀ = ½λ_min(S_p)
  // (η₀ = −½I), f_{t+1} = (1 − γ_t)f_t + γ_t/2 (the proof's convex combination, see run_lemma5).
  const Mat<double> lp = Eigen::LLT<Mat<double>>(inst.prior_cov).matrixL();
  double metric_floor = 0.5 * Eigen::SelfAdjointEigenSolver<Mat<double>>(inst.prior_cov, Eigen::EigenvaluesOnly).eigenvalues().minCoeff();
  // The trajectory of the algorithm under test (the library's NGD stepper and mini-batch estimator,
  // the context's variant of the estimator, or an implementation's steps) on the engine; each step is
  // examined by the observer below from η_t (e.stepper.previous()), ĝ_t and η_{t+1} (e.stepper.point()).
  const auto copies = [&](Index i) { return std::vector<Index>(static_cast<std::size_t>(inst.batch), i); };
  FixedFirstBatches<MinibatchGradient<double>, random::Stream> draws{est, rng, {copies(extreme_datum(inst)), copies(second_datum(inst))}};
  const auto thm = StepSchedule<double>::theorem1();
  // ĝ_t of the step: the engine's direction for the library's stepper; for an implementation (whose
  // direction is the batch it was handed) eq. (15)'s estimate on that batch, formed by the kit.
  MinibatchGradient<double> kit_est(model, inst.batch);
  GaussianPair<double> kit_g;
  auto step_gradient = [&](const auto& e) -> const GaussianPair<double>& {
    if constexpr (std::is_same_v<std::decay_t<decltype(e.direction)>, std::vector<Index>>) {
      kit_est.set_indices(e.direction);
      kit_est.evaluate(kit_g);
      return kit_g;
    } else {
      return e.direction;
    }
  };
  StopWhen examine([&](const auto& e) {
    const double gamma = e.gamma;
    const GaussianPair<double>& g = step_gradient(e);
    const GaussianNatural<double>& sto = e.stepper.point();
    const GaussianNatural<double> ex = next_iterates(model, e.stepper.previous(), g, gamma).second;
    ++st.steps;
    metric_floor = (1 - gamma) * metric_floor + gamma / 2;
    IterateParts parts[2];
    const double eta1_prev = e.stepper.previous().eta1().norm(), eta1_prior = model.prior_natural().eta1().norm();
    for (int which = 0; which < 2; ++which) {
      const GaussianNatural<double>& e2 = which == 0 ? sto : ex;
      Eigen::SelfAdjointEigenSolver<Mat<double>> es(-e2.eta2(), Eigen::EigenvaluesOnly);
      const double floor = es.eigenvalues().minCoeff();
      // For the rounding floors of Lemmas 10–11: κ₂(Λ), ‖S‖_F = ‖(2·(−η₂))⁻¹‖_F and λ_min(Λ) from the same spectrum,
      // and the update's rounding of η₁ (from this iterate's gradient: the batch's or the exact one).
      parts[which].cond = es.eigenvalues().maxCoeff() / floor;
      parts[which].s_frob = (2 * es.eigenvalues()).cwiseInverse().norm();
      parts[which].l_min = 2 * floor;
      parts[which].eta1_error = eta1_update_error(gamma, eta1_prev, eta1_prior, (which == 0 ? g.first : exact.first).norm());
      st.lemma5_scale = std::max(st.lemma5_scale, e2.eta2().norm());
      if (!(floor > 0)) {
        st.lemma5 = std::numeric_limits<double>::infinity();
        st.left_domain_at = e.t;
        return true;
      }
      st.lemma5 = std::max(st.lemma5, (c.lambda / 2) / floor);
      {
        Eigen::SelfAdjointEigenSolver<Mat<double>> em(Mat<double>(lp.transpose() * (-e2.eta2()) * lp), Eigen::EigenvaluesOnly);
        const double mf = em.eigenvalues().minCoeff();
        st.lemma5_metric = mf > 0 ? std::max(st.lemma5_metric, metric_floor / mf) : std::numeric_limits<double>::infinity();
      }
      if (setup.certify_hull) {
        st.lemma9 = std::max(st.lemma9, hull.distance_bound(e2.eta1()) / c.b);
        st.lemma9_wolfe = std::max(st.lemma9_wolfe, hull.last_wolfe() / c.b);
      }
      const double en = e2.eta1().norm();
      if (en > 0) {
        const Vec<double> dir = e2.eta1() / en;
        const double h = std::max(0.0, (gens * dir).maxCoeff());
        st.lemma9_support = std::max(st.lemma9_support, (en - h) / c.b);
      }
      st.cor1 = std::max(st.cor1, en / c.b);
      const auto mu = natural_to_expectation(e2);
      st.cor2 = std::max(st.cor2, mu.mu1().norm() / (c.b / c.lambda));
      parts[which].m_norm2 = mu.mu1().squaredNorm();
    }
    const auto mu = natural_to_expectation(sto);
    const auto mut = natural_to_expectation(ex);
    const double d1 = (g.first - exact.first).norm(), d2 = (g.second - exact.second).norm();
    const double rhs10 = lemma10_rhs(c, gamma, d1, d2), rhs11 = lemma11_rhs(c, gamma, d1, d2);
    // Both lhs net of their derived rounding floors (rounding_floor.hpp, docs/math.md §5.4): a lhs
    // within its floor is counted, not measured.
    if (rhs10 > 0)
      st.lemma10 = std::max(st.lemma10, st.lemma10_floor.add((mu.mu1() - mut.mu1()).norm(), mu1_gap_floor(parts[0], parts[1], model.d()), rhs10));
    if (rhs11 > 0)
      st.lemma11 = std::max(st.lemma11, st.lemma11_floor.add((mu.mu2() - mut.mu2()).norm(), mu2_gap_floor(parts[0], parts[1], model.d()), rhs11));
    return false;
  });
  const double big = setup.constant_step;
  const long from = setup.constant_from;
  if (conjugate_ngd_for<double>(ctx.variant()) != nullptr) {
    // A conjugate-NGD implementation (the claims that accept the protocol: Lemma 9, Corollaries 1–2,
    // Lemmas 10–11): the same fixed first batches, then eq. (15)'s draws from the same stream, handed
    // to it (blr_run); its own schedule and estimate make η_{t+1}. γ_t above is Theorem 1's (the
    // claims' hypothesis, in the exact comparison step and the floors); a constant step cannot be
    // handed to an implementation that owns its schedule.
    if (big > 0) throw std::invalid_argument("trajectory_stats: 'setup.constant_step' cannot be handed to a conjugate-ngd implementation");
    const auto draw = [&](long t, MinibatchGradient<double>& e) { draws.select(t, e); };
    blr_run(model, inst.batch, draw, thm, ctx.variant(), 1.0, Sampling::kWithReplacement, NoAveraging{}, RunOptions{T}, examine);
    return st;
  }
  NgdStepper<double> stepper(prior_for<double>(ctx.variant(), model.prior_natural()), standard_natural<double>(model.d()));
  VariantEstimator<decltype(draws), double> estimator{draws, estimator_parts<double>(ctx.variant())};
  NoAverage none;
  ngvi::run_trajectory(stepper, estimator,
                       big > 0 ? ScheduleFn<double>([big, from](long t) { return t < from ? 1.0 : big; }, "constant " + fmt(big), big <= 1)
                               : schedule_for<double>(ctx.variant(), thm),
                       none, RunOptions{T}, examine);
  return st;
}


// The ratio claims (Cor. 1–2, Lemmas 10–11) may exceed 1 by the rounding of an attained equality
// (Cor. 1: ‖η₁‖ = B at t = 1): the batch sum, the norm and the constant, γ_{M+d+8}.
inline double ratio_allowance(const BlrInstance& inst) { return rounding_budget<double>(inst.batch + inst.data.d() + 8); }

}  // namespace ngvi::claims
