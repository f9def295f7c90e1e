#pragma once
/// @file
/// Shared by the vpng.* claims (docs/systems.md D): the bivariate instance of D.3 with its closed
/// forms written out independently of the library (Σ⁻¹ by the 2 × 2 adjugate, the eigenvalues of
/// Σ⁻¹ as 1/ε and 1/(2 − ε)), VPNG's parts under test (vpng_parts_for), and the claim bodies, which
/// the mutant test (tests/vpng_mutants_test.cpp) runs with each registered VPNG mutant's variant.
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "ngvi/claims/check_util.hpp"
#include "ngvi/estimators/predictive_fisher.hpp"
#include "ngvi/models/vpng_models.hpp"
#include "ngvi/optim/steppers/preconditioned.hpp"
#include "ngvi/random/stream.hpp"

namespace ngvi::claims::vpng {

/// The instance of the issue: ε = 1/100, N = 100, σ0 = 10.
template <class Scalar>
struct Bivariate {
  Scalar eps = Scalar(1) / 100;
  Index n = 100;
  Scalar sigma0 = Scalar(10);
};

/// The model of the instance; its data from stream (seed, 29).
template <class Scalar>
GaussianMeanModel<Scalar> make_model(const Bivariate<Scalar>& b, std::uint64_t seed) {
  random::Stream rng(seed, 29);
  return bivariate_example<Scalar>(b.eps, b.n, b.sigma0, rng);
}

/// Σ⁻¹ = adj(Σ)/det Σ = [[1, −(1 − ε)], [−(1 − ε), 1]] / (ε(2 − ε)).
template <class Scalar>
Mat<Scalar> precision_closed_form(const Scalar& e) {
  const Scalar det = e * (Scalar(2) - e);
  Mat<Scalar> p(2, 2);
  p << Scalar(1) / det, -(Scalar(1) - e) / det, -(Scalar(1) - e) / det, Scalar(1) / det;
  return p;
}

/// The data mean, summed here (not by the model).
template <class Scalar>
Vec<Scalar> data_mean(const Bivariate<Scalar>& b, std::uint64_t seed) {
  random::Stream again(seed, 29);  // the draws of bivariate_example, in its order
  Vec<Scalar> s = Vec<Scalar>::Zero(2);
  const double l21 = 1 - static_cast<double>(b.eps), l22 = std::sqrt(1 - l21 * l21);
  for (Index k = 0; k < b.n; ++k) {
    const double u1 = again.normal(), u2 = again.normal();
    s(0) += Scalar(1 + u1);
    s(1) += Scalar(0.5 + l21 * u1 + l22 * u2);
  }
  return s / Scalar(b.n);
}

/// μ* = (NΣ⁻¹ + σ0⁻² I)⁻¹ NΣ⁻¹ x̄ by Cramer's rule on the closed-form Σ⁻¹.
template <class Scalar>
Vec<Scalar> mu_star_closed_form(const Bivariate<Scalar>& b, const Vec<Scalar>& xbar) {
  const Mat<Scalar> p = precision_closed_form(b.eps);
  const Scalar nn(b.n), t = Scalar(1) / (b.sigma0 * b.sigma0);
  const Vec<Scalar> rhs = nn * (p * xbar);
  const Scalar a = nn * p(0, 0) + t, c = nn * p(0, 1), d = nn * p(1, 1) + t;
  const Scalar det = a * d - c * c;
  Vec<Scalar> mu(2);
  mu << (d * rhs(0) - c * rhs(1)) / det, (a * rhs(1) - c * rhs(0)) / det;
  return mu;
}

/// Eigenvalues of the μ-Hessian NΣ⁻¹ + σ0⁻² I: L = N/ε + σ0⁻², m = N/(2 − ε) + σ0⁻².
template <class Scalar>
std::pair<Scalar, Scalar> hessian_extremes(const Bivariate<Scalar>& b) {
  const Scalar t = Scalar(1) / (b.sigma0 * b.sigma0);
  return {Scalar(b.n) / b.eps + t, Scalar(b.n) / (Scalar(2) - b.eps) + t};
}

inline std::string fmt(double x) {
  std::ostringstream s;
  s.precision(6);
  s << x;
  return s.str();
}

/// VPNG's parts a claim runs: those the context's variant files under kPartSystemVpng for Scalar (a
/// mutant of vpng_mutants.cpp replaces one), else the library's (empty).
template <class Scalar>
VpngParts<Scalar> vpng_parts_for(const RunContext& ctx) {
  const auto* p = system_parts_for<VpngParts<Scalar>>(ctx.variant(), kPartSystemVpng);
  return p != nullptr ? *p : VpngParts<Scalar>{};
}

// The claim bodies (defined in vpng_<claim>.cpp), run by the registered claims and by the mutant
// test with the context's variant (each reads VPNG's parts through vpng_parts_for).
std::vector<ClaimRecord> fr_closed_form_records(const RunContext& ctx);
std::vector<ClaimRecord> one_step_records(const RunContext& ctx);
std::vector<ClaimRecord> logistic_auc_records(const RunContext& ctx);

}  // namespace ngvi::claims::vpng
