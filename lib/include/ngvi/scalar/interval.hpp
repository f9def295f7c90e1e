#pragma once
/// @file
/// `interval_d`: a closed interval of doubles with outward rounding, for certificates.
///
/// Arithmetic (+ - * / sqrt) switches the FPU rounding mode per operation (Boost's `save_state`
/// around `rounded_arith_std`), so every result encloses the exact one. Translation units that use
/// it must be compiled with `-frounding-math` so that the compiler neither folds nor reorders
/// floating-point operations across mode changes (CMake target `ngvi_interval_flags`).
///
/// `exp` and `log` (Boost's interval functions, found by ADL) call the rounding policy below: glibc's
/// round-to-nearest result, computed with the mode set to nearest, widened by `kTranscendentalUlps`
/// ulps on each side. glibc documents errors below 1 ulp for exp and log (glibc manual, "Errors in
/// Math Functions"), so the widened interval encloses the exact value.
#include <boost/numeric/interval.hpp>
#include <cfenv>
#include <cmath>
#include <limits>

namespace ngvi {

/// Ulps added on each side of a round-to-nearest transcendental result (see the file comment).
inline constexpr int kTranscendentalUlps = 2;

namespace interval_detail {

struct RoundedTranscWidened : boost::numeric::interval_lib::rounded_arith_std<double> {
  // GCC constant-folds arithmetic on known operands in round-to-nearest even under -frounding-math
  // (the flag "does not currently guarantee to disable all GCC optimizations that are affected by
  // rounding mode", GCC manual); reading each operand through a volatile forces the operation to
  // run after the mode switch. A unit test divides literal constants to catch a regression.
  static double launder(double x) {
    volatile double v = x;
    return v;
  }
  double add_down(const double& x, const double& y) { downward(); return force_rounding(launder(x) + launder(y)); }
  double add_up(const double& x, const double& y) { upward(); return force_rounding(launder(x) + launder(y)); }
  double sub_down(const double& x, const double& y) { downward(); return force_rounding(launder(x) - launder(y)); }
  double sub_up(const double& x, const double& y) { upward(); return force_rounding(launder(x) - launder(y)); }
  double mul_down(const double& x, const double& y) { downward(); return force_rounding(launder(x) * launder(y)); }
  double mul_up(const double& x, const double& y) { upward(); return force_rounding(launder(x) * launder(y)); }
  double div_down(const double& x, const double& y) { downward(); return force_rounding(launder(x) / launder(y)); }
  double div_up(const double& x, const double& y) { upward(); return force_rounding(launder(x) / launder(y)); }
  double sqrt_down(const double& x) { downward(); return force_rounding(std::sqrt(launder(x))); }
  double sqrt_up(const double& x) { upward(); return force_rounding(std::sqrt(launder(x))); }

  template <class F>
  static double nearest(F f, double x) {
    const int mode = std::fegetround();
    std::fesetround(FE_TONEAREST);
    const double r = f(x);
    std::fesetround(mode);
    return r;
  }
  static double down(double x) {
    for (int k = 0; k < kTranscendentalUlps; ++k) x = std::nextafter(x, -std::numeric_limits<double>::infinity());
    return x;
  }
  static double up(double x) {
    for (int k = 0; k < kTranscendentalUlps; ++k) x = std::nextafter(x, std::numeric_limits<double>::infinity());
    return x;
  }
  double exp_down(double x) { return down(nearest([](double v) { return std::exp(v); }, x)); }
  double exp_up(double x) { return up(nearest([](double v) { return std::exp(v); }, x)); }
  double log_down(double x) { return down(nearest([](double v) { return std::log(v); }, x)); }
  double log_up(double x) { return up(nearest([](double v) { return std::log(v); }, x)); }
};

using Policies = boost::numeric::interval_lib::policies<
    boost::numeric::interval_lib::save_state<RoundedTranscWidened>,
    boost::numeric::interval_lib::checking_strict<double>>;

}  // namespace interval_detail

using interval_d = boost::numeric::interval<double, interval_detail::Policies>;

/// True when every point of `x` is negative (a certificate of sign).
inline bool certainly_negative(const interval_d& x) { return x.upper() < 0.0; }
/// True when every point of `x` is positive.
inline bool certainly_positive(const interval_d& x) { return x.lower() > 0.0; }

}  // namespace ngvi
