#pragma once
/// @file
/// A claim record: one verdict of one claim on one instance in one precision (design.md, "The claim
/// registry"). `margin` is positive when the statement holds: rhs − lhs for an inequality lhs ≤ rhs,
/// budget − error for an identity. Records are written to claims.json by `write_claims_json`.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace ngvi::report {

enum class Kind { kClaim, kControl };

/// The five verdicts of a record:
/// - holds:   the statement is true on this instance (margin > 0, every number finite);
/// - broken:  the statement is false on this instance (margin ≤ 0);
/// - vacuous: a claim record that holds but could not have failed for any plausible bug: an
///            inequality with tightness lhs/rhs below kVacuousTightness, or a difference whose
///            budget is as coarse as its reference (Form); listed, never counted as evidence;
/// - skipped: the record could not be computed (a data set is not installed, ...); never counts
///            as holding, and the note says why;
/// - error:   lhs, rhs or margin is NaN or infinite: neither holds nor broken, always a failure.
enum class Verdict { kHolds, kBroken, kVacuous, kSkipped, kError };

/// What a record checks, which decides how its informativeness is judged:
/// - inequality: an upper bound lhs ≤ rhs of the theory on a quantity that is non-negative (a
///   variance, a KL, a distance, a ratio of such). Its tightness lhs/rhs (defined for lhs ≥ 0 and
///   rhs > 0) is the share of the bound the measured side uses; a claim record below
///   kVacuousTightness is `vacuous`. A signed lhs (a sign claim "lhs ≤ 0", a largest decrease that
///   may be negative) has no tightness and is never vacuous by it.
/// - identity: an error against a rounding budget (unit "eps"). Neither tightness nor vacuous: the
///   error is rounding noise, and the budget bounds that noise rather than a quantity of the theory.
/// - difference: a measured quantity against a reference value of the theory (a rate against its
///   derived value, an eigenvalue against its floor ½, a bound's change against 0 at the bound's
///   scale): lhs is the deviation (signed or absolute), rhs the budget it may not exceed. How close
///   lhs comes to rhs says nothing about the check (the ideal deviation is 0); what does is its
///   `resolution`, budget/|reference|, the smallest relative deviation the record can see. A
///   difference claim record whose resolution is at least kCoarsestResolution is `vacuous`.
enum class Form { kInequality, kIdentity, kDifference };

/// Below this tightness an inequality claim record is `vacuous`: the measured side uses less than
/// a thousandth of its bound (issue acceptance threshold, not derived).
inline constexpr double kVacuousTightness = 1e-3;

/// At or above this resolution a difference claim record is `vacuous`: a budget as large as the
/// reference itself accepts the reference replaced by 0 or doubled, so the record cannot tell the
/// quantity it measures from its absence (derived from the definition, not tuned).
inline constexpr double kCoarsestResolution = 1;

struct ClaimRecord {
  std::string claim;       ///< registry id, e.g. "lemma4.kl_bregman"
  std::string instance;    ///< instance name, e.g. "d6-cond1e8"
  std::string precision;   ///< "double", "mp50", ...
  Kind kind = Kind::kClaim;
  Form form = Form::kInequality;
  double lhs = 0;          ///< observed side (an error for identities)
  double rhs = 0;          ///< bound side (a budget for identities)
  double margin = 0;       ///< > 0 iff the statement holds on this instance
  /// lhs/rhs for an inequality with lhs ≥ 0 and rhs positive, both finite (the share of the bound
  /// the measured side uses); NaN where undefined (identities, differences, signed lhs, rhs ≤ 0,
  /// non-finite sides). Set by apply_verdict_rule.
  double tightness = std::numeric_limits<double>::quiet_NaN();
  /// For a difference: budget/|reference|, the smallest relative deviation from the reference the
  /// record can see; NaN for the other forms, or where the reference is 0 or not finite. An input of
  /// the verdict rule, set when the record is made (difference_record).
  double resolution = std::numeric_limits<double>::quiet_NaN();
  Verdict verdict = Verdict::kBroken;
  double seconds = 0;
  std::string unit;        ///< unit of lhs/rhs/margin, e.g. "eps" or "" (plain value)
  std::string note;        ///< one line of context (interval, replicates, why skipped, ...)
  /// False-alarm level of a stochastic claim record: an upper bound on the probability that the
  /// record is not `holds` although the claim is true (over the run's random draws). NaN for a
  /// deterministic record (no draws, or a verdict that no draw can change). The suite's family-wise
  /// false-alarm rate is bounded by the sum of the levels of its claim records (Bonferroni;
  /// suite_level) and must stay at most kSuiteLevel.
  double level = std::numeric_limits<double>::quiet_NaN();
  /// For a negative control: true when the checker injects the violation into a value the library
  /// already computed (or computes a formula of its own) instead of re-running the library under a
  /// violated hypothesis. Such a control breaks whenever the claim holds and shows only what the
  /// check can resolve, not that the library's behaviour changes; the suite reports their share.
  /// False for claim records and for re-run controls.
  bool injected = false;
};

