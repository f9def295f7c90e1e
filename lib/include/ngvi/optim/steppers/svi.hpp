#pragma once
/// @file
/// Stochastic variational inference (Hoffman, Blei, Wang & Paisley 2013; docs/systems.md A.1-A.2)
/// for conditionally conjugate models with one global variable β and local variables z_i, as the
/// trajectory engine's parts (optim/engine.hpp):
///
///   SviEstimator  draws the minibatch S of step t (data order, or a fresh permutation per epoch),
///                 runs the model's local step on S to its fixed point at the current λ and returns
///                 ĝ = (N/|S|) Σ_{i∈S} E_φ[t(x_i, z_i)]: the minibatch "replicated N/|S| times";
///   SviStepper    λ ← (1 − ρ_t) λ + ρ_t (λ_prior + ĝ): NaturalStepper<F> (optim/steppers/natural.hpp)
///                 for the model's family F, through natural_update (written once), so λ̂ = λ_prior + ĝ
///                 is the intermediate global parameter (Hoffman et al. 2013, eq. (10));
///   SviSchedule   ρ_t = ρ₀ (t + τ)^(−κ) with Hoffman's t = 1, 2, … (engine step t ↦ t + 1).
///
/// The model supplies the family of its global variable (λ is that family's natural parameter, and
/// the step checks λ against the family's domain), the prior's natural parameter and the local step:
/// see the `SviModel` concept (LDA: lda::TopicsFamily, a Product<DirichletFamily>; the mixture:
/// gmm::GlobalFamily). The α₂ + N part of λ̂ (Hoffman et al. 2013, eq. (8)) is carried by the
/// sufficient statistics themselves (each point contributes its share of the log-normaliser
/// coordinate), so one scale N/|S| covers every coordinate. |S| = N and ρ ≡ 1 (SviSchedule::batch) make one step exactly one batch CAVI step.
///
/// Step-size indexing. Hoffman's t starts at 1; the engine's step index starts at 0; the schedule
/// maps engine step t to Hoffman's t + 1, so ρ at engine step 0 is ρ₀ (1 + τ)^(−κ). This is the
/// convention of StepSchedule::polynomial (γ_t = scale·(t + 1 + τ)^(−κ)), of onlineldavb
/// (ρ = (τ₀ + 1 + updatect)^(−κ), updatect = 0, 1, …) and of scikit-learn (ρ = (learning_offset +
/// n_batch_iter_)^(−learning_decay), n_batch_iter_ = 1, 2, …).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <numeric>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "ngvi/linalg/validate.hpp"
#include "ngvi/optim/engine.hpp"
#include "ngvi/optim/steppers/natural.hpp"
#include "ngvi/random/stream.hpp"

