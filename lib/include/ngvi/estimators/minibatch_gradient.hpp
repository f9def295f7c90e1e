#pragma once
/// @file
/// Log-likelihood gradient estimators for Bayesian linear regression in expectation parameters
/// (docs/math.md §5.1–5.2). The exact gradient is `LinearRegression::loglik_gradient()`; the
/// mini-batch estimator of eq. (15) draws M indices i_1..i_M uniformly and returns
/// \f[ \hat g^{\ell} = \Big( \frac{n}{M s_e^2}\sum_{j=1}^M y_{i_j} x_{i_j},\;
///     -\frac{n}{2 M s_e^2}\sum_{j=1}^M x_{i_j} x_{i_j}^\top \Big), \f]
/// whose expectation is the exact gradient. Its second block is negative semidefinite, so Remark 2
/// makes every NGD step with γ ∈ (0, 1] valid.
///
/// Sampling. `kWithReplacement` (independent uniform indices) is eq. (15) and is what Lemmas 7–8,
/// Lemma 3 and Theorem 1 assume. `kWithoutReplacement` (M distinct indices, a uniformly random
/// M-subset) is also unbiased, because each index is included with probability M/n, but its
/// variance carries the finite-population factor (n − M)/(n − 1), so Lemmas 7–8 do not hold as
/// equalities for it: it is offered outside the theorem, for comparison.
///
/// The estimate is formed on a gathered d × M batch (columns copied from a stored Xᵀ, so each is
/// contiguous) with one symmetric rank-M update (lower triangle, then mirrored; symmetric_gram, which
/// takes lower_rank_update in blocks of 128 columns, or one general product for a batch of at most
/// 1024 entries, where that is faster); the buffers are allocated once, so evaluation does not
/// allocate up to d = 128 (above it Eigen's product kernels take their packing buffers from the heap).
///
/// Software scalar types (mp50, mpfr50, mp100) take other routes, because there the batch sums are
/// the whole cost of the step and each addition is a software routine (bench/README.md has the
/// cost of one):
/// - exact sums (kernels/fixed_point_columns.hpp), when every entry of X and y is a double and each
///   column spans at most 73 binades, as for data cast from double. Each entry of X_bᵀX_b and X_bᵀy_b
///   is summed exactly in integer arithmetic and rounded to the scalar (within γ₃), then scaled by
///   −n/(2M s_e²) or n/(M s_e²), itself rounded twice: within γ₆ of the exact entry whatever M and
///   the cancellation, where summing in the scalar carries up to M + 1 roundings. The table is
///   n (d + 1) entries of 16 bytes.
/// - otherwise stored row products: each drawn row's products, the lower triangle of x_i x_iᵀ and
///   y_i x_i, already scaled, are kept after their first use, and a batch costs additions only.
///   Each stored term carries two roundings (product, scale) where the rank-M update's carries one,
///   and the terms are summed in batch order. The store holds n (d(d+1)/2 + d) scalars and is used
///   only while that stays within kRowProductBytes; beyond it the rank-M update is used. A row is
///   multiplied out at most once, so no run costs more than one extra store per row over the direct
///   form.
#include <algorithm>
#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

#include "ngvi/kernels/fixed_point_columns.hpp"
#include "ngvi/kernels/rank_update.hpp"
#include "ngvi/kernels/static_order.hpp"
#include "ngvi/models/linear_regression.hpp"
#include "ngvi/random/stream.hpp"

namespace ngvi {

enum class Sampling { kWithReplacement, kWithoutReplacement };

template <class Scalar>
class MinibatchGradient {
 public:
  /// Memory allowed for the per-row products of a software scalar type (see the file comment),
  /// counted as sizeof(Scalar) per entry: exact for mp50 and mpfr50, whose digits are inline; a type
  /// that keeps its digits on the heap (such as `mpfr_float_backend<50>` with its default allocation)
  /// uses about twice that.
  static constexpr std::size_t kRowProductBytes = std::size_t(64) << 20;