/// Family-wise false-alarm rate allowed per run of the suite (issue acceptance threshold: 1%).
inline constexpr double kSuiteLevel = 0.01;

/// Bonferroni bound on the family-wise false-alarm rate of a set of records: the sum of the
/// levels of the claim records that carry one (controls are meant to fail; their miss rate is a
/// power, stated in their notes).
inline double suite_level(const std::vector<ClaimRecord>& recs) {
  double s = 0;
  for (const auto& r : recs)
    if (r.kind == Kind::kClaim && std::isfinite(r.level)) s += r.level;
  return s;
}

/// The margin rule alone: holds iff the margin is positive and finite (NaN is broken). Kept for
/// callers that judge a bare margin; records are judged by apply_verdict_rule.
inline Verdict verdict_from_margin(double margin) {
  return (margin > 0 && margin <= std::numeric_limits<double>::max()) ? Verdict::kHolds : Verdict::kBroken;
}

/// lhs/rhs where lhs ≥ 0 and rhs > 0 are finite, else NaN (a signed lhs has no tightness).
inline double tightness_of(double lhs, double rhs) {
  const bool defined = std::isfinite(lhs) && std::isfinite(rhs) && lhs >= 0 && rhs > 0;
  return defined ? lhs / rhs : std::numeric_limits<double>::quiet_NaN();
}

/// budget/|reference| where both are finite and the reference is not 0, else NaN.
inline double resolution_of(double budget, double reference) {
  const bool defined = std::isfinite(budget) && std::isfinite(reference) && reference != 0;
  return defined ? std::abs(budget / reference) : std::numeric_limits<double>::quiet_NaN();
}

/// Sets `tightness` (inequalities) and `verdict` from the numbers: error if lhs, rhs or margin is
/// not finite; else broken if margin ≤ 0; else vacuous for a claim inequality with tightness below
/// kVacuousTightness or a claim difference with resolution at least kCoarsestResolution; else
/// holds. A `skipped` record stays skipped (its numbers mean nothing, and its tightness is NaN).
inline void apply_verdict_rule(ClaimRecord& r) {
  const bool inequality = r.form == Form::kInequality && r.verdict != Verdict::kSkipped;
  r.tightness = inequality ? tightness_of(r.lhs, r.rhs) : std::numeric_limits<double>::quiet_NaN();
  if (r.form != Form::kDifference) r.resolution = std::numeric_limits<double>::quiet_NaN();
  if (r.verdict == Verdict::kSkipped) return;
  if (!std::isfinite(r.lhs) || !std::isfinite(r.rhs) || !std::isfinite(r.margin)) {
    r.verdict = Verdict::kError;
    return;
  }
  if (!(r.margin > 0)) {
    r.verdict = Verdict::kBroken;
    return;
  }
  const bool loose_bound = r.form == Form::kInequality && std::isfinite(r.tightness) && r.tightness < kVacuousTightness;
  const bool coarse_difference = r.form == Form::kDifference && std::isfinite(r.resolution) && r.resolution >= kCoarsestResolution;
  r.verdict = r.kind == Kind::kClaim && (loose_bound || coarse_difference) ? Verdict::kVacuous : Verdict::kHolds;
}

/// How a record counts in the suite.
enum class Outcome {
  kPass,     ///< evidence: a claim that holds, or a control that is broken
  kFail,     ///< a claim broken, a control that holds, or an error (either kind)
  kVacuous,  ///< a claim that holds vacuously: not evidence, not a failure
  kSkipped,  ///< not computed: not evidence, not a failure
};

inline Outcome outcome(const ClaimRecord& r) {
  switch (r.verdict) {
    case Verdict::kSkipped: return Outcome::kSkipped;
    case Verdict::kError: return Outcome::kFail;
    case Verdict::kVacuous: return r.kind == Kind::kClaim ? Outcome::kVacuous : Outcome::kFail;
    case Verdict::kHolds: return r.kind == Kind::kClaim ? Outcome::kPass : Outcome::kFail;
    case Verdict::kBroken: return r.kind == Kind::kControl ? Outcome::kPass : Outcome::kFail;
  }
  return Outcome::kFail;
}

/// A record is evidence for the suite when a claim holds or a control is broken (vacuous and
/// skipped records are not).
inline bool record_passes(const ClaimRecord& r) { return outcome(r) == Outcome::kPass; }

