// The Gaussian-mixture SVI model (models/gmm.hpp): argument checks, the statistics' mass (Σ_k φ_nk = 1
// per point), the moment map against the natural parameters written by hand, and the centred
// cluster generator's sample means.
#include <cmath>
#include <limits>
#include <vector>

#include "ngvi/models/gmm.hpp"
#include "test_util.hpp"

namespace ngvi::gmm {
namespace { namespace NGVI_UNITY_ID {

Mat<double> three_clusters(long n, bool centre) {
  Mat<double> mu(3, 2);
  mu << -5, 0, 0, 5, 5, 0;
  return gmm_clusters(mu, 1.0, n, centre, 7);
}

TEST(GmmModel, RejectsBadArguments) {
  const Mat<double> X = three_clusters(30, false);
  GmmOptions<double> o;
  o.components = 0;
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { GmmModel<double>(X, o); }, {"options.components"}));
  o = {};
  o.sigma2 = 0;
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { GmmModel<double>(X, o); }, {"options.sigma2"}));
  o = {};
  o.m0 = Vec<double>::Zero(3);
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([&] { GmmModel<double>(X, o); }, {"options.m0"}));
  Mat<double> bad = X;
  bad(3, 1) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { GmmModel<double>(bad, GmmOptions<double>{}); }, {"'X'"}));
}

TEST(GmmModel, StatisticsCarryOnePointEachAndMomentsInvertTheNaturalMap) {
  const Mat<double> X = three_clusters(60, false);
  GmmOptions<double> o;
  o.sigma2 = 0.5;
  const GmmModel<double> m(X, o);
  const auto l = m.initial_lambda(3);
  std::vector<long> batch{0, 5, 9, 17, 31, 44};
  Global<double> s;
  m.local_statistics(l, batch, 0, s);
  const double tol = 16 * std::numeric_limits<double>::epsilon() * double(batch.size());
  EXPECT_NEAR(s.col(0).sum(), double(batch.size()), tol * double(batch.size()));
  for (Index k = 0; k < 3; ++k) EXPECT_NEAR(s(k, 3), -s(k, 0) / (2 * 0.5), tol);
  const auto q = m.moments(l);
  for (Index k = 0; k < 3; ++k) {
    EXPECT_NEAR(l(k, 3), -1 / (2 * q.var(k)), tol);
    EXPECT_NEAR(l(k, 1), q.means(k, 0) / q.var(k), tol * (1 + std::abs(l(k, 1))));
  }
  EXPECT_TRUE(std::isfinite(m.elbo(l)));
  EXPECT_TRUE(m.family().in_domain(l));
  Global<double> bad = l;
  bad(1, 3) = 0.25;
  EXPECT_FALSE(m.family().in_domain(bad));
  bad = l;
  bad(2, 0) = 0;
  EXPECT_FALSE(m.family().in_domain(bad));
}

TEST(GmmClusters, CentredClustersHaveTheirMeansExactly) {
  const Mat<double> X = three_clusters(300, true);
  Vec<double> m = Vec<double>::Zero(2);
  for (Index i = 1; i < 300; i += 3) m += X.row(i).transpose();
  m /= 100;
  // Two sums of 100 terms of magnitude below 10 (the shift and this check) and a division:
  // Higham's γ_{2·100+1} times the terms' magnitude, with a factor 4.
  const double tol = 4 * 201 * 10 * std::numeric_limits<double>::epsilon();
  EXPECT_NEAR(m(0), 0.0, tol);
  EXPECT_NEAR(m(1), 5.0, tol);
}

}}  // namespace
}  // namespace ngvi::gmm
