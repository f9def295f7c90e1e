// NaturalStepper<F> (optim/steppers/natural.hpp) for a Dirichlet and a product of Dirichlets, in double
// and mp50: a step is the convex combination (1 − ρ)λ + ρ(λ_p + ĝ) written out here entry by entry
// (dyadic inputs, so every operation is exact and the comparison is equality), and a step that leaves
// the domain (an entry ≤ 0) is refused with the iterate left as it was. The product's step goes by
// columns on the execution context's pool: the same bits for every pool.
#include <cmath>
#include <limits>
#include <vector>

#include "ngvi/kernels/execution.hpp"

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

// Entries that are not dyadic (every operation rounds), 300 words × 7 topics, three steps: the column
// tiles give the same bits with no pool and with pools of 1, 2 and 3 threads; against the whole-matrix
// natural_update each entry is within its rounding bound. Either side rounds (1 − ρ)λ, λ_p + ĝ, ρ(λ_p + ĝ)
// and the sum, each by at most u relative (u = eps/2), or fuses the last product and sum (one rounding
// fewer), so the two differ by at most 2u(|(1 − ρ)λ| + ρ|λ_p + ĝ|)·(1 + O(u)) per step from the same
// λ; the test compares one step from the same λ, with 4u for the O(u) terms.
TYPED_TEST(NaturalStepperTest, ProductStepIsTheSameOnAnyPoolAndIsTheUpdate) {
  using Scalar = TypeParam;
  const Index V = 300, K = 7;
  Mat<Scalar> lambda0(V, K), prior = Mat<Scalar>::Constant(V, K, Scalar(1) / 7);
  std::vector<Mat<Scalar>> ghat(3, Mat<Scalar>(V, K));
  for (Index i = 0; i < V; ++i)
    for (Index j = 0; j < K; ++j) {
      lambda0(i, j) = Scalar(1) + Scalar((i * 31 + j * 17) % 101) / 37;
      for (int t = 0; t < 3; ++t) ghat[static_cast<std::size_t>(t)](i, j) = Scalar((i * 13 + j * 7 + t * 5) % 89) / 11;
    }
  using F = Product<DirichletFamily<Scalar>>;
  const F fam(DirichletFamily<Scalar>(V), K);
  const Scalar rho[3] = {Scalar(1) / 3, Scalar(2) / 7, Scalar(1) / 9};
  auto run = [&](parallel::TilePool* pool) {
    NaturalStepper<F> s(fam, lambda0, prior, kernels::ExecutionContext{pool});
    for (int t = 0; t < 3; ++t) EXPECT_TRUE(s.step(t, rho[t], ghat[static_cast<std::size_t>(t)]).ok);
    return Mat<Scalar>(s.point());
  };
  const Mat<Scalar> alone = run(nullptr);
  for (int n : {1, 2, 3}) {
    parallel::TilePool pool(n);
    EXPECT_TRUE((run(&pool).array() == alone.array()).all()) << n << " threads";
  }
  // One step from the same λ against the whole-matrix update.
  NaturalStepper<F> s(fam, lambda0, prior);
  ASSERT_TRUE(s.step(0, rho[0], ghat[0]).ok);
  Mat<Scalar> whole;
  natural_update(whole, lambda0, prior, ghat[0], rho[0]);
  const Scalar u = std::numeric_limits<Scalar>::epsilon() / 2;
  for (Index i = 0; i < V; ++i)
    for (Index j = 0; j < K; ++j) {
      using std::abs;
      const Scalar bound = 4 * u * (abs((1 - rho[0]) * lambda0(i, j)) + rho[0] * abs(prior(i, j) + ghat[0](i, j)));
      ASSERT_LE(abs(s.point()(i, j) - whole(i, j)), bound) << i << "," << j;
    }
}

// One column (topic 4 of 6) whose step leaves the domain, on a pool of two threads: the step is refused
// and λ is left as it was; a direction of the wrong shape is refused naming 'ghat'.
TYPED_TEST(NaturalStepperTest, AProductColumnLeavingTheDomainIsRefusedOnAPool) {
  using Scalar = TypeParam;
  const Index V = 50, K = 6;
  const Mat<Scalar> lambda0 = Mat<Scalar>::Constant(V, K, Scalar(2)), prior = Mat<Scalar>::Constant(V, K, Scalar(1) / 2);
  Mat<Scalar> ghat = Mat<Scalar>::Constant(V, K, Scalar(1));
  ghat(17, 4) = Scalar(-1);  // λ_p + ĝ = −1/2 there, the new λ at ρ = 1
  parallel::TilePool pool(2);
  using F = Product<DirichletFamily<Scalar>>;
  NaturalStepper<F> s(F(DirichletFamily<Scalar>(V), K), lambda0, prior, kernels::ExecutionContext{&pool});
  const StepStatus st = s.step(0, Scalar(1), ghat);
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.argument, "lambda");
  EXPECT_TRUE((s.point().array() == lambda0.array()).all());
  const StepStatus shape = s.step(0, Scalar(1) / 2, Mat<Scalar>::Constant(V, K - 1, Scalar(1)));
  EXPECT_FALSE(shape.ok);
  EXPECT_EQ(shape.argument, "ghat");
  EXPECT_TRUE((s.point().array() == lambda0.array()).all());
  ghat(17, 4) = Scalar(1);
  EXPECT_TRUE(s.step(1, Scalar(1), ghat).ok);
  EXPECT_TRUE((s.point().array() == Scalar(3) / 2).all());
}

}}  // namespace
}  // namespace ngvi
