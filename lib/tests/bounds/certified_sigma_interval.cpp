// The certified sup of σ_t² over the reachable hull (bounds/certified_sigma.hpp, docs/math.md §5.4),
// evaluated in interval_d (this file is compiled with -frounding-math). References, never the bound's
// code: σ_t² of eq. (12) by diagnostics/step_variance.hpp (exact mean over all n^M batches through the
// symmetrised-KL identity, itself checked against eq. (12)'s defining form by def6.step_variance)
// (a) at every node of the mini-batch path tree of tiny instances (the exact max over the reachable
// states), (b) at random points of the enclosure H = conv{η_p, P_1..P_n} with random γ ∈ (0, 1]
// (the bound holds on all of H, not only at reachable states); the interval encloses the double
// closed form; bad input is named.
#include "ngvi/bounds/certified_sigma.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <random>

#include "ngvi/data/synthetic_regression.hpp"
#include "ngvi/diagnostics/step_variance.hpp"
#include "ngvi/estimators/minibatch_gradient.hpp"
#include "ngvi/models/linear_regression.hpp"
#include "test_util.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

// σ_t² in double through the symmetrised KL: a few Cholesky factorisations and log-determinants per
// batch, relative error γ_{O(d³)}·κ(S) ≤ 1e-12 on these d ≤ 3 instances (κ(S) ≤ 1e3); the bound's
// upper end is outward rounded. 1e-9 relative covers the reference's rounding with a wide margin.
constexpr double kReferenceRounding = 1e-9;

struct Instance {
  Dataset<double> data;
  Mat<double> prior_cov;
  double noise_var;
  long batch;
};

std::vector<Instance> instances() {
  std::vector<Instance> v;
  data::Rng rng(5);
  v.push_back({data::synthetic_regression(3, 2, 1.0, 0.7, 31), Mat<double>::Identity(2, 2), 0.5, 1});
  v.push_back({data::synthetic_regression(2, 2, 10.0, 0.7, 32), Mat<double>::Identity(2, 2), 0.5, 2});
  v.push_back({data::synthetic_regression(4, 3, 100.0, 0.5, 33), data::random_spd(3, 10.0, rng, 0.3), 0.3, 2});
  return v;
}

double upper(const Instance& in) { return certified_sigma2<interval_d>(in.data, in.prior_cov, in.noise_var, in.batch).upper(); }

// The largest σ_t² over every node of the path tree to `depth`, γ_t = 2/(t + 2), from q₀ = N(0, I):
// η_{t+1} = (1 − γ_t)η_t + γ_t(η_p + ĝ^ℓ(b)) for each of the n^M batches b.
double tree_max(const Instance& in, long depth) {
  const LinearRegression<double> model(in.data, in.prior_cov, in.noise_var);
  MinibatchGradient<double> est(model, in.batch), probe(model, in.batch);
  std::vector<GaussianNatural<double>> targets;
  for_each_batch(model.n(), in.batch, 1L << 12, [&](const std::vector<Index>& idx) {
    est.set_indices(idx);
    GaussianPair<double> g;
    est.evaluate(g);
    GaussianNatural<double> p = model.prior_natural();
    p += g;
    targets.push_back(p);
  });
  double best = 0;
  std::function<void(const GaussianNatural<double>&, long)> walk = [&](const GaussianNatural<double>& eta, long t) {
    if (t >= depth) return;
    const double gamma = 2.0 / static_cast<double>(t + 2);
    best = std::max(best, step_variance_exact(probe, eta, gamma));
    for (const auto& p : targets) {
      GaussianNatural<double> next = eta;
      next *= 1.0 - gamma;
      GaussianNatural<double> add = p;
      add *= gamma;
      next += add;
      walk(next, t + 1);
    }
  };
  walk(standard_natural<double>(model.d()), 0);
  return best;
}

TEST(CertifiedSigma2, AboveTheExactMaxOverTheReachableTree) {
  for (const auto& in : instances()) {
    const double exact = tree_max(in, in.batch == 1 ? 6 : 4);
    const double bound = upper(in);
    EXPECT_GT(exact, 0.0);
    EXPECT_LE(exact, bound * (1 + kReferenceRounding)) << "exact max " << exact << " above the bound " << bound;
  }
}

