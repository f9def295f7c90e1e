#pragma once
/// @file
/// Latent Dirichlet allocation as an SVI model (Blei, Ng & Jordan 2003; Hoffman, Blei & Bach 2010;
/// Hoffman et al. 2013, §3.1; docs/systems.md A.4):
///   β_k ~ Dir(η 1_V), θ_d ~ Dir(α 1_K), z_dn ~ Cat(θ_d), w_dn ~ Cat(β_{z_dn});
///   q(β_k) = Dir(λ_k), q(θ_d) = Dir(γ_d), q(z_dn) = Cat(φ_dn), φ shared by the tokens of one word type.
/// The global parameter is λ, the natural parameter of the topics' family Product<DirichletFamily>
/// (TopicsFamily: V × K, column k the Dirichlet parameter of topic k; the kit's Dirichlet natural
/// parameter is α itself, expfam/dirichlet.hpp), so the update λ̂ = η + (D/|S|) sstats and the convex
/// combination of SVI's step are taken in the natural parameter.
///
/// E-step (local step) of document d, the form both public codes use (φ never stored), with the
/// Dirichlet's mean map E[log x] = ψ(α) − ψ(Σα) of expfam/dirichlet.hpp (dirichlet_mean_map) for θ_d and β_k:
///   e^{E log θ_dk} = exp(ψ(γ_dk) − ψ(Σ_j γ_dj)),   e^{E log β_kw} = exp(ψ(λ_wk) − ψ(Σ_v λ_vk)),
///   phinorm_dw = Σ_k e^{E log θ_dk} e^{E log β_kw} + ε₀,
///   γ_dk ← α + e^{E log θ_dk} Σ_w (n_dw / phinorm_dw) e^{E log β_kw},
/// repeated until mean_k |Δγ_dk| < tol or max_iter updates; the statistics then use the φ of the final γ:
///   sstats_wk = e^{E log β_kw} Σ_{d∈S} e^{E log θ_dk} n_dw / phinorm_dw  (= Σ_d n_dw φ_dwk), V × K as λ.
///
/// Conventions of the two public codes (docs/systems.md A.4), and which the kit follows:
///   - γ initialisation in training: Gamma(shape 100, scale 1/100) per entry (both codes; kit default,
///     drawn from random::Stream(key, d) by random::GammaSampler, so the result does not depend on the
///     thread count);
///     evaluation: γ = 1 (scikit-learn's random_init=False; the kit's held-out protocol);
///   - ε₀: scikit-learn's machine epsilon (kit default) or onlineldavb's 1e−100 (LdaOptions::phinorm_floor);
///   - stopping: mean absolute change < 1e−3, at most 100 updates (both codes);
///   - minibatches in data order (scikit-learn's fit; onlineldavb takes what the stream gives);
///   - ρ_t = (t + τ₀)^(−κ), t = 1, 2, … (both codes, once their offsets are unwound; optim/steppers/svi.hpp);
///   - the bound and scikit-learn's perplexity exp(−bound / tokens), in nats (lda_bound, perplexity).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "ngvi/data/corpus.hpp"
#include "ngvi/expfam/dirichlet.hpp"
#include "ngvi/expfam/product.hpp"
#include "ngvi/linalg/validate.hpp"
#include "ngvi/special/gamma_functions.hpp"
#include "ngvi/kernels/execution.hpp"
#include "ngvi/random/gamma.hpp"
#include "ngvi/random/stream.hpp"
#include "ngvi/scalar/traits.hpp"
#include "ngvi/scalar/types.hpp"

