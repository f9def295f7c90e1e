#pragma once
// What the protocol tests share: one claim's records against a variant or an implementation given as a
// value (null: the library's algorithm), in the given precisions, on the quick instances and the
// default seed (claims::run_claim, as ngvi verify runs it).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ngvi/claims/registry.hpp"

namespace ngvi::claims::test {

inline std::vector<ClaimRecord> run_one(const std::string& id, const Variant* v, std::vector<std::string> precisions = {"double"}) {
  const ClaimInfo* c = Registry::instance().find(id);
  EXPECT_NE(c, nullptr) << id;
  if (c == nullptr) return {};
  RunContext ctx;
  ctx.precisions = std::move(precisions);
  ctx.set_variant(v);
  return run_claim(*c, ctx);
}

}  // namespace ngvi::claims::test
