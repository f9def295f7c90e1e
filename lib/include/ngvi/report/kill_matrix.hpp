#pragma once
/// @file
/// The mutation-kill matrix: the claim suite run against the library's algorithm and against each
/// registered mutant (optim/variant.hpp), record by record (docs/engine.md, "Mutants").
///
/// A record *flips* when its verdict against the mutant differs from its verdict against the
/// library's algorithm (same claim, instance, precision and kind, same seed). A flip *kills* when it
/// turns the record into a failure of the suite (a claim record broken or in error, a control that
/// holds). A mutant is killed when at least one record is killed: the suite, run against it, fails.
/// A mutant marked equivalent (a one-line mathematical reason why no claim's conclusion can change)
/// is expected to survive; every other survivor is a gap in the suite's evidence.
#include <string>
#include <vector>

#include "ngvi/report/record.hpp"

namespace ngvi::report {

/// One record whose verdict differs between the library's run and a mutant's run.
struct RecordFlip {
  std::string claim;
  std::string instance;
  std::string precision;
  Kind kind = Kind::kClaim;
  std::string library;  ///< the library run's verdict ("missing" when the record is absent there)
  std::string mutant;   ///< the mutant run's verdict ("missing" when absent there)
  bool kills = false;   ///< the mutant's verdict is a failure of the suite and the library's was not
};

/// A mutant's column of the matrix.
struct MutantOutcome {
  std::string name;
  std::string description;
  std::string equivalent;  ///< the reason it is equivalent ("" when it is not)
  long records = 0;        ///< records of the mutant's run
  double seconds = 0;      ///< the sum of the wall times of the mutant's claim runs
  std::vector<RecordFlip> flips;
  std::string replaces;    ///< the parts it replaces (optim/variant.hpp, variant_part_names)
  /// The claims not run against it (they read none of the parts it replaces in the library's run):
  /// their records against it are the library's.
  std::vector<std::string> not_rerun;

  long kills() const {
    long k = 0;
    for (const auto& f : flips) k += f.kills;
    return k;
  }
  bool killed() const { return kills() > 0; }
  /// The matrix cell of `claim`: the number of its killing records, "~" if it has flips but none
  /// kills, "." if none of its records flipped.
  std::string cell(const std::string& claim) const;
  /// "killed", "survived", "equivalent" (survived, as its reason says) or "equivalent-killed" (marked
  /// equivalent yet killed: the reason is wrong, or the suite raises a false alarm).
  std::string status() const;
  /// Counts a failure of the suite: a survivor that is not equivalent, or an equivalent one killed.
  bool gap() const { return status() == "survived" || status() == "equivalent-killed"; }
};

/// The whole matrix.
struct KillMatrix {
  RunMeta meta;                  ///< of the library's run (meta.variant = "")
  SuiteCounts library;           ///< the library's run: it must pass for the matrix to mean anything
  std::vector<std::string> claims;  ///< the claim ids run, in order
  /// The parts of the algorithm under test each claim read in the library's run (parallel to
  /// `claims`; optim/variant.hpp, variant_part_names; "" for none).
  std::vector<std::string> reads;
  /// The claims that read no part any of the mutants replaces: not run again against any of them,
  /// their records there are the library's (no flips possible).
  std::vector<std::string> not_rerun;
  std::vector<MutantOutcome> mutants;

  long killed() const;
  long equivalent() const;
  long gaps() const;
  /// The matrix is evidence: the library's run passes and no mutant is a gap.
  bool pass() const { return library.failures == 0 && gaps() == 0; }
};

/// The records of `mutant` whose verdict differs from `library` (matched by claim, instance,
/// precision and kind), in the library's order, then the records only the mutant has.
std::vector<RecordFlip> record_flips(const std::vector<ClaimRecord>& library, const std::vector<ClaimRecord>& mutant);

/// Writes the matrix as {"meta", "library", "claims", "reads", "not_rerun", "mutants": [{name, description,
/// equivalent, replaces, status, records, seconds, not_rerun, flips: [...]}]}.
/// @throws std::runtime_error naming the path if it cannot be written.
void write_kill_matrix_json(const std::string& path, const KillMatrix& m);

/// The matrix of the claims `claims` (in that order) from the matrices of its shards (`ngvi verify
/// --mutants ... --shard I/N`: each over a disjoint part of `claims`, against the same mutants in the
/// same order): what one run over all of `claims` gives, field for field but the wall times (a claim's
/// records, library's and mutants', depend on its own seed, mode and precisions only). The library's
/// counts and each mutant's records and seconds are summed; claims, reads and not_rerun follow
/// `claims`; each mutant's flips are in the one run's order (those of records the library's run has,
/// by claim, then those only the mutant's run has, by claim). meta is the first part's without its
/// shard (the caller sets the rest).
/// @throws std::invalid_argument when the parts' mutants differ or their claims are not a partition of `claims`.
KillMatrix join_kill_matrices(const std::vector<KillMatrix>& parts, const std::vector<std::string>& claims);

/// Reads a file written by write_kill_matrix_json.
/// @throws std::runtime_error naming the path and the problem on a missing file or malformed JSON.
KillMatrix read_kill_matrix_json(const std::string& path);

}  // namespace ngvi::report