namespace ngvi::lda {

/// The topics' variational family: K independent Dirichlets over the V words, q(β_k) = Dir(λ_k).
template <class Scalar>
using TopicsFamily = Product<DirichletFamily<Scalar>>;

/// λ, the topics' natural parameter (TopicsFamily's): V × K, column k the Dirichlet parameter of topic
/// k. The E-step's statistics have the same shape.
template <class Scalar>
using Topics = typename TopicsFamily<Scalar>::Natural;

/// E[log β] (V × K) of every topic: the TopicsFamily mean map, column by column through the
/// Dirichlet's (dirichlet_mean_map; no domain check, the stepper keeps λ in the domain).
template <class Scalar>
Topics<Scalar> expected_log_topics(const Mat<Scalar>& lambda) {
  return dirichlet_mean_map_columns(lambda);
}

/// How γ_d starts an E-step.
enum class GammaInit {
  kRandom,  ///< Gamma(100, 1/100) entries (both codes' training E-step)
  kOnes,    ///< γ_d = 1 (scikit-learn's evaluation; the kit's held-out protocol)
  kWarm,    ///< the γ_d of the document's previous E-step (ones the first time): batch CAVI proper
};

/// The pieces of the E-step that a variant may replace (optim/variant.hpp: filed with
/// Variant::set_system_parts under kPartSystemSvi, one struct per scalar type, beside svi::SviParts);
/// an empty piece is the library's. Each is called once per minibatch or once per document update,
/// never per token, and from the pool's threads at once (it must not keep state).
template <class Scalar>
struct EStepParts {
  /// E[log β] (V × K) from λ, in place of each topic's Dirichlet mean map ψ(λ_wk) − ψ(Σ_v λ_vk)
  /// (expected_log_topics).
  std::function<Topics<Scalar>(const Topics<Scalar>& lambda)> expected_log_topics;
  /// One document's token weights, in place of n_dw / (phinorm_dw + ε₀): given the counts n_dw, the
  /// normalisers phinorm_dw and ε₀, writes the weights (each span holds the document's words).
  std::function<void(std::span<const Scalar> counts, std::span<const Scalar> phinorm, const Scalar& floor, std::span<Scalar> weights)>
      token_weights;
  /// Whether a document's γ iteration stops after `updates` updates (γ from `previous` to `gamma`), in
  /// place of mean_k |Δγ_dk| < tol; max_iter caps the updates either way.
  std::function<bool(int updates, std::span<const Scalar> previous, std::span<const Scalar> gamma)> stop;
  /// Where every document's γ iteration starts, given the start the options ask for (LdaOptions::init),
  /// in place of it (called once per E-step).
  std::function<GammaInit(GammaInit asked)> start;
};

template <class Scalar>
struct LdaOptions {
  long topics = 10;                             ///< K
  Scalar alpha = Scalar(1) / 10;                ///< α (scikit-learn: 1/K)
  Scalar eta = Scalar(1) / 10;                  ///< η (scikit-learn: 1/K)
  long max_iter = 100;                          ///< E-step updates at most (max_doc_update_iter)
  Scalar mean_change_tol = Scalar(1) / 1000;    ///< stop when mean_k |Δγ_dk| < tol (0: run max_iter)
  Scalar phinorm_floor = eps<Scalar>();         ///< ε₀ (scikit-learn EPS; onlineldavb 1e−100; 0 allowed)
  GammaInit init = GammaInit::kRandom;
  EStepParts<Scalar> parts;                     ///< replaced pieces of the E-step (empty: the library's)
};


/// What an E-step over documents S returns.
template <class Scalar>
struct EStepResult {
  Mat<Scalar> gamma;            ///< K × |S|, column i for document S[i]
  std::vector<int> iterations;  ///< γ updates per document
};

/// LDA over a corpus, satisfying svi::SviModel. The E-step of a minibatch runs its e^{E log β} table,
/// its documents and its statistics on the execution context's pool (tiles of the table, one tile per
/// document, one per topic of the statistics, each writing only its own entries, every entry of the
/// statistics summed in minibatch order), so every result is bitwise the same for any context.
template <class Scalar_>
class LdaModel {
 public:
  using Scalar = Scalar_;
  using Family = TopicsFamily<Scalar>;
  using Global = Topics<Scalar>;

