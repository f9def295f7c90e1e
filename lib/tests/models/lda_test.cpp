// LDA (models/lda.hpp): corpus checks, the E-step's invariants (γ mass, statistics mass), results
// independent of the thread count, the E-step against a direct φ-explicit iteration written here,
// the bound's pieces against closed forms, and the perplexities against a uniform model.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ngvi/data/lda_synthetic.hpp"
#include "ngvi/models/lda.hpp"
#include "ngvi/kernels/execution.hpp"
#include "test_util.hpp"

namespace ngvi::lda {
namespace { namespace NGVI_UNITY_ID {

Corpus tiny() {
  Corpus c;
  c.n_words = 5;
  c.add_document({{0, 2}, {3, 1}});
  c.add_document({{1, 4}, {2, 1}, {4, 3}});
  c.add_document({{0, 1}, {4, 5}});
  return c;
}

std::vector<long> all_docs(const Corpus& c) {
  std::vector<long> v(static_cast<std::size_t>(c.n_docs()));
  for (long d = 0; d < c.n_docs(); ++d) v[static_cast<std::size_t>(d)] = d;
  return v;
}

// Relative tolerance for sums of n terms of one sign, each a few roundings: Higham (2002) γ_n, with a
// factor 4 for the products that form the terms.
double sum_tolerance(long n) { return 4.0 * double(n + 4) * std::numeric_limits<double>::epsilon(); }

TEST(LdaCorpus, ValidationNamesTheViolation) {
  Corpus c = tiny();
  EXPECT_NO_THROW(validate_corpus(c));
  Corpus bad = c;
  bad.word[1] = 7;
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { validate_corpus(bad); }, {"corpus", "document 0", "outside"}));
  bad = c;
  bad.count[2] = 0;
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { validate_corpus(bad); }, {"document 1", "count"}));
  bad = c;
  bad.word[3] = 1;
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { validate_corpus(bad); }, {"increasing"}));
  LdaOptions<double> o;
  o.topics = 0;
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { LdaModel<double>(c, o); }, {"options.topics"}));
  o.topics = 2;
  o.alpha = -1;
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { LdaModel<double>(c, o); }, {"options.alpha"}));
  Corpus one_word;
  one_word.n_words = 1;
  one_word.add_document({{0, 3}});
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { LdaModel<double>(one_word, LdaOptions<double>{}); }, {"corpus.n_words", ">= 2"}));
}

// Each replaced piece of the E-step (EStepParts) takes the place of its own only: a stopping rule that
// always stops ends every document after one update; token weights n_dw (φ not normalised) change
// γ's mass; the library's own map given as the expected-log-topics piece changes no bit.
TEST(LdaEStep, ReplacedPiecesTakeThePlaceOfTheirsOnly) {
  const auto syn = synthetic_lda(3, 20, 6, 0, 20, 0.1, 0.2, 5);
  LdaOptions<double> o;
  o.topics = 3;
  o.phinorm_floor = 0;
  o.init = GammaInit::kOnes;
  const auto docs = all_docs(syn.train);
  const LdaModel<double> lib(syn.train, o);
  const auto lambda = lib.initial_lambda(3);
  Topics<double> s_lib;
  const auto r_lib = lib.e_step(lambda, docs, 0, &s_lib);

  LdaOptions<double> once = o;
  once.parts.stop = [](int, std::span<const double>, std::span<const double>) { return true; };
  const auto r_once = LdaModel<double>(syn.train, once).e_step(lambda, docs, 0, nullptr);
  EXPECT_TRUE(std::all_of(r_once.iterations.begin(), r_once.iterations.end(), [](int i) { return i == 1; }));

  LdaOptions<double> counts = o;
  counts.parts.token_weights = [](std::span<const double> n, std::span<const double>, const double&, std::span<double> w) {
    std::copy(n.begin(), n.end(), w.begin());
  };
  const auto r_counts = LdaModel<double>(syn.train, counts).e_step(lambda, docs, 0, nullptr);
  EXPECT_GT(std::abs(r_counts.gamma.col(0).sum() - r_lib.gamma.col(0).sum()), 1.0);

  LdaOptions<double> same = o;
  same.parts.expected_log_topics = [](const Topics<double>& l) { return expected_log_topics(l); };
  Topics<double> s_same;
  const auto r_same = LdaModel<double>(syn.train, same).e_step(lambda, docs, 0, &s_same);
  EXPECT_TRUE((r_same.gamma.array() == r_lib.gamma.array()).all());
  EXPECT_TRUE((s_same.array() == s_lib.array()).all());
}

