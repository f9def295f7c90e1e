#pragma once
/// @file
/// Eq. (15) NGD for Bayesian linear regression on up to L replicates at once, one replicate per
/// SIMD lane, for the Monte Carlo workloads of Theorem 1 (many replicates of long trajectories at
/// small d).
///
/// Why. At d = 10, M = 32 one replicate's step is a dozen tiny kernels: a 10 × 32 gather, a rank-32
/// update of a 10 × 10 matrix, a 10 × 10 inverse, two matrix-vector products, the average. Each
/// is too small to fill the vector units (a column of 10 doubles is one full and one mostly empty
/// AVX-512 register), and packing and call overheads dominate. Here every scalar of a replicate's
/// state is stored for L replicates side by side (structure of arrays: one column of L entries per
/// scalar), and every operation of the step is applied to whole columns, so each vector
/// instruction does the same scalar operation for L replicates and nothing is wasted on tails.
///
/// What each lane computes. Lane ℓ runs exactly the steps of run_ngd_minibatch with a
/// MinibatchGradient (with replacement) drawing from streams[ℓ]: the same indices (IndexSampler,
/// M draws per step from the lane's own stream), ĝ^ℓ of eq. (15) scaled by `gradient_scale`,
/// η ← (1−γ)η + γ(η_p + ĝ^ℓ), η → (m, S) with the test of positive definiteness, and Theorem 1's
/// running average μ̄_t = μ̄_{t−1} + (2/(t+1))(μ_t − μ̄_{t−1}). The arithmetic is the same up to
/// rounding: the batch sums are taken in batch order (the rank-M product kernel of the one-replicate
/// route sums in its own order), and the inverse is the symmetric sweep on the lower triangle.
/// lib/tests/optim/ngd_lanes_test.cpp holds the two routes to each other within a budget derived
/// from M, T, d and the condition of the precisions along the route.
///
/// Determinism. Lanes never mix: lane ℓ's result depends only on streams[ℓ] and the arguments,
/// not on the other lanes nor on how many are used (tested bitwise), so grouping replicates r into
/// lanes by their index keeps the thread-count independence of parallel::run_replicates.
///
/// Cost. It pays where a replicate's kernels are small: at d = 10, M = 32 a replicate-step cost
/// 0.48 µs against 1.25 µs on the one-replicate route (one thread; bench/README.md,
/// BM_Thm1WorkloadLanes against BM_Thm1Workload). The work is the same
/// O(M d² + d³) per replicate, without blocking for cache, so it is not meant for d in the hundreds.
#include <algorithm>
#include <string>
#include <vector>

#include "ngvi/models/linear_regression.hpp"
#include "ngvi/optim/ngd_driver.hpp"
#include "ngvi/random/stream.hpp"

