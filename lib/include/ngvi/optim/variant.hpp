#pragma once
/// @file
/// Variants: the algorithm a claim checks, with some of its parts swapped at run time (docs/engine.md).
///
/// A claim runs the library's algorithm through the trajectory engine (optim/engine.hpp). A Variant
/// names replacements for some of its parts, for both scalar types a claim runs in (double and
/// mp50): a schedule γ_t, a change to the estimator's output ĝ_t, the sampling scheme, the Monte
/// Carlo gradient route, the averager's weights, the Gaussian maps and the KL. A part a
/// variant leaves empty is the library's. The claim registry hands the variant to every claim
/// (RunContext::variant); `ngvi verify --variant NAME` names a registered one. Mutants — plausible
/// implementation bugs that the suite must detect — are variants marked as such.
///
/// Every read of a part goes through the helpers below (schedule_for, estimator_parts, …), which note
/// the part read (VariantPart) where the variant's `reads` points. `ngvi verify --mutants` runs each
/// claim once against an empty variant that notes its reads: a claim runs the same code against any
/// variant that replaces none of the parts it read, so it is run again only against the mutants that
/// replace one of them (docs/engine.md, "Mutants").
#include <any>
#include <atomic>
#include <concepts>
#include <cstdint>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "ngvi/expfam/gaussian_maps.hpp"
#include "ngvi/expfam/gaussian_params.hpp"
#include "ngvi/expfam/kl.hpp"
#include "ngvi/estimators/minibatch_gradient.hpp"
#include "ngvi/optim/steppers/ngd_nonconjugate.hpp"
#include "ngvi/optim/engine.hpp"
#include "ngvi/protocols/conjugate_ngd.hpp"
#include "ngvi/scalar/types.hpp"

namespace ngvi {

/// A schedule given as a function of t (a user's own, or a variant's), usable wherever the engine
/// takes a schedule. `unit_interval` says whether every γ_t lies in (0, 1] (the engine still checks
/// each γ_t when the theorem's steps are required).
template <class Scalar>
class ScheduleFn {
 public:
  ScheduleFn(std::function<Scalar(long)> fn, std::string description, bool unit_interval)
      : fn_(std::move(fn)), description_(std::move(description)), unit_(unit_interval) {}
  Scalar at(long t) const { return fn_(t); }
  bool within_unit_interval() const { return unit_; }
  const std::string& describe() const { return description_; }

