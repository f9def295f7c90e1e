// NaturalStepper<F> (optim/steppers/natural.hpp) for a Dirichlet and a product of Dirichlets, in double
// and mp50: a step is the convex combination (1 − ρ)λ + ρ(λ_p + ĝ) written out here entry by entry
// (dyadic inputs, so every operation is exact and the comparison is equality), and a step that leaves
// the domain (an entry ≤ 0) is refused with the iterate left as it was.
#include <vector>

#include "ngvi/expfam/dirichlet.hpp"
#include "ngvi/expfam/product.hpp"
#include "ngvi/optim/steppers/natural.hpp"
#include "test_util.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

static_assert(NaturalDomain<DirichletFamily<double>> && NaturalDomain<Product<DirichletFamily<mp50>>>);

template <class Scalar>
class NaturalStepperTest : public ::testing::Test {};
TYPED_TEST_SUITE(NaturalStepperTest, test::Scalars);

template <class Scalar>
Vec<Scalar> dyadic(std::initializer_list<double> v) {
  Vec<Scalar> out(static_cast<Index>(v.size()));
  Index i = 0;
  for (double x : v) out(i++) = Scalar(x);
  return out;
}

TYPED_TEST(NaturalStepperTest, DirichletStepIsTheConvexCombination) {
  using Scalar = TypeParam;
  const Vec<Scalar> lambda0 = dyadic<Scalar>({1, 2, 3.5, 0.75}), prior = dyadic<Scalar>({0.5, 0.5, 0.25, 0.125}),
                    ghat = dyadic<Scalar>({1, 0.25, 2, 4});
  NaturalStepper<DirichletFamily<Scalar>> s(DirichletFamily<Scalar>(4), lambda0, prior);
  const Scalar rho = Scalar(1) / 4;
  ASSERT_TRUE(s.step(0, rho, ghat).ok);
  for (Index i = 0; i < 4; ++i) EXPECT_EQ(s.point()(i), (1 - rho) * lambda0(i) + rho * (prior(i) + ghat(i))) << i;
  // ρ = 1: the iterate is λ_p + ĝ (one CAVI step for a conditionally conjugate model).
  ASSERT_TRUE(s.step(1, Scalar(1), ghat).ok);
  for (Index i = 0; i < 4; ++i) EXPECT_EQ(s.point()(i), prior(i) + ghat(i)) << i;
}

TYPED_TEST(NaturalStepperTest, ProductOfDirichletsStepIsTheConvexCombination) {
  using Scalar = TypeParam;
  Mat<Scalar> lambda0(3, 2), prior = Mat<Scalar>::Constant(3, 2, Scalar(1) / 4), ghat(3, 2);
  lambda0 << 1, 2, 3, 0.5, 0.25, 8;
  ghat << 2, 0, 1, 0.5, 4, 0.125;
  NaturalStepper<Product<DirichletFamily<Scalar>>> s(Product<DirichletFamily<Scalar>>(DirichletFamily<Scalar>(3), 2), lambda0, prior);
  const Scalar rho = Scalar(3) / 8;
  ASSERT_TRUE(s.step(0, rho, ghat).ok);
  for (Index i = 0; i < 3; ++i)
    for (Index j = 0; j < 2; ++j) EXPECT_EQ(s.point()(i, j), (1 - rho) * lambda0(i, j) + rho * (prior(i, j) + ghat(i, j))) << i << "," << j;
  EXPECT_TRUE((s.make_direction().array() == Scalar(0)).all());
}

// ĝ with λ_p + ĝ having a negative entry: at ρ = 1 the new λ has it, which is outside Ω = {λ > 0}.
TYPED_TEST(NaturalStepperTest, AStepLeavingTheDomainIsRefused) {
  using Scalar = TypeParam;
  const Vec<Scalar> lambda0 = dyadic<Scalar>({1, 2, 3}), prior = dyadic<Scalar>({0.5, 0.5, 0.5});
  NaturalStepper<DirichletFamily<Scalar>> s(DirichletFamily<Scalar>(3), lambda0, prior);
  const StepStatus st = s.step(0, Scalar(1), dyadic<Scalar>({1, -2, 0}));
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.argument, "lambda");
  for (Index i = 0; i < 3; ++i) EXPECT_EQ(s.point()(i), lambda0(i)) << i;
  // ρ small enough keeps the same direction inside: (3/4)·2 + (1/4)(0.5 − 2) = 1.125 > 0.
  EXPECT_TRUE(s.step(1, Scalar(1) / 4, dyadic<Scalar>({1, -2, 0})).ok);
}

TYPED_TEST(NaturalStepperTest, RejectsAFirstIterateOutsideTheDomainOrOfTheWrongShape) {
  using Scalar = TypeParam;
  using S = NaturalStepper<DirichletFamily<Scalar>>;
  const Vec<Scalar> prior = dyadic<Scalar>({0.5, 0.5, 0.5});
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { S(DirichletFamily<Scalar>(3), dyadic<Scalar>({1, 0, 2}), prior); }, {"lambda0", "domain"}));
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([&] { S(DirichletFamily<Scalar>(3), dyadic<Scalar>({1, 2}), prior); }, {"lambda0", "shape"}));
}

}}  // namespace
}  // namespace ngvi