// Σ_k γ_dk = Kα + Σ_w n_dw (1 − ε₀/phinorm_dw): with ε₀ = 0, exactly Kα + tokens up to rounding.
TEST(LdaEStep, GammaMassAndStatisticsMass) {
  const auto syn = synthetic_lda(4, 30, 40, 0, 25, 0.1, 0.2, 3);
  LdaOptions<double> o;
  o.topics = 4;
  o.alpha = 0.25;
  o.eta = 0.25;
  o.phinorm_floor = 0;
  const LdaModel<double> m(syn.train, o);
  const auto lambda = m.initial_lambda(11);
  Topics<double> ss;
  const auto docs = all_docs(syn.train);
  const auto res = m.e_step(lambda, docs, 5, &ss);
  for (long d = 0; d < syn.train.n_docs(); ++d) {
    const double want = 4 * 0.25 + double(syn.train.tokens(d));
    EXPECT_NEAR(res.gamma.col(d).sum(), want, sum_tolerance(4 * syn.train.nnz()) * want) << d;
  }
  for (long w = 0; w < 30; ++w) {
    double n = 0;
    for (std::size_t j = 0; j < syn.train.word.size(); ++j)
      if (syn.train.word[j] == w) n += double(syn.train.count[j]);
    EXPECT_NEAR(ss.row(w).sum(), n, sum_tolerance(4 * syn.train.nnz()) * std::max(1.0, n)) << w;
  }
}

TEST(LdaEStep, IndependentOfTheThreadCount) {
  const auto syn = synthetic_lda(5, 50, 64, 0, 40, 0.1, 0.2, 9);
  LdaOptions<double> o;
  o.topics = 5;
  const auto docs = all_docs(syn.train);
  Topics<double> lambda;
  Topics<double> s0, s1, s3;
  EStepResult<double> r0, r1, r3;
  {
    const LdaModel<double> m(syn.train, o);
    lambda = m.initial_lambda(2);
    r0 = m.e_step(lambda, docs, 77, &s0);
  }
  {
    parallel::TilePool p1(1);
    const LdaModel<double> m(syn.train, o, kernels::ExecutionContext{&p1});
    r1 = m.e_step(lambda, docs, 77, &s1);
  }
  {
    parallel::TilePool p3(3);
    const LdaModel<double> m(syn.train, o, kernels::ExecutionContext{&p3});
    r3 = m.e_step(lambda, docs, 77, &s3);
  }
  EXPECT_TRUE((r0.gamma.array() == r1.gamma.array()).all());
  EXPECT_TRUE((r0.gamma.array() == r3.gamma.array()).all());
  EXPECT_TRUE((s0.array() == s1.array()).all());
  EXPECT_TRUE((s0.array() == s3.array()).all());
  EXPECT_EQ(r0.iterations, r3.iterations);
}

// The statistics scaled as they are written (local_statistics with a factor, what SviEstimator asks of
// the model) are bitwise the statistics scaled afterwards, rows outside the minibatch included (0); the
// initial λ drawn by word tiles is the same with no pool and with pools of 1 and 3 threads.
TEST(LdaEStep, ScaledStatisticsAndTheStartAreTheSameBitsOnAnyPool) {
  const auto syn = synthetic_lda(5, 200, 64, 0, 20, 0.1, 0.2, 4);
  LdaOptions<double> o;
  o.topics = 5;
  const std::vector<long> batch{3, 9, 10, 41, 60};
  const double factor = 64.0 / 5.0;
  const LdaModel<double> m(syn.train, o);
  const auto lambda = m.initial_lambda(6);
  Topics<double> after, during;
  m.local_statistics(lambda, batch, 19, after);
  after *= factor;
  m.local_statistics(lambda, batch, 19, during, factor);
  EXPECT_TRUE((after.array() == during.array()).all());
  EXPECT_GT((during.array() == 0.0).count(), 0);  // words outside the minibatch
  for (int n : {1, 3}) {
    parallel::TilePool pool(n);
    const LdaModel<double> mp(syn.train, o, kernels::ExecutionContext{&pool});
    EXPECT_TRUE((mp.initial_lambda(6).array() == lambda.array()).all()) << n << " threads";
    Topics<double> s;
    mp.local_statistics(lambda, batch, 19, s, factor);
    EXPECT_TRUE((s.array() == during.array()).all()) << n << " threads";
  }
}

