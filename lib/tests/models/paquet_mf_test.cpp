// Matrix factorisation network (models/paquet_mf.hpp), the Paquet stepper and sampler
// (optim/steppers/paquet_svb.hpp) and the rating data (data/ratings.hpp). References: the ELBO
// written literally from its definition in mp50; the coordinate optimum read off the mp50 ELBO
// (mf_coordinate_optimum), never eq. (7)'s own code.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>

#include "ngvi/data/ratings.hpp"
#include "ngvi/optim/schedule.hpp"
#include "ngvi/optim/steppers/paquet_svb.hpp"
#include "ngvi/scalar/types.hpp"
#include "test_util.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

RatingMatrix small_data(std::uint64_t seed, Index users = 12, Index items = 15, double density = 0.4) {
  data::SyntheticRatingsOptions o;
  o.users = users;
  o.items = items;
  o.rank = 3;
  o.density = density;
  return data::synthetic_ratings(o, seed);
}

template <class Scalar>
MfNatural<Scalar> init_q(const RatingMatrix& d, Index K, std::uint64_t seed) {
  random::Stream rs(seed, 7);
  // Precisions in [1, 3) and means N(0, 0.5²), exact in every scalar type (dyadic from doubles).
  MfNatural<Scalar> q = MfNatural<Scalar>::init(d.users, d.items, K, [&] { return 0.5 * rs.normal(); });
  for (auto* b : {&q.u, &q.v})
    for (Index j = 0; j < b->cols(); ++j) {
      const double p = 1 + 2 * rs.uniform01();
      (*b)(1, j) *= Scalar(p);
      (*b)(0, j) = Scalar(p);
    }
  return q;
}

MfNatural<mp50> to_mp50(const MfNatural<double>& q) {
  MfNatural<mp50> p;
  p.K = q.K;
  p.u = q.u.cast<mp50>();
  p.v = q.v.cast<mp50>();
  return p;
}

// B.5 literally: E[(r − uᵀv)²] = (r − Σμμ)² + Σ_k (E[u²]E[v²] − μ_u²μ_v²), KL = ½(μ² + s − 1 − ln s).
mp50 elbo_literal(const RatingMatrix& d, const MfNatural<mp50>& q) {
  using boost::multiprecision::log;
  const Index K = q.K;
  mp50 L = -mp50(d.size()) * log(2 * boost::math::constants::pi<mp50>()) / 2;
  for (Index e = 0; e < d.size(); ++e) {
    mp50 pred = 0, extra = 0;
    for (Index k = 0; k < K; ++k) {
      const Index cu = d.user[e] * K + k, cv = d.item[e] * K + k;
      const mp50 mu = q.u(1, cu) / q.u(0, cu), su = 1 / q.u(0, cu);
      const mp50 mv = q.v(1, cv) / q.v(0, cv), sv = 1 / q.v(0, cv);
      pred += mu * mv;
      extra += (mu * mu + su) * (mv * mv + sv) - mu * mu * mv * mv;
    }
    L -= ((mp50(d.value[e]) - pred) * (mp50(d.value[e]) - pred) + extra) / 2;
  }
  for (const auto* b : {&q.u, &q.v})
    for (Index j = 0; j < b->cols(); ++j) {
      const mp50 s = 1 / (*b)(0, j), m = (*b)(1, j) / (*b)(0, j);
      L -= (m * m + s - 1 - log(s)) / 2;
    }
  return L;
}

// Relative error allowed for a double sum of n terms of size up to the magnitude: Higham (2002)
// Thm 3.5 gives γ_n ≈ n·eps for recursive summation; ×4 for the products and divisions forming each term.
double sum_budget(double n) { return 4 * n * std::numeric_limits<double>::epsilon(); }

TEST(PaquetMf, ElboMatchesTheLiteralFormulaInMp50) {
  const auto d = small_data(3);
  const auto q = init_q<double>(d, 3, 11);
  const double got = mf_elbo(d, q);
  const mp50 ref = elbo_literal(d, to_mp50(q));
  const double err = std::abs(got - static_cast<double>(ref)) / std::abs(static_cast<double>(ref));
  EXPECT_TRUE(std::isfinite(err) && err <= sum_budget(static_cast<double>(d.size() * 3 * 3))) << err;
  const mp50 ref_mp = mf_elbo(d, to_mp50(q));
  EXPECT_TRUE(abs(ref_mp - ref) / abs(ref) < mp50("1e-45"));
}

