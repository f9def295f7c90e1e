#pragma once
/// @file
/// Shared by the SVI claims (svi_*.cpp, lda_*.cpp, gmm_*.cpp): the small instances, the parts that a
/// claim body runs with (the library's by default, or a variant's replacements), and
/// independent references written here: batch CAVI for LDA with φ stored explicitly and normalised by
/// log-sum-exp, and permutation-matched topic cosines by enumeration.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "ngvi/claims/check_util.hpp"
#include "ngvi/data/lda_synthetic.hpp"
#include "ngvi/models/lda.hpp"
#include "ngvi/models/gmm.hpp"
#include "ngvi/optim/steppers/svi.hpp"

namespace ngvi::claims {

/// The parts a claim body runs: the library's (all empty), or those a variant replaces: SVI's global
/// step (svi::SviParts) and LDA's E-step (lda::EStepParts), both filed under kPartSystemSvi
/// (svi_mutants.cpp registers the kit's mutants so).
template <class Scalar>
struct SviMutation {
  svi::SviParts<Scalar> svi;
  lda::EStepParts<Scalar> estep;
  gmm::GmmParts<Scalar> gmm;
};

/// The parts a claim runs under in Scalar: the library's, or the replacements of the variant that
/// `ngvi verify --mutant` / `--mutants` / `--variant` selected (a variant that files no SVI parts
/// leaves the SVI claims on the library's).
template <class Scalar>
SviMutation<Scalar> mutation_for(const RunContext& ctx) {
  SviMutation<Scalar> m;
  if (const auto* p = system_parts_for<svi::SviParts<Scalar>>(ctx.variant(), kPartSystemSvi)) m.svi = *p;
  if (const auto* p = system_parts_for<lda::EStepParts<Scalar>>(ctx.variant(), kPartSystemSvi)) m.estep = *p;
  if (const auto* p = system_parts_for<gmm::GmmParts<Scalar>>(ctx.variant(), kPartSystemSvi)) m.gmm = *p;
  return m;
}

/// The small corpus of the identity claims: K = 3 topics over V = 12 words, D = 12 documents of mean
/// length 15 (a pure function of the seed), α = 1/2, η = 1/4 (dyadic, so double and mp50 see the same
/// model), E-step of exactly `iters` updates (tol = 0) from γ = 1, ε₀ = 0.
struct LdaIdentityInstance {
  std::string name;
  lda::Corpus corpus;
  long K;
};

inline LdaIdentityInstance lda_identity_instance(std::uint64_t seed) {
  const auto syn = lda::synthetic_lda(3, 12, 12, 0, 15, 0.2, 0.5, seed);
  return {"lda-K3-V12-D12", syn.train, 3};
}

template <class Scalar>
lda::LdaOptions<Scalar> identity_options(long K, long iters, const SviMutation<Scalar>& mut) {
  lda::LdaOptions<Scalar> o;
  o.topics = K;
  o.alpha = Scalar(1) / 2;
  o.eta = Scalar(1) / 4;
  o.max_iter = iters;
  o.mean_change_tol = Scalar(0);
  o.phinorm_floor = Scalar(0);
  o.init = lda::GammaInit::kOnes;
  o.parts = mut.estep;
  return o;
}

/// Topics as rows, K × V: the layout of the claims' own references (the kit's λ is V × K, a column
/// per topic, lda::Topics); topic_rows turns the kit's into it.
template <class Scalar>
using TopicRows = Eigen::Array<Scalar, Eigen::Dynamic, Eigen::Dynamic>;

template <class Scalar>
TopicRows<Scalar> topic_rows(const Mat<Scalar>& lambda) {
  return lambda.transpose().array();
}

/// A positive λ (V × K) with entries in [1/2, 9/2] on a dyadic grid (the same in every precision).
template <class Scalar>
lda::Topics<Scalar> grid_lambda(long K, long V, std::uint64_t seed) {
  random::Stream rng(seed, 1000);
  lda::Topics<Scalar> l(V, K);
  for (Index w = 0; w < V; ++w)
    for (Index k = 0; k < K; ++k) l(w, k) = Scalar(1) / 2 + Scalar(static_cast<long>(rng.index(64))) / 16;
  return l;
}

/// Reference batch CAVI step for LDA, written independently of models/lda.hpp: for each document,
/// `iters` rounds of φ_dwk = softmax_k(E log θ_dk + E log β_kw) (log-sum-exp) then γ_dk = α + Σ_w n_dw φ_dwk,
/// from γ = 1; then λ_new = η + Σ_d Σ_w n_dw φ_dwk with φ from the final γ. λ and the result are K × V.
template <class Scalar>
TopicRows<Scalar> reference_cavi_step(const lda::Corpus& c, const TopicRows<Scalar>& lambda, const Scalar& alpha, const Scalar& eta,
                                      long iters) {
  using boost::math::digamma;
  using std::exp;
  using std::log;
  const Index K = lambda.rows(), V = lambda.cols();
  TopicRows<Scalar> elb(K, V);
  for (Index k = 0; k < K; ++k) {
    Scalar s(0);
    for (Index w = 0; w < V; ++w) s += lambda(k, w);
    for (Index w = 0; w < V; ++w) elb(k, w) = digamma(lambda(k, w)) - digamma(s);
  }
  TopicRows<Scalar> out = TopicRows<Scalar>::Constant(K, V, eta);
  for (long d = 0; d < c.n_docs(); ++d) {
    const long lo = c.doc_ptr[static_cast<std::size_t>(d)], hi = c.doc_ptr[static_cast<std::size_t>(d) + 1];
    std::vector<Scalar> g(static_cast<std::size_t>(K), Scalar(1));
    std::vector<std::vector<Scalar>> phi(static_cast<std::size_t>(hi - lo), std::vector<Scalar>(static_cast<std::size_t>(K)));
    auto update_phi = [&] {
      Scalar gs(0);
      for (auto& v : g) gs += v;
      for (long j = lo; j < hi; ++j) {
        auto& p = phi[static_cast<std::size_t>(j - lo)];
        const Index w = c.word[static_cast<std::size_t>(j)];
        Scalar mx(0);
        for (Index k = 0; k < K; ++k) {
          p[static_cast<std::size_t>(k)] = digamma(g[static_cast<std::size_t>(k)]) - digamma(gs) + elb(k, w);
          if (k == 0 || p[static_cast<std::size_t>(k)] > mx) mx = p[static_cast<std::size_t>(k)];
        }
        Scalar z(0);
        for (auto& v : p) z += (v = exp(v - mx));
        for (auto& v : p) v /= z;
      }
    };
    update_phi();
    for (long it = 0; it < iters; ++it) {
      for (Index k = 0; k < K; ++k) {
        Scalar s = alpha;
        for (long j = lo; j < hi; ++j) s += Scalar(c.count[static_cast<std::size_t>(j)]) * phi[static_cast<std::size_t>(j - lo)][static_cast<std::size_t>(k)];
        g[static_cast<std::size_t>(k)] = s;
      }
      update_phi();
    }
    for (long j = lo; j < hi; ++j)
      for (Index k = 0; k < K; ++k)
        out(k, c.word[static_cast<std::size_t>(j)]) += Scalar(c.count[static_cast<std::size_t>(j)]) * phi[static_cast<std::size_t>(j - lo)][static_cast<std::size_t>(k)];
  }
  return out;
}

/// ‖a − b‖_F / ‖b‖_F in the precision of the arrays (LDA's in TopicRows, the mixture's gmm::Global).
template <class Scalar>
Scalar relative_error(const Eigen::Array<Scalar, Eigen::Dynamic, Eigen::Dynamic>& a, const Eigen::Array<Scalar, Eigen::Dynamic, Eigen::Dynamic>& b) {
  using std::sqrt;
  return sqrt((a - b).square().sum() / b.square().sum());
}

/// Topic recovery: rows of `fitted` (K_fit × V, any positive weights) normalised to distributions,
/// cosine similarity to each true topic (rows of `truth`, K × V). With K_fit = K, the permutation
/// maximising the mean cosine, found by enumerating all K! permutations; with K_fit < K, the
/// injective assignment of fitted topics to true ones maximising the mean over the assigned pairs,
/// each unassigned true topic scored by its best cosine to any fitted topic. Returns every true
/// topic's matched cosine and the mean total variation of the matched pairs.
struct TopicMatch {
  std::vector<double> cosine;
  double mean_tv = 0;
  double mean() const { return std::accumulate(cosine.begin(), cosine.end(), 0.0) / double(cosine.size()); }
  double min() const { return *std::min_element(cosine.begin(), cosine.end()); }
};

inline TopicMatch match_topics(const Mat<double>& truth, const Mat<double>& fitted) {
  const Index K = truth.rows(), F = fitted.rows();
  Mat<double> fit = fitted;
  for (Index k = 0; k < F; ++k) fit.row(k) /= fit.row(k).sum();
  Mat<double> cos(K, F);
  for (Index a = 0; a < K; ++a)
    for (Index b = 0; b < F; ++b) cos(a, b) = truth.row(a).dot(fit.row(b)) / (truth.row(a).norm() * fit.row(b).norm());
  std::vector<int> perm(static_cast<std::size_t>(K));
  std::iota(perm.begin(), perm.end(), 0);
  double best = -1;
  std::vector<int> best_perm;
  do {  // perm[a] = fitted topic of true topic a; values ≥ F mean "unassigned"
    double s = 0;
    for (Index a = 0; a < K; ++a) s += perm[static_cast<std::size_t>(a)] < F ? cos(a, perm[static_cast<std::size_t>(a)]) : 0;
    if (s > best) {
      best = s;
      best_perm = perm;
    }
  } while (std::next_permutation(perm.begin(), perm.end()));
  TopicMatch m;
  for (Index a = 0; a < K; ++a) {
    const int b = best_perm[static_cast<std::size_t>(a)];
    if (b < F) {
      m.cosine.push_back(cos(a, b));
      m.mean_tv += 0.5 * (truth.row(a) - fit.row(b)).cwiseAbs().sum();
    } else {
      m.cosine.push_back(cos.row(a).maxCoeff());
    }
  }
  m.mean_tv /= double(std::min(K, F));
  return m;
}

}  // namespace ngvi::claims