  /// @throws std::domain_error naming the option (K < 1, α or η not positive, max_iter < 1,
  ///         tol or ε₀ negative) or the corpus's violation (V < 2 included: a topic's Dirichlet
  ///         needs two words).
  LdaModel(const Corpus& corpus, LdaOptions<Scalar> options, kernels::ExecutionContext exec = kernels::sequential())
      : corpus_(&corpus), opt_(std::move(options)), exec_(exec) {
    constexpr const char* f = "ngvi::lda::LdaModel";
    validate_corpus(corpus);
    if (corpus.n_docs() < 1) throw_domain(f, "corpus", "has no documents");
    if (corpus.n_words < 2) throw_domain(f, "corpus.n_words", "must be >= 2 (a topic is a Dirichlet over the words)");
    if (opt_.topics < 1) throw_domain(f, "options.topics", "must be >= 1");
    if (!(opt_.alpha > Scalar(0)) || !is_finite_scalar(opt_.alpha)) throw_domain(f, "options.alpha", "must be finite and positive");
    if (!(opt_.eta > Scalar(0)) || !is_finite_scalar(opt_.eta)) throw_domain(f, "options.eta", "must be finite and positive");
    if (opt_.max_iter < 1) throw_domain(f, "options.max_iter", "must be >= 1");
    if (!(opt_.mean_change_tol >= Scalar(0))) throw_domain(f, "options.mean_change_tol", "must be >= 0");
    if (!(opt_.phinorm_floor >= Scalar(0))) throw_domain(f, "options.phinorm_floor", "must be >= 0");
  }

  long size() const { return corpus_->n_docs(); }
  long topics() const { return opt_.topics; }
  long vocabulary() const { return corpus_->n_words; }
  const Corpus& corpus() const { return *corpus_; }
  const LdaOptions<Scalar>& options() const { return opt_; }
  const kernels::ExecutionContext& execution() const { return exec_; }
  void set_init(GammaInit g) { opt_.init = g; }
  /// γ of every document's last E-step under GammaInit::kWarm (K × D; empty before the first).
  const Mat<Scalar>& warm_gamma() const { return warm_; }

  /// The topics' family: K Dirichlets over the V words.
  Family family() const { return Family(DirichletFamily<Scalar>(corpus_->n_words), opt_.topics); }
  Global prior_natural() const { return Global::Constant(corpus_->n_words, opt_.topics, opt_.eta); }
  Global zero_global() const { return Global::Zero(corpus_->n_words, opt_.topics); }

  /// Initial λ: Gamma(100, 1/100) entries (both codes' initialisation) by random::GammaSampler, word w's
  /// K topics in turn from random::Stream(seed, w), so that tiles of words are drawn on the execution
  /// context's pool with the same result for any pool.
  Global initial_lambda(std::uint64_t seed) const {
    const random::GammaSampler g(100.0, 0.01);
    Global l(corpus_->n_words, opt_.topics);
    constexpr long kWordTile = 256;
    const long V = corpus_->n_words, K = opt_.topics;
    parallel::for_each_tile(exec_.pool, (V + kWordTile - 1) / kWordTile, [&](long t) {
      for (long w = t * kWordTile; w < std::min(V, (t + 1) * kWordTile); ++w) {
        random::Stream rng(seed, static_cast<std::uint64_t>(w));
        for (long k = 0; k < K; ++k) l(w, k) = Scalar(g(rng));
      }
    });
    return l;
  }

  /// svi::SviModel: E-step of the documents `batch` at λ, then stats = sstats (V × K).
  void local_statistics(const Global& lambda, std::span<const long> batch, std::uint64_t key, Global& stats) const {
    e_step(lambda, batch, key, &stats);
  }
  /// The same, with stats scaled by `factor` as they are written (SviEstimator's replication factor):
  /// each entry the value of the unscaled statistic times factor, rounded once more, so the result is
  /// bitwise that of a scaling afterwards, and only the minibatch's rows are touched.
  void local_statistics(const Global& lambda, std::span<const long> batch, std::uint64_t key, Global& stats, const Scalar& factor) const {
    e_step(lambda, batch, key, &stats, &factor);
  }

