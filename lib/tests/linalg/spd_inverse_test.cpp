#include <gtest/gtest.h>

#include <cmath>

#include "ngvi/linalg/spd_inverse.hpp"
#include "test_util.hpp"

namespace ngvi {
namespace {

template <class Scalar>
class SpdInverseTest : public ::testing::Test {};
TYPED_TEST_SUITE(SpdInverseTest, test::Scalars);

// A = Q diag(λ) Qᵀ, so A⁻¹ = Q diag(1/λ) Qᵀ is an independent reference. Orders straddle the
// recursion's leaf (16) and its odd splits; condition numbers up to 1e8.
TYPED_TEST(SpdInverseTest, MatchesTheSpectralInverseAndIsExactlySymmetric) {
  using Scalar = TypeParam;
  for (Index d : {1, 2, 15, 16, 17, 33, 70}) {
    for (double kappa : {1.0, 1e4, 1e8}) {
      data::Rng rng(static_cast<std::uint64_t>(7 + d));
      const Mat<Scalar> q = data::cast_matrix<Scalar>(data::random_orthogonal(d, rng));
      Vec<Scalar> lambda(d), inv_lambda(d);
      for (Index i = 0; i < d; ++i) {
        lambda(i) = Scalar(d == 1 ? 1.0 : std::pow(kappa, double(i) / double(d - 1)));
        inv_lambda(i) = Scalar(1) / lambda(i);
      }
      const Mat<Scalar> a = symmetrise(Mat<Scalar>(q * lambda.asDiagonal() * q.transpose()));
      const Mat<Scalar> ref = symmetrise(Mat<Scalar>(q * inv_lambda.asDiagonal() * q.transpose()));
      Mat<Scalar> work = a, inv(d, d), tmp(d, d);
      ASSERT_TRUE(spd_inverse_in_place(work, inv, tmp)) << "d " << d << " kappa " << kappa;
      EXPECT_EQ(inv, inv.transpose());
      // Forward error of an SPD inverse through Cholesky: ‖X − A⁻¹‖/‖A⁻¹‖ ≤ c·d·γ·κ (Higham §14.3);
      // the reference's own rounding (Q formed in double, cast exactly) is d·eps(double)·κ.
      const Scalar tol = rounding_budget<Scalar>(d * d, Scalar(kappa)) + Scalar(d) * Scalar(kappa) * eps<double>() * 16;
      const Scalar err = Scalar((inv - ref).norm() / ref.norm());
      EXPECT_TRUE(err <= tol) << "d " << d << " kappa " << kappa << " rel err " << to_double(err);
    }
  }
}

TYPED_TEST(SpdInverseTest, ReportsFailureOnIndefiniteOrNonFiniteInput) {
  using Scalar = TypeParam;
  const Index d = 20;
  Mat<Scalar> a = Mat<Scalar>::Identity(d, d), inv(d, d), tmp(d, d);
  a(17, 18) = a(18, 17) = Scalar(2);  // indefinite block in the recursion's second half
  EXPECT_FALSE(spd_inverse_in_place(a, inv, tmp));
  Mat<Scalar> b = Mat<Scalar>::Identity(d, d);
  b(3, 3) = std::numeric_limits<Scalar>::quiet_NaN();
  EXPECT_FALSE(spd_inverse_in_place(b, inv, tmp));
}

}  // namespace
}  // namespace ngvi