/// Counts of a set of records by kind and outcome (the suite's summary line).
struct SuiteCounts {
  long records = 0;
  long claims = 0, claims_hold = 0;      ///< claim records, and those that hold (evidence)
  long controls = 0, controls_broken = 0;
  long controls_injected = 0;  ///< controls whose violation the checker injects (ClaimRecord::injected)
  long vacuous = 0, skipped = 0, errors = 0, failures = 0;  ///< failures include errors
  /// No failure and at least one record of evidence (vacuous and skipped records neither pass nor
  /// fail the suite, but a run made only of them showed nothing).
  bool pass() const { return failures == 0 && claims_hold + controls_broken > 0; }
};

inline SuiteCounts count_records(const std::vector<ClaimRecord>& recs) {
  SuiteCounts c;
  for (const auto& r : recs) {
    ++c.records;
    const Outcome o = outcome(r);
    if (r.kind == Kind::kClaim) {
      ++c.claims;
      c.claims_hold += o == Outcome::kPass;
    } else {
      ++c.controls;
      c.controls_broken += o == Outcome::kPass;
      c.controls_injected += r.injected;
    }
    c.vacuous += o == Outcome::kVacuous;
    c.skipped += o == Outcome::kSkipped;
    c.errors += r.verdict == Verdict::kError;
    c.failures += o == Outcome::kFail;
  }
  return c;
}

/// A claim whose claim records include some that are not evidence: how many hold, are vacuous and
/// are skipped. `none()` when no claim record of it holds: the claim has no evidence in the run.
struct EvidenceGap {
  std::string claim;
  long holds = 0, vacuous = 0, skipped = 0;
  bool none() const { return holds == 0; }
};

/// The claims of `recs` with vacuous or skipped claim records, in the order they first appear.
inline std::vector<EvidenceGap> evidence_gaps(const std::vector<ClaimRecord>& recs) {
  std::vector<EvidenceGap> all;
  for (const auto& r : recs) {
    if (r.kind != Kind::kClaim) continue;
    EvidenceGap* g = nullptr;
    for (auto& e : all)
      if (e.claim == r.claim) g = &e;
    if (g == nullptr) g = &all.emplace_back(EvidenceGap{r.claim});
    const Outcome o = outcome(r);
    g->holds += o == Outcome::kPass;
    g->vacuous += o == Outcome::kVacuous;
    g->skipped += o == Outcome::kSkipped;
  }
  std::vector<EvidenceGap> out;
  for (auto& e : all)
    if (e.vacuous + e.skipped > 0) out.push_back(std::move(e));
  return out;
}

std::string to_string(Kind k);
std::string to_string(Verdict v);
std::string to_string(Form f);
/// The verdict named by `text` ("holds", "broken", "vacuous", "skipped", "error").
/// @throws std::invalid_argument naming the text when it is none of these.
Verdict verdict_from_string(const std::string& text);

struct RunMeta {
  std::string commit;
  std::string compiler;
  unsigned long long seed = 0;
  std::vector<std::string> precisions;
  std::string started;
  std::string mode;  ///< "quick" or "full"
  std::string command;  ///< the command line that produced the records ("" in older files)
  int threads = 0;      ///< worker threads (0 when unknown; results do not depend on it)
  std::string variant;  ///< the variant of the algorithm the claims ran against ("" = the library's)
  std::string claims;   ///< the claim selection (comma-separated globs; "" in older files)
  int ranks = 1;        ///< processes the replicates were split across (1 without MPI)
  std::vector<long> replicates_per_rank;  ///< replicates each rank computed, in rank order ({} when unknown)
  /// The implementation under test: "" for the library's algorithm, a variant's name, or the name an
  /// implementation of a protocol gives itself (an exec process's hello, docs/protocol.md). Files
  /// written before it existed read as their `variant`.
  std::string implementation;
  std::string implementation_version;  ///< its version ("" for the library's algorithm and its variants)
  std::string protocol;                ///< the protocol it implements ("conjugate-ngd"; "" for none)
  int protocol_version = 0;            ///< that protocol's version (0 for none)
  /// A shard of a sharded run (`ngvi verify --shard I/N`): "I/N" ("" for a whole run), and the claims
  /// it ran, in order (`ngvi merge` joins the N shards into the whole run's records).
  std::string shard;
  std::vector<std::string> shard_claims;
};

/// The implementation a run checked, in words: "the library's algorithm", "variant 'g2-bias'", or
/// "implementation 'numpy-ngd' 1.0 (conjugate-ngd v1)".
std::string describe_implementation(const RunMeta& meta);

/// Writes {"meta": {...}, "records": [...]} to `path`.
/// @throws std::runtime_error naming the path if it cannot be written.
void write_claims_json(const std::string& path, const RunMeta& meta, const std::vector<ClaimRecord>& records);

/// Reads a claims.json written by write_claims_json.
/// @throws std::runtime_error naming the path and the problem on a missing file or malformed JSON.
std::vector<ClaimRecord> read_claims_json(const std::string& path, RunMeta* meta = nullptr);

/// Compiler name and version this library was built with.
std::string compiler_id();

}  // namespace ngvi::report