namespace ngvi::svi {

/// A conditionally conjugate model with global and local variables (docs/systems.md A.1).
///   Family, family()                the family of the global variable: λ is its Natural, in its domain
///   Global                          = Family::Natural, the global natural parameter
///   size()                          N, the number of data points (documents)
///   prior_natural()                 λ_prior (α in Hoffman et al.; η for LDA's topics)
///   zero_global()                   a zero of the global's shape
///   local_statistics(λ, S, key, s)  local step for i ∈ S to its fixed point at λ, then
///                                   s = Σ_{i∈S} E_φ[t(x_i, z_i)] (overwritten); `key` seeds any
///                                   random initialisation (a function of the engine step only)
template <class M>
concept SviModel = NaturalDomain<typename M::Family> && std::same_as<typename M::Global, typename M::Family::Natural> &&
                   requires(const M& m, const typename M::Global& lambda, std::span<const long> batch, std::uint64_t key,
                            typename M::Global& stats) {
  typename M::Scalar;
  { m.family() } -> std::convertible_to<typename M::Family>;
  { m.size() } -> std::convertible_to<long>;
  { m.prior_natural() } -> std::convertible_to<typename M::Global>;
  { m.zero_global() } -> std::convertible_to<typename M::Global>;
  m.local_statistics(lambda, batch, key, stats);
};

/// How minibatches are drawn.
enum class BatchOrder {
  kDataOrder,  ///< S_t = the b-th block of ⌈N/|S|⌉ consecutive blocks, b = t mod blocks (scikit-learn's fit)
  kShuffled,   ///< the same blocks of a fresh permutation of 0..N−1 each epoch (random::Stream(seed, epoch))
};

/// The parts of SVI's global step that a variant may replace (optim/variant.hpp: a variant files them
/// with Variant::set_system_parts under kPartSystemSvi, one struct per scalar type); an empty part is
/// the library's. The model's local step has parts of its own (LDA's E-step: lda::EStepParts), filed
/// under the same bit. Each part is called once per step, never inside a per-point loop.
template <class Scalar>
struct SviParts {
  /// The replication factor of the intermediate global parameter for a minibatch of `batch` of the
  /// `n` points, in place of n/batch (Hoffman et al. 2013, eq. (10)).
  std::function<Scalar(long n, long batch)> replication;
  /// ρ at engine step t in place of the schedule's, given the schedule's own ρ as a function of the
  /// engine step (as NgdParts::schedule), so that a replacement may shift or scale it.
  std::function<Scalar(long t, const std::function<Scalar(long)>& library)> schedule;
  /// The forgetting rate κ that ρ₀ (t + τ)^(−κ) is computed with, given the schedule's own κ (an
  /// SviSchedule's; the batch flag's ρ ≡ ρ₀ has none). `schedule`, when also set, sees this ρ as its
  /// library's.
  std::function<Scalar(const Scalar& kappa)> forgetting_rate;
};

/// The factor ĝ = factor · Σ_{i∈S} E_φ[t(x_i, z_i)] of a minibatch of `batch` of `n` points: n/batch, or
/// the parts' replacement.
template <class Scalar>
Scalar replication_factor(const SviParts<Scalar>& parts, long n, long batch) {
  return parts.replication ? parts.replication(n, batch) : Scalar(n) / Scalar(batch);
}

/// ρ_t = ρ₀ (t + τ)^(−κ), t = 1, 2, … (Hoffman et al. 2013, §2.4; docs/systems.md A.2).
template <class Scalar>
class SviSchedule {
 public:
  /// @param kappa forgetting rate κ ∈ (0.5, 1] (docs/systems.md A's guard: κ = 0.5 breaks Robbins–Monro's
  ///        Σρ_t² < ∞, κ > 1 its Σρ_t = ∞); κ = 0 only with batch = true.
  /// @param tau   delay τ ≥ 0.
  /// @param rho0  scale ρ₀ ∈ (0, 1].
  /// @param batch the explicit batch flag: κ must then be 0 and ρ_t ≡ ρ₀.
  /// @throws std::domain_error naming the argument and the violated condition.
  SviSchedule(const Scalar& kappa, const Scalar& tau, const Scalar& rho0 = Scalar(1), bool batch = false)
      : kappa_(kappa), tau_(tau), rho0_(rho0), batch_(batch) {
    constexpr const char* f = "ngvi::svi::SviSchedule";
    if (batch) {
      if (!(kappa == Scalar(0))) throw_domain(f, "kappa", "must be 0 with the batch flag");
    } else if (!(kappa > Scalar(0.5) && kappa <= Scalar(1))) {
      throw_domain(f, "kappa", kappa == Scalar(0) ? "is 0, which needs the explicit batch flag"
                                                  : "must lie in (0.5, 1] (the forgetting rate; kappa = 0.5 breaks Robbins-Monro: sum rho_t^2 diverges)");
    }
    if (!(tau >= Scalar(0)) || !is_finite_scalar(tau)) throw_domain(f, "tau", "must be finite and >= 0");
    if (!(rho0 > Scalar(0) && rho0 <= Scalar(1))) throw_domain(f, "rho0", "must lie in (0, 1]");
  }

  /// Batch CAVI: ρ_t ≡ 1.
  static SviSchedule batch_cavi() { return SviSchedule(Scalar(0), Scalar(0), Scalar(1), true); }

  /// ρ at engine step t ≥ 0, i.e. Hoffman's step t + 1.
  Scalar at(long t) const { return batch_ ? rho0_ : at(t, kappa_); }

  /// ρ₀ (t + 1 + τ)^(−κ) at engine step t with the forgetting rate `kappa` in place of the schedule's
  /// (unchecked: SviParts::forgetting_rate's replacement).
  Scalar at(long t, const Scalar& kappa) const {
    using std::pow;
    return rho0_ * pow(Scalar(t + 1) + tau_, -kappa);
  }

  /// Every ρ_t ∈ (0, 1] (ρ is decreasing in t; the first one is the largest).
  bool within_unit_interval() const {
    const Scalar r0 = at(0);
    return r0 > Scalar(0) && r0 <= Scalar(1);
  }

