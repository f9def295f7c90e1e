#pragma once
/// @file
/// Fitted convergence rates: an ordinary least-squares line through (log x_i, log y_i) over a
/// stated window, with its standard error and a Student-t interval (stats/student_t.hpp has the
/// t-interval of a mean over independent replicates, e.g. one slope per seed).
///
/// A trajectory's points are serially correlated, so the regression interval of one curve is a
/// descriptive measure of how straight the curve is on the window, not a sampling interval; the
/// across-replicate interval (`mean_interval` of per-seed slopes) is the one with a sampling
/// meaning, since the seeds are independent.
#include <vector>

#include "ngvi/linalg/validate.hpp"
#include "ngvi/stats/student_t.hpp"

namespace ngvi::stats {

template <class Scalar>
struct LogLogFit {
  Scalar slope{};       ///< b in log y = a + b log x
  Scalar intercept{};   ///< a
  Scalar std_error{};   ///< standard error of b
  Scalar ci_low{};      ///< b − t·se
  Scalar ci_high{};     ///< b + t·se
  Scalar confidence{};  ///< two-sided level of [ci_low, ci_high]
  Scalar x_from{};      ///< the window actually used: smallest and largest x that entered the fit
  Scalar x_to{};
  long points = 0;      ///< number of points in the window
};

/// Least squares on u_i = log x_i, v_i = log y_i for the points with x_from ≤ x_i ≤ x_to:
/// \f[ b = \frac{S_{uv}}{S_{uu}},\quad a = \bar v - b\,\bar u,\quad
///     s^2 = \frac{\sum_i (v_i - a - b u_i)^2}{n-2},\quad \mathrm{se}(b) = \sqrt{s^2/S_{uu}},\f]
/// and the interval b ± t_{n−2,(1+c)/2} se(b) (Draper & Smith 1998, §3.2).
/// @pre x and y have the same length; every x_i and y_i in the window is finite and positive; the
///      window holds at least 3 points with at least two distinct x.
/// @throws std::invalid_argument if the lengths differ; std::domain_error naming the argument
///         otherwise (too few points, a non-positive or non-finite value, a bad window or level).
template <class Scalar>
LogLogFit<Scalar> fit_loglog(const std::vector<Scalar>& x, const std::vector<Scalar>& y, const Scalar& x_from,
                             const Scalar& x_to, const Scalar& confidence = Scalar(19) / 20) {
  using std::log;
  using std::sqrt;
  constexpr const char* f = "ngvi::stats::fit_loglog";
  if (x.size() != y.size()) throw_size(f, "y", "has a different length from 'x'");
  if (!(x_from > Scalar(0)) || !(x_to >= x_from) || !is_finite_scalar(x_to))
    throw_domain(f, "x_from", "must satisfy 0 < x_from <= x_to < inf");
  std::vector<Scalar> u, v;
  Scalar lo = x_to, hi = x_from;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!(x[i] >= x_from && x[i] <= x_to)) continue;
    if (x[i] < lo) lo = x[i];
    if (x[i] > hi) hi = x[i];
    if (!(y[i] > Scalar(0)) || !is_finite_scalar(y[i]))
      throw_domain(f, "y", "has a non-positive or non-finite value at index " + std::to_string(i) + " inside the window");
    u.push_back(log(x[i]));
    v.push_back(log(y[i]));
  }
  const long n = static_cast<long>(u.size());
  if (n < 3) throw_domain(f, "x", "has " + std::to_string(n) + " point(s) in the window; at least 3 are needed");
  Scalar ubar(0), vbar(0);
  for (long i = 0; i < n; ++i) {
    ubar += u[i];
    vbar += v[i];
  }
  ubar /= n;
  vbar /= n;
  Scalar suu(0), suv(0);
  for (long i = 0; i < n; ++i) {
    suu += (u[i] - ubar) * (u[i] - ubar);
    suv += (u[i] - ubar) * (v[i] - vbar);
  }
  if (!(suu > Scalar(0))) throw_domain(f, "x", "has fewer than two distinct values in the window");
  LogLogFit<Scalar> r;
  r.slope = suv / suu;
  r.intercept = vbar - r.slope * ubar;
  Scalar rss(0);
  for (long i = 0; i < n; ++i) {
    const Scalar e = v[i] - r.intercept - r.slope * u[i];
    rss += e * e;
  }
  r.std_error = sqrt(rss / Scalar(n - 2) / suu);
  const Scalar t = student_t_two_sided<Scalar>(n - 2, confidence);
  r.ci_low = r.slope - t * r.std_error;
  r.ci_high = r.slope + t * r.std_error;
  r.confidence = confidence;
  r.points = n;
  r.x_from = lo;
  r.x_to = hi;
  return r;
}

}  // namespace ngvi::stats
