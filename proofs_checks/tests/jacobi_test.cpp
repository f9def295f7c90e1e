// The claims' cyclic Jacobi eigen-decomposition (lsk_common.hpp) in mp100, against references it does
// not compute: the 2x2 closed form, the trace and the determinant (sum and product of the eigenvalues,
// the determinant by Eigen's LU), and the residual and orthogonality of the decomposition.
#include <gtest/gtest.h>

#include <Eigen/LU>

#include "lsk_common.hpp"
#include "ngvi/data/synthetic.hpp"

namespace ngvi::claims {
namespace { namespace NGVI_UNITY_ID {

TEST(JacobiEigen, InverseSquareRootToWorkingPrecision) {
  for (const char* x : {"2", "0.375", "1e-300", "7.5e280", "3"}) {
    const mp100 v(x);
    const mp100 r = detail::inv_sqrt(v);
    // r²·v = 1 within a few units of mp100's epsilon (the Newton steps' rounding).
    EXPECT_LT(abs(r * r * v - 1), 16 * eps<mp100>()) << x;
  }
  EXPECT_EQ(detail::inv_sqrt(4.0), 0.5);
}

TEST(JacobiEigen, TwoByTwoClosedForm) {
  Mat<mp100> a(2, 2);
  a << mp100(3), mp100(1) / 3, mp100(1) / 3, mp100(-2);
  // λ = (a + d)/2 ± √(((a − d)/2)² + b²)
  const mp100 mid = (a(0, 0) + a(1, 1)) / 2, rad = sqrt(pow((a(0, 0) - a(1, 1)) / 2, 2) + a(0, 1) * a(0, 1));
  Vec<mp100> lam = jacobi_eigenvalues<mp100>(a);
  if (lam(0) > lam(1)) std::swap(lam(0), lam(1));
  EXPECT_LT(abs(lam(0) - (mid - rad)), 16 * eps<mp100>() * 3);
  EXPECT_LT(abs(lam(1) - (mid + rad)), 16 * eps<mp100>() * 3);
}

TEST(JacobiEigen, FiveByFiveResidualTraceDeterminant) {
  data::Rng rng(11);
  for (int k = 0; k < 20; ++k) {
    const Mat<double> q = data::random_orthogonal(5, rng);
    Vec<double> alpha(5);
    for (Index i = 0; i < 5; ++i) alpha(i) = std::pow(10.0, -3 + 0.3 * static_cast<double>(k % 7) * static_cast<double>(i)) * (i % 2 == 0 ? 1 : -1);
    const Mat<double> ad = q * alpha.asDiagonal() * q.transpose();
    const Mat<mp100> a = ((ad + ad.transpose()) / 2).cast<mp100>();
    const auto [lam, v] = jacobi_eigen<mp100>(a);
    const mp100 norm = a.norm();
    const mp100 tol = 64 * eps<mp100>() * norm;
    EXPECT_LT((a * v - v * lam.asDiagonal()).norm(), tol);
    EXPECT_LT((v.transpose() * v - Mat<mp100>::Identity(5, 5)).norm(), 64 * eps<mp100>());
    EXPECT_LT(abs(lam.sum() - a.trace()), tol);
    mp100 prod = 1;
    for (Index i = 0; i < 5; ++i) prod *= lam(i);
    const mp100 det = a.partialPivLu().determinant();
    EXPECT_LT(abs(prod - det), 1e-90 * pow(norm, 5)) << k;
    // Eigenvalues only: the same rotations, bit for bit.
    EXPECT_EQ(jacobi_eigenvalues<mp100>(a), lam);
  }
}

}}  // namespace
}  // namespace ngvi::claims
