#pragma once
/// @file
/// Exact sums of products over a batch of rows, for data whose entries are doubles.
///
/// A data set cast from double to a software scalar (mp50, mpfr50, mp100) holds doubles. The
/// product of two doubles has at most 106 significant bits, and a sum of such products can be
/// formed exactly in integer arithmetic and then rounded to the scalar. FixedPointColumns keeps each
/// column c of an n × k table as signed integers X_ic of at most kMagnitudeBits = 126 bits, with one
/// power-of-two scale per column: entry (i, c) is exactly X_ic · 2^(−s_c), where 2^(126 − s_c) bounds
/// the column's largest magnitude. A product X_ia X_ib has at most 252 bits, so a sum over a batch
/// is exact in a 320-bit two's complement accumulator for any batch of fewer than 2^67 rows.
///
/// A column is held exactly when every entry is a double and a multiple of 2^(−s_c): an entry with
/// 53 significant bits is held down to 126 − 53 = 73 binades below the column's largest (about 22
/// decimal orders of magnitude), one with fewer bits further down. `assign` reports whether every
/// column is; the caller takes another route when not.
///
/// Cost. A batch sum of M products is M integer products of 126-bit magnitudes (four 64 × 64 →
/// 128-bit multiplications each) and five-limb additions, then one conversion to the scalar:
/// hardware integer operations in place of M software-scalar additions, so at d = 10, M = 32 in
/// mp50 a batch estimate is cheaper this way than by adding stored row products in the scalar
/// (bench/README.md has the measurements).
///
/// Rounding. The sum is exact. Its conversion to Scalar, Horner's rule over the 64-bit limbs of its
/// magnitude from the leading nonzero one, rounds at most three times (the first two limbs are
/// exact in a scalar of ≥ 128 bits, and every limb is nonnegative), so the result is within γ₃ of
/// the exact sum whatever M and the cancellation.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <boost/multiprecision/number.hpp>

#include "ngvi/linalg/validate.hpp"
#include "ngvi/scalar/types.hpp"

#ifndef __SIZEOF_INT128__
#error "ngvi/kernels/fixed_point_columns.hpp needs a compiler with unsigned __int128 (GCC or Clang, 64-bit)"
#endif

namespace ngvi {

/// Whether exact batch sums (FixedPointColumns) apply to Scalar: a binary software type of at least
/// 128 bits that rounds to nearest, so that a 64-bit limb converts exactly and two limbs add
/// exactly. Hardware floats keep their vectorised products; intervals (whose sums must enclose, not
/// round) and types without numeric_limits are left out.
template <class Scalar>
inline constexpr bool kExactBatchSums =
    !std::is_floating_point_v<Scalar> && !boost::multiprecision::is_interval_number<Scalar>::value &&
    std::numeric_limits<Scalar>::is_specialized && std::numeric_limits<Scalar>::radix == 2 &&
    std::numeric_limits<Scalar>::digits >= 128 && std::numeric_limits<Scalar>::round_style == std::round_to_nearest;

class FixedPointColumns {
 public:
  /// Bits of an entry's magnitude.
  static constexpr int kMagnitudeBits = 126;

  /// An entry: magnitude hi·2^64 + lo with hi < 2^62, and the sign in bit 63 of hi.
  struct Entry {
    std::uint64_t lo;
    std::uint64_t hi;
  };

  /// Takes the n × k table whose columns are the columns of `x` (n × d) and then `y` (n), and sizes
  /// the batch buffer for `batch` rows. Returns true when every entry is held exactly (see the file
  /// comment); on false the object holds nothing and `batch_dot` must not be called.
  /// @throws std::invalid_argument naming 'y' or 'batch' on a size mismatch or batch < 1.
  template <class Scalar>
  bool assign(const Mat<Scalar>& x, const Vec<Scalar>& y, Index batch) {
    constexpr const char* f = "ngvi::FixedPointColumns::assign";
    if (y.size() != x.rows()) throw_size(f, "y", "must have one entry per row of x");
    if (batch < 1) throw_size(f, "batch", "must be >= 1");
    const Index n = x.rows();
    k_ = x.cols() + 1;
    batch_ = batch;
    entries_.assign(static_cast<std::size_t>(n * k_), Entry{0, 0});
    shift_.assign(static_cast<std::size_t>(k_), 0);
    std::vector<double> column(static_cast<std::size_t>(n));
    for (Index c = 0; c < k_; ++c) {
      int top = std::numeric_limits<int>::min();  // exponent bounding the column's magnitudes
      for (Index i = 0; i < n; ++i) {
        const Scalar& v = c < k_ - 1 ? x(i, c) : y(i);
        const double dv = static_cast<double>(v);
        if (!std::isfinite(dv) || Scalar(dv) != v) return clear();
        column[static_cast<std::size_t>(i)] = dv;
        if (dv != 0) top = std::max(top, std::ilogb(dv) + 1);
      }
      const int shift = top == std::numeric_limits<int>::min() ? 0 : kMagnitudeBits - top;
      shift_[static_cast<std::size_t>(c)] = shift;
      for (Index i = 0; i < n; ++i) {
        const double scaled = std::ldexp(std::fabs(column[static_cast<std::size_t>(i)]), shift);  // < 2^126
        if (std::trunc(scaled) != scaled) return clear();  // below the column's 126-bit grid
        const double hi = std::floor(std::ldexp(scaled, -64));
        const double lo = scaled - std::ldexp(hi, 64);  // exact: both are multiples of ulp(scaled)
        Entry& e = entries_[static_cast<std::size_t>(i * k_ + c)];
        e.lo = static_cast<std::uint64_t>(lo);
        e.hi = static_cast<std::uint64_t>(hi) | (std::signbit(column[static_cast<std::size_t>(i)]) && scaled != 0 ? kSign : 0);
      }
    }
    gathered_.assign(static_cast<std::size_t>(k_ * batch_), Entry{0, 0});
    return true;
  }