TEST(CertifiedSigma2, NoPointOfTheEnclosureExceedsIt) {
  data::Rng rng(11);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (const auto& in : instances()) {
    const LinearRegression<double> model(in.data, in.prior_cov, in.noise_var);
    MinibatchGradient<double> est(model, in.batch), probe(model, in.batch);
    const Index n = model.n();
    // The per-datum vertices' likelihood parts c(y_k x_k, −½x_k x_kᵀ): the batch of M copies of k.
    std::vector<GaussianPair<double>> vert;
    for (Index k = 0; k < n; ++k) {
      est.set_indices(std::vector<Index>(static_cast<std::size_t>(in.batch), k));
      GaussianPair<double> g;
      est.evaluate(g);
      vert.push_back(g);
    }
    const double bound = upper(in);
    double worst = 0;
    for (int s = 0; s < 400; ++s) {
      // α ≥ 0, Σα ≤ 1: exponential weights, some coordinates zeroed, total mass in (0, 1]; every
      // tenth sample a vertex, where the bound's vertex maximum sits.
      std::vector<double> a(static_cast<std::size_t>(n));
      double sum = 0;
      for (auto& x : a) {
        x = u(rng) < 0.3 ? 0.0 : -std::log(1.0 - u(rng));
        sum += x;
      }
      if (s % 10 == 0 || !(sum > 0)) {
        std::fill(a.begin(), a.end(), 0.0);
        a[static_cast<std::size_t>(s / 10 % n)] = 1.0;
        sum = 1.0;
      }
      const double mass = s % 10 == 0 ? 1.0 : u(rng);
      GaussianNatural<double> eta = model.prior_natural();
      for (Index k = 0; k < n; ++k) {
        GaussianPair<double> g = vert[static_cast<std::size_t>(k)];
        g *= mass * a[static_cast<std::size_t>(k)] / sum;
        eta += g;
      }
      const double gamma = s % 3 == 0 ? 1.0 : std::max(u(rng), 1e-3);
      worst = std::max(worst, step_variance_exact(probe, eta, gamma));
    }
    EXPECT_LE(worst, bound * (1 + kReferenceRounding)) << "a point of the enclosure has sigma^2 " << worst << " above " << bound;
  }
}

TEST(CertifiedSigma2, IntervalEnclosesTheDoubleClosedForm) {
  for (const auto& in : instances()) {
    const auto d = certified_sigma2_parts<double>(in.data, in.prior_cov, in.noise_var, in.batch);
    const auto i = certified_sigma2_parts<interval_d>(in.data, in.prior_cov, in.noise_var, in.batch);
    EXPECT_TRUE(i.sigma2.lower() <= d.sigma2 && d.sigma2 <= i.sigma2.upper()) << d.sigma2;
    EXPECT_TRUE(i.a.lower() <= d.a && d.a <= i.a.upper());
    EXPECT_TRUE(i.b.lower() <= d.b && d.b <= i.b.upper());
    EXPECT_TRUE(i.rho.lower() <= d.rho && d.rho <= i.rho.upper());
  }
}

TEST(CertifiedSigma2, BadInputIsNamed) {
  const auto dd = data::synthetic_regression(5, 2, 1.0, 0.5, 6);
  const Mat<double> eye = Mat<double>::Identity(2, 2);
  const char* f = "ngvi::certified_sigma2";
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([&] { certified_sigma2<interval_d>(dd, eye, 0.5, 0); }, {f, "batch"}));
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { certified_sigma2<interval_d>(dd, eye, 0.0, 1); }, {f, "noise_var"}));
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { certified_sigma2<double>(dd, eye, std::nan(""), 1); }, {f, "noise_var"}));
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { certified_sigma2<interval_d>(dd, -eye, 0.5, 1); }, {f, "prior_cov", "positive definite"}));
  Mat<double> asym = eye;
  asym(0, 1) = 0.1;
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { certified_sigma2<interval_d>(dd, asym, 0.5, 1); }, {f, "prior_cov", "symmetric"}));
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([&] { certified_sigma2<double>(dd, Mat<double>::Identity(3, 3), 0.5, 1); }, {f, "prior_cov"}));
  auto bad = dd;
  bad.y(2) = std::numeric_limits<double>::infinity();
  EXPECT_THROW(certified_sigma2<double>(bad, eye, 0.5, 1), std::domain_error);
}

}}  // namespace
}  // namespace ngvi