  /// The E-step of documents `batch` at λ; with `sstats`, also the statistics Σ_{d∈S} n_dw φ_dwk.
  ///
  /// e^{E log β} is formed for the minibatch's words only (U of the V words; the library's map, or the
  /// variant's expected_log_topics piece over all of λ), as a U × K table: ψ(Σ_v λ_vk) once per topic,
  /// then exp(ψ(λ_wk) − ψ(Σ_v λ_vk)) for those words, entry for entry what the whole V × K map gives.
  /// Every exponential of the E-step (this table's and e^{E log θ}'s) is Eigen's vectorised array exp.
  /// The table's tiles, the documents and the statistics' topics run on the execution context's pool,
  /// each writing only its own entries, in an order that does not depend on the pool.
  /// With `scale`, every statistic is scaled by *scale after its factor e^{E log β_kw} (local_statistics).
  EStepResult<Scalar> e_step(const Global& lambda, std::span<const long> batch, std::uint64_t key, Global* sstats,
                             const Scalar* scale = nullptr) const {
    const long K = opt_.topics;
    const long V = corpus_->n_words;
    const long S = static_cast<long>(batch.size());
    // The minibatch's words in increasing id, and each word's slot among them (−1: not in the minibatch;
    // −2 marks a word seen before its slot is given).
    std::vector<std::int32_t> slot(static_cast<std::size_t>(V), -1), words;
    for (const long d : batch)
      for (long j = corpus_->doc_ptr[static_cast<std::size_t>(d)]; j < corpus_->doc_ptr[static_cast<std::size_t>(d) + 1]; ++j)
        slot[static_cast<std::size_t>(corpus_->word[static_cast<std::size_t>(j)])] = -2;
    for (long w = 0; w < V; ++w)
      if (slot[static_cast<std::size_t>(w)] == -2) {
        slot[static_cast<std::size_t>(w)] = static_cast<std::int32_t>(words.size());
        words.push_back(static_cast<std::int32_t>(w));
      }
    const long U = static_cast<long>(words.size());
    Mat<Scalar> exp_beta(U, K);  // row u: word words[u]
    constexpr long kWordTile = 256;
    const long word_tiles = (U + kWordTile - 1) / kWordTile;
    if (opt_.parts.expected_log_topics) {
      const Global elog_beta = opt_.parts.expected_log_topics(lambda);
      for (long k = 0; k < K; ++k)
        for (long u = 0; u < U; ++u) exp_beta(u, k) = elog_beta(words[static_cast<std::size_t>(u)], k);
    } else {
      // dirichlet_mean_map's terms: ψ of the column's sum (the same Eigen sum), ψ(λ_wk) minus that.
      std::vector<Scalar> psi_sum(static_cast<std::size_t>(K));
      parallel::for_each_tile(exec_.pool, K, [&](long k) {
        psi_sum[static_cast<std::size_t>(k)] = special::digamma(Scalar(Eigen::Map<const Vec<Scalar>>(lambda.col(k).data(), V).sum()));
      });
      parallel::for_each_tile(exec_.pool, K * word_tiles, [&](long t) {
        const long k = t / word_tiles, u0 = (t % word_tiles) * kWordTile, u1 = std::min(U, u0 + kWordTile);
        const Scalar* col = lambda.col(k).data();
        const Scalar p0 = psi_sum[static_cast<std::size_t>(k)];
        Scalar* out = exp_beta.col(k).data();
        for (long u = u0; u < u1; ++u) out[u] = special::digamma(col[words[static_cast<std::size_t>(u)]]) - p0;
      });
    }
    // One exponential pass over the same tiles for either source, so that a piece computing the
    // library's map gives the same table to the bit (Eigen's array exp treats a tile's tail apart).
    parallel::for_each_tile(exec_.pool, K * word_tiles, [&](long t) {
      const long k = t / word_tiles, u0 = (t % word_tiles) * kWordTile, u1 = std::min(U, u0 + kWordTile);
      auto seg = exp_beta.col(k).segment(u0, u1 - u0).array();
      seg = seg.exp();
    });
    EStepResult<Scalar> res{Mat<Scalar>(K, S), std::vector<int>(static_cast<std::size_t>(S))};
    Mat<Scalar> exp_theta(K, S);
    std::vector<std::vector<Scalar>> ratio(static_cast<std::size_t>(S));
    const GammaInit init = opt_.parts.start ? opt_.parts.start(opt_.init) : opt_.init;
    if (init == GammaInit::kWarm && warm_.cols() != size()) warm_ = Mat<Scalar>::Ones(K, size());
    parallel::for_each_tile(exec_.pool, S, [&](long i) {
      const long d = batch[static_cast<std::size_t>(i)];
      document_e_step(d, init, exp_beta, slot, key, res.gamma.col(i).data(), exp_theta.col(i).data(), ratio[static_cast<std::size_t>(i)],
                      &res.iterations[static_cast<std::size_t>(i)]);
      if (init == GammaInit::kWarm) warm_.col(d) = res.gamma.col(i);
    });
    if (sstats) {
      // Each entry (w, k) gathers its terms in minibatch order (a document holds a word once), topic by
      // topic on the pool (each topic's column zeroed, summed and scaled by the thread that owns it),
      // then the minibatch's words take their factor e^{E log β_kw}; the other words' rows stay 0.
      sstats->resize(V, K);
      parallel::for_each_tile(exec_.pool, K, [&](long k) {
        Scalar* col = sstats->col(k).data();
        std::fill(col, col + V, Scalar(0));
        for (long i = 0; i < S; ++i) {
          const long d = batch[static_cast<std::size_t>(i)];
          const std::int32_t* ids = corpus_->word.data() + corpus_->doc_ptr[static_cast<std::size_t>(d)];
          const auto& r = ratio[static_cast<std::size_t>(i)];
          const Scalar e = exp_theta(k, i);
          for (std::size_t j = 0; j < r.size(); ++j) col[ids[j]] += e * r[j];
        }
        const Scalar* b = exp_beta.col(k).data();
        if (scale == nullptr) {
          for (long u = 0; u < U; ++u) col[words[static_cast<std::size_t>(u)]] *= b[u];
        } else {
          // The rows outside the minibatch are 0 and stay 0 (a scaling afterwards gives 0 · factor,
          // which is 0 for every finite factor; a non-finite factor leaves the minibatch's rows non-finite).
          const Scalar c = *scale;
          for (long u = 0; u < U; ++u) {
            Scalar& x = col[words[static_cast<std::size_t>(u)]];
            x *= b[u];
            x *= c;
          }
        }
      });
    }
    return res;
  }