TEST(PaquetMf, ElboIsNaNForANonPositivePrecision) {
  const auto d = small_data(3);
  auto q = init_q<double>(d, 2, 1);
  q.v(0, 3) = 0;
  EXPECT_TRUE(std::isnan(mf_elbo(d, q)));
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([&] { mf_elbo(d, init_q<double>(small_data(4, 5, 5), 2, 1)); }, {"'q'"}));
}

// Eq. (7) with all children is the ELBO's coordinate maximiser (docs/systems.md B.4, derived).
TEST(PaquetMf, EquationSevenWithAllChildrenIsTheCoordinateOptimum) {
  const auto d = small_data(5);
  const auto q = init_q<double>(d, 3, 2);
  PaquetOptions o;
  o.check_elbo = false;
  const PaquetStepper<double> s(d, o, q);
  const auto qm = to_mp50(q);
  for (int side = 0; side < 2; ++side)
    for (Index row = 0; row < 4; ++row)
      for (Index k = 0; k < 3; ++k) {
        const bool us = side == 0;
        const Index deg = us ? d.user_degree(row) : d.item_degree(row);
        std::vector<std::int32_t> all(static_cast<std::size_t>(deg));
        for (Index p = 0; p < deg; ++p) all[static_cast<std::size_t>(p)] = static_cast<std::int32_t>(p);
        const auto got = s.lambda_temp(us, row, k, all.data(), deg);
        const auto ref = mf_coordinate_optimum(d, qm, us, row, k);
        for (int c = 0; c < 2; ++c) {
          const double r = static_cast<double>(ref(c));
          const double err = std::abs(got(c) - r) / std::max(1.0, std::abs(r));
          EXPECT_TRUE(std::isfinite(err) && err <= sum_budget(static_cast<double>(deg * 3 + 3))) << side << row << k << c << " " << err;
        }
      }
}

// Option (b), ρ = 1, all children: every node becomes its coordinate optimum at the OLD Λ (Jacobi);
// option (a) differs from it (Gauss–Seidel) for the item nodes, which see the new user values.
TEST(PaquetMf, OptionBIsJacobiAndOptionAIsGaussSeidel) {
  const auto d = small_data(6);
  const auto q = init_q<double>(d, 2, 3);
  const auto qm = to_mp50(q);
  for (auto opt : {PaquetOption::kSimultaneous, PaquetOption::kSequential}) {
    PaquetOptions o;
    o.option = opt;
    PaquetStepper<double> s(d, o, q);
    PaquetSampler sampler(1, 0);
    PaquetSample dir;
    sampler.estimate(0, s, dir);
    ASSERT_TRUE(s.step(0, 1.0, dir).ok);
    EXPECT_EQ(s.accesses(), 2 * 2 * d.size());
    double worst = 0;
    for (Index n = 0; n < d.items; ++n)
      for (Index k = 0; k < 2; ++k) {
        const auto ref = mf_coordinate_optimum(d, qm, false, n, k);
        for (int c = 0; c < 2; ++c) worst = std::max(worst, std::abs(s.point().v(c, n * 2 + k) - static_cast<double>(ref(c))) / std::max(1.0, std::abs(static_cast<double>(ref(c)))));
      }
    if (opt == PaquetOption::kSimultaneous) EXPECT_TRUE(worst <= sum_budget(static_cast<double>(d.users * 2 + 2))) << worst;
    else EXPECT_GT(worst, 1e-3);
  }
}