 private:
  std::function<Scalar(long)> fn_;
  std::string description_;
  bool unit_;
};

/// The parts a variant may replace, as bits: those of NgdParts (below), and the related systems'
/// parts, which their claims read with system_parts_for under the system's bit.
enum VariantPart : std::uint32_t {
  kPartSchedule = 1u << 0,
  kPartEstimate = 1u << 1,
  kPartEstimateAt = 1u << 2,
  kPartAveraging = 1u << 3,
  kPartSampling = 1u << 4,
  kPartGradient = 1u << 5,
  kPartLskPosdef = 1u << 6,
  kPartToNatural = 1u << 7,
  kPartToMoments = 1u << 8,
  kPartKl = 1u << 9,
  kPartSystemSvi = 1u << 10,     ///< SVI's and LDA's parts (svi::SviParts, lda::EStepParts)
  kPartSystemVpng = 1u << 11,    ///< VPNG's parts (VpngParts)
  kPartSystemPaquet = 1u << 12,  ///< Paquet's sweep parts (PaquetParts)
  kPartConjugateNgd = 1u << 13,  ///< a whole conjugate-NGD implementation (protocols/conjugate_ngd.hpp)
  kPartSviLda = 1u << 14,        ///< a whole online-LDA implementation (protocols/svi_lda.hpp), filed as a system's parts
  kPartSviGmm = 1u << 15,        ///< a whole Gaussian-mixture SVI implementation (protocols/svi_gmm.hpp)
  kPartToExpectation = 1u << 16,  ///< the natural-to-expectation map (NgdParts::to_expectation)
  kPartPrior = 1u << 17,          ///< the prior term of the NGD update (NgdParts::prior)
  kPartsAll = ~0u,               ///< a read of the whole variant (parts_of)
};

/// The names of the parts in `bits`, comma-separated ("" for none; "all" for kPartsAll).
inline std::string variant_part_names(std::uint32_t bits) {
  if (bits == kPartsAll) return "all";
  static constexpr const char* kNames[] = {"schedule",   "estimate", "estimate_at", "averaging", "sampling",    "gradient", "lsk_posdef",
                                           "to_natural", "to_moments", "kl",       "svi",       "vpng",        "paquet",
                                           "conjugate_ngd", "svi_lda", "svi_gmm", "to_expectation", "prior"};
  std::string out;
  for (std::size_t i = 0; i < std::size(kNames); ++i)
    if ((bits & (1u << i)) != 0) out += (out.empty() ? "" : ",") + std::string(kNames[i]);
  if ((bits >> std::size(kNames)) != 0) out += (out.empty() ? "" : ",") + std::string("other");
  return out;
}

/// The parts of the conjugate and non-conjugate NGD algorithms a variant may replace, for one scalar.
template <class Scalar>
struct NgdParts {
  /// γ_t in place of the claim's schedule; given the claim's own γ_t (so a variant may shift or scale it).
  std::function<Scalar(long t, const std::function<Scalar(long)>& library)> schedule;
  /// Applied to ĝ_t after the library's estimator has written it (a bias, a wrong scale, …).
  std::function<void(long t, GaussianPair<Scalar>& ghat)> estimate;
  /// The averager's weights in place of Theorem 1's linear weights.
  std::optional<AverageWeights> averaging;
  /// Applied to ĝ_t after `estimate`, given the mean m_t of the iterate it was computed at (a change
  /// that depends on the point, such as a missing −H̄m term).
  std::function<void(long t, const Vec<Scalar>& mean, GaussianPair<Scalar>& ghat)> estimate_at;
  /// The mini-batch sampling scheme in place of eq. (15)'s (with replacement).
  std::optional<Sampling> sampling;
  /// The name of the Monte Carlo gradient route (a shipped route: route_of) in place of the claim's.
  std::optional<std::string> gradient;
  /// LSK's precision update without its positive-definiteness term (η²/2)ĜS⁻¹Ĝ where the claim
  /// asks for it (optim/lsk_ngvi.hpp, ensure_posdef).
  bool lsk_drop_posdef_term = false;
  /// The maps between the Gaussian parameterisations and the KL, in place of the library's
  /// (moments_to_natural, natural_to_moments, kl_gaussian), where a claim checks them through
  /// GaussianMaps (below).
  std::function<GaussianNatural<Scalar>(const GaussianMoments<Scalar>&)> to_natural;
  std::function<GaussianMoments<Scalar>(const GaussianNatural<Scalar>&)> to_moments;
  std::function<Scalar(const GaussianMoments<Scalar>&, const GaussianMoments<Scalar>&)> kl;
  /// The map η ↦ μ = (m, S + mmᵀ) in place of the library's natural_to_expectation, where a claim
  /// checks it through GaussianMaps.
  std::function<GaussianExpectation<Scalar>(const GaussianNatural<Scalar>&)> to_expectation;
  /// The prior's natural parameter η_p that the NGD update λ ← (1 − γ)λ + γ(η_p + ĝ) adds, in place
  /// of the model's (a prior term counted at a wrong scale), given the model's.
  std::function<GaussianNatural<Scalar>(const GaussianNatural<Scalar>& prior)> prior;
  /// A whole conjugate-NGD implementation given as a value (protocols/conjugate_ngd.hpp), in place of
  /// the library's stepper, estimator, schedule and, when it keeps one, averager: the claims of the
  /// conjugate-NGD protocol run it (conjugate_ngd_for).
  std::shared_ptr<const protocols::ConjugateNgd<Scalar>> conjugate_ngd;

  /// The parts replaced, as VariantPart bits.
  std::uint32_t replaced() const {
    std::uint32_t b = 0;
    if (schedule) b |= kPartSchedule;
    if (estimate) b |= kPartEstimate;
    if (estimate_at) b |= kPartEstimateAt;
    if (averaging) b |= kPartAveraging;
    if (sampling) b |= kPartSampling;
    if (gradient) b |= kPartGradient;
    if (lsk_drop_posdef_term) b |= kPartLskPosdef;
    if (to_natural) b |= kPartToNatural;
    if (to_moments) b |= kPartToMoments;
    if (kl) b |= kPartKl;
    if (to_expectation) b |= kPartToExpectation;
    if (prior) b |= kPartPrior;
    if (conjugate_ngd) b |= kPartConjugateNgd;
    return b;
  }
  bool empty() const { return replaced() == 0; }
};

/// A named set of replaced parts, for double and mp50.
struct Variant {
  std::string name;
  std::string description;   ///< one line: what is replaced, by what
  bool mutant = false;       ///< a plausible bug the suite must detect
  std::string equivalent;    ///< for a mutant that cannot change a claim's conclusion: the one-line reason
  NgdParts<double> d;
  NgdParts<mp50> mp;
  /// A related system's replaced parts (SVI's, Paquet's, VPNG's parts structs, one per scalar type),
  /// each filed under the kPartSystem* bit its claims read it by (set_system_parts, system_parts_for).
  struct SystemParts {
    std::uint32_t bit = 0;
    std::any parts;
  };
  std::vector<SystemParts> systems;