  const Scalar& kappa() const { return kappa_; }
  const Scalar& tau() const { return tau_; }
  const Scalar& rho0() const { return rho0_; }
  bool batch() const { return batch_; }

 private:
  Scalar kappa_, tau_, rho0_;
  bool batch_;
};

/// A schedule with the parts' replacement of its ρ_t (SviParts::schedule), or the schedule itself when
/// the parts leave it. A replaced schedule is checked step by step (the engine ends a run at the first
/// ρ_t outside (0, 1]).
template <class Scalar, class Sch>
class PartsSchedule {
 public:
  PartsSchedule(const Sch& base, const SviParts<Scalar>& parts)
      : base_(&base), replace_(parts.schedule), forgetting_rate_(parts.forgetting_rate) {}
  Scalar at(long t) const {
    if (!replace_) return base_at(t);
    return replace_(t, [this](long u) { return base_at(u); });
  }
  bool within_unit_interval() const {
    if (replace_ || forgetting_rate_) return true;
    if constexpr (requires { base_->within_unit_interval(); }) return base_->within_unit_interval();
    else return true;
  }

 private:
  // The schedule's ρ at engine step u, with the parts' forgetting rate where the schedule has one.
  Scalar base_at(long u) const {
    if constexpr (requires { base_->kappa(); base_->batch(); base_->at(u, base_->kappa()); }) {
      if (forgetting_rate_ && !base_->batch()) return Scalar(base_->at(u, forgetting_rate_(Scalar(base_->kappa()))));
    }
    return Scalar(base_->at(u));
  }

  const Sch* base_;
  std::function<Scalar(long, const std::function<Scalar(long)>&)> replace_;
  std::function<Scalar(const Scalar&)> forgetting_rate_;
};

/// The minibatches: ⌈N/B⌉ blocks per epoch, the last one possibly shorter (scikit-learn's
/// gen_batches); the replication factor uses the block's own size.
class MinibatchPlan {
 public:
  /// @throws std::domain_error naming 'n' (n < 1) or 'batch_size' (not in [1, n]).
  MinibatchPlan(long n, long batch_size, BatchOrder order, std::uint64_t seed) : n_(n), b_(batch_size), order_(order), seed_(seed) {
    constexpr const char* f = "ngvi::svi::MinibatchPlan";
    if (n < 1) throw_domain(f, "n", "must be >= 1");
    if (batch_size < 1 || batch_size > n) throw_domain(f, "batch_size", "must lie in [1, N] (N = " + std::to_string(n) + ")");
    perm_.resize(static_cast<std::size_t>(n));
    std::iota(perm_.begin(), perm_.end(), 0L);
  }
  long blocks_per_epoch() const { return (n_ + b_ - 1) / b_; }
  long size() const { return n_; }
  long batch_size() const { return b_; }

  /// The indices of S_t (valid until the next call).
  std::span<const long> batch(long t) {
    const long epoch = t / blocks_per_epoch(), block = t % blocks_per_epoch();
    if (order_ == BatchOrder::kShuffled && epoch != epoch_) {
      std::iota(perm_.begin(), perm_.end(), 0L);
      random::Stream rng(seed_, static_cast<std::uint64_t>(epoch));
      for (long i = n_ - 1; i > 0; --i) std::swap(perm_[static_cast<std::size_t>(i)], perm_[rng.index(static_cast<std::uint64_t>(i + 1))]);
      epoch_ = epoch;
    }
    const long lo = block * b_, hi = std::min(n_, lo + b_);
    return std::span<const long>(perm_.data() + lo, static_cast<std::size_t>(hi - lo));
  }

