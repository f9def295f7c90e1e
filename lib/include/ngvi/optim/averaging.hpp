#pragma once
/// @file
/// Iterate averaging in expectation parameters (docs/math.md §4.5): Theorem 1's
/// \f[ \bar\mu_T = \frac{2}{T(T+1)} \sum_{t=1}^{T} t\,\mu_t, \f]
/// kept as a running average μ̄_t = μ̄_{t−1} + w_t(μ_t − μ̄_{t−1}) with w_t = t / Σ_{s≤t} s = 2/(t+1),
/// so memory is O(d²) whatever T is. The average of points of the convex set M stays in M.
/// A uniform-weight variant (w_t = 1/t) is offered for comparison.
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "ngvi/expfam/gaussian_params.hpp"
#include "ngvi/kernels/static_order.hpp"
#include "ngvi/kernels/tiles.hpp"
#include "ngvi/linalg/validate.hpp"

namespace ngvi {

template <class Scalar>
class IterateAverage {
 public:
  enum class Weights { kLinear, kUniform };

  /// Hardware floating-point averages up to this order go over the whole matrix (see add()).
  static constexpr Index kWholeMatrixAverageMaxOrder = 32;

  explicit IterateAverage(Weights w = Weights::kLinear) : weights_(w) {}

  /// Adds μ_t for t = count() + 1.
  /// @throws std::invalid_argument naming 'mu_t' if its dimension differs from the first one's.
  void add(const GaussianPair<Scalar>& mu_t) {
    if (t_ > 0 && mu_t.dim() != avg_.dim())
      throw std::invalid_argument("ngvi::IterateAverage::add: argument 'mu_t' has a different dimension");
    if (++t_ == 1) {
      avg_ = mu_t;
      return;
    }
    const Scalar w = weight();
    avg_.first += w * (mu_t.first - avg_.first);
    const Mat<Scalar>& m2 = mu_t.second;
    if (whole_matrix()) avg_.second += w * (m2 - avg_.second);
    else update_lower(w, [&](Index j) { return m2.col(j).tail(m2.rows() - j); });
  }

  /// Adds μ_t = (m, S + mmᵀ) for t = count() + 1 from the moments (m, S) of q_t, S symmetric,
  /// without forming μ_t: each entry of S + mmᵀ is formed inside the averaging pass, so the
  /// conversion's hot loop makes one pass over d × d data here instead of two (d = 500: one 2 MB
  /// pass fewer per step). The entries are the same expressions as add() of the formed pair.
  /// @throws std::invalid_argument naming 'cov' if it is not mean.size() square, or naming 'mean'
  ///         if its dimension differs from the first call's.
  /// From order kTiledOrder (kernels/tiles.hpp) the lower-triangle pass goes by column tiles, on
  /// the threads of `tiles`; each entry is the same expression either way.
  void add_moments(const Vec<Scalar>& mean, const Mat<Scalar>& cov, kernels::TileThreads tiles = {});

  long count() const { return t_; }
  /// Forgets every iterate added (the next add() starts a new average).
  void reset() { t_ = 0; }

  /// μ̄_T as an expectation parameter.
  /// @throws std::logic_error if nothing was added.
  GaussianExpectation<Scalar> value() const {
    if (t_ == 0) throw std::logic_error("ngvi::IterateAverage::value: no iterate was added");
    GaussianPair<Scalar> avg = avg_;
    copy_lower_to_upper(avg.second);
    return GaussianExpectation<Scalar>(std::move(avg));
  }

 private:
  /// w_t for t = t_ (t_ ≥ 2).
  Scalar weight() const { return weights_ == Weights::kLinear ? Scalar(2) / Scalar(t_ + 1) : Scalar(1) / Scalar(t_); }