  /// Files `parts` (a system's parts struct for one scalar) under the system bit `bit`; the variant
  /// then replaces that system's parts (replaced() includes `bit`).
  template <class Parts>
  void set_system_parts(std::uint32_t bit, Parts parts) {
    systems.push_back({bit, std::any(std::move(parts))});
  }
  /// Where the helpers below note each part read through this variant (null: nowhere). Not owned;
  /// `ngvi verify --mutants` points an empty variant's at one counter per claim run.
  std::atomic<std::uint32_t>* reads = nullptr;
  /// For an implementation given as a value: the protocol it implements (protocols::kConjugateNgd, …),
  /// so that claims that do not accept it report "not applicable" instead of running the library's
  /// algorithm; empty for a variant of parts.
  std::string protocol;
  std::string version;  ///< the implementation's version (recorded in claims.json's meta)

  /// A variant of a related system whose parts are `parts_d` (double) and `parts_mp` (mp50), filed under
  /// the system bit `bit` (set_system_parts).
  template <class PartsD, class PartsMp>
  static Variant of_system(std::string name, std::string description, bool mutant, std::uint32_t bit, PartsD parts_d,
                           PartsMp parts_mp) {
    Variant v;
    v.name = std::move(name);
    v.description = std::move(description);
    v.mutant = mutant;
    v.set_system_parts(bit, std::move(parts_d));
    v.set_system_parts(bit, std::move(parts_mp));
    return v;
  }

  /// A variant that is a whole conjugate-NGD implementation in double (its claims' mp50 runs then write
  /// one skipped record each).
  static Variant conjugate_ngd(protocols::ConjugateNgd<double> impl, std::string description = {}) {
    Variant v;
    v.name = impl.name;
    v.version = impl.version;
    v.description = description.empty() ? "a conjugate-NGD implementation given as a value (protocol " +
                                              std::string(protocols::kConjugateNgd) + " v" +
                                              std::to_string(protocols::kConjugateNgdVersion) + ")"
                                        : std::move(description);
    v.protocol = protocols::kConjugateNgd;
    v.d.conjugate_ngd = std::make_shared<const protocols::ConjugateNgd<double>>(std::move(impl));
    return v;
  }
  /// The same with the implementation's mp50 form: the claims of the protocol that run in mp50
  /// (thm1.first_step, lemma2.relative_smoothness) run `impl_mp` there.
  static Variant conjugate_ngd(protocols::ConjugateNgd<double> impl, protocols::ConjugateNgd<mp50> impl_mp, std::string description = {}) {
    Variant v = conjugate_ngd(std::move(impl), std::move(description));
    v.mp.conjugate_ngd = std::make_shared<const protocols::ConjugateNgd<mp50>>(std::move(impl_mp));
    return v;
  }

  /// The parts this variant replaces (VariantPart bits), in either scalar.
  std::uint32_t replaced() const {
    std::uint32_t b = d.replaced() | mp.replaced();
    for (const auto& s : systems) b |= s.bit;
    return b;
  }

