#pragma once
/// @file
/// Fitted convergence rates for the report: an ordinary least-squares line through
/// (log x_i, log y_i) over a stated window, with its standard error and a Student-t interval, and
/// the t-interval of a mean over independent replicates (e.g. one slope per seed).
///
/// A trajectory's points are serially correlated, so the regression interval of one curve is a
/// descriptive measure of how straight the curve is on the window, not a sampling interval; the
/// across-replicate interval (`mean_interval` of per-seed slopes) is the one with a sampling
/// meaning, since the seeds are independent.
#include <boost/math/distributions/students_t.hpp>
#include <vector>

#include "ngvi/linalg/validate.hpp"

namespace ngvi::report {

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

/// Two-sided Student-t quantile t_{ν, (1+c)/2}.
/// @throws std::domain_error unless ν ≥ 1 and c ∈ (0, 1).
template <class Scalar>
Scalar student_t_two_sided(long nu, const Scalar& confidence) {
  constexpr const char* f = "ngvi::report::student_t_two_sided";
  if (nu < 1) throw_domain(f, "nu", "must be at least 1");
  if (!(confidence > Scalar(0) && confidence < Scalar(1))) throw_domain(f, "confidence", "must lie in (0, 1)");
  const boost::math::students_t_distribution<Scalar> t(static_cast<Scalar>(nu));
  return boost::math::quantile(t, (Scalar(1) + confidence) / 2);
}

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
  constexpr const char* f = "ngvi::report::fit_loglog";
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

template <class Scalar>
struct MeanInterval {
  Scalar mean{};
  Scalar std_error{};  ///< sample standard deviation / √k
  Scalar ci_low{};
  Scalar ci_high{};
  Scalar confidence{};
  long count = 0;
};

/// The t-interval of a mean over k independent replicates:
/// \f[ \bar s \pm t_{k-1,(1+c)/2}\,\frac{\mathrm{sd}(s)}{\sqrt k}. \f]
/// @pre at least 2 finite values.
/// @throws std::domain_error naming 'values' otherwise.
template <class Scalar>
MeanInterval<Scalar> mean_interval(const std::vector<Scalar>& values, const Scalar& confidence = Scalar(19) / 20) {
  using std::sqrt;
  constexpr const char* f = "ngvi::report::mean_interval";
  const long k = static_cast<long>(values.size());
  if (k < 2) throw_domain(f, "values", "needs at least 2 replicates");
  Scalar m(0);
  for (const auto& s : values) {
    if (!is_finite_scalar(s)) throw_domain(f, "values", "has a non-finite entry");
    m += s;
  }
  m /= k;
  Scalar ss(0);
  for (const auto& s : values) ss += (s - m) * (s - m);
  MeanInterval<Scalar> r;
  r.mean = m;
  r.std_error = sqrt(ss / Scalar(k - 1) / Scalar(k));
  const Scalar t = student_t_two_sided<Scalar>(k - 1, confidence);
  r.ci_low = m - t * r.std_error;
  r.ci_high = m + t * r.std_error;
  r.confidence = confidence;
  r.count = k;
  return r;
}

}  // namespace ngvi::report