 private:
  long n_, b_;
  BatchOrder order_;
  std::uint64_t seed_;
  long epoch_ = -1;
  std::vector<long> perm_;
};

/// The iterate λ and the global step λ ← (1 − ρ) λ + ρ (λ_prior + ĝ): the natural-parameter step of the
/// model's family, with λ_p the prior's natural parameter (svi_stepper builds it from the model).
template <SviModel M>
using SviStepper = NaturalStepper<typename M::Family>;

/// The SVI stepper of `model` from λ₀, on the model's execution context where it has one (LDA: the
/// step's columns on its pool). @throws as NaturalStepper's constructor ('lambda0').
template <SviModel M>
SviStepper<M> svi_stepper(const M& model, typename M::Global lambda0) {
  if constexpr (requires { model.execution(); })
    return SviStepper<M>(model.family(), std::move(lambda0), model.prior_natural(), model.execution());
  else
    return SviStepper<M>(model.family(), std::move(lambda0), model.prior_natural());
}

/// ĝ_t = (N/|S_t|) Σ_{i∈S_t} E_φ[t(x_i, z_i)], the local step run at the stepper's λ.
template <SviModel M>
class SviEstimator {
 public:
  using Scalar = typename M::Scalar;
  SviEstimator(const M& model, MinibatchPlan plan, std::uint64_t seed, SviParts<Scalar> parts = {})
      : model_(&model), plan_(std::move(plan)), seed_(seed), parts_(std::move(parts)) {
    if (plan_.size() != model.size()) throw_size("ngvi::svi::SviEstimator", "plan", "covers a different number of points from the model");
  }
  template <class S>
  void estimate(long t, const S& stepper, typename M::Global& ghat) {
    const auto batch = plan_.batch(t);
    last_batch_.assign(batch.begin(), batch.end());
    const std::uint64_t key = random::mix64(seed_ ^ static_cast<std::uint64_t>(t));
    const Scalar factor = replication_factor(parts_, model_->size(), static_cast<long>(batch.size()));
    if constexpr (requires { model_->local_statistics(stepper.point(), batch, key, ghat, factor); }) {
      // A model that scales its statistics as it writes them (LDA: the minibatch's rows only, the
      // same two roundings as a scaling afterwards, so the same ĝ to the bit).
      model_->local_statistics(stepper.point(), batch, key, ghat, factor);
    } else {
      model_->local_statistics(stepper.point(), batch, key, ghat);
      ghat *= factor;
    }
  }
  const std::vector<long>& last_batch() const { return last_batch_; }
  const MinibatchPlan& plan() const { return plan_; }

 private:
  const M* model_;
  MinibatchPlan plan_;
  std::uint64_t seed_;
  SviParts<Scalar> parts_;
  std::vector<long> last_batch_;
};

/// λ̂ for one minibatch at λ (the intermediate global parameter, for checks): λ_prior + ĝ.
template <SviModel M>
typename M::Global intermediate_global(const M& model, const typename M::Global& lambda, std::span<const long> batch, std::uint64_t key,
                                       const SviParts<typename M::Scalar>& parts = {}) {
  typename M::Global stats = model.zero_global();
  model.local_statistics(lambda, batch, key, stats);
  stats *= replication_factor(parts, model.size(), static_cast<long>(batch.size()));
  typename M::Global out = model.prior_natural();
  out += stats;
  return out;
}

/// Options of an SVI run.
template <class Scalar>
struct SviOptions {
  long batch_size = 128;                 ///< |S|
  long passes = 10;                      ///< epochs; steps = passes · ⌈N/|S|⌉
  BatchOrder order = BatchOrder::kDataOrder;
  std::uint64_t seed = 0;                ///< minibatch permutations and local initialisations
  SviParts<Scalar> parts;                ///< replaced parts of the global step (empty: the library's)
};

/// Runs SVI through the engine: passes · ⌈N/|S|⌉ steps from λ₀, with options.parts in place of the
/// library's parts they replace. Observers see every step.
template <SviModel M, class Sch, class... Obs>
auto run_svi(const M& model, typename M::Global lambda0, const Sch& schedule, const SviOptions<typename M::Scalar>& options,
             Obs&&... observers) {
  if (options.passes < 0) throw_domain("ngvi::svi::run_svi", "options.passes", "must be >= 0");
  SviStepper<M> stepper = svi_stepper(model, std::move(lambda0));
  MinibatchPlan plan(model.size(), options.batch_size, options.order, options.seed);
  const long steps = options.passes * plan.blocks_per_epoch();
  SviEstimator<M> estimator(model, std::move(plan), options.seed, options.parts);
  const PartsSchedule<typename M::Scalar, Sch> rho(schedule, options.parts);
  NoAverage avg;
  OnStep none{[](const auto&) {}};  // so that the engine always has an observer to hand its event
  return run_trajectory(stepper, estimator, rho, avg, RunOptions{steps, /*theorem_steps=*/true, {}}, none,
                        std::forward<Obs>(observers)...);
}

}  // namespace ngvi::svi
