#pragma once
// The false-alarm level of a claim record that is deterministic given the seed (docs/systems.md B.9,
// "Levels"): no draw inside a run can change it, but the suite seed chooses its data and every
// sample, so its level is the probability over seeds that it fails although the claim is true. It is
// measured over seeds by scripts/measure-seed-levels.py (the claims quote its output) and stated on
// the record, so that the suite's family-wise false-alarm accounting (report::suite_level) counts it.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "ngvi/claims/check_util.hpp"

namespace ngvi::claims {

/// The smallest level stated for a record measured over seeds: 200 seeds with no failure and a
/// normal fit of the relative margin far below this say nothing finer (the fit's tail is not the
/// margin's), so a fitted level below it is stated as this.
inline constexpr double kSeedLevelFloor = 1e-6;

/// Sets `level` on the claim records of `out` whose instance ends with `suffix` (all when empty) and
/// appends to their note how it was measured. Skipped records and controls are left alone.
inline void set_seed_level(std::vector<ClaimRecord>& out, double level, const std::string& how, const std::string& suffix = {}) {
  for (auto& r : out) {
    if (r.kind != Kind::kClaim || r.verdict == report::Verdict::kSkipped) continue;
    if (!suffix.empty() && (r.instance.size() < suffix.size() || r.instance.compare(r.instance.size() - suffix.size(), suffix.size(), suffix) != 0))
      continue;
    r.level = level;
    char text[32];
    std::snprintf(text, sizeof text, "%.2g", level);
    r.note += std::string("; level ") + text + " over seeds (" + how + ")";
  }
}

/// Appends to the note of every claim record of `out` that carries no level that its level over seeds
/// was not measured, and why.
inline void note_unmeasured_seed_level(std::vector<ClaimRecord>& out, const std::string& why) {
  for (auto& r : out)
    if (r.kind == Kind::kClaim && r.verdict != report::Verdict::kSkipped && std::isnan(r.level))
      r.note += "; level over seeds not measured (" + why + ")";
}

/// Claims whose quick records were measured over seeds and found below kSeedLevelFloor (the Paquet
/// trajectory claims, quick seeds 1–200): the quick records state the floor; --full records say their
/// level was not measured.
inline void set_quick_seed_level(std::vector<ClaimRecord>& out, bool full) {
  if (!full) set_seed_level(out, kSeedLevelFloor, "quick seeds 1-200: 0 failed, normal fit of the margin below it; floor");
  note_unmeasured_seed_level(out, "measured for the quick instances only, scripts/measure-seed-levels.py");
}

}  // namespace ngvi::claims
