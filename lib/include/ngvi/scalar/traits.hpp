#pragma once
/// @file
/// Precision traits: machine epsilon, digits and a printable name for each scalar type.
#include <limits>
#include <string>

#include "ngvi/scalar/types.hpp"

namespace ngvi {

/// Machine epsilon of `Scalar`: the gap between 1 and the next representable value.
/// @tparam Scalar a floating-point or Boost.Multiprecision type.
template <class Scalar>
Scalar eps() {
  static_assert(std::numeric_limits<Scalar>::is_specialized, "eps<Scalar>: numeric_limits not specialised");
  return std::numeric_limits<Scalar>::epsilon();
}

/// Unit roundoff u = eps/2 (Higham 2002, §2.1).
template <class Scalar>
Scalar unit_roundoff() {
  return eps<Scalar>() / 2;
}

/// Decimal digits carried by `Scalar`.
template <class Scalar>
int digits10() {
  return std::numeric_limits<Scalar>::digits10;
}

/// A short name for records and tables ("double", "long double", "mp50", "mp100").
template <class Scalar>
std::string scalar_name();
template <>
inline std::string scalar_name<double>() { return "double"; }
template <>
inline std::string scalar_name<long double>() { return "long double"; }
template <>
inline std::string scalar_name<mp50>() { return "mp50"; }
template <>
inline std::string scalar_name<mp100>() { return "mp100"; }

/// Converts any scalar to double for reporting (never used inside a computation).
template <class Scalar>
double to_double(const Scalar& x) {
  return static_cast<double>(x);
}

}  // namespace ngvi
