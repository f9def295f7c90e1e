#pragma once
// Shared test utilities: the typed-test scalar list, NaN-safe relative comparisons against named
// budgets, and a helper that asserts an exception's type and message.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "ngvi/data/synthetic.hpp"
#include "ngvi/scalar/budget.hpp"
#include "ngvi/scalar/traits.hpp"

namespace ngvi::test {

using Scalars = ::testing::Types<double, mp50>;

/// NaN-safe relative comparison: passes iff err = |a − b| / max(|b|, floor) is finite and ≤ tol.
template <class Scalar>
::testing::AssertionResult rel_close(const Scalar& a, const Scalar& b, const Scalar& tol, const Scalar& floor = Scalar(1)) {
  using std::abs;
  using std::max;
  const Scalar err = abs(a - b) / max(abs(b), floor);
  if (err == err && err <= tol) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "relative error " << to_double(err) << " (" << to_double(Scalar(err / eps<Scalar>()))
                                       << " eps) exceeds " << to_double(tol) << "; a=" << to_double(a)
                                       << " b=" << to_double(b);
}

/// Matrix version (Frobenius norms).
template <class Scalar>
::testing::AssertionResult mat_rel_close(const Mat<Scalar>& a, const Mat<Scalar>& b, const Scalar& tol) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return ::testing::AssertionFailure() << "size mismatch";
  const Scalar err = (a - b).norm() / (b.norm() > Scalar(0) ? Scalar(b.norm()) : Scalar(1));
  if (err == err && err <= tol) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "relative error " << to_double(err) << " (" << to_double(Scalar(err / eps<Scalar>()))
                                       << " eps) exceeds " << to_double(tol);
}

/// Asserts that `f` throws exactly `E` and that its message contains every fragment.
template <class E>
::testing::AssertionResult throws_with(const std::function<void()>& f, std::initializer_list<std::string> fragments) {
  try {
    f();
  } catch (const E& e) {
    const std::string msg = e.what();
    for (const auto& frag : fragments)
      if (msg.find(frag) == std::string::npos)
        return ::testing::AssertionFailure() << "message '" << msg << "' lacks '" << frag << "'";
    return ::testing::AssertionSuccess();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "threw another type: " << e.what();
  }
  return ::testing::AssertionFailure() << "did not throw";
}

}  // namespace ngvi::test
