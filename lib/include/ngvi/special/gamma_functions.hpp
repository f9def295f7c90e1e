#pragma once
/// @file
/// ψ (digamma), ψ' (trigamma) and log Γ at the scalar's own precision, the one place the kit calls
/// Boost.Math's gamma-family functions (the Dirichlet family, online LDA, the GMM of svi).
///
/// Boost's default policy evaluates a double argument in long double (promote_double); with
/// promotion off it uses its 53-bit approximations directly, as scikit-learn's digamma is in
/// double. For double the functions below use that policy: the result differs from the promoted
/// one in the last bits only (bench/README.md, "Online LDA", has the measured error against a
/// 50-digit ψ and the speed; the unit test bounds it against mp50). For every other scalar
/// (mp50, mp100, mpfr types) the policy has no effect and Boost's default is used.
#include <type_traits>

#include <boost/math/policies/policy.hpp>
#include <boost/math/special_functions/digamma.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <boost/math/special_functions/trigamma.hpp>

namespace ngvi::special {

/// Boost policy: no promotion of double to long double.
using NoPromoteDouble = boost::math::policies::policy<boost::math::policies::promote_double<false>>;

#ifdef NGVI_EXTERN_TEMPLATES
// In-tree builds compile the double functions once (lib/src/special_instantiations.cpp, in ngvi_hot_loop), so
// that every translation unit gets the same bits whatever its optimisation level: Boost's
// approximations are polynomials whose multiply-adds the compiler fuses at -O3 and not at -O1 (the
// checking code's level), which made ψ of one argument differ in its last bit between the library's
// E-step and a claim or test calling the same function.
double digamma_double(double x);
double trigamma_double(double x);
double lgamma_double(double x);
#endif

/// ψ(x) = Γ'(x)/Γ(x). Boost's errors (poles at x = 0, −1, ...) are reported as Boost reports them.
template <class Scalar>
Scalar digamma(const Scalar& x) {
  if constexpr (std::is_same_v<Scalar, double>) {
#ifdef NGVI_EXTERN_TEMPLATES
    return digamma_double(x);
#else
    return boost::math::digamma(x, NoPromoteDouble());
#endif
  } else {
    return Scalar(boost::math::digamma(x));
  }
}

/// ψ'(x), the trigamma function.
template <class Scalar>
Scalar trigamma(const Scalar& x) {
  if constexpr (std::is_same_v<Scalar, double>) {
#ifdef NGVI_EXTERN_TEMPLATES
    return trigamma_double(x);
#else
    return boost::math::trigamma(x, NoPromoteDouble());
#endif
  } else {
    return Scalar(boost::math::trigamma(x));
  }
}

/// log |Γ(x)|.
template <class Scalar>
Scalar lgamma(const Scalar& x) {
  if constexpr (std::is_same_v<Scalar, double>) {
#ifdef NGVI_EXTERN_TEMPLATES
    return lgamma_double(x);
#else
    return boost::math::lgamma(x, NoPromoteDouble());
#endif
  } else {
    return Scalar(boost::math::lgamma(x));
  }
}

}  // namespace ngvi::special