  /// @param[in] model the regression model (kept by reference; must outlive the estimator).
  /// @param[in] batch M ≥ 1 (and M ≤ n without replacement).
  /// @throws std::invalid_argument naming 'batch' on M < 1, or M > n without replacement.
  MinibatchGradient(const LinearRegression<Scalar>& model, Index batch, Sampling sampling = Sampling::kWithReplacement)
      : model_(model), batch_(batch), sampling_(sampling), sampler_(static_cast<std::uint64_t>(model.n())) {
    constexpr const char* f = "ngvi::MinibatchGradient";
    if (batch < 1) throw_size(f, "batch", "must be >= 1 (M = 0 draws no data)");
    if (sampling == Sampling::kWithoutReplacement && batch > model.n())
      throw_size(f, "batch", "must be <= n = " + std::to_string(model.n()) + " when sampling without replacement");
    indices_.resize(static_cast<std::size_t>(batch));
    if (sampling == Sampling::kWithoutReplacement) {
      perm_.resize(static_cast<std::size_t>(model.n()));
      for (Index i = 0; i < model.n(); ++i) perm_[static_cast<std::size_t>(i)] = i;
    }
    scale1_ = Scalar(model.n()) / (Scalar(batch) * model.noise_var());
    scale2_ = -scale1_ / 2;
    if constexpr (kExactBatchSums<Scalar>) {
      if (exact_.assign(model.data().X, model.data().y, batch)) return;  // the other routes' buffers stay empty
    }
    xt_ = model.data().X.transpose();
    xb_.resize(model.d(), batch);
    yb_.resize(batch);
    if constexpr (!std::is_floating_point_v<Scalar>) {
      const Index d = model.d();
      const auto per_row = static_cast<std::size_t>(d * (d + 1) / 2 + d);
      if (static_cast<std::size_t>(model.n()) * per_row * sizeof(Scalar) <= kRowProductBytes) {
        row_products_.resize(static_cast<std::size_t>(model.n()) * per_row);
        row_ready_.assign(static_cast<std::size_t>(model.n()), 0);
      }
    }
  }

  /// True when batches are summed exactly (software scalars of ≥ 128 bits on data that are doubles).
  bool uses_exact_sums() const { return exact_.holds(); }

  /// True when batches are summed from stored per-row products (other software-scalar data within
  /// budget).
  bool uses_row_products() const { return !row_ready_.empty(); }

  Index batch() const { return batch_; }
  Sampling sampling() const { return sampling_; }
  const LinearRegression<Scalar>& model() const { return model_; }
  const std::vector<Index>& indices() const { return indices_; }

  /// Threads for the Gram product from order kTiledOrder (kernels/tiles.hpp); the default handle
  /// runs it on the caller. The estimate is bitwise the same for any threads. Not owned.
  void set_tiles(kernels::TileThreads tiles) { tiles_ = tiles; }

  /// Draws the next batch of indices from `rng` (with replacement: M uniform draws; without:
  /// a partial Fisher–Yates shuffle of a persistent permutation, which yields a uniform M-subset).
  void draw(random::Stream& rng) {
    const auto n = static_cast<std::uint64_t>(model_.n());
    if (sampling_ == Sampling::kWithReplacement) {
      for (auto& i : indices_) i = static_cast<Index>(sampler_(rng));
      return;
    }
    for (std::size_t j = 0; j < indices_.size(); ++j) {
      const auto k = j + static_cast<std::size_t>(rng.index(n - j));
      std::swap(perm_[j], perm_[k]);
      indices_[j] = perm_[j];
    }
  }

  /// Uses the given indices as the current batch.
  /// @throws std::invalid_argument on a wrong count, std::domain_error on an index outside [0, n).
  void set_indices(const std::vector<Index>& idx) {
    constexpr const char* f = "ngvi::MinibatchGradient::set_indices";
    if (idx.size() != indices_.size()) throw_size(f, "idx", "must hold M = " + std::to_string(batch_) + " indices");
    for (Index i : idx)
      if (i < 0 || i >= model_.n()) throw_domain(f, "idx", "has an index outside [0, n)");
    indices_ = idx;
  }