 private:
  /// One document: γ (K, out) from the start `init`, e^{E log θ} of the final γ (K, out),
  /// n_dw/phinorm_dw (out), updates. exp_beta is the minibatch's U × K table and slot maps a word id
  /// to its row.
  void document_e_step(long d, GammaInit init, const Mat<Scalar>& exp_beta, const std::vector<std::int32_t>& slot, std::uint64_t key,
                       Scalar* gamma, Scalar* exp_theta, std::vector<Scalar>& ratio, int* iterations) const {
    using std::abs;
    const long K = opt_.topics;
    const long lo = corpus_->doc_ptr[static_cast<std::size_t>(d)], hi = corpus_->doc_ptr[static_cast<std::size_t>(d) + 1];
    const long nd = hi - lo;
    const std::int32_t* ids = corpus_->word.data() + lo;
    const std::int64_t* cnt = corpus_->count.data() + lo;
    switch (init) {
      case GammaInit::kOnes:
        for (long k = 0; k < K; ++k) gamma[k] = Scalar(1);
        break;
      case GammaInit::kWarm:
        for (long k = 0; k < K; ++k) gamma[k] = warm_(k, d);
        break;
      case GammaInit::kRandom: {
        random::Stream rng(key, static_cast<std::uint64_t>(d));
        const random::GammaSampler g(100.0, 0.01);
        for (long k = 0; k < K; ++k) gamma[k] = Scalar(g(rng));
        break;
      }
    }
    ratio.assign(static_cast<std::size_t>(nd), Scalar(0));
    // The document's columns of e^{E log β}, once per E-step, as an n_d × K matrix B (column k holds
    // β_kj for the document's words j), so that an update is scikit-learn's two matrix-vector
    // products, phinorm = B e^{E log θ} and acc = Bᵀ (n / (phinorm + ε₀)), taken by Eigen's
    // vectorised kernels (their summation order depends on the build's vector width only, never on
    // the pool). The acc of the last update is not used.
    Mat<Scalar> bt(nd, K);
    Vec<Scalar> norm(nd), counts(nd), acc(K);
    {
      std::vector<std::int32_t> at(static_cast<std::size_t>(nd));  // the words' rows of exp_beta
      for (long j = 0; j < nd; ++j) at[static_cast<std::size_t>(j)] = slot[static_cast<std::size_t>(ids[j])];
      for (long k = 0; k < K; ++k) {
        const Scalar* topic = exp_beta.col(k).data();
        Scalar* col = bt.col(k).data();
        for (long j = 0; j < nd; ++j) col[j] = topic[at[static_cast<std::size_t>(j)]];
      }
    }
    for (long j = 0; j < nd; ++j) counts(j) = Scalar(cnt[j]);
    std::vector<Scalar> last(static_cast<std::size_t>(K));
    Eigen::Map<Vec<Scalar>> r(ratio.data(), nd);
    Eigen::Map<Vec<Scalar>> theta(exp_theta, K);
    auto theta_and_phinorm = [&] {
      dirichlet_mean_map(gamma, K, exp_theta);
      theta.array() = theta.array().exp();
      norm.noalias() = bt * theta;
      if (opt_.parts.token_weights)
        opt_.parts.token_weights(std::span<const Scalar>(counts.data(), static_cast<std::size_t>(nd)),
                                 std::span<const Scalar>(norm.data(), static_cast<std::size_t>(nd)), opt_.phinorm_floor, ratio);
      else
        r.array() = counts.array() / (norm.array() + opt_.phinorm_floor);
      acc.noalias() = bt.transpose() * r;
    };
    theta_and_phinorm();
    int it = 0;
    while (it < opt_.max_iter) {
      for (long k = 0; k < K; ++k) last[static_cast<std::size_t>(k)] = gamma[k];
      for (long k = 0; k < K; ++k) gamma[k] = opt_.alpha + exp_theta[k] * acc(k);
      theta_and_phinorm();
      ++it;
      bool done;
      if (opt_.parts.stop) {
        done = opt_.parts.stop(it, last, std::span<const Scalar>(gamma, static_cast<std::size_t>(K)));
      } else {
        Scalar change(0);
        for (long k = 0; k < K; ++k) change += abs(gamma[k] - last[static_cast<std::size_t>(k)]);
        done = change / Scalar(K) < opt_.mean_change_tol;
      }
      if (done) break;
    }
    *iterations = it;
  }

