// Exact batch sums (kernels/fixed_point_columns.hpp) in the MPFR-backed types, in their own
// translation unit as every mpfr type: which scalars take them (mpfr50 does, the interval type mpfi50
// does not), and mpfr50's sums are within γ₃ of the exact sum, computed in cpp_rational.
#include <boost/multiprecision/cpp_int.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "ngvi/kernels/fixed_point_columns.hpp"
#include "ngvi/random/stream.hpp"
#include "ngvi/scalar/budget.hpp"
#include "ngvi/scalar/mpfr_types.hpp"
#include "test_util.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

static_assert(kExactBatchSums<mp50> && kExactBatchSums<mp100> && kExactBatchSums<mpfr50>,
              "the binary software scalars of >= 128 bits take exact batch sums");
static_assert(!kExactBatchSums<double> && !kExactBatchSums<long double>, "hardware floats keep their products");
static_assert(!kExactBatchSums<mpfi50>, "an interval type's sums must enclose, so it is left out");

using boost::multiprecision::cpp_int;
using boost::multiprecision::cpp_rational;

// An mpfr50 value as an exact rational: its mantissa, an integer of `digits` bits, taken out 64 bits
// at a time (each piece an integer below 2^64, so exact in unsigned long long), times 2^(e − digits).
cpp_rational exact_rational(const mpfr50& v) {
  const int digits = std::numeric_limits<mpfr50>::digits;
  int e = 0;
  mpfr50 rest = ldexp(abs(frexp(v, &e)), digits);
  cpp_int mant = 0;
  for (int shift = 0; rest != 0; shift += 64) {
    const mpfr50 high = floor(ldexp(rest, -64));
    mant += cpp_int(static_cast<unsigned long long>(rest - ldexp(high, 64))) << shift;
    rest = high;
  }
  cpp_rational r(mant);
  r *= e >= digits ? cpp_rational(cpp_int(1) << (e - digits)) : cpp_rational(1, cpp_int(1) << (digits - e));
  return v < 0 ? cpp_rational(-r) : r;
}

TEST(FixedPointColumns, Mpfr50SumsAreWithinGammaThreeOfTheExactSum) {
  const Index n = 30, d = 3, m = 12;
  random::Stream rng(12, 3);
  Mat<double> x(n, d);
  Vec<double> y(n);
  for (Index i = 0; i < n; ++i) {
    for (Index c = 0; c < d; ++c) x(i, c) = std::ldexp(rng.uniform01() - 0.5, static_cast<int>(rng.index(40)) - 20);
    y(i) = rng.normal();
  }
  auto at = [&](Index i, Index c) { return c < d ? x(i, c) : y(i); };
  ASSERT_EQ(exact_rational(mpfr50(-0.375)), cpp_rational(-3, 8));  // the helper, on a known value
  FixedPointColumns f;
  ASSERT_TRUE(f.assign(Mat<mpfr50>(x.cast<mpfr50>()), Vec<mpfr50>(y.cast<mpfr50>()), m));
  // γ₃ = 3u/(1 − 3u) with mpfr50's unit roundoff u = 2^-digits, formed exactly.
  const cpp_rational u(1, cpp_int(1) << std::numeric_limits<mpfr50>::digits);
  const cpp_rational gamma3 = 3 * u / (1 - 3 * u);
  for (int b = 0; b < 10; ++b) {
    std::vector<Index> rows(static_cast<std::size_t>(m));
    for (auto& i : rows) i = static_cast<Index>(rng.index(static_cast<std::uint64_t>(n)));
    f.gather(rows);
    for (Index c = 0; c <= d; ++c)
      for (Index r = c; r <= d; ++r) {
        cpp_rational s(0);
        for (Index i : rows) s += cpp_rational(at(i, r)) * cpp_rational(at(i, c));
        EXPECT_LE(abs(exact_rational(f.batch_dot<mpfr50>(r, c)) - s), gamma3 * abs(s))
            << "batch " << b << " (" << r << ", " << c << ")";
      }
  }
}

}}  // namespace
}  // namespace ngvi