// The E-step against φ written out per (word, topic) with log-sum-exp normalisation, the same
// number of updates (tol = 0) and the same start (γ = 1).
TEST(LdaEStep, MatchesAnExplicitPhiIteration) {
  const Corpus c = tiny();
  LdaOptions<double> o;
  o.topics = 3;
  o.alpha = 0.5;
  o.eta = 0.3;
  o.max_iter = 7;
  o.mean_change_tol = 0;
  o.phinorm_floor = 0;
  o.init = GammaInit::kOnes;
  const LdaModel<double> m(c, o);
  Topics<double> lambda(5, 3);
  for (Index k = 0; k < 3; ++k)
    for (Index w = 0; w < 5; ++w) lambda(w, k) = 0.5 + double((k * 7 + w * 3) % 5);
  Topics<double> ss;
  const auto docs = all_docs(c);
  const auto res = m.e_step(lambda, docs, 0, &ss);
  Topics<double> ref_ss = Topics<double>::Zero(5, 3);
  for (long d = 0; d < c.n_docs(); ++d) {
    std::vector<double> g(3, 1.0);
    auto phi_of = [&](Index w) {
      std::vector<double> l(3);
      double gs = g[0] + g[1] + g[2], mx = -1e300;
      for (Index k = 0; k < 3; ++k) {
        const double ls = lambda.col(k).sum();
        l[static_cast<std::size_t>(k)] = boost::math::digamma(g[static_cast<std::size_t>(k)]) - boost::math::digamma(gs) +
                                         boost::math::digamma(lambda(w, k)) - boost::math::digamma(ls);
        mx = std::max(mx, l[static_cast<std::size_t>(k)]);
      }
      double z = 0;
      for (auto& v : l) z += (v = std::exp(v - mx));
      for (auto& v : l) v /= z;
      return l;
    };
    for (int it = 0; it < 7; ++it) {
      std::vector<double> ng(3, 0.5);
      for (long j = c.doc_ptr[d]; j < c.doc_ptr[d + 1]; ++j) {
        const auto p = phi_of(c.word[j]);
        for (int k = 0; k < 3; ++k) ng[k] += double(c.count[j]) * p[k];
      }
      g = ng;
    }
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(res.gamma(k, d), g[k], 64 * sum_tolerance(20) * g[k]) << d << "," << k;
    for (long j = c.doc_ptr[d]; j < c.doc_ptr[d + 1]; ++j) {
      const auto p = phi_of(c.word[j]);
      for (int k = 0; k < 3; ++k) ref_ss(c.word[j], k) += double(c.count[j]) * p[k];
    }
  }
  for (Index i = 0; i < ss.size(); ++i) EXPECT_NEAR(ss.data()[i], ref_ss.data()[i], 64 * sum_tolerance(20) * (1 + ref_ss.data()[i]));
  EXPECT_TRUE(std::all_of(res.iterations.begin(), res.iterations.end(), [](int i) { return i == 7; }));
}

// Uniform topics: E[β_kw] = 1/V for every k, so every token's completion probability is 1/V and the
// completion perplexity is V exactly (up to rounding).
TEST(LdaPerplexity, UniformTopicsGiveVocabularySizeForCompletion) {
  const auto syn = synthetic_lda(3, 40, 10, 20, 30, 0.1, 0.2, 4);
  LdaOptions<double> o;
  o.topics = 3;
  const Topics<double> flat = Topics<double>::Constant(40, 3, 2.0);
  const double p = completion_perplexity(syn.test, flat, o);
  EXPECT_NEAR(p, 40.0, 40.0 * sum_tolerance(syn.test.tokens()));
  const double q = perplexity(syn.test, flat, o);
  EXPECT_TRUE(std::isfinite(q) && q > 1);
}

// The bound with one document and one topic (K = 1): E log θ = 0, γ = α + n, and the bound reduces to
// Σ_w n_w E log β_w + lnΓ(α + n)... written out with lgamma here.
TEST(LdaBound, OneTopicClosedForm) {
  Corpus c;
  c.n_words = 3;
  c.add_document({{0, 2}, {2, 3}});
  Topics<double> lambda(3, 1);
  lambda << 1.5, 0.75, 2.25;
  Mat<double> gamma(1, 1);
  gamma(0, 0) = 0.5 + 5;
  const double alpha = 0.5, eta = 0.25;
  const double b = lda_bound<double>(c, std::vector<long>{0}, gamma, lambda, alpha, eta);
  const double ls = 4.5;
  auto elb = [&](int w) { return boost::math::digamma(lambda(w, 0)) - boost::math::digamma(ls); };
  double ref = 2 * elb(0) + 3 * elb(2);                                      // Σ n_w E log β_w (E log θ = 0 with K = 1)
  ref += (alpha - gamma(0, 0)) * 0 + std::lgamma(gamma(0, 0)) - std::lgamma(alpha) + std::lgamma(alpha) - std::lgamma(gamma(0, 0));
  for (int w = 0; w < 3; ++w) ref += (eta - lambda(w, 0)) * elb(w) + std::lgamma(lambda(w, 0)) - std::lgamma(eta);
  ref += std::lgamma(3 * eta) - std::lgamma(ls);
  EXPECT_NEAR(b, ref, 64 * std::numeric_limits<double>::epsilon() * (1 + std::abs(ref)));
}

}}  // namespace
}  // namespace ngvi::lda
