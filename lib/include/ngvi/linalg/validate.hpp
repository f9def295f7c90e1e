#pragma once
/// @file
/// Input validation shared by every public entry point. Each check throws `std::domain_error`
/// (or `std::invalid_argument` for size mismatches) with the message
/// `"<function>: argument '<name>' <violated condition>"`.
#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

#include "ngvi/scalar/budget.hpp"
#include "ngvi/scalar/types.hpp"

namespace ngvi {

/// Formats the house error message.
inline std::string arg_error(std::string_view func, std::string_view arg, std::string_view condition) {
  std::string s;
  s.reserve(func.size() + arg.size() + condition.size() + 16);
  s.append(func).append(": argument '").append(arg).append("' ").append(condition);
  return s;
}

[[noreturn]] inline void throw_domain(std::string_view func, std::string_view arg, std::string_view condition) {
  throw std::domain_error(arg_error(func, arg, condition));
}

[[noreturn]] inline void throw_size(std::string_view func, std::string_view arg, std::string_view condition) {
  throw std::invalid_argument(arg_error(func, arg, condition));
}

/// Finite test that works for every scalar type (NaN fails x == x, ±inf fails the range test).
template <class Scalar>
bool is_finite_scalar(const Scalar& x) {
  using std::abs;
  return x == x && abs(x) <= std::numeric_limits<Scalar>::max();
}

template <class Scalar>
void require_finite_scalar(const Scalar& x, std::string_view func, std::string_view arg) {
  if (!is_finite_scalar(x)) throw_domain(func, arg, "is not finite");
}

/// True when x is a positive, finite pivot of a factorisation.
template <class Scalar>
bool is_positive_pivot(const Scalar& x) {
  return x > Scalar(0) && is_finite_scalar(x);
}

/// True when every entry of `a` is finite. For hardware floating point, one vectorised pass: the
/// sum of x − x over the entries, which is 0 exactly when every entry is finite (x − x is +0 for
/// finite x and NaN for ±∞ and NaN). The entry-by-entry loop (and Eigen's allFinite, whose all() is
/// not vectorised) made checking a design matrix a large part of a logistic log-likelihood
/// evaluation (bench/README.md has the measurement). Other scalar types (intervals, for which x − x
/// need not be 0) go entry by entry.
template <class Derived>
bool all_finite(const Eigen::MatrixBase<Derived>& a) {
  using Scalar = typename Derived::Scalar;
  if constexpr (std::is_floating_point_v<Scalar>) {
    return a.size() == 0 || (a.array() - a.array()).sum() == Scalar(0);
  } else {
    for (Index j = 0; j < a.cols(); ++j)
      for (Index i = 0; i < a.rows(); ++i)
        if (!is_finite_scalar(a(i, j))) return false;
    return true;
  }
}

/// Throws naming `arg` and the first non-finite entry (column by column) if `a` has one; the
/// entries are visited one by one only after all_finite has failed, to name the failing one.
template <class Derived>
void require_finite(const Eigen::MatrixBase<Derived>& a, std::string_view func, std::string_view arg) {
  if (all_finite(a)) return;
  for (Index j = 0; j < a.cols(); ++j)
    for (Index i = 0; i < a.rows(); ++i)
      if (!is_finite_scalar(a(i, j)))
        throw_domain(func, arg, "has a non-finite entry at (" + std::to_string(i) + ", " + std::to_string(j) + ")");
}

template <class Derived>
void require_square(const Eigen::MatrixBase<Derived>& a, std::string_view func, std::string_view arg) {
  if (a.rows() != a.cols())
    throw_size(func, arg, "is not square (" + std::to_string(a.rows()) + " x " + std::to_string(a.cols()) + ")");
}

template <class Derived>
void require_rows(const Eigen::MatrixBase<Derived>& a, Index n, std::string_view func, std::string_view arg) {
  if (a.rows() != n)
    throw_size(func, arg, "has " + std::to_string(a.rows()) + " rows, expected " + std::to_string(n));
}

inline void require_positive_dim(Index d, std::string_view func, std::string_view arg) {
  if (d < 1) throw_size(func, arg, "has dimension 0");
}

/// Symmetry up to a rounding budget relative to the largest entry:
/// max|A - Aᵀ| <= rounding_budget(d) · max|A|. Matrices the library produces are exactly symmetric;
/// the budget admits user input computed in floating point by another route.
template <class Derived>
void require_symmetric(const Eigen::MatrixBase<Derived>& a, std::string_view func, std::string_view arg) {
  using Scalar = typename Derived::Scalar;
  require_square(a, func, arg);
  const Scalar scale = a.cwiseAbs().maxCoeff();
  const Scalar asym = (a - a.transpose()).cwiseAbs().maxCoeff();
  if (!(asym <= rounding_budget<Scalar>(a.rows() + 1) * scale)) throw_domain(func, arg, "is not symmetric");
}

/// In place: copies the lower triangle of the square matrix `a` (a matrix, or a square block of
/// one) onto its upper one, so that a routine that formed only the lower triangle returns an exactly
/// symmetric matrix (no allocation). It goes by tiles of 32 × 32, so that the row it reads stays in
/// cache across a tile's columns, where the plain column loop reads each row once per column
/// (bench/README.md has the measurement at d = 500).
template <class Matrix>
void copy_lower_to_upper(Matrix&& a) {
  constexpr Index kTile = 32;
  const Index n = a.cols();
  for (Index jb = 0; jb < n; jb += kTile) {
    const Index je = std::min(jb + kTile, n);
    for (Index ib = 0; ib <= jb; ib += kTile)
      for (Index j = jb; j < je; ++j) {
        const Index ie = std::min(ib + kTile, j);
        for (Index i = ib; i < ie; ++i) a(i, j) = a(j, i);
      }
  }
}

/// In place: A ← (A + Aᵀ)/2 for a square matrix, entry for entry the value symmetrise() returns
/// (each pair summed once, then halved), without its temporaries.
template <class Scalar>
void symmetrise_in_place(Mat<Scalar>& a) {
  const Index n = a.cols();
  for (Index j = 0; j < n; ++j) {
    a(j, j) = (a(j, j) + a(j, j)) * Scalar(0.5);
    for (Index i = j + 1; i < n; ++i) a(i, j) = a(j, i) = (a(i, j) + a(j, i)) * Scalar(0.5);
  }
}

/// Returns (A + Aᵀ)/2, exactly symmetric.
template <class Derived>
Mat<typename Derived::Scalar> symmetrise(const Eigen::MatrixBase<Derived>& a) {
  using Scalar = typename Derived::Scalar;
  Mat<Scalar> s = (a + a.transpose()).eval();
  s *= Scalar(0.5);
  return s;
}

}  // namespace ngvi
