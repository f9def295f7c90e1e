#pragma once
/// @file
/// Named rounding budgets. A tolerance in ngvikit is never a decimal literal: it is one of these
/// functions of the scalar's unit roundoff, an operation count and a condition number.
#include <stdexcept>

#include "ngvi/scalar/traits.hpp"

namespace ngvi {

/// Higham (2002), Lemma 3.1: the relative error of n chained roundings is at most
/// \f[ \gamma_n = \frac{n u}{1 - n u}, \qquad n u < 1. \f]
/// @throws std::domain_error if n u >= 1 (the bound no longer holds).
template <class Scalar>
Scalar gamma_n(long n) {
  const Scalar nu = Scalar(n) * unit_roundoff<Scalar>();
  if (!(nu < Scalar(1))) throw std::domain_error("ngvi::gamma_n: argument 'n' makes n*u >= 1");
  return nu / (Scalar(1) - nu);
}

/// Safety factor on Higham's worst-case constants: the analyses behind each budget bound the
/// leading-order term and treat the constant of the O(u^2) remainder and of library routines
/// (LLT, triangular solves, log) as 1; a factor of 4 covers these with room to spare while
/// remaining far below the O(1)-relative errors that every negative control produces.
inline constexpr int kBudgetSafety = 4;

/// Budget for a relative error after `ops` dependent roundings on data of condition number `cond`:
/// \f[ \text{budget} = k_{\text{safety}}\,\gamma_{\text{ops}}\,\kappa. \f]
/// Higham (2002) Thm 3.5 (|fl(AB) - AB| <= γ_k |A||B|) and Thm 10.3 (Cholesky backward error
/// γ_{d+1}) give the operation counts used by callers; the forward error of a solve or inverse
/// carries the condition number κ.
template <class Scalar>
Scalar rounding_budget(long ops, const Scalar& cond = Scalar(1)) {
  if (ops < 1) throw std::domain_error("ngvi::rounding_budget: argument 'ops' must be >= 1");
  if (!(cond >= Scalar(1))) throw std::domain_error("ngvi::rounding_budget: argument 'cond' must be >= 1");
  return Scalar(kBudgetSafety) * gamma_n<Scalar>(ops) * cond;
}

}  // namespace ngvi
