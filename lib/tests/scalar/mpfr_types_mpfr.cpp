// mpfr50 and mpfi50 in their own translation unit (each costs seconds to compile).
#include <gtest/gtest.h>

#include "ngvi/scalar/mpfr_types.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

TEST(MpfrTypes, Mpfr50CarriesFiftyDigits) {
  EXPECT_GE(std::numeric_limits<mpfr50>::digits10, 50);
  const mpfr50 third = mpfr50(1) / 3;
  const mp100 ref = mp100(1) / 3;
  const mp100 err = abs(mp100(third.str(60)) - ref);
  EXPECT_LT(err, mp100("1e-50"));
}

TEST(MpfrTypes, Mpfi50EnclosesExactValues) {
  const mpfi50 third = mpfi50(1) / 3;
  const mp100 ref = mp100(1) / 3;
  EXPECT_LE(mp100(lower(third).str(70)), ref);
  EXPECT_GE(mp100(upper(third).str(70)), ref);
  const mpfi50 e = exp(mpfi50(1));
  const mp100 e_ref = exp(mp100(1));
  EXPECT_LE(mp100(lower(e).str(70)), e_ref);
  EXPECT_GE(mp100(upper(e).str(70)), e_ref);
  EXPECT_LT(mp100(upper(e).str(70)) - mp100(lower(e).str(70)), mp100("1e-48"));
}

}}  // namespace
}  // namespace ngvi