  template <class Scalar>
  const NgdParts<Scalar>* parts() const {
    if constexpr (std::is_same_v<Scalar, double>) return &d;
    else if constexpr (std::is_same_v<Scalar, mp50>) return &mp;
    else return nullptr;
  }
  /// Builds both scalars' parts from one generic function `make.template operator()<Scalar>()`.
  template <class Make>
  static Variant make(std::string name, std::string description, bool mutant, Make&& make_parts) {
    Variant v;
    v.name = std::move(name);
    v.description = std::move(description);
    v.mutant = mutant;
    v.d = make_parts.template operator()<double>();
    v.mp = make_parts.template operator()<mp50>();
    return v;
  }
};

/// Notes that the parts `bits` of `v` were read (where v->reads points; nothing if either is null).
inline void note_reads(const Variant* v, std::uint32_t bits) {
  if (v != nullptr && v->reads != nullptr) v->reads->fetch_or(bits, std::memory_order_relaxed);
}

/// The parts of `v` for Scalar, or none, noting a read of the parts `bits`: the caller reads only
/// those. The helpers of the NGD parts below all go through here.
template <class Scalar>
const NgdParts<Scalar>* parts_read(const Variant* v, std::uint32_t bits) {
  note_reads(v, bits);
  if (v == nullptr) return nullptr;
  const NgdParts<Scalar>* p = v->template parts<Scalar>();
  return p != nullptr && !p->empty() ? p : nullptr;
}

/// The parts of `v` for Scalar, or none (the library's algorithm) when v is null or has none for it.
/// Notes a read of every part (the caller may read any): prefer the helpers below, which note only
/// the parts they read.
template <class Scalar>
const NgdParts<Scalar>* parts_of(const Variant* v) {
  return parts_read<Scalar>(v, kPartsAll);
}

/// True when `v` replaces any of the parts `bits` for Scalar (noting a read of them).
template <class Scalar>
bool replaces(const Variant* v, std::uint32_t bits) {
  const auto* p = parts_read<Scalar>(v, bits);
  return p != nullptr && (p->replaced() & bits) != 0;
}

/// The conjugate-NGD implementation `v` hands the claims in place of the library's algorithm, or null.
template <class Scalar>
const protocols::ConjugateNgd<Scalar>* conjugate_ngd_for(const Variant* v) {
  const auto* p = parts_read<Scalar>(v, kPartConjugateNgd);
  return p != nullptr ? p->conjugate_ngd.get() : nullptr;
}

/// The parts VariantEstimator reads (estimate, estimate_at) of `v` for Scalar, or none.
template <class Scalar>
const NgdParts<Scalar>* estimator_parts(const Variant* v) {
  return parts_read<Scalar>(v, kPartEstimate | kPartEstimateAt);
}

/// The parts of type `Parts` (a related system's parts struct for one scalar) that `v` files under
/// the system bit `bit`, or null (the library's parts); notes a read of `bit`.
template <class Parts>
const Parts* system_parts_for(const Variant* v, std::uint32_t bit) {
  note_reads(v, bit);
  if (v == nullptr) return nullptr;
  for (const auto& s : v->systems)
    if (s.bit == bit)
      if (const auto* p = std::any_cast<Parts>(&s.parts)) return p;
  return nullptr;
}

/// The schedule a claim runs: the library's `base`, or the variant's replacement of it.
template <class Scalar, class Base>
ScheduleFn<Scalar> schedule_for(const Variant* v, const Base& base) {
  const auto* p = parts_read<Scalar>(v, kPartSchedule);
  std::function<Scalar(long)> lib = [base](long t) { return Scalar(base.at(t)); };
  bool unit = true;
  if constexpr (requires { base.within_unit_interval(); }) unit = base.within_unit_interval();
  std::string what;
  if constexpr (requires { base.describe(); }) what = base.describe();
  if (p == nullptr || !p->schedule) return ScheduleFn<Scalar>(lib, what, unit);
  auto fn = p->schedule;
  return ScheduleFn<Scalar>([fn, lib](long t) { return fn(t, lib); }, v->name + " (in place of " + what + ")", /*unit_interval=*/true);
}

/// The estimator a claim runs: the library's `base`, then the variant's change to ĝ_t (if any);
/// `parts` from estimator_parts (which notes the read).
template <class Base, class Scalar>
struct VariantEstimator {
  Base& base;
  const NgdParts<Scalar>* parts;
  template <class S>
  void estimate(long t, const S& s, GaussianPair<Scalar>& g) {
    base.estimate(t, s, g);
    if (parts == nullptr) return;
    if (parts->estimate) parts->estimate(t, g);
    if (!parts->estimate_at) return;
    // The mean of the current iterate, computed here: a stepper's cached mean() is the iterate's only
    // after a part converted it (none has at t = 0, and none does when only η is averaged).
    if constexpr (requires { { s.point() } -> std::convertible_to<const GaussianNatural<Scalar>&>; })
      parts->estimate_at(t, natural_to_moments<Scalar>(s.point()).mean, g);
    else if constexpr (requires { s.mean(); })
      parts->estimate_at(t, s.mean(), g);
  }
};

/// True when the variant changes the estimator (so routes that fuse the estimator into a kernel, such
/// as the SIMD lanes, cannot run it and the one-replicate route is taken).
template <class Scalar>
bool changes_estimator(const Variant* v) {
  const auto* p = parts_read<Scalar>(v, kPartEstimate | kPartEstimateAt | kPartSampling);
  return p != nullptr && (static_cast<bool>(p->estimate) || static_cast<bool>(p->estimate_at) || p->sampling.has_value());
}

/// The prior term η_p of the NGD update: the model's `library`, or the variant's replacement of it.
template <class Scalar>
GaussianNatural<Scalar> prior_for(const Variant* v, const GaussianNatural<Scalar>& library) {
  const auto* p = parts_read<Scalar>(v, kPartPrior);
  return p != nullptr && p->prior ? p->prior(library) : library;
}

/// The mini-batch sampling: eq. (15)'s with-replacement draws, or the variant's.
template <class Scalar>
Sampling sampling_for(const Variant* v, Sampling library = Sampling::kWithReplacement) {
  const auto* p = parts_read<Scalar>(v, kPartSampling);
  return p != nullptr && p->sampling ? *p->sampling : library;
}

/// The Monte Carlo gradient route's name (a shipped route, route_of): the claim's `library` one, or the
/// variant's. The view lives as long as `v` (or `library`).
template <class Scalar>
std::string_view gradient_for(const Variant* v, std::string_view library) {
  const auto* p = parts_read<Scalar>(v, kPartGradient);
  return p != nullptr && p->gradient ? std::string_view(*p->gradient) : library;
}

/// LSK's ensure_posdef: the claim's `requested` value, unless the variant drops the term.
template <class Scalar>
bool lsk_posdef_for(const Variant* v, bool requested) {
  const auto* p = parts_read<Scalar>(v, kPartLskPosdef);
  return requested && !(p != nullptr && p->lsk_drop_posdef_term);
}

/// The averager's weights: Theorem 1's linear ones, or the variant's.
template <class Scalar>
AverageWeights averaging_for(const Variant* v, AverageWeights library = AverageWeights::kLinear) {
  const auto* p = parts_read<Scalar>(v, kPartAveraging);
  return p != nullptr && p->averaging ? *p->averaging : library;
}

/// The Gaussian maps a claim checks: the library's, or the variant's replacements.
/// (Each call notes a read of the map it evaluates.)
template <class Scalar>
struct GaussianMaps {
  const Variant* variant = nullptr;
  GaussianNatural<Scalar> moments_to_natural(const GaussianMoments<Scalar>& q) const {
    const auto* p = parts_read<Scalar>(variant, kPartToNatural);
    return p != nullptr && p->to_natural ? p->to_natural(q) : ngvi::moments_to_natural(q);
  }
  GaussianMoments<Scalar> natural_to_moments(const GaussianNatural<Scalar>& eta) const {
    const auto* p = parts_read<Scalar>(variant, kPartToMoments);
    return p != nullptr && p->to_moments ? p->to_moments(eta) : ngvi::natural_to_moments(eta);
  }
  Scalar kl(const GaussianMoments<Scalar>& q, const GaussianMoments<Scalar>& r) const {
    const auto* p = parts_read<Scalar>(variant, kPartKl);
    return p != nullptr && p->kl ? p->kl(q, r) : kl_gaussian(q, r);
  }
  GaussianExpectation<Scalar> natural_to_expectation(const GaussianNatural<Scalar>& eta) const {
    const auto* p = parts_read<Scalar>(variant, kPartToExpectation);
    return p != nullptr && p->to_expectation ? p->to_expectation(eta) : ngvi::natural_to_expectation(eta);
  }
};

template <class Scalar>
GaussianMaps<Scalar> maps_for(const Variant* v) {
  return GaussianMaps<Scalar>{v};
}

/// The registered variants: the kit's mutants and any a program adds (names are unique).
class VariantRegistry {
 public:
  static VariantRegistry& instance() {
    static VariantRegistry r;
    return r;
  }
  /// @throws std::invalid_argument naming 'name' if it is empty or already registered.
  const Variant& add(Variant v) {
    if (v.name.empty()) throw std::invalid_argument("ngvi::VariantRegistry::add: argument 'name' must not be empty");
    if (find(v.name) != nullptr) throw std::invalid_argument("ngvi::VariantRegistry::add: argument 'name' '" + v.name + "' is already registered");
    variants_.push_back(std::make_unique<Variant>(std::move(v)));
    return *variants_.back();
  }
  const Variant* find(const std::string& name) const {
    for (const auto& v : variants_)
      if (v->name == name) return v.get();
    return nullptr;
  }
  std::vector<const Variant*> all() const {
    std::vector<const Variant*> out;
    for (const auto& v : variants_) out.push_back(v.get());
    return out;
  }

 private:
  std::vector<std::unique_ptr<Variant>> variants_;
};

}  // namespace ngvi
