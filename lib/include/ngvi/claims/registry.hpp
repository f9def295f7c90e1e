#pragma once
/// @file
/// The claim registry: the single source of truth for claims. Each claim file registers one ClaimInfo
/// at static-initialisation time. In the build tree the claims are an OBJECT library linked into every
/// executable that uses them; installed, they are the library ngvi::claims (find_package(ngvikit)),
/// linked whole so that every registrar runs.
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "ngvi/optim/variant.hpp"
#include "ngvi/report/record.hpp"

namespace ngvi::claims {

using report::ClaimRecord;
using report::Kind;

/// What a claim run is asked to do.
struct RunContext {
  bool full = false;                                  ///< full instance set (ngvi verify --full)
  std::vector<std::string> precisions{"double", "mp50"};
  std::uint64_t seed = 20240601;                      ///< base seed; claims derive their streams from it
  int threads = 1;
  bool wants(const std::string& precision) const;

  /// The algorithm under test: null for the library's, otherwise a variant whose parts replace the
  /// library's (optim/variant.hpp; `ngvi verify --variant NAME`). A claim reads its parts only through
  /// variant.hpp's helpers, which note each part read where the variant's `reads` points: a claim
  /// runs the same code against any variant that replaces none of the parts it read (claims are
  /// deterministic given the context), so `ngvi verify --mutants` runs it again only against the
  /// mutants that replace one of them.
  const Variant* variant() const { return variant_; }
  void set_variant(const Variant* v) { variant_ = v; }

 private:
  const Variant* variant_ = nullptr;
};

using ClaimFn = std::function<std::vector<ClaimRecord>(const RunContext&)>;

/// A claim's rough run time, in seconds of one core, in quick and in --full mode. `ngvi verify` starts
/// the claims of a run longest first by it, so that a run does not end on a long claim started last;
/// no record depends on it. Estimated from a run's claims.json (the sum of a claim's records'
/// `seconds`); a claim without one is started after those with one. Re-estimate when a claim's
/// instances change much.
struct CostHint {
  double quick = 0;
  double full = 0;
};

struct ClaimInfo {
  std::string id;         ///< e.g. "lemma4.kl_bregman"
  std::string statement;  ///< one line
  std::string source;     ///< paper, section, equation; and the spec section
  std::string tag;        ///< [R], [D] or [X] as in docs/math.md
  ClaimFn run;
  CostHint cost{};        ///< only orders the claims of a run (above)
  /// The protocols (protocols/*.hpp: "conjugate-ngd", …) of the implementations given as values
  /// that this claim runs against; an implementation of any other protocol gets one skipped record
  /// from run_claim ("not applicable"), never a run of the library's algorithm in its name.
  std::vector<std::string> protocols{};

  /// True when the claim runs against an implementation of `protocol`.
  bool accepts(const std::string& protocol) const;
};

class Registry {
 public:
  static Registry& instance();
  void add(ClaimInfo info);
  const std::vector<ClaimInfo>& claims() const { return claims_; }
  const ClaimInfo* find(const std::string& id) const;
  /// Claims whose id matches any of the comma-separated shell globs in `patterns`.
  std::vector<const ClaimInfo*> match(const std::string& patterns) const;
  /// The claims a user's selection names: comma-separated claim ids or shell globs, each of which must
  /// match some claim. @throws std::invalid_argument "'<item>' matches no claim" or "'<selection>' has
  /// an empty item" (the caller prefixes its option's name).
  std::vector<const ClaimInfo*> select(const std::string& selection) const;

  /// Shard `index` (1-based) of `count` disjoint shards of `selected`, balanced by the claims' cost
  /// hints (CostHint::full with `full`, else quick; at least 0.01 each): the longest first, each to the
  /// least loaded shard (ties to the lower index). Deterministic: the same selection, mode and count
  /// give the same shards. The claims of a shard keep the order of `selected`.
  /// @throws std::invalid_argument unless 1 <= index <= count <= selected.size().
  static std::vector<const ClaimInfo*> shard(const std::vector<const ClaimInfo*>& selected, int index, int count, bool full);
  /// (I, N) of a shard written "I/N" (decimal, 1 <= I <= N). @throws std::invalid_argument naming the text.
  static std::pair<int, int> parse_shard(const std::string& text);

 private:
  std::vector<ClaimInfo> claims_;
};

/// Runs `claim` in `ctx`: its records; one skipped record when ctx's variant is an implementation of a
/// protocol the claim does not accept; one error record (instance "(the claim threw)", the message as
/// its note) when the claim throws, so that a failing claim or implementation loses nothing else of a
/// run.
std::vector<ClaimRecord> run_claim(const ClaimInfo& claim, const RunContext& ctx);

/// Registers a claim at static-initialisation time.
struct Registrar {
  explicit Registrar(ClaimInfo info);
};

}  // namespace ngvi::claims
