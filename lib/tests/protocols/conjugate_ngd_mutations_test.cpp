// The kit's mutations of a conjugate-NGD implementation (protocols/conjugate_ngd_mutations.hpp), on a
// recording implementation written here: each mutation hands the implementation exactly what its
// table says (the step index t + 1; the noise variance σ²(M + 1)/M) and nothing else changes, the
// averages are the uniform mean and the last iterate's μ computed here from the returned iterates by
// the closed form μ = (m, S + mmᵀ), and an unknown name is refused naming it and the known ones.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "ngvi/protocols/conjugate_ngd_mutations.hpp"
#include "test_util.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

using protocols::BlrProblem;
using protocols::ConjugateNgd;
using protocols::ConjugateNgdTrajectory;

// What the implementation was handed.
struct Seen {
  std::vector<long> t;
  std::vector<double> noise_var;
};

// η_{t+1} = η_t scaled on its first block by (1 + 1/(t + 2)) and shifted on the diagonal of its
// second: iterates that stay in Ω (η₂ negative definite) and differ at every step. Its own average is
// the constant pair it returns (a marker: a mutation of the average must not return it).
ConjugateNgd<double> recording(std::shared_ptr<Seen> seen, bool with_average) {
  ConjugateNgd<double> impl{"recording", "test", {}};
  impl.start = [seen, with_average](const BlrProblem<double>& p) {
    seen->noise_var.push_back(p.noise_var);
    ConjugateNgdTrajectory<double> run;
    run.step = [seen, &p](long t, const GaussianNatural<double>& eta, std::span<const Index>) {
      seen->t.push_back(t);
      seen->noise_var.push_back(p.noise_var);  // read through the handed problem at every step
      GaussianNatural<double> next = eta;
      next.first *= 1.0 + 1.0 / static_cast<double>(t + 2);
      next.second -= 0.1 * Mat<double>::Identity(eta.second.rows(), eta.second.cols());
      return next;
    };
    if (with_average) run.average = [] { return GaussianExpectation<double>(Vec<double>::Constant(2, 7.0), Mat<double>::Identity(2, 2)); };
    return run;
  };
  return impl;
}

BlrProblem<double> problem(Index batch) {
  BlrProblem<double> p;
  p.X = Mat<double>::Identity(2, 2);
  p.y = Vec<double>::Ones(2);
  p.noise_var = 0.5;
  p.prior_mean = Vec<double>::Zero(2);
  p.prior_cov = Mat<double>::Identity(2, 2);
  p.prior_natural = GaussianNatural<double>(Vec<double>::Zero(2), -0.5 * Mat<double>::Identity(2, 2));
  p.batch = batch;
  p.initial = GaussianNatural<double>(Vec<double>::Ones(2), -0.5 * Mat<double>::Identity(2, 2));
  return p;
}

// μ = (m, S + mmᵀ) of η, written here: S = (−2η₂)⁻¹, m = Sη₁.
GaussianExpectation<double> mu_of(const GaussianNatural<double>& eta) {
  const Mat<double> S = (-2.0 * eta.second).inverse();
  const Vec<double> m = S * eta.first;
  return GaussianExpectation<double>(m, S + m * m.transpose());
}

// Runs `steps` steps of impl's trajectory on the problem; returns the iterates η_1..η_T.
std::vector<GaussianNatural<double>> run(const ConjugateNgd<double>& impl, const BlrProblem<double>& p, long steps,
                                         ConjugateNgdTrajectory<double>* keep) {
  *keep = impl.start(p);
  std::vector<GaussianNatural<double>> etas;
  GaussianNatural<double> eta = p.initial;
  const std::vector<Index> batch(static_cast<std::size_t>(p.batch), 0);
  for (long t = 0; t < steps; ++t) {
    eta = keep->step(t, eta, batch);
    etas.push_back(eta);
  }
  return etas;
}

double pair_error(const GaussianExpectation<double>& a, const GaussianExpectation<double>& b) {
  return std::max((a.first - b.first).cwiseAbs().maxCoeff(), (a.second - b.second).cwiseAbs().maxCoeff());
}