  /// μ₂ is symmetric, so only its lower triangle needs averaging (value() mirrors it). That halves
  /// the work for software scalars and for large d, where the pass is memory-bound; for small d in
  /// double the whole-matrix pass is one vectorised loop and cheaper than d column segments.
  /// bench/README.md has the measurements.
  bool whole_matrix() const { return std::is_floating_point_v<Scalar> && avg_.dim() <= kWholeMatrixAverageMaxOrder; }

  /// avg₂ += w (μ₂ − avg₂) on the lower triangle, `lower_column(j)` giving μ₂'s column j from row j on.
  template <class LowerColumn>
  void update_lower(const Scalar& w, LowerColumn&& lower_column, kernels::TileThreads tiles = {}) {
    const Index d = avg_.dim();
    for_each_column_tile(tiles, d, [&](Index j0, Index n) {
      for (Index j = j0; j < j0 + n; ++j) avg_.second.col(j).tail(d - j) += w * (lower_column(j) - avg_.second.col(j).tail(d - j));
    });
  }

  Weights weights_;
  long t_ = 0;
  GaussianPair<Scalar> avg_;
};

// Out of the class body (not inline), so that an explicit instantiation declaration
// (NGVI_EXTERN_TEMPLATES, below) keeps every translation unit but one from instantiating it.
template <class Scalar>
void IterateAverage<Scalar>::add_moments(const Vec<Scalar>& mean, const Mat<Scalar>& cov, kernels::TileThreads tiles) {
  const Index d = mean.size();
  if (cov.rows() != d || cov.cols() != d)
    throw std::invalid_argument("ngvi::IterateAverage::add_moments: argument 'cov' must be mean.size() x mean.size()");
  if (t_ > 0 && d != avg_.dim())
    throw std::invalid_argument("ngvi::IterateAverage::add_moments: argument 'mean' has a different dimension");
  if (++t_ == 1) {
    avg_.first = mean;
    avg_.second.resize(d, d);
    for (Index j = 0; j < d; ++j) avg_.second.col(j) = cov.col(j) + mean(j) * mean;
    return;
  }
  const Scalar w = weight();
  avg_.first += w * (mean - avg_.first);
  if (whole_matrix()) {
    // Whole columns, written out: update_lower's segment form with a start row of 0 was slower at
    // d = 10 (the Theorem 1 workload's order), and the same columns at a compile-time order
    // (kernels/static_order.hpp) are cheaper still; bench/README.md has the measurements. Only for
    // hardware floating point: a software scalar has no vector instructions to gain, and its
    // compile-time orders cost every unit that instantiates the average in it 16 more passes to
    // compile (bench/README.md, "Build time"). The pass is entrywise, so both forms give the same bits.
    auto pass = [&]<int N>() {  // N = d, or Eigen::Dynamic
      using Matrix = Eigen::Matrix<Scalar, N, N>;
      using Column = Eigen::Matrix<Scalar, N, 1>;
      const Index n = N == Eigen::Dynamic ? d : N;  // a constant in the fixed-order forms
      Eigen::Map<Matrix> a(avg_.second.data(), n, n);
      const Eigen::Map<const Matrix> s(cov.data(), n, n);
      const Eigen::Map<const Column> m(mean.data(), n);
      for (Index j = 0; j < n; ++j) a.col(j) += w * ((s.col(j) + m(j) * m) - a.col(j));
    };
    bool fixed = false;
    if constexpr (std::is_floating_point_v<Scalar>) fixed = with_static_order<kStaticOrderMax>(d, pass);
    if (!fixed) pass.template operator()<Eigen::Dynamic>();
  } else {
    update_lower(w, [&](Index j) { return cov.col(j).tail(d - j) + mean(j) * mean.tail(d - j); }, tiles);
  }
}

#ifdef NGVI_EXTERN_TEMPLATES
// In-tree targets take these instantiations from lib/src/hot_loop_instantiations_*.cpp.
extern template class IterateAverage<double>;
extern template class IterateAverage<mp50>;
#endif

}  // namespace ngvi