// Option (b) under Algorithm 1 is the family-generic step of the whole Λ (NaturalStepper<MfFamily>):
// at ρ = 0.3 with all children every node takes (1 − ρ)λ + ρλ*(old Λ), λ* the coordinate optimum
// read off the mp50 ELBO; and the family's domain is the stepper's (a zero precision is outside it,
// and the generic step's reset names its argument).
static_assert(NaturalDomain<MfFamily<double>> && NaturalDomain<MfFamily<mp50>>);
TEST(PaquetMf, OptionBUnderAlgorithmOneIsTheFamilyGenericStep) {
  const auto d = small_data(8);
  const auto q = init_q<double>(d, 2, 5);
  const auto qm = to_mp50(q);
  PaquetOptions o;
  o.option = PaquetOption::kSimultaneous;
  PaquetStepper<double> s(d, o, q);
  PaquetSampler sampler(1, 0);
  PaquetSample dir;
  sampler.estimate(0, s, dir);
  const double rho = 0.3;
  ASSERT_TRUE(s.step(0, rho, dir).ok);
  // Budget per entry: λ_temp carries eq. (7)'s sum_budget(3 deg + 3) relative to max(1, |λ*|) (as in
  // EquationSevenWithAllChildrenIsTheCoordinateOptimum), scaled by ρ; then six roundings of the
  // update (ĝ = λ_temp − λ_p, λ_p + ĝ, 1 − ρ, (1 − ρ)λ, ρ(·), the sum), each within eps of its terms.
  const double eps = std::numeric_limits<double>::epsilon();
  double worst = 0;  // error / budget
  for (bool user : {true, false})
    for (Index row = 0; row < (user ? d.users : d.items); ++row)
      for (Index k = 0; k < 2; ++k) {
        const auto star = mf_coordinate_optimum(d, qm, user, row, k);
        const auto& old_block = user ? qm.u : qm.v;
        const auto& got = user ? s.point().u : s.point().v;
        const double deg = static_cast<double>(user ? d.user_degree(row) : d.item_degree(row));
        for (int c = 0; c < 2; ++c) {
          const double lam = static_cast<double>(old_block(c, row * 2 + k)), st = static_cast<double>(star(c));
          const mp50 ref = (1 - mp50(rho)) * old_block(c, row * 2 + k) + mp50(rho) * star(c);
          const double budget = rho * sum_budget(3 * deg + 3) * std::max(1.0, std::abs(st)) +
                                6 * eps * ((1 - rho) * std::abs(lam) + rho * (std::abs(st) + 1));
          worst = std::max(worst, std::abs(got(c, row * 2 + k) - static_cast<double>(ref)) / budget);
        }
      }
  EXPECT_TRUE(worst <= 1.0) << worst;

  auto bad = q;
  bad.v(0, 3) = 0.0;
  EXPECT_TRUE(MfFamily<double>{}.in_domain(q));
  EXPECT_FALSE(MfFamily<double>{}.in_domain(bad));
  NaturalStepper<MfFamily<double>> step(MfFamily<double>{}, q, MfNatural<double>::prior_like(q));
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { step.reset(bad); }, {"'lambda'", "domain"}));
}

TEST(PaquetMf, DivergenceIsAFailedStepWithTheLastValidIterate) {
  data::SyntheticRatingsOptions so;  // docs/systems.md B.7
  const auto d = data::synthetic_ratings(so, 1);
  random::Stream rs(1, 1);
  const auto q0 = MfNatural<double>::init(d.users, d.items, 5, [&] { return 0.1 * rs.normal(); });
  PaquetOptions o;
  o.children = 1;
  PaquetStepper<double> s(d, o, q0);
  PaquetSampler sampler(1, 2);
  NoAverage avg;
  const auto tr = run_trajectory(s, sampler, StepSchedule<double>::polynomial(0.6, 0), avg, sweep_options(2000));
  ASSERT_FALSE(tr.ok());
  EXPECT_EQ(tr.failure->step, tr.steps);
  EXPECT_TRUE(tr.failure->argument == "Lambda" || tr.failure->argument == "elbo");
  EXPECT_TRUE(std::isfinite(mf_elbo(d, tr.last)));
  EXPECT_TRUE(std::isfinite(s.elbo()));
}

TEST(PaquetMf, SamplerDrawsAtMostCDistinctChildren) {
  const auto d = small_data(7, 20, 30, 0.5);
  for (long c : {1L, 3L, 40L}) {
    PaquetOptions o;
    o.children = c;
    PaquetStepper<double> s(d, o, init_q<double>(d, 2, 1));
    PaquetSampler sampler(9, 0);
    PaquetSample dir;
    sampler.estimate(0, s, dir);
    Index node = 0;
    for (int side = 0; side < 2; ++side)
      for (Index r = 0; r < (side == 0 ? d.users : d.items); ++r)
        for (Index k = 0; k < 2; ++k, ++node) {
          const Index deg = side == 0 ? d.user_degree(r) : d.item_degree(r);
          const std::set<std::int32_t> picks(dir.picks.begin() + dir.start[node], dir.picks.begin() + dir.start[node + 1]);
          EXPECT_EQ(static_cast<Index>(picks.size()), std::min<Index>(deg, c));
          EXPECT_EQ(static_cast<std::int64_t>(picks.size()), dir.start[node + 1] - dir.start[node]);
          if (!picks.empty()) {
            EXPECT_TRUE(*picks.begin() >= 0 && *picks.rbegin() < deg);
          }
        }
  }
  PaquetOptions o;
  o.algorithm = PaquetAlgorithm::kGlobal;
  o.global_batch = 50;
  PaquetStepper<double> s(d, o, init_q<double>(d, 2, 1));
  PaquetSampler sampler(9, 0);
  PaquetSample dir;
  sampler.estimate(0, s, dir);
  EXPECT_EQ(std::set<std::int64_t>(dir.batch.begin(), dir.batch.end()).size(), 50u);
  ASSERT_TRUE(s.step(0, 0.5, dir).ok);
  EXPECT_EQ(s.accesses(), 2 * 2 * 50);  // every rating of D is read by the K nodes of its user and of its item
}

