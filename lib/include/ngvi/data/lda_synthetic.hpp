#pragma once
/// @file
/// Synthetic LDA corpora drawn from the model itself (docs/systems.md A.4, the synthetic benchmark):
/// β_k ~ Dir(topic_conc · 1_V), θ_d ~ Dir(doc_conc · 1_K), document length ~ Poisson(mean_length)
/// (redrawn while 0), tokens w ~ Σ_k θ_dk β_k. Every draw comes from random::Stream(seed, ·) through
/// Boost.Random's distributions, so a corpus is a pure function of its arguments.
#include <cstdint>
#include <map>
#include <vector>

#include <boost/random/discrete_distribution.hpp>
#include <boost/random/gamma_distribution.hpp>
#include <boost/random/poisson_distribution.hpp>

#include "ngvi/data/corpus.hpp"
#include "ngvi/linalg/validate.hpp"
#include "ngvi/random/stream.hpp"

namespace ngvi::lda {

struct SyntheticLda {
  Corpus train, test;
  Mat<double> topics;  ///< K × V, rows sum to 1 (the true β)
};

/// @throws std::domain_error naming the argument (sizes < 1, concentrations or mean length not positive).
inline SyntheticLda synthetic_lda(long K, long V, long d_train, long d_test, double mean_length, double topic_conc, double doc_conc,
                                  std::uint64_t seed) {
  constexpr const char* f = "ngvi::lda::synthetic_lda";
  if (K < 1) throw_domain(f, "K", "must be >= 1");
  if (V < 1) throw_domain(f, "V", "must be >= 1");
  if (d_train < 1) throw_domain(f, "d_train", "must be >= 1");
  if (d_test < 0) throw_domain(f, "d_test", "must be >= 0");
  if (!(mean_length > 0)) throw_domain(f, "mean_length", "must be positive");
  if (!(topic_conc > 0)) throw_domain(f, "topic_conc", "must be positive");
  if (!(doc_conc > 0)) throw_domain(f, "doc_conc", "must be positive");
  auto dirichlet = [](random::Stream& rng, long n, double a) {
    boost::random::gamma_distribution<double> g(a, 1.0);
    std::vector<double> x(static_cast<std::size_t>(n));
    double s = 0;
    // Gamma(a) draws with small a underflow to 0 now and then; redraw the vector while it sums to 0.
    do {
      s = 0;
      for (auto& v : x) s += (v = g(rng));
    } while (!(s > 0));
    for (auto& v : x) v /= s;
    return x;
  };
  SyntheticLda out;
  out.topics.resize(K, V);
  random::Stream trng(seed, 0);
  std::vector<boost::random::discrete_distribution<int, double>> words;
  for (long k = 0; k < K; ++k) {
    const auto b = dirichlet(trng, V, topic_conc);
    for (long w = 0; w < V; ++w) out.topics(k, w) = b[static_cast<std::size_t>(w)];
    words.emplace_back(b.begin(), b.end());
  }
  auto make = [&](Corpus& c, long n, std::uint64_t offset) {
    c.n_words = V;
    c.source = "synthetic-lda";
    for (long d = 0; d < n; ++d) {
      random::Stream rng(seed, offset + static_cast<std::uint64_t>(d));
      const auto theta = dirichlet(rng, K, doc_conc);
      boost::random::discrete_distribution<int, double> pick(theta.begin(), theta.end());
      boost::random::poisson_distribution<long, double> len(mean_length);
      long L = 0;
      while (L == 0) L = len(rng);
      std::map<std::int32_t, std::int64_t> bag;
      for (long i = 0; i < L; ++i) ++bag[static_cast<std::int32_t>(words[static_cast<std::size_t>(pick(rng))](rng))];
      c.add_document(std::vector<std::pair<std::int32_t, std::int64_t>>(bag.begin(), bag.end()));
    }
  };
  make(out.train, d_train, 1);
  make(out.test, d_test, 1 + static_cast<std::uint64_t>(d_train));
  return out;
}

}  // namespace ngvi::lda