  const Corpus* corpus_;
  LdaOptions<Scalar> opt_;
  kernels::ExecutionContext exec_;
  mutable Mat<Scalar> warm_;  // γ of each document's last E-step, for GammaInit::kWarm
};

/// The monitoring bound of both codes (φ optimised out; docs/systems.md A.4), in nats:
///   doc_scale · Σ_{d∈docs} [ Σ_w n_dw ln Σ_k exp(E log θ_dk + E log β_kw) + Σ_k (α − γ_dk) E log θ_dk
///                           + Σ_k (lnΓ(γ_dk) − lnΓ(α)) + lnΓ(Kα) − lnΓ(Σ_k γ_dk) ]
///   + Σ_{k,w} (η − λ_kw) E log β_kw + Σ_{k,w} (lnΓ(λ_kw) − lnΓ(η)) + Σ_k (lnΓ(Vη) − lnΓ(Σ_w λ_kw)).
/// λ_kw is entry (w, k) of λ (V × K, Topics); γ is K × |docs|. doc_scale is D/|S| when a subsample
/// estimates the full corpus's bound, 1 otherwise.
template <class Scalar>
Scalar lda_bound(const Corpus& c, std::span<const long> docs, const Mat<Scalar>& gamma, const Mat<Scalar>& lambda, const Scalar& alpha,
                 const Scalar& eta, const Scalar& doc_scale = Scalar(1)) {
  using special::lgamma;
  using std::exp;
  using std::log;
  const Index K = lambda.cols(), V = lambda.rows();
  if (gamma.rows() != K || gamma.cols() != static_cast<Index>(docs.size())) throw_size("ngvi::lda::lda_bound", "gamma", "must be K x |docs|");
  const Topics<Scalar> elog_beta = expected_log_topics(lambda);
  Scalar docs_part(0);
  std::vector<Scalar> et(static_cast<std::size_t>(K)), v(static_cast<std::size_t>(K));
  for (std::size_t i = 0; i < docs.size(); ++i) {
    const long d = docs[i];
    const Scalar* g = gamma.col(static_cast<Index>(i)).data();
    dirichlet_mean_map(g, K, et.data());
    for (long j = c.doc_ptr[static_cast<std::size_t>(d)]; j < c.doc_ptr[static_cast<std::size_t>(d) + 1]; ++j) {
      const Index w = c.word[static_cast<std::size_t>(j)];
      Scalar m = et[0] + elog_beta(w, 0);
      for (Index k = 0; k < K; ++k) {
        v[static_cast<std::size_t>(k)] = et[static_cast<std::size_t>(k)] + elog_beta(w, k);
        m = std::max(m, v[static_cast<std::size_t>(k)]);
      }
      Scalar s(0);
      for (Index k = 0; k < K; ++k) s += exp(v[static_cast<std::size_t>(k)] - m);
      docs_part += Scalar(c.count[static_cast<std::size_t>(j)]) * (m + log(s));
    }
    Scalar gsum(0);
    for (Index k = 0; k < K; ++k) {
      docs_part += (alpha - g[k]) * et[static_cast<std::size_t>(k)] + lgamma(g[k]) - lgamma(alpha);
      gsum += g[k];
    }
    docs_part += lgamma(Scalar(K) * alpha) - lgamma(gsum);
  }
  Scalar topic_part(0);
  for (Index k = 0; k < K; ++k) {
    Scalar lsum(0);
    for (Index w = 0; w < V; ++w) {
      topic_part += (eta - lambda(w, k)) * elog_beta(w, k) + lgamma(lambda(w, k)) - lgamma(eta);
      lsum += lambda(w, k);
    }
    topic_part += lgamma(Scalar(V) * eta) - lgamma(lsum);
  }
  return doc_scale * docs_part + topic_part;
}

/// Held-out log-perplexity, scikit-learn's protocol (`perplexity(X)` with sub_sampling=False, before
/// its exponential): a fresh E-step with γ = 1 at the fixed λ (no statistics, no update), the bound
/// over all of `eval`'s documents with doc_scale 1 (no subsampling factor) and the topic term included,
/// then −bound / tokens of `eval`, in nats. The topic term is normalised by the evaluation's token
/// count as scikit-learn does (its issue #20032); topic_term = false leaves it out. Finite whenever the
/// bound is, where the perplexity itself overflows above e^709 (a large V·K against few held-out tokens).
template <class Scalar>
Scalar log_perplexity(const Corpus& eval, const Mat<Scalar>& lambda, LdaOptions<Scalar> options,
                      const kernels::ExecutionContext& exec = kernels::sequential(), bool topic_term = true) {
  options.init = GammaInit::kOnes;
  options.parts = {};
  options.topics = lambda.cols();
  const LdaModel<Scalar> m(eval, options, exec);
  std::vector<long> all(static_cast<std::size_t>(eval.n_docs()));
  for (long d = 0; d < eval.n_docs(); ++d) all[static_cast<std::size_t>(d)] = d;
  const auto res = m.e_step(lambda, all, 0, nullptr);
  Scalar b = lda_bound<Scalar>(eval, all, res.gamma, lambda, options.alpha, options.eta);
  if (!topic_term) b -= lda_bound<Scalar>(eval, std::span<const long>(), Mat<Scalar>(lambda.cols(), 0), lambda, options.alpha, options.eta);
  return -b / Scalar(eval.tokens());
}

/// Held-out perplexity: exp(log_perplexity(...)), scikit-learn's `perplexity(X)` with sub_sampling=False.
template <class Scalar>
Scalar perplexity(const Corpus& eval, const Mat<Scalar>& lambda, LdaOptions<Scalar> options,
                  const kernels::ExecutionContext& exec = kernels::sequential(), bool topic_term = true) {
  using std::exp;
  return exp(log_perplexity(eval, lambda, std::move(options), exec, topic_term));
}

/// Document-completion perplexity (Wallach et al. 2009, "estimated θ" variant), in nats: each
/// evaluation document's tokens, listed in increasing word id, are split alternately (even
/// positions observed, odd positions held out); γ_d is fitted on the observed half by a fresh E-step
/// (γ = 1) at λ, and the held-out tokens are scored by ln Σ_k E[θ_dk] E[β_kw], with E[θ_dk] =
/// γ_dk / Σγ_d and E[β_kw] = λ_wk / Σ_v λ_vk. Returns exp(−Σ scores / held-out tokens).
template <class Scalar>
Scalar completion_perplexity(const Corpus& eval, const Mat<Scalar>& lambda, LdaOptions<Scalar> options,
                             const kernels::ExecutionContext& exec = kernels::sequential()) {
  using std::exp;
  using std::log;
  Corpus observed, held;
  observed.n_words = held.n_words = eval.n_words;
  for (long d = 0; d < eval.n_docs(); ++d) {
    std::vector<std::pair<std::int32_t, std::int64_t>> a, b;
    long pos = 0;
    for (long j = eval.doc_ptr[static_cast<std::size_t>(d)]; j < eval.doc_ptr[static_cast<std::size_t>(d) + 1]; ++j) {
      const auto w = eval.word[static_cast<std::size_t>(j)];
      const auto n = eval.count[static_cast<std::size_t>(j)];
      // tokens pos .. pos + n − 1: the even positions are observed
      const std::int64_t even = (n + (pos % 2 == 0 ? 1 : 0)) / 2;
      if (even > 0) a.emplace_back(w, even);
      if (n - even > 0) b.emplace_back(w, n - even);
      pos += n;
    }
    observed.add_document(a);
    held.add_document(b);
  }
  options.init = GammaInit::kOnes;
  options.parts = {};
  options.topics = lambda.cols();
  std::vector<long> all(static_cast<std::size_t>(eval.n_docs()));
  for (long d = 0; d < eval.n_docs(); ++d) all[static_cast<std::size_t>(d)] = d;
  // A document whose observed half is empty keeps γ = α + 0 after its update; that is the prior mean.
  const LdaModel<Scalar> m(observed, options, exec);
  const auto res = m.e_step(lambda, all, 0, nullptr);
  const Index K = lambda.cols();
  const Vec<Scalar> topic_sum = lambda.colwise().sum().transpose();
  Scalar score(0);
  long n_held = 0;
  for (long d = 0; d < held.n_docs(); ++d) {
    const Scalar gsum = res.gamma.col(d).sum();
    for (long j = held.doc_ptr[static_cast<std::size_t>(d)]; j < held.doc_ptr[static_cast<std::size_t>(d) + 1]; ++j) {
      const Index w = held.word[static_cast<std::size_t>(j)];
      Scalar p(0);
      for (Index k = 0; k < K; ++k) p += res.gamma(k, d) / gsum * lambda(w, k) / topic_sum(k);
      score += Scalar(held.count[static_cast<std::size_t>(j)]) * log(p);
      n_held += held.count[static_cast<std::size_t>(j)];
    }
  }
  return exp(-score / Scalar(n_held));
}

}  // namespace ngvi::lda

#ifdef NGVI_EXTERN_TEMPLATES
// Compiled once for double in ngvi_hot_loop (lib/src/lda_instantiations.cpp), at the library's
// optimisation level: the checking code is built at a lower one (NGVI_CHECK_OPT), which would
// otherwise give every `ngvi run svi-lda` and SVI claim an unvectorised E-step.
namespace ngvi::lda {
extern template Topics<double> expected_log_topics<double>(const Mat<double>&);
extern template class LdaModel<double>;
extern template double lda_bound<double>(const Corpus&, std::span<const long>, const Mat<double>&, const Mat<double>&, const double&,
                                         const double&, const double&);
extern template double log_perplexity<double>(const Corpus&, const Mat<double>&, LdaOptions<double>, const kernels::ExecutionContext&,
                                              bool);
extern template double completion_perplexity<double>(const Corpus&, const Mat<double>&, LdaOptions<double>,
                                                     const kernels::ExecutionContext&);
}  // namespace ngvi::lda
#endif
