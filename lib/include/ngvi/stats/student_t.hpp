#pragma once
/// @file
/// Student-t confidence statements about a mean from independent replicates: the quantiles
/// t_{ν,p}, the two-sided t-interval of a mean and the one-sided t confidence bound that the
/// Monte Carlo claims use as their verdict (an upper bound on E X to compare with a right-hand
/// side, or a lower bound for a control that must exceed it).
#include <boost/math/distributions/students_t.hpp>
#include <string>
#include <vector>

#include "ngvi/linalg/validate.hpp"

namespace ngvi::stats {

/// The Student-t quantile t_{ν,p}: P(T_ν ≤ t_{ν,p}) = p.
/// @throws std::domain_error unless ν ≥ 1 and p ∈ (0, 1).
template <class Scalar>
Scalar student_t_quantile(long nu, const Scalar& p) {
  constexpr const char* f = "ngvi::stats::student_t_quantile";
  if (nu < 1) throw_domain(f, "nu", "must be at least 1");
  if (!(p > Scalar(0) && p < Scalar(1))) throw_domain(f, "p", "must lie in (0, 1)");
  const boost::math::students_t_distribution<Scalar> t(static_cast<Scalar>(nu));
  return boost::math::quantile(t, p);
}

/// Two-sided Student-t quantile t_{ν, (1+c)/2}.
/// @throws std::domain_error unless ν ≥ 1 and c ∈ (0, 1).
template <class Scalar>
Scalar student_t_two_sided(long nu, const Scalar& confidence) {
  constexpr const char* f = "ngvi::stats::student_t_two_sided";
  if (nu < 1) throw_domain(f, "nu", "must be at least 1");
  if (!(confidence > Scalar(0) && confidence < Scalar(1))) throw_domain(f, "confidence", "must lie in (0, 1)");
  return student_t_quantile<Scalar>(nu, (Scalar(1) + confidence) / 2);
}

/// Sample mean and standard error sd/√k of k values, in one place for every t statement.
template <class Scalar>
struct MeanAndError {
  Scalar mean{};
  Scalar std_error{};  ///< sample standard deviation / √k
  long count = 0;
};

/// \f[ \bar x = \frac1k\sum_i x_i,\qquad \mathrm{se} = \sqrt{\frac{\sum_i (x_i - \bar x)^2}{(k-1)\,k}}. \f]
/// @throws std::domain_error naming `arg` (in `func`) if k < 2 or an entry is not finite.
template <class Scalar>
MeanAndError<Scalar> mean_and_error(const std::vector<Scalar>& values, const char* func = "ngvi::stats::mean_and_error",
                                    const char* arg = "values") {
  using std::sqrt;
  const long k = static_cast<long>(values.size());
  if (k < 2) throw_domain(func, arg, "needs at least 2 replicates (got " + std::to_string(k) + ")");
  Scalar m(0);
  for (const auto& s : values) {
    if (!is_finite_scalar(s)) throw_domain(func, arg, "has a non-finite entry");
    m += s;
  }
  m /= k;
  Scalar ss(0);
  for (const auto& s : values) ss += (s - m) * (s - m);
  return {m, sqrt(ss / Scalar(k - 1) / Scalar(k)), k};
}

/// Which side of the mean a one-sided bound is on.
enum class Side { kUpper, kLower };

/// The one-sided level-c Student-t confidence bound on E X from k i.i.d. replicates:
/// \f[ \bar x \pm t_{k-1,c}\,\frac{\mathrm{sd}(x)}{\sqrt k} \f]
/// (+ for Side::kUpper, − for Side::kLower). Exact for normal X; for other laws with finite
/// variance the coverage tends to c as k grows (the claims state how they justify it).
/// @throws std::domain_error naming 'values' (fewer than 2 or a non-finite entry) or 'confidence'
///         (outside (0, 1)).
template <class Scalar>
Scalar t_confidence_bound(const std::vector<Scalar>& values, const Scalar& confidence, Side side = Side::kUpper) {
  constexpr const char* f = "ngvi::stats::t_confidence_bound";
  if (!(confidence > Scalar(0) && confidence < Scalar(1))) throw_domain(f, "confidence", "must lie in (0, 1)");
  const auto me = mean_and_error(values, f);
  const Scalar half = student_t_quantile<Scalar>(me.count - 1, confidence) * me.std_error;
  return side == Side::kUpper ? Scalar(me.mean + half) : Scalar(me.mean - half);
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
  const auto me = mean_and_error(values, "ngvi::stats::mean_interval");
  MeanInterval<Scalar> r;
  r.mean = me.mean;
  r.std_error = me.std_error;
  const Scalar t = student_t_two_sided<Scalar>(me.count - 1, confidence);
  r.ci_low = r.mean - t * r.std_error;
  r.ci_high = r.mean + t * r.std_error;
  r.confidence = confidence;
  r.count = me.count;
  return r;
}

}  // namespace ngvi::stats
