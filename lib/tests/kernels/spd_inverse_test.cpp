#include <gtest/gtest.h>

#include <cmath>
#include <type_traits>
#include <vector>

#include "ngvi/kernels/spd_inverse.hpp"
#include "test_util.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

template <class Scalar>
class SpdInverseTest : public ::testing::Test {};
TYPED_TEST_SUITE(SpdInverseTest, test::Scalars);

// A = Q diag(λ) Qᵀ, so A⁻¹ = Q diag(1/λ) Qᵀ is an independent reference. Orders straddle every
// path: the sweep (double, d ≤ kSpdSweepMaxOrder = 16), the unblocked LDLᵀ route (software
// scalars, d ≤ kSpdInverseLeaf = 32) and the block sweep (double from 17, software scalars from
// 33) with its odd splits and leaves of up to kSpdBlockLeaf = 16 (swept in double, unblocked in
// software scalars); in double also d = 257, 300 and 385, several levels deep, with tiled levels
// whose products go in blocks of rows and inner indices, including blocks of one row (257: −ZY
// over 129 rows; 385: C's panel below its first tile, 129 rows). Condition numbers up to 1e8.
// The strict upper triangle of the input holds garbage, since only the lower one may be read.
TYPED_TEST(SpdInverseTest, MatchesTheSpectralInverseAndIsExactlySymmetric) {
  using Scalar = TypeParam;
  static_assert(detail::kSpdSweepMaxOrder == 16 && detail::kSpdInverseLeaf == 32 && detail::kSpdBlockLeaf == 16,
                "update the orders below");
  std::vector<Index> orders{1, 2, 10, 15, 16, 17, 20, 32, 33, 70};
  if constexpr (std::is_same_v<Scalar, double>) orders.insert(orders.end(), {257, 300, 385});
  for (Index d : orders) {
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
      for (Index j = 1; j < d; ++j)
        for (Index i = 0; i < j; ++i) work(i, j) = Scalar(1e30);
      ASSERT_TRUE(spd_inverse_in_place(work, inv, tmp)) << "d " << d << " kappa " << kappa;
      EXPECT_EQ(inv, inv.transpose());
      // Forward error of an SPD inverse through Cholesky: ‖X − A⁻¹‖/‖A⁻¹‖ ≤ c·d·γ·κ (Higham §14.3);
      // every route, the root-free and block ones included, is held to that budget;
      // the reference's own rounding (Q formed in double, cast exactly) is d·eps(double)·κ.
      const Scalar tol = rounding_budget<Scalar>(d * d, Scalar(kappa)) + Scalar(d) * Scalar(kappa) * eps<double>() * 16;
      const Scalar err = Scalar((inv - ref).norm() / ref.norm());
      EXPECT_TRUE(err <= tol) << "d " << d << " kappa " << kappa << " rel err " << to_double(err);
    }
  }
}

// Each path (sweep, unblocked, block sweep) must see an indefinite trailing block, a NaN on the
// diagonal and a NaN off it; the identity itself must pass, so the test can tell the cases apart.
// The empty matrix is positive definite (no pivots) on every route.
TYPED_TEST(SpdInverseTest, ReportsFailureOnIndefiniteOrNonFiniteInput) {
  using Scalar = TypeParam;
  Mat<Scalar> empty(0, 0), empty_inv(0, 0), empty_tmp(0, 0);
  EXPECT_TRUE(spd_inverse_in_place(empty, empty_inv, empty_tmp));
  for (Index d : {5, 20, 40}) {
    Mat<Scalar> inv(d, d), tmp(d, d);
    Mat<Scalar> ok = Mat<Scalar>::Identity(d, d);
    EXPECT_TRUE(spd_inverse_in_place(ok, inv, tmp)) << "d " << d;
    Mat<Scalar> a = Mat<Scalar>::Identity(d, d);
    a(d - 2, d - 1) = a(d - 1, d - 2) = Scalar(2);  // indefinite 2 x 2 block at the end
    EXPECT_FALSE(spd_inverse_in_place(a, inv, tmp)) << "d " << d;
    Mat<Scalar> b = Mat<Scalar>::Identity(d, d);
    b(3, 3) = std::numeric_limits<Scalar>::quiet_NaN();
    EXPECT_FALSE(spd_inverse_in_place(b, inv, tmp)) << "d " << d;
    Mat<Scalar> c = Mat<Scalar>::Identity(d, d);
    c(d - 1, 1) = c(1, d - 1) = std::numeric_limits<Scalar>::quiet_NaN();
    EXPECT_FALSE(spd_inverse_in_place(c, inv, tmp)) << "d " << d;
  }
}

}}  // namespace
}  // namespace ngvi
