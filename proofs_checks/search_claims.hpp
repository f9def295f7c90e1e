#pragma once
/// @file
/// The worst-case search over Bayesian-linear-regression instances (`ngvi verify --search CLAIM`,
/// `ngvi verify --instance FILE`; docs/cli.md "Worst-case search"): an instance type, one
/// evaluation instance -> (lhs, rhs, tightness) per searched claim, reusing the claims' own
/// computations (blr_trajectory.hpp, diagnostics/step_variance.hpp, path_enumeration.hpp,
/// bounds/blr_constants.hpp), and a deterministic search (random restarts over documented ranges,
/// then a compass search in log-parameters) that maximises the tightness lhs/rhs.
///
/// Searched claims (docs/math.md §4.5, §5.4):
///   lemma3   max_t σ_t² along one eq. (15) trajectory (exact by enumeration of the n^M batches when
///            n^M ≤ 4096, else the one-sided 99% Monte Carlo LOWER bound, so chance cannot inflate
///            the tightness) against Lemma 3's derived σ² (data-moment form);
///   lemma10, lemma11, cor1, cor2
///            the max over the steps of the recorded trajectory of lhs/rhs (pathwise claims: the
///            observed ratio is exact up to rounding, no Monte Carlo error);
///   thm1     E KL(q_{μ̄_T} ‖ p) exactly, by enumerating all n^{MT} batch paths, against 4σ²/(T+1)
///            at every T' ≤ T, with σ² from a named source (Sigma2Source: "lemma3" Lemma 3's derived
///            constant, the one thm1.rate uses today; "reachable-max" the exact max of σ_t² over the
///            enumerated tree, as thm1.exact; further sources, e.g. a certified σ², are registered
///            with register_sigma2_source).
/// Every searched claim keeps the hypotheses of its lemma: prior mean m_p = 0 (Lemma 9, on which
/// all of them rest) and Theorem 1's schedule γ_t = 2/(t+2) from q₀ = N(0, I).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ngvi/claims/blr_common.hpp"