  /// ĝ^ℓ for the current batch, written into `out` (resized on first use only).
  void evaluate(GaussianPair<Scalar>& out);

  /// Draws a batch and evaluates it (allocating convenience form).
  GaussianPair<Scalar> operator()(random::Stream& rng) {
    draw(rng);
    GaussianPair<Scalar> g;
    evaluate(g);
    return g;
  }

 private:
  /// How many batch columns ahead of its copy the gather asks for a column's cache lines (hardware
  /// floats, run-time orders: from kStaticOrderMax + 1, where a row spans more than two lines). The
  /// rows are drawn at random from Xᵀ, so no hardware prefetcher sees the next one coming;
  /// bench/README.md ("The gather's prefetch") has the measurements behind the distance.
  static constexpr Index kGatherAhead = 4;

  /// Asks for the cache lines of the column of d entries at p (a hint only: no effect on values).
  static void prefetch_column(const Scalar* p, Index d) {
    constexpr Index kLine = 64 / static_cast<Index>(sizeof(Scalar));
    for (Index k = 0; k < d; k += kLine) __builtin_prefetch(p + k, 0, 3);
    __builtin_prefetch(p + d - 1, 0, 3);
  }

  /// The batch's rows gathered into xb_ (and y into yb_) and ĝ₁ = (n/(M s_e²)) X_bᵀ y_b, with the
  /// columns' length N = d known at compile time (hardware floating point, d ≤ kStaticOrderMax,
  /// kernels/static_order.hpp: Eigen then copies and multiplies them without a scalar tail) or
  /// N = Eigen::Dynamic. From order kTiledOrder the gather goes by tiles of batch columns on the
  /// tile threads: a copy, the same entries however it is split.
  template <int N>
  void gather_and_first_block(GaussianPair<Scalar>& out) {
    using Column = Eigen::Matrix<Scalar, N, 1>;
    const Index d = N == Eigen::Dynamic ? model_.d() : N;  // a constant in the fixed-order forms
    const auto& y = model_.data().y;
    auto gather = [&](Index j0, Index w) {
      for (Index j = j0; j < j0 + w; ++j) {
        if constexpr (std::is_floating_point_v<Scalar> && N == Eigen::Dynamic)
          if (j + kGatherAhead < j0 + w)
            prefetch_column(xt_.data() + indices_[static_cast<std::size_t>(j + kGatherAhead)] * d, d);
        const Index i = indices_[static_cast<std::size_t>(j)];
        Eigen::Map<Column>(xb_.data() + j * d, d) = Eigen::Map<const Column>(xt_.data() + i * d, d);
        yb_(j) = y(i);
      }
    };
    if (d < kTiledOrder) gather(0, batch_);
    else for_each_column_tile(tiles_, batch_, gather);
    if (out.first.size() != d) out.first.resize(d);
    Eigen::Map<Column> g1(out.first.data(), d);
    g1.noalias() = Eigen::Map<const Eigen::Matrix<Scalar, N, Eigen::Dynamic>>(xb_.data(), d, batch_) * yb_;
    g1 *= scale1_;
  }

  /// The exact route (software scalars of ≥ 128 bits, data that are doubles): each entry of the
  /// lower triangle of X_bᵀX_b and of X_bᵀy_b summed exactly, rounded, then scaled; mirrored as the
  /// direct route does. Empty for other scalars, which never hold a table.
  void evaluate_exact(GaussianPair<Scalar>& out) {
    if constexpr (kExactBatchSums<Scalar>) {
      const Index d = model_.d();
      if (out.first.size() != d) out.first.resize(d);
      if (out.second.rows() != d || out.second.cols() != d) out.second.resize(d, d);
      exact_.gather(indices_);
      for (Index c = 0; c < d; ++c)
        for (Index r = c; r < d; ++r) out.second(r, c) = scale2_ * exact_.template batch_dot<Scalar>(r, c);
      for (Index r = 0; r < d; ++r) out.first(r) = scale1_ * exact_.template batch_dot<Scalar>(d, r);
      copy_lower_to_upper(out.second);
    }
  }

