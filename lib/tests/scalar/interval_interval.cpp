// interval_d needs -frounding-math: this file's name ends in _interval.cpp so CMake adds the flag.
#include <gtest/gtest.h>

#include "ngvi/scalar/interval.hpp"
#include "ngvi/scalar/types.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

bool encloses(const interval_d& x, const mp100& v) { return mp100(x.lower()) <= v && v <= mp100(x.upper()); }

TEST(IntervalD, ArithmeticRoundsOutward) {
  const interval_d third = interval_d(1.0) / interval_d(3.0);
  EXPECT_LT(third.lower(), third.upper());
  EXPECT_TRUE(encloses(third, mp100(1) / 3));
  const interval_d s = sqrt(interval_d(2.0));
  EXPECT_TRUE(encloses(s, sqrt(mp100(2))));
  interval_d acc(0.0);
  for (int i = 0; i < 10; ++i) acc += interval_d(1.0) / interval_d(10.0);
  EXPECT_TRUE(encloses(acc, mp100(1)));
}

TEST(IntervalD, TranscendentalsEnclose) {
  for (double x : {-3.5, -0.1, 0.0, 0.5, 1.0, 7.25}) {
    EXPECT_TRUE(encloses(exp(interval_d(x)), exp(mp100(x)))) << x;
  }
  for (double x : {1e-3, 0.5, 1.0, 2.0, 1e6}) {
    EXPECT_TRUE(encloses(log(interval_d(x)), log(mp100(x)))) << x;
  }
  EXPECT_TRUE(certainly_negative(interval_d(-2.0, -1.0)));
  EXPECT_FALSE(certainly_negative(interval_d(-2.0, 0.0)));
  EXPECT_TRUE(certainly_positive(interval_d(0.5, 1.0)));
}

// log over an interval reaching 0 or below is unbounded below: the enclosure stays safe.
TEST(IntervalD, LogOfNonPositivePartIsUnboundedBelow) {
  const interval_d l = log(interval_d(-1.0, 1.0));
  EXPECT_TRUE(std::isinf(l.lower()) && l.lower() < 0);
  EXPECT_GE(l.upper(), 0.0);
}

}}  // namespace
}  // namespace ngvi