namespace ngvi::claims::search {

/// Version of the instance-file format (docs/cli.md); a file with another version is refused.
inline constexpr int kInstanceSchema = 1;

/// How an instance's data and prior were generated (kept in the file for provenance; a file may
/// give the generator instead of X and y). X = x_scale·synthetic_regression(n, d, kappa, noise_sd,
/// seed).X, y = y_scale·(its y); S_p = random_spd(d, prior_kappa, Rng(seed + 1), prior_scale) (spectrum
/// prior_scale·[1, prior_kappa]).
struct Generator {
  long n = 0, d = 0;
  double kappa = 1, noise_sd = 0.7, x_scale = 1, y_scale = 1, prior_kappa = 1, prior_scale = 1;
  std::uint64_t seed = 0;
};

/// The data, prior, noise, M and T of Bayesian linear regression under eq. (15) NGD with `schedule`.
struct SearchInstance {
  std::string claim;            ///< short name of the searched claim (lemma3, lemma10, lemma11, cor1, cor2, thm1)
  BlrInstance blr;              ///< X, y, S_p, s_e², M
  Vec<double> prior_mean;       ///< m_p (must be 0: the hypothesis of Lemma 9)
  long steps = 1;               ///< T
  std::string schedule = "theorem1";  ///< γ_t = 2/(t+2) (the only schedule of the searched claims)
  std::uint64_t seed = 1;       ///< seed of the trajectory's random batches
  std::string sigma2_source = "lemma3";  ///< thm1 only: the σ² source
  std::optional<Generator> generator;    ///< provenance
};

/// Builds X, y and S_p from a generator (n, d ≥ 1; the scales > 0).
BlrInstance instance_from(const Generator& g, double noise_var, long batch, const std::string& name);

/// One evaluation of a searched claim: lhs/rhs = tightness; `allowance` is the derived rounding
/// allowance (the claim holds iff tightness ≤ 1 + allowance); `at` the step/T where it is attained.
struct Evaluation {
  double lhs = 0, rhs = 0, tightness = 0, allowance = 0;
  long at = -1;
  bool exact = true;            ///< false: lhs is a Monte Carlo lower confidence bound
  std::string note;
  bool holds() const { return tightness <= 1 + allowance; }  // NaN: not held
};

/// σ² for Theorem 1 from the instance and the exact max of σ_t² over the enumerated tree.
using Sigma2Source = std::function<double(const BlrInstance&, double reachable_max)>;
/// Registers (or replaces) a named σ² source; "lemma3" and "reachable-max" are built in.
void register_sigma2_source(const std::string& name, Sigma2Source fn, const std::string& description);
/// The source named `name`, or null.
const Sigma2Source* find_sigma2_source(const std::string& name);
/// "lemma3, reachable-max, ..." for error messages.
std::string sigma2_source_names();

struct SearchedClaim {
  std::string name;       ///< lemma3, ...
  std::string id;         ///< the registry's claim id (lemma3.variance, ...)
  std::string bound;      ///< what the right-hand side is
  std::string unit;       ///< "ratio" (lhs is already a ratio to the bound) or "plain"
  /// Throws std::invalid_argument/std::domain_error naming the field the instance violates.
  std::function<Evaluation(const SearchInstance&)> evaluate;
};

const std::vector<SearchedClaim>& searched_claims();
/// By short name or full id; null if none.
const SearchedClaim* find_searched_claim(const std::string& name);
/// "lemma3, lemma10, ..." for error messages.
std::string searched_claim_names();

/// The hypotheses and feasibility limits of `claim` on `inst` (m_p = 0, schedule, n ≥ 2, the
/// enumeration limits of lemma3 (none: Monte Carlo above 4096) and thm1 (n^{MT} ≤ kThm1PathLimit));
/// throws std::invalid_argument naming the field.
void check_instance(const SearchedClaim& claim, const SearchInstance& inst);

/// Leaves of Theorem 1's path enumeration the search and --instance accept.
inline constexpr long kThm1PathLimit = 1L << 16;

/// The search's ranges (docs/cli.md lists them with these defaults). Discrete parameters are drawn
/// at each restart and kept; continuous ones are drawn log-uniformly and refined.
struct SearchRanges {
  long n_min = 2, n_max = 10, d_min = 1, d_max = 4, m_min = 1, m_max = 3;
  double kappa_max = 1e4;                   ///< feature covariance condition in [1, kappa_max]
  double noise_sd_min = 1e-2, noise_sd_max = 3;
  double x_scale_min = 1e-3, x_scale_max = 10;
  double y_scale_min = 1e-2, y_scale_max = 1e3;
  double noise_var_min = 1e-2, noise_var_max = 10;  ///< s_e²
  double prior_kappa_max = 1e3;
  double prior_scale_min = 1e-2, prior_scale_max = 1e2;
  long steps_min = 2, steps_max = 200;      ///< T (thm1: capped by kThm1PathLimit and 8)
};

struct SearchOptions {
  long budget = 200;            ///< evaluations in all
  long restarts = 0;            ///< random restarts among them (0: half the budget); the rest refine
  std::uint64_t seed = 20240601;
  std::string sigma2_source = "lemma3";
  SearchRanges ranges;
};

struct SearchResult {
  SearchInstance worst;
  Evaluation eval;
  long evaluations = 0, restarts = 0, unevaluable = 0;
  std::string where;            ///< "restart k" or "refinement of restart k"
};

/// The random restarts of a search with `options` (options.restarts, or half the budget when 0).
/// @throws std::invalid_argument unless 2 <= budget and 1 <= restarts <= budget.
long search_restarts(const SearchOptions& options);

/// The tightness of restarts of a search, as phase 1 scored them: restart k (0-based) in score[k],
/// -inf for one that could not be evaluated (outside Ω, NaN, an instance the claim refuses), NaN for
/// one not run here (another shard's).
struct RestartScores {
  std::vector<double> score;
  long unevaluable = 0;  ///< of those run here
};

/// Phase 1 of the search, or its shard `index` of `count` (1-based): restart k runs in shard
/// k mod count + 1. Every shard draws all restarts' points from options.seed in order, so restart k
/// is the same instance whatever the sharding. `progress(j)` after the shard's j-th evaluation.
RestartScores run_restarts(const SearchedClaim& claim, const SearchOptions& options, int index = 1, int count = 1,
                           const std::function<void(long)>& progress = {});

/// Phase 2 from the scores of all restarts (no NaN: every shard's joined): the best restart, evaluated
/// again, then a compass search in the normalised log-parameters from the three best restarts in
/// turn, with the evaluations left of the budget.
/// @throws std::invalid_argument when `scores` is not one score per restart, or std::runtime_error
/// when the best restart's evaluation differs from its score (a score edited, or an evaluation
/// that is not deterministic).
SearchResult refine_search(const SearchedClaim& claim, const SearchOptions& options, const RestartScores& scores,
                           const std::function<void(long)>& progress = {});

/// Random restarts over the ranges, then the refinement (run_restarts, then refine_search);
/// deterministic given options.seed. `progress(k)` is called after evaluation k.
SearchResult run_search(const SearchedClaim& claim, const SearchOptions& options,
                        const std::function<void(long)>& progress = {});

/// Reads and validates an instance file (docs/cli.md, "Worst-case search"): every field checked, the
/// instance checked against the claim's hypotheses (check_instance); `expected_tightness` gets the
/// file's `expected.tightness` when it has one.
/// @throws std::invalid_argument "instance file 'PATH': field 'F' ..." (or naming what else is wrong:
///         the file cannot be opened, is not JSON, not an object).
SearchInstance read_instance_file(const std::string& path, double* expected_tightness = nullptr);

/// The claim record of an evaluation (verdicts as usual: kind claim, inequality).
ClaimRecord search_record(const SearchedClaim& claim, const SearchInstance& inst, const Evaluation& e, const std::string& instance_name,
                          double seconds);

}  // namespace ngvi::claims::search