TEST(ConjugateNgdMutations, ScheduleOffByOneHandsTPlusOneAndNothingElse) {
  auto seen = std::make_shared<Seen>();
  const auto mutated = protocols::mutate_conjugate_ngd(recording(seen, true), "schedule-off-by-one");
  EXPECT_EQ(mutated.name, "recording");
  EXPECT_EQ(mutated.version, "test");
  const auto p = problem(3);
  ConjugateNgdTrajectory<double> traj;
  run(mutated, p, 4, &traj);
  EXPECT_EQ(seen->t, (std::vector<long>{1, 2, 3, 4}));
  for (double v : seen->noise_var) EXPECT_EQ(v, p.noise_var);
  // The implementation's own average is kept.
  ASSERT_TRUE(static_cast<bool>(traj.average));
  EXPECT_EQ(traj.average().first(0), 7.0);
}

TEST(ConjugateNgdMutations, BatchScaleHandsTheNoiseVarianceTimesMPlusOneOverMForTheWholeTrajectory) {
  for (Index M : {1, 4}) {
    auto seen = std::make_shared<Seen>();
    const auto mutated = protocols::mutate_conjugate_ngd(recording(seen, false), "batch-scale-m-plus-one");
    auto p = std::make_unique<BlrProblem<double>>(problem(M));
    const double want = 0.5 * static_cast<double>(M + 1) / static_cast<double>(M);
    ConjugateNgdTrajectory<double> traj;
    run(mutated, *p, 3, &traj);
    p.reset();  // the caller's problem may go: the mutated trajectory keeps its own
    const std::vector<Index> batch(static_cast<std::size_t>(M), 0);
    traj.step(3, GaussianNatural<double>(Vec<double>::Ones(2), -Mat<double>::Identity(2, 2)), batch);
    ASSERT_EQ(seen->noise_var.size(), 5u);
    for (double v : seen->noise_var) EXPECT_EQ(v, want) << "M = " << M;
    EXPECT_EQ(seen->t, (std::vector<long>{0, 1, 2, 3}));
    EXPECT_FALSE(static_cast<bool>(traj.average));  // none of its own, none added
  }
}

TEST(ConjugateNgdMutations, AveragesAreTheUniformMeanAndTheLastIterateOfTheReturnedIterates) {
  for (bool own : {false, true}) {
    const auto p = problem(2);
    for (const std::string name : {"average-uniform", "average-last"}) {
      auto seen = std::make_shared<Seen>();
      const auto mutated = protocols::mutate_conjugate_ngd(recording(seen, own), name);
      ConjugateNgdTrajectory<double> traj;
      const auto etas = run(mutated, p, 5, &traj);
      ASSERT_TRUE(static_cast<bool>(traj.average)) << name;
      GaussianExpectation<double> want = mu_of(etas.back());
      if (name == "average-uniform") {
        want = mu_of(etas[0]);
        for (std::size_t i = 1; i < etas.size(); ++i) want += mu_of(etas[i]);
        want *= 1.0 / static_cast<double>(etas.size());
      }
      // Rounding: a 2x2 inverse and a mean of 5 terms of size ~ max |μ|: a few eps of that size.
      double size = 0;
      for (const auto& e : etas) size = std::max({size, mu_of(e).first.cwiseAbs().maxCoeff(), mu_of(e).second.cwiseAbs().maxCoeff()});
      EXPECT_LE(pair_error(traj.average(), want), 64 * std::numeric_limits<double>::epsilon() * size) << name;
      EXPECT_EQ(seen->t, (std::vector<long>{0, 1, 2, 3, 4}));
    }
  }
}

TEST(ConjugateNgdMutations, UnknownNameIsRefusedNamingItAndTheKnownOnes) {
  auto seen = std::make_shared<Seen>();
  try {
    protocols::mutate_conjugate_ngd(recording(seen, false), "schedule-off-by-two");
    FAIL() << "accepted an unknown mutation";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'schedule-off-by-two'"), std::string::npos) << what;
    for (const auto& m : protocols::conjugate_ngd_mutations()) EXPECT_NE(what.find(m.name), std::string::npos) << what;
  }
}

}}  // namespace
}  // namespace ngvi
