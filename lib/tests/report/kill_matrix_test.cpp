// The kill-matrix rules (ngvi/report/kill_matrix.hpp) on hand-built records: which records flip,
// which flips kill, the status of a mutant, and the JSON round trip.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "ngvi/report/kill_matrix.hpp"

namespace ngvi::report {
namespace { namespace NGVI_UNITY_ID {

ClaimRecord rec(const std::string& claim, const std::string& inst, Kind kind, double lhs, double rhs) {
  ClaimRecord r;
  r.claim = claim;
  r.instance = inst;
  r.precision = "double";
  r.kind = kind;
  r.form = Form::kInequality;
  r.lhs = lhs;
  r.rhs = rhs;
  r.margin = rhs - lhs;
  apply_verdict_rule(r);
  return r;
}

TEST(KillMatrix, FlipsAndKills) {
  // Library: a claim that holds (lhs 0.5 <= rhs 1), a control that is broken (lhs 2 > rhs 1).
  const std::vector<ClaimRecord> lib{rec("a", "i", Kind::kClaim, 0.5, 1.0), rec("a", "i", Kind::kControl, 2.0, 1.0),
                                     rec("b", "j", Kind::kClaim, 0.5, 1.0)};
  // Mutant: the claim of "a" broken (kills), the control unchanged, "b" unchanged.
  const std::vector<ClaimRecord> m1{rec("a", "i", Kind::kClaim, 1.5, 1.0), rec("a", "i", Kind::kControl, 2.0, 1.0),
                                    rec("b", "j", Kind::kClaim, 0.6, 1.0)};
  const auto f1 = record_flips(lib, m1);
  ASSERT_EQ(f1.size(), 1u);
  EXPECT_EQ(f1[0].claim, "a");
  EXPECT_EQ(f1[0].kind, Kind::kClaim);
  EXPECT_EQ(f1[0].library, "holds");
  EXPECT_EQ(f1[0].mutant, "broken");
  EXPECT_TRUE(f1[0].kills);

  // A control that holds against the mutant kills too.
  const std::vector<ClaimRecord> m2{rec("a", "i", Kind::kClaim, 0.5, 1.0), rec("a", "i", Kind::kControl, 0.5, 1.0),
                                    rec("b", "j", Kind::kClaim, 0.5, 1.0)};
  const auto f2 = record_flips(lib, m2);
  ASSERT_EQ(f2.size(), 1u);
  EXPECT_TRUE(f2[0].kills);

  // A claim that becomes vacuous flips but does not kill; a record the mutant lacks is reported as
  // missing and does not kill.
  const std::vector<ClaimRecord> m3{rec("a", "i", Kind::kClaim, 1e-9, 1.0), rec("a", "i", Kind::kControl, 2.0, 1.0)};
  const auto f3 = record_flips(lib, m3);
  ASSERT_EQ(f3.size(), 2u);
  EXPECT_EQ(f3[0].mutant, "vacuous");
  EXPECT_FALSE(f3[0].kills);
  EXPECT_EQ(f3[1].mutant, "missing");
  EXPECT_FALSE(f3[1].kills);

  // An error record only the mutant has kills.
  auto m4 = lib;
  ClaimRecord err = rec("c", "(the claim threw)", Kind::kClaim, 0, 0);
  err.verdict = Verdict::kError;
  m4.push_back(err);
  const auto f4 = record_flips(lib, m4);
  ASSERT_EQ(f4.size(), 1u);
  EXPECT_EQ(f4[0].library, "missing");
  EXPECT_TRUE(f4[0].kills);
}

TEST(KillMatrix, StatusAndGaps) {
  MutantOutcome killed{"k", "", "", 3, 0.1, {{"a", "i", "double", Kind::kClaim, "holds", "broken", true}}, "", {}};
  MutantOutcome survived{"s", "", "", 3, 0.1, {{"a", "i", "double", Kind::kClaim, "holds", "vacuous", false}}, "", {}};
  MutantOutcome equivalent{"e", "", "the reason", 3, 0.1, {}, "", {}};
  MutantOutcome false_equivalent{"f", "", "a wrong reason", 3, 0.1, {{"a", "i", "double", Kind::kClaim, "holds", "broken", true}}, "", {}};
  EXPECT_EQ(killed.cell("a"), "1");
  EXPECT_EQ(survived.cell("a"), "~");
  EXPECT_EQ(killed.cell("b"), ".");
  EXPECT_EQ(killed.status(), "killed");
  EXPECT_EQ(survived.status(), "survived");
  EXPECT_EQ(equivalent.status(), "equivalent");
  EXPECT_EQ(false_equivalent.status(), "equivalent-killed");
  KillMatrix m;
  m.mutants = {killed, equivalent};
  EXPECT_TRUE(m.pass());
  m.mutants.push_back(survived);
  EXPECT_FALSE(m.pass());
  EXPECT_EQ(m.gaps(), 1);
  m.mutants.push_back(false_equivalent);
  EXPECT_EQ(m.gaps(), 2);
  m.mutants = {killed};
  m.library.failures = 1;  // the library's own run fails: the matrix means nothing
  EXPECT_FALSE(m.pass());
}

TEST(KillMatrix, JsonRoundTrip) {
  KillMatrix m;
  m.meta.seed = 7;
  m.meta.mode = "quick";
  m.meta.implementation = "c-ngd";  // a program's matrix (--algorithm exec:CMD --mutants) names it
  m.meta.implementation_version = "1.0";
  m.meta.protocol = "conjugate-ngd";
  m.meta.protocol_version = 1;
  m.claims = {"a", "b"};
  m.library.records = 3;
  m.mutants = {MutantOutcome{"k", "what", "", 3, 0.25, {{"a", "i", "double", Kind::kControl, "broken", "holds", true}}, "", {}},
               MutantOutcome{"e", "what", "why", 3, 0.5, {}, "schedule,kl", {"b"}}};
  m.reads = {"schedule", "all"};
  m.not_rerun = {"b"};
  const auto path = (std::filesystem::temp_directory_path() / "ngvi_kill_matrix_test.json").string();
  write_kill_matrix_json(path, m);
  const KillMatrix back = read_kill_matrix_json(path);
  std::remove(path.c_str());
  EXPECT_EQ(back.meta.seed, 7u);
  EXPECT_EQ(back.meta.implementation, "c-ngd");
  EXPECT_EQ(back.meta.implementation_version, "1.0");
  EXPECT_EQ(back.meta.protocol, "conjugate-ngd");
  EXPECT_EQ(back.meta.protocol_version, 1);
  EXPECT_EQ(back.claims, m.claims);
  EXPECT_EQ(back.library.records, 3);
  ASSERT_EQ(back.mutants.size(), 2u);
  EXPECT_EQ(back.mutants[0].status(), "killed");
  EXPECT_EQ(back.mutants[0].flips[0].kind, Kind::kControl);
  EXPECT_EQ(back.mutants[1].status(), "equivalent");
  EXPECT_EQ(back.mutants[1].equivalent, "why");
  EXPECT_EQ(back.mutants[1].replaces, "schedule,kl");
  EXPECT_EQ(back.mutants[1].not_rerun, std::vector<std::string>{"b"});
  EXPECT_EQ(back.reads, m.reads);
  EXPECT_EQ(back.not_rerun, m.not_rerun);
  EXPECT_THROW(read_kill_matrix_json(path), std::runtime_error);  // gone: names the path
}

// A count holding a float beyond long's range is an error naming the field (the claims.json fuzz
// target's finding: nlohmann's conversion is a plain cast there, undefined behaviour).
TEST(KillMatrix, CountsOutOfRangeAreErrorsNamingTheField) {
  const auto path = (std::filesystem::temp_directory_path() / "ngvi_kill_matrix_ints.json").string();
  std::ofstream(path) << R"({"library": {"claims": 50, "controls": 1111111111111111111128}, "mutants": []})";
  try {
    (void)read_kill_matrix_json(path);
    ADD_FAILURE() << "no throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("field 'controls'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
}

// The matrices of a selection's shards join into the matrix of the whole: claims and reads in the
// selection's order, counts summed, each mutant's flips in one run's order (the library's records by
// claim, then the mutant's own), whatever order the parts come in.
TEST(KillMatrix, ShardsJoinIntoTheWholeMatrix) {
  auto flip = [](const std::string& claim, const std::string& library, bool kills) {
    return RecordFlip{claim, "i", "double", Kind::kClaim, library, "broken", kills};
  };
  KillMatrix a, b;
  a.claims = {"c1", "c3"};
  a.reads = {"schedule", "kl"};
  a.library.records = 4;
  a.library.claims_hold = 3;
  a.not_rerun = {"c3"};
  a.mutants = {MutantOutcome{"m", "d", "", 4, 1.0, {flip("c1", "holds", true), flip("c1", "missing", true)}, "schedule", {"c3"}}};
  b.claims = {"c2"};
  b.reads = {"schedule"};
  b.library.records = 2;
  b.library.claims_hold = 2;
  b.mutants = {MutantOutcome{"m", "d", "", 2, 0.5, {flip("c2", "holds", false), flip("c2", "missing", true)}, "schedule", {}}};
  for (const auto& parts : {std::vector<KillMatrix>{a, b}, std::vector<KillMatrix>{b, a}}) {
    const KillMatrix w = join_kill_matrices(parts, {"c1", "c2", "c3"});
    EXPECT_EQ(w.claims, (std::vector<std::string>{"c1", "c2", "c3"}));
    EXPECT_EQ(w.reads, (std::vector<std::string>{"schedule", "schedule", "kl"}));
    EXPECT_EQ(w.not_rerun, std::vector<std::string>{"c3"});
    EXPECT_EQ(w.library.records, 6);
    EXPECT_EQ(w.library.claims_hold, 5);
    ASSERT_EQ(w.mutants.size(), 1u);
    EXPECT_EQ(w.mutants[0].records, 6);
    EXPECT_DOUBLE_EQ(w.mutants[0].seconds, 1.5);
    std::vector<std::string> order;
    for (const auto& f : w.mutants[0].flips) order.push_back(f.claim + "/" + f.library);
    EXPECT_EQ(order, (std::vector<std::string>{"c1/holds", "c2/holds", "c1/missing", "c2/missing"}));
    EXPECT_EQ(w.mutants[0].kills(), 3);
  }
  KillMatrix other = b;
  other.mutants[0].name = "n";
  EXPECT_THROW(join_kill_matrices({a, other}, {"c1", "c2", "c3"}), std::invalid_argument);  // other mutants
  EXPECT_THROW(join_kill_matrices({a}, {"c1", "c2", "c3"}), std::invalid_argument);         // c2 in no part
  EXPECT_THROW(join_kill_matrices({a, a, b}, {"c1", "c2", "c3"}), std::invalid_argument);   // c1 twice
}

}}  // namespace
}  // namespace ngvi::report
