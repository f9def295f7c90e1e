#pragma once
/// @file
/// Eq. (15) NGD for Bayesian linear regression on up to L replicates at once, one replicate per
/// SIMD lane (kernels/lanes.hpp), as three parts of the trajectory engine: LaneNgdStepper (the
/// update η ← (1−γ)η + γ(η_p + ĝ) on every lane), LaneMinibatchEstimator (each lane's mini-batch
/// ĝ of eq. (15), drawn from the lane's own stream) and LaneMeanAverage (η → (m, S) with the test of
/// positive definiteness, and Theorem 1's running average μ̄_t = μ̄_{t−1} + (2/(t+1))(μ_t − μ̄_{t−1})).
///
/// Why. At small d one replicate's step is a dozen tiny kernels (a d × M gather, a rank-M update of
/// a d × d matrix, an inverse, two matrix-vector products, the average), each too small to fill the
/// vector units; here every operation is applied to whole columns of L replicates.
///
/// What each lane computes. Lane ℓ runs the steps of run_ngd_minibatch with a MinibatchGradient
/// (with replacement) drawing from its stream: the same indices (IndexSampler, M draws per step),
/// ĝ scaled by `gradient_scale`, the same update and average. The arithmetic is the same up to
/// rounding: the batch sums are taken in batch order, and the inverse is the symmetric sweep on the
/// lower triangle. lib/tests/optim/ngd_lanes_test.cpp holds the two routes to each other within a
/// budget derived from M, T, d and the condition of the precisions along the route.
///
/// Determinism. Lanes never mix: lane ℓ's result depends only on its stream and the arguments, not
/// on the other lanes nor on how many are used (tested bitwise).
#include <algorithm>
#include <string>
#include <vector>

#include "ngvi/kernels/lanes.hpp"
#include "ngvi/linalg/validate.hpp"
#include "ngvi/models/linear_regression.hpp"
#include "ngvi/optim/engine.hpp"
#include "ngvi/random/stream.hpp"

namespace ngvi {

/// η of L replicates: η₁ as d columns, η₂ as its packed lower triangle.
template <class Scalar, int L = kernels::kLanes>
struct LanePair {
  kernels::LaneColumns<Scalar, L> first, second;
};

template <class Scalar_, int L = kernels::kLanes>
class LaneNgdStepper {
 public:
  using Scalar = Scalar_;
  using Point = LanePair<Scalar, L>;
  using Direction = LanePair<Scalar, L>;

  /// Every lane starts at η₀.
  /// @throws std::invalid_argument naming 'eta0' (shape) or 'eta_prior' (dimension).
  LaneNgdStepper(const GaussianNatural<Scalar>& eta_prior, const GaussianNatural<Scalar>& eta0)
      : layout_(eta0.dim()), prior_(eta_prior) {
    constexpr const char* f = "ngvi::LaneNgdStepper";
    require_pair_shape(eta0, f, "eta0");
    if (eta_prior.dim() != eta0.dim()) throw_size(f, "eta_prior", "has a different dimension from 'eta0'");
    const Index d = eta0.dim();
    cur_.first.resize(L, d);
    cur_.second.resize(L, layout_.size());
    for (Index i = 0; i < d; ++i) cur_.first.col(i).setConstant(eta0.first(i));
    for (Index j = 0; j < d; ++j)
      for (Index i = j; i < d; ++i) cur_.second.col(layout_.at(i, j)).setConstant(eta0.second(i, j));
    other_ = cur_;
  }

  Index dim() const { return layout_.dim(); }
  const kernels::PackedLower& layout() const { return layout_; }
  const Point& point() const { return cur_; }
  Direction make_direction() const { return Direction{kernels::LaneColumns<Scalar, L>(L, dim()), kernels::LaneColumns<Scalar, L>(L, layout_.size())}; }

  /// η ← (1−γ)η + γ(η_p + ĝ) on every lane, on the lower triangle, into the other buffer.
  StepStatus step(long, const Scalar& gamma, const Direction& g) {
    const Index d = dim();
    const Scalar keep = Scalar(1) - gamma;
    for (Index i = 0; i < d; ++i) other_.first.col(i) = keep * cur_.first.col(i) + gamma * (prior_.first(i) + g.first.col(i));
    for (Index j = 0; j < d; ++j)
      for (Index i = j; i < d; ++i) {
        const Index q = layout_.at(i, j);
        other_.second.col(q) = keep * cur_.second.col(q) + gamma * (prior_.second(i, j) + g.second.col(q));
      }
    std::swap(cur_.first, other_.first);
    std::swap(cur_.second, other_.second);
    return StepStatus::fine();
  }
  void rollback() {
    std::swap(cur_.first, other_.first);
    std::swap(cur_.second, other_.second);
  }

