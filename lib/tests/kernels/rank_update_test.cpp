// symmetric_gram (kernels/rank_update.hpp): c = α·x·xᵀ by the general product (x with at most
// kGeneralGramEntries entries), by rank updates in blocks of kRankUpdateDepth columns, or from order
// kTiledOrder by column tiles (with one and two blocks of columns of x), on sizes on both sides of
// each switch. Reference: the same sums in mp100 from the exact inputs, rounded
// once. Budget per entry, Higham's dot-product bound: γ_{M+1}·|α|·Σ_k |x_ik x_jk| (M products
// summed, one scaling). The result must be exactly symmetric.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "ngvi/kernels/rank_update.hpp"
#include "ngvi/random/stream.hpp"
#include "test_util.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

template <class Scalar>
class SymmetricGram : public ::testing::Test {};
TYPED_TEST_SUITE(SymmetricGram, test::Scalars);

TYPED_TEST(SymmetricGram, MatchesTheMp100SumsAndIsExactlySymmetric) {
  using Scalar = TypeParam;
  static_assert(kGeneralGramEntries == 1024 && kRankUpdateDepth == 128 && kTiledOrder == 128 && kTileWidth == 64,
                "the sizes below straddle every switch");
  // 129: a last tile one column wide and a panel of one row; 193: a panel of more than
  // kTilePanelRows<double> = 128 rows, in a block of 128 and a block of one row.
  const std::vector<std::pair<Index, Index>> sizes{{1, 1},   {3, 5},    {10, 32},  {32, 32},  {10, 103},
                                                   {33, 32}, {7, 300},  {20, 129}, {127, 9}, {128, 8},
                                                   {130, 40}, {140, 130}, {129, 20}, {193, 130}};
  const Scalar alpha = Scalar(-0.375);
  random::Stream rng(8, 1);
  for (const auto& [d, m] : sizes) {
    Mat<Scalar> x(d, m);
    for (Index k = 0; k < m; ++k)
      for (Index i = 0; i < d; ++i) x(i, k) = Scalar(rng.normal());
    Mat<Scalar> c(2, 3);  // resized by the routine
    symmetric_gram(c, x, alpha);
    ASSERT_EQ(c.rows(), d);
    ASSERT_EQ(c.cols(), d);
    const Scalar gamma = rounding_budget<Scalar>(m + 1);
    for (Index j = 0; j < d; ++j)
      for (Index i = 0; i < d; ++i) {
        mp100 ref(0);
        Scalar mag(0);
        for (Index k = 0; k < m; ++k) {
          ref += mp100(x(i, k)) * mp100(x(j, k));
          using std::abs;
          mag += abs(x(i, k) * x(j, k));
        }
        ref *= mp100(alpha);
        using std::abs;
        const Scalar err = abs(Scalar(mp100(c(i, j)) - ref));
        EXPECT_LE(err, gamma * abs(alpha) * mag) << "d " << d << " M " << m << " (" << i << ", " << j << ")";
        EXPECT_EQ(c(i, j), c(j, i)) << "d " << d << " M " << m << " (" << i << ", " << j << ")";
      }
  }
}

}}  // namespace
}  // namespace ngvi