// The sweep's parts (PaquetParts) written out as the library's own (each called per node or per
// sweep) give the same sweep as the empty parts, computed inline: the general route of every part
// is the library's when given the library's part. Bitwise, option (a) and (b), Algorithms 1 and 2.
TEST(PaquetMf, LibraryPartsSpelledOutGiveTheSameSweep) {
  const auto d = small_data(8, 15, 20, 0.5);
  PaquetParts<double> lib;
  lib.scale = [](Index deg, Index picked) { return double(deg) / double(picked); };
  lib.global_scale = [](Index deg, Index in_sample, Index) { return double(deg) / double(in_sample); };
  lib.reads = [](PaquetOption o) { return o == PaquetOption::kSimultaneous ? PaquetReads::kSweepStart : PaquetReads::kUpdated; };
  lib.precision = [](const PaquetNode<double>& n) {
    double sp = 0;
    for (Index p = 0; p < n.npicks; ++p) {
      const Index o = n.other_row(p) * n.K + n.k;
      sp += n.var_other[o] + n.mu_other[o] * n.mu_other[o];
    }
    return sp;
  };
  lib.coparents = [](Index k, Index K, std::vector<Index>& out) {
    for (Index kk = 0; kk < K; ++kk)
      if (kk != k) out.push_back(kk);
  };
  for (auto alg : {PaquetAlgorithm::kPerNode, PaquetAlgorithm::kGlobal})
    for (auto opt : {PaquetOption::kSequential, PaquetOption::kSimultaneous}) {
      PaquetOptions o;
      o.algorithm = alg;
      o.option = opt;
      o.children = 2;
      o.global_batch = 40;
      const auto q0 = init_q<double>(d, 3, 4);
      PaquetStepper<double> a(d, o, q0), b(d, o, q0, lib);
      PaquetSampler sa(3, 0), sb(3, 0);
      PaquetSample da, db;
      for (long t = 0; t < 3; ++t) {
        sa.estimate(t, a, da);
        sb.estimate(t, b, db);
        ASSERT_TRUE(a.step(t, 0.5, da).ok);
        ASSERT_TRUE(b.step(t, 0.5, db).ok);
      }
      EXPECT_TRUE((a.point().u == b.point().u).all() && (a.point().v == b.point().v).all()) << static_cast<int>(alg) << to_string(opt);
      EXPECT_EQ(a.accesses(), b.accesses());
    }
}

// The schedule part replaces the schedule a run of sweeps takes (paquet_schedule), and only when set.
TEST(PaquetMf, ScheduleTheRunTakes) {
  const auto lib = StepSchedule<double>::polynomial(0.6, 1023);
  EXPECT_EQ(paquet_schedule(PaquetParts<double>{}, lib).describe(), lib.describe());
  PaquetParts<double> p;
  p.schedule = [](const StepSchedule<double>& s) { return StepSchedule<double>::polynomial(s.kappa(), s.tau(), s.scale() / 2); };
  EXPECT_FALSE(p.empty());
  const auto half = paquet_schedule(p, lib);
  for (long t : {0L, 1L, 100L}) EXPECT_DOUBLE_EQ(half.at(t), lib.at(t) / 2) << t;
}

