// DESCRIPTION
// The mutants of SVI and of LDA's E-step: plausible implementation bugs the svi.*, lda.* and gmm.*
// claims must detect, written here and only here. Each is a variant of the kit's registry that files
// replaced parts under kPartSystemSvi (Variant::set_system_parts), for double and mp50: SVI's global
// step (svi::SviParts: the replication factor, the schedule, its forgetting rate), one piece of LDA's E-step
// (lda::EStepParts: the expected-log-topics map, the token weights, the stopping rule, γ's start) or of the mixture's
// local step (gmm::GmmParts: E||mu_k||^2). Its NGD parts
// are empty (the NGD claims run the library's algorithm under it); the SVI claims read the parts
// through mutation_for (svi_common.hpp), so `ngvi verify --mutants all` puts them in the kill matrix.
#include "svi_common.hpp"

namespace ngvi::claims {
namespace { namespace NGVI_UNITY_ID {

/// ĝ = Σ_{i∈S} E_φ[t]: the minibatch not replicated N/|S| times.
struct ReplicationDropped {
  template <class Scalar>
  void file(Variant& v) const {
    svi::SviParts<Scalar> p;
    p.replication = [](long, long) { return Scalar(1); };
    v.set_system_parts(kPartSystemSvi, std::move(p));
  }
};

/// ρ at engine step t is the library's ρ at step t − 1: ρ₀ (t + τ)^(−κ), Hoffman's t counted from 0.
struct RhoFromZero {
  template <class Scalar>
  void file(Variant& v) const {
    svi::SviParts<Scalar> p;
    p.schedule = [](long t, const std::function<Scalar(long)>& library) { return library(t - 1); };
    v.set_system_parts(kPartSystemSvi, std::move(p));
  }
};

/// ρ with the delay τ₀ + 9: the library's ρ at engine step t + 9 (two implementations' default delays
/// differ by 9: scikit-learn's learning_offset 10, gensim's offset 1).
struct TauPlusNine {
  template <class Scalar>
  void file(Variant& v) const {
    svi::SviParts<Scalar> p;
    p.schedule = [](long t, const std::function<Scalar(long)>& library) { return library(t + 9); };
    v.set_system_parts(kPartSystemSvi, std::move(p));
  }
};

/// κ ignored: the forgetting rate 0.5 (gensim's default decay) whatever κ the run is given.
struct KappaDefaultHalf {
  template <class Scalar>
  void file(Variant& v) const {
    svi::SviParts<Scalar> p;
    p.forgetting_rate = [](const Scalar&) { return Scalar(1) / Scalar(2); };
    v.set_system_parts(kPartSystemSvi, std::move(p));
  }
};

/// The mixture's φ_nk with E‖μ_k‖² = ‖m_k‖²: the d s_k² of q(μ_k)'s variance dropped.
struct GmmNoMeanVariance {
  template <class Scalar>
  void file(Variant& v) const {
    gmm::GmmParts<Scalar> p;
    p.expected_sq_norm = [](const Scalar& mean_sq_norm, const Scalar&, Index) { return mean_sq_norm; };
    v.set_system_parts(kPartSystemSvi, std::move(p));
  }
};

/// φ_dwk = e^{E log θ_dk} e^{E log β_kw}, not divided by phinorm_dw: the token weights are the counts.
struct PhiUnnormalised {
  template <class Scalar>
  void file(Variant& v) const {
    lda::EStepParts<Scalar> p;
    p.token_weights = [](std::span<const Scalar> counts, std::span<const Scalar>, const Scalar&, std::span<Scalar> weights) {
      std::copy(counts.begin(), counts.end(), weights.begin());
    };
    v.set_system_parts(kPartSystemSvi, std::move(p));
  }
};

/// The γ/φ iteration stopped after its first update.
struct EStepOneIteration {
  template <class Scalar>
  void file(Variant& v) const {
    lda::EStepParts<Scalar> p;
    p.stop = [](int, std::span<const Scalar>, std::span<const Scalar>) { return true; };
    v.set_system_parts(kPartSystemSvi, std::move(p));
  }
};

/// Every document's γ started from Gamma(100, 1/100) draws, whatever start the E-step is asked for
/// (ones for evaluation and the identity claims, the previous γ for batch CAVI): the training
/// E-step's start used everywhere.
struct GammaStartAlwaysRandom {
  template <class Scalar>
  void file(Variant& v) const {
    lda::EStepParts<Scalar> p;
    p.start = [](lda::GammaInit) { return lda::GammaInit::kRandom; };
    v.set_system_parts(kPartSystemSvi, std::move(p));
  }
};

/// E[log β_kw] = ψ(λ_kw), without its −ψ(Σ_v λ_kv) term.
struct ElogBetaNoSum {
  template <class Scalar>
  void file(Variant& v) const {
    lda::EStepParts<Scalar> p;
    p.expected_log_topics = [](const lda::Topics<Scalar>& lambda) {
      lda::Topics<Scalar> out(lambda.rows(), lambda.cols());
      for (Index i = 0; i < lambda.size(); ++i) out.data()[i] = special::digamma(lambda.data()[i]);
      return out;
    };
    v.set_system_parts(kPartSystemSvi, std::move(p));
  }
};

template <class Mutant>
void add(std::string name, std::string description, const Mutant& m) {
  Variant v;
  v.name = std::move(name);
  v.description = std::move(description);
  v.mutant = true;
  m.template file<double>(v);
  m.template file<mp50>(v);
  VariantRegistry::instance().add(std::move(v));
}

bool register_svi_mutants() {
  add("svi.replication_dropped", "the N/|S| factor of the intermediate global parameter dropped (SviParts::replication = 1)",
      ReplicationDropped{});
  add("svi.rho_from_zero", "rho_t indexed from t = 0: rho0 (t + tau)^-kappa at engine step t (SviParts::schedule = library's rho at t - 1)",
      RhoFromZero{});
  add("svi.tau_plus_9", "rho_t with the delay tau0 + 9 (another implementation's default; SviParts::schedule = library's rho at t + 9)",
      TauPlusNine{});
  add("svi.kappa_default_half", "the forgetting rate kappa ignored: 0.5 (another implementation's default decay) whatever kappa is given (SviParts::forgetting_rate)",
      KappaDefaultHalf{});
  add("gmm.phi_no_mean_variance", "the mixture's phi_nk with E||mu_k||^2 = ||m_k||^2, the d s_k^2 of q(mu_k) dropped (GmmParts::expected_sq_norm)",
      GmmNoMeanVariance{});
  add("lda.phi_unnormalised", "phi_dwk not divided by phinorm_dw (EStepParts::token_weights = the counts)", PhiUnnormalised{});
  add("lda.estep_one_iteration", "the E-step stopped after one gamma update (EStepParts::stop = always)", EStepOneIteration{});
  add("lda.gamma_start_always_random",
      "every document's gamma started from Gamma(100, 1/100) draws whatever start is asked (ones, warm) (EStepParts::start)",
      GammaStartAlwaysRandom{});
  add("lda.elog_beta_no_sum", "E[log beta_kw] = psi(lambda_kw) without -psi(sum_v lambda_kv) (EStepParts::expected_log_topics)", ElogBetaNoSum{});
  return true;
}

[[maybe_unused]] const bool kRegistered = register_svi_mutants();

}}  // namespace
}  // namespace ngvi::claims