  /// Lane ℓ's η (both triangles).
  GaussianNatural<Scalar> lane(int l) const { return GaussianNatural<Scalar>(unpack(cur_.first, cur_.second, l)); }
  GaussianPair<Scalar> unpack(const kernels::LaneColumns<Scalar, L>& v1, const kernels::LaneColumns<Scalar, L>& v2, int l) const {
    const Index d = dim();
    GaussianPair<Scalar> out{Vec<Scalar>(d), Mat<Scalar>(d, d)};
    for (Index i = 0; i < d; ++i) out.first(i) = v1(l, i);
    for (Index j = 0; j < d; ++j)
      for (Index i = j; i < d; ++i) out.second(i, j) = out.second(j, i) = v2(l, layout_.at(i, j));
    return out;
  }

 private:
  kernels::PackedLower layout_;
  GaussianNatural<Scalar> prior_;
  Point cur_, other_;
};

/// Each lane's eq. (15) mini-batch ĝ (with replacement), scaled by `gradient_scale`, drawn from the
/// lane's stream. Unused lanes (fewer streams than L) repeat lane 0's stream; their results are
/// dropped by the caller.
template <class Scalar, int L = kernels::kLanes>
class LaneMinibatchEstimator {
 public:
  /// @throws std::invalid_argument naming 'streams' (empty or more than L) or 'batch' (< 1);
  ///         std::domain_error naming 'gradient_scale' (not finite).
  LaneMinibatchEstimator(const LinearRegression<Scalar>& model, Index batch, const std::vector<random::Stream>& streams,
                         const Scalar& gradient_scale = Scalar(1))
      : d_(model.d()), m_(batch), layout_(model.d()), sampler_(static_cast<std::uint64_t>(model.n())), xt_(model.data().X.transpose()),
        y_(model.data().y) {
    constexpr const char* f = "ngvi::LaneMinibatchEstimator";
    if (streams.empty() || streams.size() > static_cast<std::size_t>(L))
      throw_size(f, "streams", "must hold 1 to " + std::to_string(L) + " streams");
    if (batch < 1) throw_size(f, "batch", "must be >= 1 (M = 0 draws no data)");
    if (!is_finite_scalar(gradient_scale)) throw_domain(f, "gradient_scale", "must be finite");
    rng_.assign(static_cast<std::size_t>(L), streams[0]);
    std::copy(streams.begin(), streams.end(), rng_.begin());
    const Scalar n = Scalar(model.n());
    scale1_ = n / (Scalar(batch) * model.noise_var()) * gradient_scale;
    scale2_ = -(n / (Scalar(batch) * model.noise_var())) / 2 * gradient_scale;
    xs_.resize(L, m_ * d_);
    ys_.resize(L, m_);
    idx_.resize(static_cast<std::size_t>(L * m_));
  }

  template <class S>
  void estimate(long, const S&, typename S::Direction& g) {
    const Index d = d_, m = m_;
    const Scalar scale1 = scale1_, scale2 = scale2_;
    // Draw and gather: lane ℓ's j-th row into column (j d + c) of xs, its response into ys.
    for (int l = 0; l < L; ++l)
      for (Index j = 0; j < m; ++j) idx_[static_cast<std::size_t>(j * L + l)] = static_cast<Index>(sampler_(rng_[static_cast<std::size_t>(l)]));
    for (Index j = 0; j < m; ++j) {
      const Index* ij = idx_.data() + j * L;
      for (int l = 0; l < L; ++l) ys_(l, j) = y_(ij[l]);
      for (Index c = 0; c < d; ++c) {
        Scalar* dst = &xs_(0, j * d + c);
        const Scalar* src = xt_.data() + c;
        for (int l = 0; l < L; ++l) dst[l] = src[ij[l] * d];
      }
    }
    // ĝ: the batch sums in batch order, then the scale.
    for (Index c = 0; c < d; ++c) {
      Col acc = ys_.col(0) * xs_.col(c);
      for (Index j = 1; j < m; ++j) acc += ys_.col(j) * xs_.col(j * d + c);
      g.first.col(c) = acc * scale1;
    }
    for (Index k = 0; k < d; ++k) {
      Index i = k;
      for (; i + 4 <= d; i += 4) gram_block<4>(g, i, k, d, m, scale2);
      switch (d - i) {
        case 3: gram_block<3>(g, i, k, d, m, scale2); break;
        case 2: gram_block<2>(g, i, k, d, m, scale2); break;
        case 1: gram_block<1>(g, i, k, d, m, scale2); break;
        default: break;
      }
    }
  }
  /// The lanes' streams, advanced as the one-replicate route advances its stream.
  const std::vector<random::Stream>& streams() const { return rng_; }

