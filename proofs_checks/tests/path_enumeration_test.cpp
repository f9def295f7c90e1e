// The exact enumeration of thm1.exact (path_enumeration.hpp) walks the tree down to a cut and the
// subtrees below it as separate work items, their sums added in subtree order. These tests hold:
//   - the cut: it depends on the tree only (n^M, T), and gives at least 64 subtrees when T allows;
//   - the split does not change the results: the subtrees walked on 2 threads (distribute) and one
//     after the other give the same bits in every field;
//   - the grouped sums are the expectations: against a path-by-path route (every path of T batches
//     run from the start with a fresh stepper and average, its KLs summed in path order), within the
//     rounding of a sum of N positive terms taken in two orders.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ngvi/claims/path_enumeration.hpp"

namespace ngvi::claims {
namespace { namespace NGVI_UNITY_ID {

constexpr double kU = std::numeric_limits<double>::epsilon();

ExactInstance n3_instance() {
  return ExactInstance{{"n3-d2-M1", data::synthetic_regression(3, 2, 1.0, 0.7, 31), Mat<double>::Identity(2, 2), 0.5, 1}, {}};
}
ExactInstance n2m2_instance() {
  return ExactInstance{{"n2-d2-M2", data::synthetic_regression(2, 2, 10.0, 0.7, 32), Mat<double>::Identity(2, 2), 0.5, 2}, {}};
}

TEST(PathEnumeration, CutDependsOnTheTreeOnly) {
  EXPECT_EQ(diagnostics::detail::subtree_cut(3, 10), 4);  // 81 subtrees
  EXPECT_EQ(diagnostics::detail::subtree_cut(4, 8), 3);   // 64
  EXPECT_EQ(diagnostics::detail::subtree_cut(3, 3), 2);   // capped at T − 1: 9
  EXPECT_EQ(diagnostics::detail::subtree_cut(3, 2), 1);
  EXPECT_EQ(diagnostics::detail::subtree_cut(3, 1), 0);   // no cut
  EXPECT_EQ(diagnostics::detail::subtree_cut(100, 5), 1);
}

void expect_same(const PathEnumeration<double>& a, const PathEnumeration<double>& b) {
  ASSERT_EQ(a.depth.size(), b.depth.size());
  for (std::size_t t = 0; t < a.depth.size(); ++t) {
    const auto &x = a.depth[t], &y = b.depth[t];
    EXPECT_EQ(x.kl_avg, y.kl_avg) << t;
    EXPECT_EQ(x.kl_avg_sq, y.kl_avg_sq) << t;
    EXPECT_EQ(x.gap, y.gap) << t;
    EXPECT_EQ(x.dstar, y.dstar) << t;
    EXPECT_EQ(x.sigma2, y.sigma2) << t;
    EXPECT_EQ(x.max_sigma2, y.max_sigma2) << t;
    EXPECT_EQ(x.dstep, y.dstep) << t;
    EXPECT_TRUE(x.feat == y.feat) << t;
    EXPECT_TRUE(x.feat_sq == y.feat_sq) << t;
  }
  EXPECT_EQ(a.max_sigma2, b.max_sigma2);
  EXPECT_EQ(a.argmax_sigma2_t, b.argmax_sigma2_t);
  EXPECT_EQ(a.nodes, b.nodes);
  EXPECT_EQ(a.max_identity_residual, b.max_identity_residual);
  EXPECT_EQ(a.worst_identity.path, b.worst_identity.path);
  EXPECT_EQ(a.max_descent_ratio, b.max_descent_ratio);
  EXPECT_EQ(a.worst_descent.path, b.worst_descent.path);
  EXPECT_EQ(a.max_descent_ratio_after_root, b.max_descent_ratio_after_root);
  EXPECT_EQ(a.max_cov_condition, b.max_cov_condition);
}

TEST(PathEnumeration, SplitGivesTheSameBits) {
  for (const auto& inst : {n3_instance(), n2m2_instance()}) {
    PathSpec<double> spec;
    spec.depth = 5;
    const auto local = enumerate_instance<double>(inst, spec);
    spec.distribute = true;
    spec.threads = 2;
    const auto split = enumerate_instance<double>(inst, spec);
    ASSERT_FALSE(local.failed);
    expect_same(local, split);
  }
}

// Every path of T batches from the start, in path order (batch of step 0 slowest): the step, the
// average and the KLs with a fresh stepper per path, so no state is shared between paths.
struct PathSums {
  double kl_avg = 0, gap = 0;
  long paths = 0;
};

PathSums path_by_path(const ExactInstance& inst, long T) {
  const auto model = make_model<double>(inst.blr);
  const auto& X = inst.blr.data.X;
  const auto post = posterior_by_conditioning<double>(X, inst.blr.data.y, Vec<double>::Zero(X.cols()), inst.blr.prior_cov, inst.blr.noise_var);
  MinibatchGradient<double> est(model, inst.blr.batch);
  std::vector<GaussianPair<double>> ghat;
  for_each_batch(model.n(), inst.blr.batch, 1L << 20, [&](const std::vector<Index>& idx) {
    est.set_indices(idx);
    GaussianPair<double> g;
    est.evaluate(g);
    ghat.push_back(std::move(g));
  });
  const long nb = static_cast<long>(ghat.size());
  long paths = 1;
  for (long t = 0; t < T; ++t) paths *= nb;
  const auto schedule = StepSchedule<double>::theorem1();
  const double p = std::pow(static_cast<double>(nb), -static_cast<double>(T));
  PathSums out;
  for (long code = 0; code < paths; ++code) {
    NgdStepper<double> s(model.prior_natural(), start_natural<double>(inst));
    MeanAverage<NgdStepper<double>> a(AverageWeights::kLinear);
    a.start(T);
    std::vector<long> batch(static_cast<std::size_t>(T));
    for (long t = T - 1, c = code; t >= 0; --t, c /= nb) batch[static_cast<std::size_t>(t)] = c % nb;
    for (long t = 0; t < T; ++t) {
      s.step(t, schedule.at(t), ghat[static_cast<std::size_t>(batch[static_cast<std::size_t>(t)])]);
      EXPECT_TRUE(a.add(t + 1, s).ok);
    }
    EXPECT_TRUE(s.moments());
    out.kl_avg += p * kl_gaussian(expectation_to_moments(*a.value()), post);
    out.gap += p * kl_gaussian(GaussianMoments<double>{s.mean(), s.cov()}, post);
    ++out.paths;
  }
  return out;
}

TEST(PathEnumeration, GroupedSumsAreTheExpectations) {
  for (const auto& inst : {n3_instance(), n2m2_instance()}) {
    const long T = 5;
    PathSpec<double> spec;
    spec.depth = T;
    const auto e = enumerate_instance<double>(inst, spec);
    ASSERT_FALSE(e.failed);
    const auto ref = path_by_path(inst, T);
    // Both routes take the same operations per path (the walker copies a parent's state and takes the
    // same step), so they differ in the order of the sum of N = n^{MT} positive terms p·KL, each order
    // within (N − 1)u of the exact sum relative to it, and in p: the walker's product of T factors
    // n^{−M} against pow, each within (T + 1)u of n^{−MT}. So the two are within 2(N − 1 + T + 1)u.
    const double tol = 2.0 * static_cast<double>(ref.paths - 1 + T + 1) * kU;
    EXPECT_LE(std::abs(e.depth[T].kl_avg - ref.kl_avg), tol * ref.kl_avg) << inst.blr.name;
    EXPECT_LE(std::abs(e.depth[T].gap - ref.gap), tol * ref.gap) << inst.blr.name;
    EXPECT_GT(ref.kl_avg, 0.0);
  }
}

}}  // namespace
}  // namespace ngvi::claims