  /// The row-product route (software scalars): the two blocks of ĝ^ℓ as sums over the batch of the
  /// stored, scaled products (lower triangle), then mirrored as the direct route does.
  void evaluate_from_row_products(GaussianPair<Scalar>& out) {
    const Index d = model_.d();
    const auto& y = model_.data().y;
    const std::size_t per_row = static_cast<std::size_t>(d * (d + 1) / 2 + d);
    if (out.first.size() != d) out.first.resize(d);
    if (out.second.rows() != d || out.second.cols() != d) out.second.resize(d, d);
    out.first.setZero();
    out.second.setZero();
    for (const Index i : indices_) {
      Scalar* p = row_products_.data() + static_cast<std::size_t>(i) * per_row;
      const Scalar* x = xt_.data() + i * d;
      if (!row_ready_[static_cast<std::size_t>(i)]) {
        Scalar* q = p;
        for (Index c = 0; c < d; ++c)
          for (Index r = c; r < d; ++r) *q++ = scale2_ * (x[r] * x[c]);
        for (Index r = 0; r < d; ++r) *q++ = scale1_ * (y(i) * x[r]);
        row_ready_[static_cast<std::size_t>(i)] = 1;
      }
      for (Index c = 0; c < d; ++c)
        for (Index r = c; r < d; ++r) out.second(r, c) += *p++;
      for (Index r = 0; r < d; ++r) out.first(r) += *p++;
    }
    copy_lower_to_upper(out.second);
  }

  const LinearRegression<Scalar>& model_;
  Index batch_;
  Sampling sampling_;
  random::IndexSampler sampler_;  // with replacement: Stream::index(n)'s draws, n fixed
  std::vector<Index> indices_;
  std::vector<Index> perm_;
  Mat<Scalar> xt_;  // Xᵀ (d × n): row x_i of X is the contiguous column i, so gathering is a copy
  Mat<Scalar> xb_;  // gathered batch, d × M (columns x_{i_j})
  Vec<Scalar> yb_;
  Scalar scale1_;
  Scalar scale2_;
  std::vector<Scalar> row_products_;       // software scalars: per row, scaled lower(x_i x_iᵀ) then y_i x_i
  std::vector<unsigned char> row_ready_;   // row i's products are in row_products_
  FixedPointColumns exact_;                // software scalars on data that are doubles: X, y as fixed point
  kernels::TileThreads tiles_;
};

// Out of the class body (not inline), so that an explicit instantiation declaration
// (NGVI_EXTERN_TEMPLATES, below) keeps every translation unit but one from instantiating it and the
// passes it dispatches to compile-time orders.
template <class Scalar>
void MinibatchGradient<Scalar>::evaluate(GaussianPair<Scalar>& out) {
  if (uses_exact_sums()) {
    evaluate_exact(out);
    return;
  }
  if (uses_row_products()) {
    evaluate_from_row_products(out);
    return;
  }
  bool gathered = false;
  if constexpr (std::is_floating_point_v<Scalar>)
    gathered = with_static_order<kStaticOrderMax>(model_.d(), [&]<int N>() { gather_and_first_block<N>(out); });
  if (!gathered) gather_and_first_block<Eigen::Dynamic>(out);
  symmetric_gram(out.second, xb_, scale2_, tiles_);
}

#ifdef NGVI_EXTERN_TEMPLATES
// In-tree targets take these instantiations from lib/src/hot_loop_instantiations_*.cpp.
extern template class MinibatchGradient<double>;
extern template class MinibatchGradient<mp50>;
#endif

}  // namespace ngvi
