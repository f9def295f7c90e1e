#pragma once
/// @file
/// The scalar types of ngvikit. Every routine of the library is a template on `Scalar` and is
/// instantiated with these:
///   - `double`, `long double`: hardware floating point;
///   - `mp50`: 50 decimal digits, `cpp_bin_float<50>` (header-only, expression templates off so
///     that `auto` and Eigen expressions are safe);
///   - `mp100`: 100 decimal digits, used only for references that must be more precise than mp50;
///   - `mpfr50` and `mpfi50` (MPFR/MPFI back ends) are named in `scalar/mpfr_types.hpp`, and the
///     rigorous `interval_d` in `scalar/interval.hpp`: they pull in heavier headers and libraries,
///     so only the translation units that use them include them.
#include <boost/multiprecision/cpp_bin_float.hpp>
#include <boost/multiprecision/eigen.hpp>
#include <Eigen/Core>

namespace ngvi {

using mp50 = boost::multiprecision::number<boost::multiprecision::cpp_bin_float<50>,
                                           boost::multiprecision::et_off>;
using mp100 = boost::multiprecision::number<boost::multiprecision::cpp_bin_float<100>,
                                            boost::multiprecision::et_off>;

/// Dense column vector and matrix of a scalar type.
template <class Scalar>
using Vec = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;
template <class Scalar>
using Mat = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;
using Index = Eigen::Index;

}  // namespace ngvi
