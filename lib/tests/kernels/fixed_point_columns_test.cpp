// Exact batch sums (kernels/fixed_point_columns.hpp) in mp50, in its own translation unit as every
// multiprecision instantiation. The reference for every sum is the same sum of the same products in
// cpp_rational, exact by construction and computed without the fixed-point code. The bound is γ₃
// relative to the exact sum (the conversion's at most three roundings, Higham (2002) Lemma 3.1;
// every limb is nonnegative, so there is no cancellation inside it). A negative control shows that
// summing in mp50 misses that bound on a cancelling batch, so the bound discriminates.
#include <boost/multiprecision/cpp_int.hpp>
#include <cmath>
#include <vector>

#include "ngvi/kernels/fixed_point_columns.hpp"
#include "ngvi/random/stream.hpp"
#include "ngvi/scalar/budget.hpp"
#include "test_util.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

using boost::multiprecision::cpp_rational;

// The table [x y] of n rows as doubles, and the same in mp50 (exact casts).
struct Table {
  Mat<double> x;
  Vec<double> y;
  Mat<mp50> xm() const { return x.cast<mp50>(); }
  Vec<mp50> ym() const { return y.cast<mp50>(); }
  double at(Index i, Index c) const { return c < x.cols() ? x(i, c) : y(i); }
};

// Entries ±(1 + u)·2^e with u uniform in [0, 1) and e uniform in [e_lo, e_hi]: every column then
// spans at most e_hi − e_lo + 1 binades.
Table random_table(Index n, Index d, int e_lo, int e_hi, std::uint64_t seed) {
  random::Stream rng(seed, 3);
  Table t{Mat<double>(n, d), Vec<double>(n)};
  auto draw = [&] {
    const double mant = 1 + rng.uniform01();
    const int e = e_lo + static_cast<int>(rng.index(static_cast<std::uint64_t>(e_hi - e_lo + 1)));
    return (rng.uniform01() < 0.5 ? -1.0 : 1.0) * std::ldexp(mant, e);
  };
  for (Index i = 0; i < n; ++i) {
    for (Index c = 0; c < d; ++c) t.x(i, c) = draw();
    t.y(i) = draw();
  }
  return t;
}

cpp_rational exact_dot(const Table& t, const std::vector<Index>& rows, Index a, Index b) {
  cpp_rational s(0);
  for (Index i : rows) s += cpp_rational(t.at(i, a)) * cpp_rational(t.at(i, b));
  return s;
}

// |v − s| ≤ γ₃ |s| in exact arithmetic.
bool within_gamma3(const mp50& v, const cpp_rational& s) {
  const cpp_rational g3(gamma_n<mp50>(3));
  return abs(cpp_rational(v) - s) <= g3 * abs(s);
}

std::vector<Index> random_rows(Index n, Index m, random::Stream& rng) {
  std::vector<Index> rows(static_cast<std::size_t>(m));
  for (auto& i : rows) i = static_cast<Index>(rng.index(static_cast<std::uint64_t>(n)));
  return rows;
}

// Checks every pair of columns (a ≥ b, the last column included) on `batches` random batches.
void expect_exact_on_batches(const Table& t, Index m, int batches, std::uint64_t seed) {
  FixedPointColumns f;
  ASSERT_TRUE(f.assign(t.xm(), t.ym(), m));
  const Index k = t.x.cols() + 1;
  random::Stream rng(seed, 9);
  for (int b = 0; b < batches; ++b) {
    const auto rows = random_rows(t.x.rows(), m, rng);
    f.gather(rows);
    for (Index c = 0; c < k; ++c)
      for (Index r = c; r < k; ++r) {
        const mp50 v = f.batch_dot<mp50>(r, c);
        const cpp_rational s = exact_dot(t, rows, r, c);
        EXPECT_TRUE(within_gamma3(v, s)) << "batch " << b << " (" << r << ", " << c << "): " << v << " against "
                                         << mp50(s);
      }
  }
}

TEST(FixedPointColumns, SumsAreWithinGammaThreeOfTheExactSum) {
  expect_exact_on_batches(random_table(50, 4, -3, 3, 1), 32, 20, 1);  // unit-scale data, as regression data
}

TEST(FixedPointColumns, HoldsEveryColumnWhoseLastBitsAreOnTheGrid) {
  // A column whose largest entry is in binade 2^12 is held on the grid of 2^(13 − 126) = 2^-113: an
  // entry with 53 significant bits is held down to binade 2^-61 (73 binades below), and a power of
  // two below that too; one more binade down, its last bit is off the grid.
  const double full = std::nextafter(1.0, 2.0);  // 1 + 2^-52
  Table t = random_table(40, 3, -61, 12, 2);
  t.x(0, 1) = std::ldexp(full, 12);
  for (Index i = 1; i < t.x.rows(); ++i) t.x(i, 1) = std::ldexp(full, 12 - static_cast<int>(i % 74));
  t.x(7, 1) = std::ldexp(1.0, -90);
  expect_exact_on_batches(t, 16, 10, 2);
  Table off = t;
  off.x(5, 1) = std::ldexp(full, -62);
  FixedPointColumns f;
  EXPECT_FALSE(f.assign(off.xm(), off.ym(), 16));
}

