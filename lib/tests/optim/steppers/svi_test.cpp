// The SVI parts (optim/steppers/svi.hpp): the schedule's indexing and guards, the minibatch plan,
// the global step through natural_update, and batch CAVI as |S| = N with ρ ≡ 1, on a toy conjugate
// model whose CAVI target is known in closed form.
#include <cmath>
#include <limits>
#include <set>
#include <vector>

#include "ngvi/optim/steppers/svi.hpp"
#include "test_util.hpp"

namespace ngvi::svi {
namespace { namespace NGVI_UNITY_ID {

template <class Scalar>
using Global = Eigen::Array<Scalar, Eigen::Dynamic, Eigen::Dynamic>;

// Hoffman's t = 1 at the engine's step 0: ρ = ρ₀ (t + 1 + τ)^(−κ); the reference is pow written here.
TEST(SviSchedule, EngineStepZeroIsHoffmanStepOne) {
  const SviSchedule<double> s(0.7, 10.0, 0.5);
  for (long t = 0; t < 50; ++t) {
    const double ref = 0.5 * std::pow(double(t + 1) + 10.0, -0.7);
    EXPECT_EQ(s.at(t), ref) << t;
  }
  EXPECT_TRUE(s.within_unit_interval());
}

TEST(SviSchedule, GuardsKappaTauRho0AndTheBatchFlag) {
  using S = SviSchedule<double>;
  EXPECT_TRUE(test::throws_with<std::domain_error>([] { S(0.4, 1.0); }, {"kappa", "(0.5, 1]"}));
  EXPECT_TRUE(test::throws_with<std::domain_error>([] { S(0.5, 1.0); }, {"kappa", "(0.5, 1]", "Robbins-Monro"}));
  EXPECT_TRUE(test::throws_with<std::domain_error>([] { S(1.1, 1.0); }, {"kappa"}));
  EXPECT_TRUE(test::throws_with<std::domain_error>([] { S(0.0, 1.0); }, {"kappa", "batch flag"}));
  EXPECT_TRUE(test::throws_with<std::domain_error>([] { S(0.7, 1.0, 1.0, true); }, {"kappa", "batch flag"}));
  EXPECT_TRUE(test::throws_with<std::domain_error>([] { S(0.7, -1.0); }, {"tau"}));
  EXPECT_TRUE(test::throws_with<std::domain_error>([] { S(0.7, 1.0, 1.5); }, {"rho0"}));
  EXPECT_TRUE(test::throws_with<std::domain_error>([] { S(0.7, std::numeric_limits<double>::quiet_NaN()); }, {"tau"}));
  const S b = S::batch_cavi();
  for (long t = 0; t < 5; ++t) EXPECT_EQ(b.at(t), 1.0);
}

TEST(MinibatchPlan, DataOrderBlocksAndShuffledPermutations) {
  MinibatchPlan p(10, 4, BatchOrder::kDataOrder, 1);
  EXPECT_EQ(p.blocks_per_epoch(), 3);
  auto b2 = p.batch(2);
  EXPECT_EQ(std::vector<long>(b2.begin(), b2.end()), (std::vector<long>{8, 9}));
  auto b4 = p.batch(4);
  EXPECT_EQ(std::vector<long>(b4.begin(), b4.end()), (std::vector<long>{4, 5, 6, 7}));
  MinibatchPlan q(10, 3, BatchOrder::kShuffled, 7);
  for (long epoch = 0; epoch < 3; ++epoch) {
    std::multiset<long> seen;
    for (long b = 0; b < q.blocks_per_epoch(); ++b)
      for (long i : q.batch(epoch * q.blocks_per_epoch() + b)) seen.insert(i);
    EXPECT_EQ(seen, (std::multiset<long>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})) << "epoch " << epoch;
  }
  EXPECT_TRUE(test::throws_with<std::domain_error>([] { MinibatchPlan(5, 6, BatchOrder::kDataOrder, 0); }, {"batch_size"}));
  EXPECT_TRUE(test::throws_with<std::domain_error>([] { MinibatchPlan(0, 1, BatchOrder::kDataOrder, 0); }, {"'n'"}));
}

// A toy conditionally conjugate model: x_i ~ N(β, 1), β ~ N(0, 1), no local latent variable. Global
// natural parameter (η1, η2) = (Σ x_i, −(1 + N)/2); each point contributes t = (x_i, −1/2). The CAVI
// target is the posterior, and SVI with any schedule ending in ρ = 1 on |S| = N lands on it.
struct GaussianMeanFamily {
  using Scalar = double;
  using Natural = Global<double>;
  bool in_domain(const Natural& l) const { return l.rows() == 1 && l.cols() == 2 && l(0, 1) < 0; }
};

struct GaussianMean {
  using Scalar = double;
  using Family = GaussianMeanFamily;
  using Global = Family::Natural;
  std::vector<double> x;
  Family family() const { return {}; }
  long size() const { return static_cast<long>(x.size()); }
  Global prior_natural() const {
    Global p(1, 2);
    p << 0.0, -0.5;
    return p;
  }
  Global zero_global() const { return Global::Zero(1, 2); }
  void local_statistics(const Global&, std::span<const long> batch, std::uint64_t, Global& s) const {
    s = zero_global();
    for (long i : batch) {
      s(0, 0) += x[static_cast<std::size_t>(i)];
      s(0, 1) -= 0.5;
    }
  }
};
static_assert(SviModel<GaussianMean>);

TEST(SviStepper, BatchCaviReachesTheConjugatePosteriorInOneStep) {
  GaussianMean m{{0.5, 1.25, -2.0, 3.0}};
  Global<double> l0(1, 2);
  l0 << 7.0, -3.0;
  SviOptions<double> o;
  o.batch_size = 4;
  o.passes = 1;
  const auto tr = run_svi(m, l0, SviSchedule<double>::batch_cavi(), o);
  ASSERT_TRUE(tr.ok());
  EXPECT_EQ(tr.steps, 1);
  EXPECT_EQ(tr.last(0, 0), 2.75);  // Σ x_i, exact in binary
  EXPECT_EQ(tr.last(0, 1), -2.5);  // −(1 + N)/2
}

// Halves of the data with the N/|S| factor: each λ̂ is an unbiased estimate; their mean is the target.
TEST(SviStepper, HalvesAverageToTheFullTargetOnlyWithTheReplicationFactor) {
  GaussianMean m{{0.5, 1.25, -2.0, 3.0}};
  const Global<double> l = m.prior_natural();
  const std::vector<long> a{0, 1}, b{2, 3}, all{0, 1, 2, 3};
  const Global<double> full = intermediate_global(m, l, all, 0);
  const Global<double> mean = (intermediate_global(m, l, a, 0) + intermediate_global(m, l, b, 0)) / 2;
  EXPECT_EQ(mean(0, 0), full(0, 0));
  EXPECT_EQ(mean(0, 1), full(0, 1));
  SviParts<double> unscaled;
  unscaled.replication = [](long, long) { return 1.0; };
  const Global<double> dropped = (intermediate_global(m, l, a, 0, unscaled) + intermediate_global(m, l, b, 0, unscaled)) / 2;
  EXPECT_NE(dropped(0, 1), full(0, 1));
}

// Replaced parts reach the run: the schedule's replacement is handed the library's ρ as a function of
// the engine step, and the replication factor n/|S| is the parts' where they give one.
TEST(SviParts, ReplacedScheduleAndReplicationReachTheRun) {
  GaussianMean m{{0.5, 1.25, -2.0, 3.0}};
  const SviSchedule<double> lib(0.7, 10.0, 0.5);
  SviParts<double> parts;
  parts.schedule = [](long t, const std::function<double(long)>& library) { return library(t + 1); };
  const PartsSchedule<double, SviSchedule<double>> shifted(lib, parts);
  for (long t = 0; t < 5; ++t) EXPECT_EQ(shifted.at(t), lib.at(t + 1)) << t;
  const PartsSchedule<double, SviSchedule<double>> same(lib, SviParts<double>{});
  for (long t = 0; t < 5; ++t) EXPECT_EQ(same.at(t), lib.at(t)) << t;
  EXPECT_EQ(replication_factor(SviParts<double>{}, 12, 4), 3.0);
  parts.replication = [](long n, long batch) { return double(n + batch); };
  EXPECT_EQ(replication_factor(parts, 12, 4), 16.0);
  SviOptions<double> o;
  o.batch_size = 2;
  o.passes = 1;
  o.parts = parts;
  std::vector<double> seen;
  run_svi(m, m.prior_natural(), lib, o, OnStep{[&](const auto& e) { seen.push_back(e.gamma); }});
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0], lib.at(1));
  EXPECT_EQ(seen[1], lib.at(2));
}

TEST(SviStepper, AStepLeavingTheDomainEndsTheRunWithTheLastValidIterate) {
  GaussianMean m{{1.0, 2.0}};
  Global<double> l0(1, 2);
  l0 << 0.0, -1.0;
  SviStepper<GaussianMean> s = svi_stepper(m, l0);
  Global<double> bad(1, 2);
  bad << 0.0, 10.0;  // λ̂ = prior + bad has η2 > 0
  const StepStatus st = s.step(0, 1.0, bad);
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(s.point()(0, 1), -1.0);
  Global<double> wrong(2, 2);
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([&] { svi_stepper(m, wrong); }, {"lambda0", "shape"}));
}

}}  // namespace
}  // namespace ngvi::svi
