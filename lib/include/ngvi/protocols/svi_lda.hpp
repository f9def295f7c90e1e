#pragma once
/// @file
/// The svi-lda protocol: the smallest interface an online (stochastic variational) LDA implementation
/// provides for the claims that read SVI on LDA from outside (svi.schedule, lda.sstats_mass,
/// lda.gamma_mass, lda.topic_recovery) to run against it (docs/engine.md, "Protocols"; the model and
/// its update: docs/systems.md A.4).
///
/// The claim hands the implementation a problem once per trajectory (start): the vocabulary size V,
/// the topic count K, the Dirichlet hyperparameters α (document–topic) and η (topic–word), the corpus
/// size D that the minibatch stands for (the replication D/|S| of λ̂ = η + (D/|S|) sstats), the schedule
/// constants κ and τ₀ the implementation must be configured with, the initial λ₀ and a seed for
/// whatever the implementation randomises. At each update t = 0, 1, …, T − 1 it hands the step index t,
/// the current λ_t and the minibatch S_t as documents of (word id, count) pairs; the implementation
/// returns λ_{t+1} and, optionally, the γ of its last E-step on S_t. It owns what real implementations
/// own (scikit-learn's LatentDirichletAllocation._em_step, gensim's LdaModel.update):
///   - its schedule ρ_t = (τ₀ + t + origin)^(−κ) at update t: `origin` is the index of its first update
///     in its own counting (1 for Hoffman et al. 2013, onlineldavb and scikit-learn's n_batch_iter_;
///     0 for gensim's offset + num_updates/chunksize), declared with the implementation and checked as
///     declared (svi.schedule);
///   - its E-step (γ initialisation, stopping rule, the floor ε₀ in φ's normaliser);
///   - its update λ_{t+1} = (1 − ρ_t)λ_t + ρ_t(η + (D/|S|) sstats_t).
///
/// λ_t is an argument, not only the state the implementation returned last: a claim may hand a λ_t of
/// its own (svi.schedule hands the same λ at every update), so an implementation sets its topics from
/// λ_t before its E-step. Its counters (the schedule's t) are its own and advance once per update.
///
/// Layout: λ is K × V, topic k in row k (scikit-learn's components_, gensim's state.get_lambda()); the
/// kit's own λ (lda::Topics) is V × K, its transpose. γ is |S| × K, document i of the minibatch in row i.
///
/// Versioned (kSviLdaVersion): a change of what is handed or returned is a new version.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "ngvi/data/corpus.hpp"
#include "ngvi/scalar/types.hpp"

namespace ngvi::protocols {

/// The protocol's name (as in docs/engine.md and ngvikit.protocols) and version.
inline constexpr const char* kSviLda = "svi-lda";
inline constexpr int kSviLdaVersion = 1;

/// What the claim hands at the start of a trajectory. The implementation may keep a reference to it:
/// it lives until the trajectory's last call.
struct LdaProblem {
  long V = 0;             ///< vocabulary size
  long K = 0;             ///< topics
  double alpha = 0;       ///< α, the symmetric Dirichlet prior of θ_d (scikit-learn doc_topic_prior, gensim alpha)
  double eta = 0;         ///< η, the symmetric Dirichlet prior of β_k (topic_word_prior, gensim eta)
  long D = 0;             ///< the corpus size the minibatches replicate (scikit-learn total_samples)
  long batch = 0;         ///< the nominal minibatch size |S| (the last minibatch of a pass may be shorter)
  double kappa = 0;       ///< κ: ρ_t = (τ₀ + t + origin)^(−κ) (learning_decay, gensim decay)
  double tau0 = 0;        ///< τ₀ (learning_offset, gensim offset)
  Mat<double> lambda0;    ///< λ₀, K × V, positive
  std::uint64_t seed = 0; ///< for the implementation's own random draws (its γ initialisation)
};

/// What one update returns.
struct LdaUpdate {
  Mat<double> lambda;                ///< λ_{t+1}, K × V
  std::optional<Mat<double>> gamma;  ///< the γ of the E-step on S_t, |S| × K, when the implementation exposes it
};

/// One trajectory of an implementation.
struct SviLdaTrajectory {
  /// λ_{t+1} (and optionally γ) from update t, λ_t (K × V) and the minibatch's documents (a corpus over
  /// the V words holding the |S| documents of S_t). Required.
  std::function<LdaUpdate(long t, const Mat<double>& lambda, const lda::Corpus& batch)> update;
};

/// An implementation of the protocol: a name and version (recorded in claims.json's meta), the index
/// of its first update in its schedule's counting (`origin`, above), and a start() that begins one
/// trajectory. start() is called for one trajectory at a time (the claims of this protocol run their
/// trajectories serially), so `serial` only records that the implementation needs it.
struct SviLda {
  std::string name;
  std::string version;
  long origin = 1;
  std::function<SviLdaTrajectory(const LdaProblem&)> start;
  bool serial = true;
};

}  // namespace ngvi::protocols