namespace ngvi {

/// Lanes per group: 8 doubles fill one AVX-512 register.
inline constexpr int kNgdLanes = 8;

/// Runs options.steps steps of eq. (15) NGD from η₀ on lane ℓ for each stream ℓ (see the file
/// comment), and returns one NgdResult per stream, in order. Streams are advanced as the
/// one-replicate route advances its stream. options.average and options.checkpoints have their
/// run_ngd meaning; options.theorem_steps requires γ_t ∈ (0, 1].
/// @throws std::invalid_argument naming 'streams' (empty or more than L), 'batch' (< 1), 'eta0'
///         (shape), 'options.steps' (< 0); std::domain_error naming 'schedule', 'options.checkpoints',
///         'gradient_scale' (not finite) or 'eta' (an iterate left Ω; the lane and step are named).
template <class Scalar, int L = kNgdLanes>
std::vector<NgdResult<Scalar>> run_ngd_minibatch_lanes(const LinearRegression<Scalar>& model, const GaussianNatural<Scalar>& eta0,
                                                       Index batch, std::vector<random::Stream>& streams,
                                                       const StepSchedule<Scalar>& schedule, const NgdOptions& options,
                                                       const Scalar& gradient_scale = Scalar(1)) {
  constexpr const char* f = "ngvi::run_ngd_minibatch_lanes";
  using Lanes = Eigen::Array<Scalar, L, Eigen::Dynamic>;
  using Col = Eigen::Array<Scalar, L, 1>;
  const Index d = model.d(), n = model.n(), m = batch;
  const auto used = static_cast<Index>(streams.size());
  if (used < 1 || used > L) throw_size(f, "streams", "must hold 1 to " + std::to_string(L) + " streams");
  if (batch < 1) throw_size(f, "batch", "must be >= 1 (M = 0 draws no data)");
  if (options.steps < 0) throw_size(f, "options.steps", "must be >= 0");
  require_pair_shape(eta0, f, "eta0");
  if (eta0.dim() != d) throw_size(f, "eta0", "must have the model's dimension d = " + std::to_string(d));
  if (options.theorem_steps && !schedule.within_unit_interval())
    throw_domain(f, "schedule", "has a step outside (0, 1] (Remark 2, Theorem 1 need gamma_t <= 1)");
  for (std::size_t k = 0; k < options.checkpoints.size(); ++k)
    if (options.checkpoints[k] < 1 || options.checkpoints[k] > options.steps ||
        (k > 0 && options.checkpoints[k] <= options.checkpoints[k - 1]))
      throw_domain(f, "options.checkpoints", "must be increasing and lie in [1, T]");
  if (!options.checkpoints.empty() && !options.average) throw_domain(f, "options.checkpoints", "need options.average");
  if (!is_finite_scalar(gradient_scale)) throw_domain(f, "gradient_scale", "must be finite");

  // Packed lower triangle, column by column: entry (i, j), i ≥ j, at sym[i + j d]; the table is
  // symmetric, so sym[i + j d] also gives (j, i) of a symmetric matrix.
  const Index p = d * (d + 1) / 2;
  std::vector<Index> sym(static_cast<std::size_t>(d * d));
  for (Index j = 0, q = 0; j < d; ++j)
    for (Index i = j; i < d; ++i, ++q) sym[static_cast<std::size_t>(i + j * d)] = sym[static_cast<std::size_t>(j + i * d)] = q;
  auto at = [&](Index i, Index j) { return sym[static_cast<std::size_t>(i + j * d)]; };

  // Unused lanes repeat lane 0's stream (so a group of fewer than L replicates costs as much as L);
  // their results are dropped.
  std::vector<random::Stream> rng(static_cast<std::size_t>(L), streams[0]);
  std::copy(streams.begin(), streams.end(), rng.begin());
  const random::IndexSampler sampler(static_cast<std::uint64_t>(n));
  const Mat<Scalar> xt = model.data().X.transpose();  // row x_i of X is the contiguous column i
  const Vec<Scalar>& y = model.data().y;
  const Scalar scale1 = Scalar(n) / (Scalar(m) * model.noise_var()) * gradient_scale;
  const Scalar scale2 = -(Scalar(n) / (Scalar(m) * model.noise_var())) / 2 * gradient_scale;
  const GaussianNatural<Scalar>& prior = model.prior_natural();

  Lanes eta1(L, d), eta2(L, p), g1(L, d), g2(L, p), xs(L, m * d), ys(L, m), a(L, p), s(L, p), mean(L, d), ck(L, d);
  Lanes avg1, avg2;
  for (Index i = 0; i < d; ++i) eta1.col(i).setConstant(eta0.first(i));
  for (Index j = 0; j < d; ++j)
    for (Index i = j; i < d; ++i) eta2.col(at(i, j)).setConstant(eta0.second(i, j));
  std::vector<Index> idx(static_cast<std::size_t>(L * m));
  std::vector<Lanes> cp1, cp2;  // averages at the checkpoints
  std::size_t next_checkpoint = 0;
  Col r, cr_j;

  // Entries (i..i+B−1, k) of Σ_j x_j x_jᵀ, scaled: B independent chains of multiply-adds in batch
  // order (one chain alone waits on each multiply-add's latency).
  auto gram_block = [&]<int B>(Index i, Index k) {
    Col acc[B];
    for (int u = 0; u < B; ++u) acc[u] = xs.col(i + u) * xs.col(k);
    for (Index j = 1; j < m; ++j) {
      const Col xk = xs.col(j * d + k);
      for (int u = 0; u < B; ++u) acc[u] += xs.col(j * d + i + u) * xk;
    }
    for (int u = 0; u < B; ++u) g2.col(at(i + u, k)) = acc[u] * scale2;
  };
  for (long t = 0; t < options.steps; ++t) {
    const Scalar gamma = schedule.at(t);  // finite and in (0, 1] when asked: StepSchedule's constructors and the check above
    // Draw and gather: lane ℓ's j-th row into column (j d + c) of xs, its response into ys.
    for (int l = 0; l < L; ++l)
      for (Index j = 0; j < m; ++j) idx[static_cast<std::size_t>(j * L + l)] = static_cast<Index>(sampler(rng[static_cast<std::size_t>(l)]));
    for (Index j = 0; j < m; ++j) {
      const Index* ij = idx.data() + j * L;
      for (int l = 0; l < L; ++l) ys(l, j) = y(ij[l]);
      for (Index c = 0; c < d; ++c) {
        Scalar* dst = &xs(0, j * d + c);
        const Scalar* src = xt.data() + c;
        for (int l = 0; l < L; ++l) dst[l] = src[ij[l] * d];
      }
    }
    // ĝ^ℓ: the batch sums in batch order, then the scale.
    for (Index c = 0; c < d; ++c) {
      Col acc = ys.col(0) * xs.col(c);
      for (Index j = 1; j < m; ++j) acc += ys.col(j) * xs.col(j * d + c);
      g1.col(c) = acc * scale1;
    }
    for (Index k = 0; k < d; ++k) {
      Index i = k;
      for (; i + 4 <= d; i += 4) gram_block.template operator()<4>(i, k);
      switch (d - i) {
        case 3: gram_block.template operator()<3>(i, k); break;
        case 2: gram_block.template operator()<2>(i, k); break;
        case 1: gram_block.template operator()<1>(i, k); break;
        default: break;
      }
    }
    // η ← (1−γ)η + γ(η_p + ĝ^ℓ), on the lower triangle.
    const Scalar keep = Scalar(1) - gamma;
    for (Index i = 0; i < d; ++i) eta1.col(i) = keep * eta1.col(i) + gamma * (prior.first(i) + g1.col(i));
    for (Index j = 0; j < d; ++j)
      for (Index i = j; i < d; ++i) {
        const Index q = at(i, j);
        eta2.col(q) = keep * eta2.col(q) + gamma * (prior.second(i, j) + g2.col(q));
      }
    if (!options.average) continue;
    // η → (m, S): Λ = −2η₂ exactly, then the sweep on the lower triangle; after pivot k the matrix
    // holds the sweep of Λ on pivots 0..k and after all d pivots −Λ⁻¹. Pivot k is the k-th leading
    // Schur complement's first entry, positive and finite for every k exactly when Λ ≻ 0.
    for (Index q = 0; q < p; ++q) a.col(q) = -(eta2.col(q) + eta2.col(q));
    for (Index k = 0; k < d; ++k) {
      for (Index i = 0; i < d; ++i) ck.col(i) = a.col(at(i, k));  // column k of the symmetric matrix
      for (int l = 0; l < used; ++l)
        if (!is_positive_pivot(ck(l, k)))
          throw_domain(f, "eta", "left Omega (-eta2 not positive definite) after step t = " + std::to_string(t) + " in lane " +
                                     std::to_string(l));
      r = Scalar(1) / ck.col(k);
      for (Index j = 0; j < d; ++j) {
        if (j == k) continue;
        cr_j = ck.col(j) * r;
        const Index first = at(j, j);  // (i, j) for i ≥ j is column first + i − j
        for (Index i = j; i < d; ++i)
          if (i != k) a.col(first + i - j) -= cr_j * ck.col(i);
      }
      for (Index i = 0; i < d; ++i)
        if (i != k) a.col(at(i, k)) = ck.col(i) * r;
      a.col(at(k, k)) = -r;
    }
    s = -a;
    for (Index i = 0; i < d; ++i) {
      Col acc = s.col(at(i, 0)) * eta1.col(0);
      for (Index j = 1; j < d; ++j) acc += s.col(at(i, j)) * eta1.col(j);
      mean.col(i) = acc;
    }
    // μ̄_t: the first μ, then μ̄ += w (μ − μ̄) with w = 2/(t+1), μ₂ = S + m mᵀ entry by entry.
    if (t == 0) {
      avg1 = mean;
      avg2.resize(L, p);
      for (Index j = 0; j < d; ++j)
        for (Index i = j; i < d; ++i) avg2.col(at(i, j)) = s.col(at(i, j)) + mean.col(j) * mean.col(i);
    } else {
      const Scalar w = Scalar(2) / Scalar(t + 2);
      avg1 += w * (mean - avg1);
      for (Index j = 0; j < d; ++j)
        for (Index i = j; i < d; ++i) {
          const Index q = at(i, j);
          avg2.col(q) += w * ((s.col(q) + mean.col(j) * mean.col(i)) - avg2.col(q));
        }
    }
    if (next_checkpoint < options.checkpoints.size() && options.checkpoints[next_checkpoint] == t + 1) {
      cp1.push_back(avg1);
      cp2.push_back(avg2);
      ++next_checkpoint;
    }
  }

  // Unpack lane ℓ's pair (both triangles) from a lower-packed column pair.
  auto unpack = [&](const Lanes& v1, const Lanes& v2, int l) {
    GaussianPair<Scalar> out{Vec<Scalar>(d), Mat<Scalar>(d, d)};
    for (Index i = 0; i < d; ++i) out.first(i) = v1(l, i);
    for (Index j = 0; j < d; ++j)
      for (Index i = j; i < d; ++i) out.second(i, j) = out.second(j, i) = v2(l, at(i, j));
    return out;
  };
  std::vector<NgdResult<Scalar>> results(static_cast<std::size_t>(used));
  for (int l = 0; l < used; ++l) {
    auto& res = results[static_cast<std::size_t>(l)];
    res.eta = options.steps == 0 ? eta0 : GaussianNatural<Scalar>(unpack(eta1, eta2, l));
    if (options.average && options.steps > 0) res.average = GaussianExpectation<Scalar>(unpack(avg1, avg2, l));
    for (std::size_t k = 0; k < cp1.size(); ++k) res.checkpoint_averages.emplace_back(unpack(cp1[k], cp2[k], l));
    streams[static_cast<std::size_t>(l)] = rng[static_cast<std::size_t>(l)];
  }
  return results;
}

}  // namespace ngvi