TEST(FixedPointColumns, CarriesThroughAllFiveLimbsOnLongBatches) {
  // 3000 products near 2^252 in the integers: the sum passes 2^256, into the top limb, with both
  // signs of total.
  Table t{Mat<double>::Constant(3000, 2, std::nextafter(2.0, 1.0)), Vec<double>::Constant(3000, -std::nextafter(2.0, 1.0))};
  for (Index i = 0; i < 3000; i += 7) t.x(i, 1) = std::ldexp(1.0, -70);
  std::vector<Index> rows(3000);
  for (Index i = 0; i < 3000; ++i) rows[static_cast<std::size_t>(i)] = i;
  FixedPointColumns f;
  ASSERT_TRUE(f.assign(t.xm(), t.ym(), 3000));
  f.gather(rows);
  for (Index a = 0; a < 3; ++a)
    for (Index b = 0; b <= a; ++b) {
      const cpp_rational s = exact_dot(t, rows, a, b);
      EXPECT_TRUE(within_gamma3(f.batch_dot<mp50>(a, b), s)) << "(" << a << ", " << b << ")";
    }
}

TEST(FixedPointColumns, CancellingBatchesKeepTheirRelativeAccuracyWhereAnMp50SumDoesNot) {
  // Products of columns 0 and 1 over the batch (rows 0, 2, 1): 1 + 2^-200 − 1 = 2^-200 exactly.
  Table t{Mat<double>(3, 2), Vec<double>::Zero(3)};
  t.x << 1.0, 1.0,                                  //
      1.0, -1.0,                                    //
      std::ldexp(1.0, -100), std::ldexp(1.0, -100);  //
  const std::vector<Index> batch{0, 2, 1};
  FixedPointColumns f;
  ASSERT_TRUE(f.assign(t.xm(), t.ym(), 3));
  f.gather(batch);
  const cpp_rational s = exact_dot(t, batch, 0, 1);
  ASSERT_EQ(s, cpp_rational(std::ldexp(1.0, -200)));
  EXPECT_TRUE(within_gamma3(f.batch_dot<mp50>(0, 1), s));
  // Negative control: the same sum in mp50, in batch order, loses 2^-200 against 1 (it is below
  // half an ulp of 1) and returns 0.
  mp50 naive(0);
  for (Index i : batch) naive += mp50(t.x(i, 0)) * mp50(t.x(i, 1));
  EXPECT_FALSE(within_gamma3(naive, s)) << "the control should lose the 2^-200 term: " << naive;
}

TEST(FixedPointColumns, ZeroColumnsAndRepeatedRowsAreExact) {
  Table t = random_table(6, 3, -2, 2, 5);
  t.x.col(2).setZero();
  FixedPointColumns f;
  ASSERT_TRUE(f.assign(t.xm(), t.ym(), 5));
  const std::vector<Index> rows{4, 4, 4, 1, 4};
  f.gather(rows);
  EXPECT_EQ(f.batch_dot<mp50>(2, 2), mp50(0));
  EXPECT_EQ(f.batch_dot<mp50>(2, 0), mp50(0));
  EXPECT_TRUE(within_gamma3(f.batch_dot<mp50>(3, 1), exact_dot(t, rows, 3, 1)));
}

TEST(FixedPointColumns, DeclinesDataThatAreNotHeldExactly) {
  const Table t = random_table(5, 2, -2, 2, 6);
  FixedPointColumns f;
  Mat<mp50> x = t.xm();
  x(3, 1) /= 3;  // not a double
  EXPECT_FALSE(f.assign(x, t.ym(), 2));
  EXPECT_FALSE(f.holds());
  x = t.xm();
  x(0, 0) = mp50(std::ldexp(1.0, 40));
  x(1, 0) = mp50(std::ldexp(std::nextafter(1.0, 2.0), -40));  // its last bit is 2^-92: 132 binades down
  EXPECT_FALSE(f.assign(x, t.ym(), 2));
  Vec<mp50> y = t.ym();
  y(2) = std::numeric_limits<mp50>::infinity();
  EXPECT_FALSE(f.assign(t.xm(), y, 2));
  y(2) = std::numeric_limits<mp50>::quiet_NaN();
  EXPECT_FALSE(f.assign(t.xm(), y, 2));
  EXPECT_TRUE(f.assign(t.xm(), t.ym(), 2));  // and the unaltered table is held
  EXPECT_TRUE(f.holds());
}

TEST(FixedPointColumns, RejectsMismatchedSizes) {
  const Table t = random_table(5, 2, -2, 2, 7);
  FixedPointColumns f;
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([&] { f.assign(t.xm(), Vec<mp50>(t.ym().head(4)), 2); },
                                                       {"ngvi::FixedPointColumns::assign", "y", "one entry per row"}));
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([&] { f.assign(t.xm(), t.ym(), 0); }, {"batch", ">= 1"}));
}

}}  // namespace
}  // namespace ngvi