 private:
  using Col = kernels::LaneColumn<Scalar, L>;
  /// Entries (i..i+B−1, k) of Σ_j x_j x_jᵀ, scaled: B independent chains of multiply-adds in batch
  /// order (one chain alone waits on each multiply-add's latency).
  template <int B, class Dir>
  void gram_block(Dir& g, Index i, Index k, Index d, Index m, const Scalar& scale2) {
    Col acc[B];
    for (int u = 0; u < B; ++u) acc[u] = xs_.col(i + u) * xs_.col(k);
    for (Index j = 1; j < m; ++j) {
      const Col xk = xs_.col(j * d + k);
      for (int u = 0; u < B; ++u) acc[u] += xs_.col(j * d + i + u) * xk;
    }
    for (int u = 0; u < B; ++u) g.second.col(layout_.at(i + u, k)) = acc[u] * scale2;
  }

  Index d_, m_;
  kernels::PackedLower layout_;
  random::IndexSampler sampler_;
  Mat<Scalar> xt_;  // row x_i of X is the contiguous column i
  Vec<Scalar> y_;
  Scalar scale1_, scale2_;
  std::vector<random::Stream> rng_;
  kernels::LaneColumns<Scalar, L> xs_, ys_;
  std::vector<Index> idx_;
};

/// η → (m, S) on every lane (Λ = −2η₂ exactly, then the symmetric sweep on the lower triangle, whose
/// pivot k is the k-th leading Schur complement's first entry, positive and finite for every k
/// exactly when Λ ≻ 0), and Theorem 1's running average of μ = (m, S + mmᵀ). Only the first `used`
/// lanes are tested for positive definiteness.
template <class Scalar, int L = kernels::kLanes>
class LaneMeanAverage {
 public:
  using Value = LanePair<Scalar, L>;
  LaneMeanAverage(Index d, int used, bool enabled = true)
      : layout_(d), used_(used), enabled_(enabled), a_(L, layout_.size()), s_(L, layout_.size()), mean_(L, d), ck_(L, d) {}

  template <class S>
  StepStatus add(long t, const S& stepper) {
    if (!enabled_) return StepStatus::fine();
    const Index d = layout_.dim(), p = layout_.size();
    const auto& eta = stepper.point();
    const int used = used_;
    Col r, cr_j;
    for (Index q = 0; q < p; ++q) a_.col(q) = -(eta.second.col(q) + eta.second.col(q));
    for (Index k = 0; k < d; ++k) {
      for (Index i = 0; i < d; ++i) ck_.col(i) = a_.col(layout_.at(i, k));  // column k of the symmetric matrix
      for (int l = 0; l < used; ++l)
        if (!is_positive_pivot(ck_(l, k))) return StepStatus::left("eta", "left Omega (-eta2 not positive definite) in lane " + std::to_string(l));
      r = Scalar(1) / ck_.col(k);
      for (Index j = 0; j < d; ++j) {
        if (j == k) continue;
        cr_j = ck_.col(j) * r;
        const Index first = layout_.at(j, j);  // (i, j) for i ≥ j is column first + i − j
        for (Index i = j; i < d; ++i)
          if (i != k) a_.col(first + i - j) -= cr_j * ck_.col(i);
      }
      for (Index i = 0; i < d; ++i)
        if (i != k) a_.col(layout_.at(i, k)) = ck_.col(i) * r;
      a_.col(layout_.at(k, k)) = -r;
    }
    s_ = -a_;
    for (Index i = 0; i < d; ++i) {
      Col acc = s_.col(layout_.at(i, 0)) * eta.first.col(0);
      for (Index j = 1; j < d; ++j) acc += s_.col(layout_.at(i, j)) * eta.first.col(j);
      mean_.col(i) = acc;
    }
    // μ̄_t: the first μ, then μ̄ += w (μ − μ̄) with w = 2/(t+1), μ₂ = S + m mᵀ entry by entry.
    if (count_ == 0) {
      avg_.first = mean_;
      avg_.second.resize(L, p);
      for (Index j = 0; j < d; ++j)
        for (Index i = j; i < d; ++i) avg_.second.col(layout_.at(i, j)) = s_.col(layout_.at(i, j)) + mean_.col(j) * mean_.col(i);
    } else {
      const Scalar w = Scalar(2) / Scalar(t + 1);
      avg_.first += w * (mean_ - avg_.first);
      for (Index j = 0; j < d; ++j)
        for (Index i = j; i < d; ++i) {
          const Index q = layout_.at(i, j);
          avg_.second.col(q) += w * ((s_.col(q) + mean_.col(j) * mean_.col(i)) - avg_.second.col(q));
        }
    }
    ++count_;
    return StepStatus::fine();
  }
  std::optional<Value> value() const {
    if (count_ == 0) return std::nullopt;
    return avg_;
  }
  bool converts() const { return enabled_; }

 private:
  using Col = kernels::LaneColumn<Scalar, L>;
  kernels::PackedLower layout_;
  int used_;
  bool enabled_;
  long count_ = 0;
  kernels::LaneColumns<Scalar, L> a_, s_, mean_, ck_;
  Value avg_;
};

}  // namespace ngvi