  /// True when a table is held.
  bool holds() const { return k_ > 0; }
  /// The scale exponent s_c of column c (entry = integer · 2^(−s_c)).
  int shift(Index c) const { return shift_[static_cast<std::size_t>(c)]; }

  /// Copies the rows `rows` (exactly `batch` of them, as given to assign, each in [0, n)) into the
  /// batch buffer, column by column.
  void gather(const std::vector<Index>& rows) {
    for (std::size_t j = 0; j < rows.size(); ++j) {
      const Entry* src = entries_.data() + rows[j] * k_;
      for (Index c = 0; c < k_; ++c) gathered_[static_cast<std::size_t>(c * batch_) + j] = src[c];
    }
  }

  /// Σ_j T(i_j, a)·T(i_j, b) over the gathered rows, computed exactly and rounded to Scalar (within
  /// γ₃ of the exact sum; see the file comment).
  template <class Scalar>
  Scalar batch_dot(Index a, Index b) const {
    static_assert(kExactBatchSums<Scalar>, "FixedPointColumns::batch_dot: Scalar must be a binary type of >= 128 bits");
    const Entry* pa = gathered_.data() + a * batch_;
    const Entry* pb = gathered_.data() + b * batch_;
    Accumulator acc;
    for (Index j = 0; j < batch_; ++j) acc.add_product(pa[j], pb[j]);
    return acc.template to_scalar<Scalar>(-(shift(a) + shift(b)));
  }

 private:
  __extension__ typedef unsigned __int128 u128;  // __extension__: a GCC and Clang type, not ISO C++
  static constexpr std::uint64_t kSign = std::uint64_t(1) << 63;

  /// A 320-bit two's complement integer: lo + hi·2^128 + top·2^256.
  struct Accumulator {
    u128 lo = 0, hi = 0;
    std::uint64_t top = 0;

    void add_product(const Entry& a, const Entry& b) {
      const std::uint64_t neg = static_cast<std::uint64_t>(static_cast<std::int64_t>(a.hi ^ b.hi) >> 63);  // 0 or ~0
      const std::uint64_t a1 = a.hi & ~kSign, b1 = b.hi & ~kSign;
      const u128 ll = u128(a.lo) * b.lo;
      const u128 mid = u128(a.lo) * b1 + u128(a1) * b.lo;  // < 2^127: no overflow
      u128 plo = ll + (mid << 64);
      u128 phi = u128(a1) * b1 + (mid >> 64) + (plo < ll ? 1 : 0);  // the product, < 2^252
      // Negative: add the two's complement ~p + 1 (the +1 enters as the carry into lo).
      const u128 mask = (u128(neg) << 64) | neg;
      plo ^= mask;
      phi ^= mask;
      const u128 s0 = lo + plo;
      const u128 s1 = s0 + (neg & 1);
      const unsigned c0 = (s0 < lo ? 1u : 0u) + (s1 < s0 ? 1u : 0u);
      lo = s1;
      const u128 t0 = hi + phi;
      const u128 t1 = t0 + c0;
      const unsigned c1 = (t0 < hi ? 1u : 0u) + (t1 < t0 ? 1u : 0u);
      hi = t1;
      top += neg + c1;
    }

    /// The integer times 2^exp2, rounded to Scalar: Horner's rule over the magnitude's 64-bit limbs
    /// from the leading nonzero one, then an exact scaling by 2^exp2.
    template <class Scalar>
    Scalar to_scalar(int exp2) const {
      using std::ldexp;
      const bool negative = static_cast<std::int64_t>(top) < 0;
      std::uint64_t limb[5] = {static_cast<std::uint64_t>(lo), static_cast<std::uint64_t>(lo >> 64),
                               static_cast<std::uint64_t>(hi), static_cast<std::uint64_t>(hi >> 64), top};
      if (negative) {  // magnitude = ~x + 1
        unsigned carry = 1;
        for (auto& l : limb) {
          l = ~l + carry;
          carry = carry && l == 0 ? 1u : 0u;
        }
      }
      int k = 4;
      while (k >= 0 && limb[k] == 0) --k;
      if (k < 0) return Scalar(0);
      Scalar v(limb[k]);
      for (int i = k - 1; i >= 0; --i) {
        v = ldexp(v, 64);
        if (limb[i] != 0) v += Scalar(limb[i]);
      }
      v = ldexp(v, exp2);
      return negative ? Scalar(-v) : v;
    }
  };

  bool clear() {
    k_ = batch_ = 0;
    entries_.clear();
    shift_.clear();
    gathered_.clear();
    return false;
  }

  Index k_ = 0, batch_ = 0;
  std::vector<Entry> entries_;   // row-major n × k
  std::vector<int> shift_;       // per column
  std::vector<Entry> gathered_;  // column-major k × batch
};

}  // namespace ngvi
