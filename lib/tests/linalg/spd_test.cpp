#include <gtest/gtest.h>

#include <cmath>

#include "ngvi/linalg/spd.hpp"
#include "test_util.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

template <class Scalar>
class SpdFactorTest : public ::testing::Test {};
TYPED_TEST_SUITE(SpdFactorTest, test::Scalars);

// A = Q diag(λ) Qᵀ with λ known, so log det A = Σ log λ_i is an independent reference.
TYPED_TEST(SpdFactorTest, LogDetInverseAndSolveMatchSpectralReference) {
  using Scalar = TypeParam;
  using std::log;
  for (double kappa : {1.0, 1e4, 1e8}) {
    const Index d = 7;
    data::Rng rng(42);
    const Mat<double> q = data::random_orthogonal(d, rng);
    Vec<Scalar> lambda(d);
    for (Index i = 0; i < d; ++i) lambda(i) = Scalar(std::pow(kappa, double(i) / double(d - 1)));
    const Mat<Scalar> qs = data::cast_matrix<Scalar>(q);
    const Mat<Scalar> a = symmetrise(Mat<Scalar>(qs * lambda.asDiagonal() * qs.transpose()));
    const SpdFactor<Scalar> f(a, "test", "A");
    Scalar ref(0);
    for (Index i = 0; i < d; ++i) ref += log(lambda(i));
    // log det: the factor's backward error γ_{d+1}|A| perturbs log det by at most d·κ·γ_{d+1}
    // (Higham Thm 10.3 and first-order perturbation of log det); plus the orthogonal matrix's own
    // rounding, which the same term covers since Q is formed once in double and cast exactly.
    const Scalar tol_ld = rounding_budget<Scalar>(2 * d + 2, Scalar(kappa)) * Scalar(d) + Scalar(d) * eps<double>() * 16;
    EXPECT_TRUE(test::rel_close<Scalar>(f.log_det(), ref, tol_ld)) << "kappa " << kappa;
    // Residual of the inverse: ‖A·A⁻¹ − I‖ ≤ c·γ·κ (Higham §14.3).
    const Mat<Scalar> r = a * f.inverse() - Mat<Scalar>::Identity(d, d);
    const Scalar tol_res = rounding_budget<Scalar>(d * d, Scalar(kappa));
    EXPECT_TRUE(r.norm() == r.norm() && r.norm() <= tol_res) << to_double(Scalar(r.norm()));
    const Mat<Scalar> inv = f.inverse();
    EXPECT_EQ(inv, inv.transpose());
    const Vec<Scalar> b = Vec<Scalar>::Ones(d);
    const Vec<Scalar> x = f.solve(b);
    EXPECT_TRUE((a * x - b).norm() <= tol_res * (a.norm() * x.norm() + b.norm()));
    EXPECT_TRUE(test::rel_close<Scalar>(f.inv_quad(b), b.dot(x), rounding_budget<Scalar>(d * d, Scalar(kappa))));
  }
}

TYPED_TEST(SpdFactorTest, RejectsBadInputNamingTheArgument) {
  using Scalar = TypeParam;
  Mat<Scalar> a = Mat<Scalar>::Identity(3, 3);
  a(0, 1) = a(1, 0) = Scalar(2);  // symmetric, indefinite
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { SpdFactor<Scalar>(a, "f", "S"); },
                                                   {"f: argument 'S'", "not positive definite"}));
  Mat<Scalar> ns = Mat<Scalar>::Identity(3, 3);
  ns(0, 1) = Scalar(0.5);
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { SpdFactor<Scalar>(ns, "f", "S"); }, {"'S'", "not symmetric"}));
  Mat<Scalar> nanm = Mat<Scalar>::Identity(3, 3);
  nanm(2, 2) = std::numeric_limits<Scalar>::quiet_NaN();
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { SpdFactor<Scalar>(nanm, "f", "S"); },
                                                   {"'S'", "non-finite entry at (2, 2)"}));
  Mat<Scalar> inf = Mat<Scalar>::Identity(2, 2);
  inf(0, 0) = std::numeric_limits<Scalar>::infinity();
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { SpdFactor<Scalar>(inf, "f", "S"); }, {"non-finite"}));
  const Mat<Scalar> rect = Mat<Scalar>::Zero(2, 3);
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([&] { SpdFactor<Scalar>(rect, "f", "S"); }, {"not square (2 x 3)"}));
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([&] { SpdFactor<Scalar>(Mat<Scalar>(0, 0), "f", "S"); },
                                                       {"dimension 0"}));
  EXPECT_FALSE(is_spd<Scalar>(a));
  EXPECT_TRUE(is_spd<Scalar>(Mat<Scalar>::Identity(4, 4)));
}

TEST(Symmetrise, IsExactlySymmetric) {
  data::Rng rng(7);
  const Mat<double> a = data::gaussian_matrix(5, 5, rng);
  const Mat<double> s = symmetrise(a);
  EXPECT_EQ(s, s.transpose());
  EXPECT_EQ(s(1, 3), 0.5 * (a(1, 3) + a(3, 1)));
}

// The mirror goes by 32 x 32 tiles: orders on both sides of a tile edge, and a block of a larger
// matrix, whose entries outside the block must stay as they were.
TEST(CopyLowerToUpper, MirrorsTheLowerTriangleOfMatricesAndBlocks) {
  data::Rng rng(11);
  for (Index n : {1, 2, 31, 32, 33, 64, 70}) {
    const Mat<double> a = data::gaussian_matrix(n, n, rng);
    Mat<double> m = a;
    copy_lower_to_upper(m);
    for (Index j = 0; j < n; ++j)
      for (Index i = 0; i < n; ++i) EXPECT_EQ(m(i, j), i >= j ? a(i, j) : a(j, i)) << "n " << n << " (" << i << ", " << j << ")";
  }
  const Mat<double> big = data::gaussian_matrix(80, 80, rng);
  Mat<double> m = big;
  copy_lower_to_upper(m.block(5, 7, 40, 40));
  for (Index j = 0; j < 80; ++j)
    for (Index i = 0; i < 80; ++i) {
      const bool in_block = i >= 5 && i < 45 && j >= 7 && j < 47;
      const Index bi = i - 5, bj = j - 7;
      const double want = in_block && bi < bj ? big(5 + bj, 7 + bi) : big(i, j);
      EXPECT_EQ(m(i, j), want) << "(" << i << ", " << j << ")";
    }
}

TEST(Validate, FiniteChecksCoverNanAndInfinity) {
  EXPECT_FALSE(is_finite_scalar(std::nan("")));
  EXPECT_FALSE(is_finite_scalar(-std::numeric_limits<double>::infinity()));
  EXPECT_TRUE(is_finite_scalar(std::numeric_limits<double>::max()));
  EXPECT_FALSE(is_finite_scalar(std::numeric_limits<mp50>::quiet_NaN()));
  EXPECT_TRUE(is_finite_scalar(mp50(-3)));
}

}}  // namespace
}  // namespace ngvi