// Each part replaced by a wrong one changes the sweep (the parts are read where the sweep uses them).
TEST(PaquetMf, EachReplacedPartChangesTheSweep) {
  const auto d = small_data(9, 15, 20, 0.5);
  const auto q0 = init_q<double>(d, 3, 5);
  std::vector<PaquetParts<double>> wrong(4);
  wrong[0].scale = [](Index, Index) { return 1.0; };
  wrong[1].reads = [](PaquetOption) { return PaquetReads::kUpdated; };
  wrong[2].precision = [](const PaquetNode<double>&) { return 1.0; };
  wrong[3].coparents = [](Index, Index K, std::vector<Index>& out) {
    for (Index kk = 0; kk < K; ++kk) out.push_back(kk);
  };
  PaquetOptions o;
  o.option = PaquetOption::kSimultaneous;
  o.children = 2;
  PaquetStepper<double> lib(d, o, q0);
  PaquetSampler s0(4, 0);
  PaquetSample dir;
  s0.estimate(0, lib, dir);
  ASSERT_TRUE(lib.step(0, 0.5, dir).ok);
  for (std::size_t i = 0; i < wrong.size(); ++i) {
    PaquetStepper<double> s(d, o, q0, wrong[i]);
    ASSERT_TRUE(s.step(0, 0.5, dir).ok) << i;
    EXPECT_FALSE((s.point().u == lib.point().u).all() && (s.point().v == lib.point().v).all()) << i;
  }
}

TEST(PaquetMf, CoparentOutsideTheCoordinatesNamesThePart) {
  const auto d = small_data(10);
  PaquetParts<double> p;
  p.coparents = [](Index, Index K, std::vector<Index>& out) { out.push_back(K); };
  PaquetOptions o;
  PaquetStepper<double> s(d, o, init_q<double>(d, 2, 1), p);
  PaquetSampler sampler(1, 0);
  PaquetSample dir;
  sampler.estimate(0, s, dir);
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { s.step(0, 0.5, dir); }, {"parts.coparents", "[0, K)"}));
}

TEST(PaquetMf, BadOptionsNameTheArgument) {
  const auto d = small_data(8);
  PaquetOptions o;
  o.children = -1;
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { PaquetStepper<double>(d, o, init_q<double>(d, 2, 1)); }, {"options.children"}));
  o.children = 0;
  o.algorithm = PaquetAlgorithm::kGlobal;
  o.global_batch = 0;
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { PaquetStepper<double>(d, o, init_q<double>(d, 2, 1)); }, {"options.global_batch"}));
  o.algorithm = PaquetAlgorithm::kPerNode;
  auto q = init_q<double>(d, 2, 1);
  q.u(0, 0) = -1;
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { PaquetStepper<double>(d, o, q); }, {"'init'", "positive"}));
  data::SyntheticRatingsOptions so;
  so.density = 0;
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { data::synthetic_ratings(so, 1); }, {"'density'"}));
}

TEST(PaquetMf, SyntheticDensityAndZipfActivity) {
  data::SyntheticRatingsOptions so;
  const auto d = data::synthetic_ratings(so, 4);
  // Binomial(180000, 0.1): mean 18000, sd ≈ 127; 6 sd bound.
  EXPECT_NEAR(static_cast<double>(d.size()), 18000.0, 6 * std::sqrt(180000 * 0.1 * 0.9));
  so.zipf = 1;
  const auto z = data::synthetic_ratings(so, 4);
  EXPECT_GT(z.user_degree(0), 4 * z.user_degree(so.users - 1));
}

TEST(PaquetMf, RatingsCsvLoaderNamesFileAndLine) {
  const std::string path = ::testing::TempDir() + "paquet_ratings.csv";
  {
    std::ofstream f(path);
    f << "user,item,rating\nalice,x,5\nbob,x,3\nalice,y,1\n";
  }
  const auto t = data::read_ratings_csv(path, true);
  EXPECT_EQ(t.ratings.users, 2);
  EXPECT_EQ(t.ratings.items, 2);
  EXPECT_EQ(t.ratings.size(), 3);
  EXPECT_EQ(t.centre, 3.0);
  EXPECT_EQ(t.ratings.value[0], 2.0);
  EXPECT_EQ(t.user_labels[1], "bob");
  {
    std::ofstream f(path);
    f << "user,item,rating\nalice,x,5\nbob,x,oops\n";
  }
  EXPECT_TRUE(test::throws_with<std::runtime_error>([&] { data::read_ratings_csv(path); }, {path + ":3:", "not a number"}));
  {
    std::ofstream f(path);
    f << "1,2,3\n4,5\n";
  }
  EXPECT_TRUE(test::throws_with<std::runtime_error>([&] { data::read_ratings_csv(path); }, {path + ":2:", "3 fields"}));
  EXPECT_TRUE(test::throws_with<std::runtime_error>([&] { data::read_ratings_csv(path + ".missing"); }, {".missing", "cannot open"}));
  std::remove(path.c_str());
}

}}  // namespace
}  // namespace ngvi
