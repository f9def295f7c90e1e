// The user-variant example of README.md ("Putting your own algorithm to a claim"), compiled and run
// as a test so the documentation cannot rot. Keep the block between the markers identical to the
// one in README.md (UserVariantExample.MatchesDocs checks it).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

// --- variant example begin ---
#include <cmath>
#include <ngvi/optim/variant.hpp>

#include <ngvi/claims/registry.hpp>  // the claim registry (ngvi::claims)

// A user's own step-size schedule, gamma_t = 1/(1 + t/2): Theorem 1's 2/(t+2) written another way.
template <class Scalar>
Scalar my_schedule(long t, const std::function<Scalar(long)>& /*library*/) {
  return Scalar(1) / (Scalar(1) + Scalar(t) / 2);
}

// A user's own estimator change: the library's mini-batch gradient, its first part shrunk by 1/2.
template <class Scalar>
void my_estimate(long /*t*/, ngvi::GaussianPair<Scalar>& ghat) {
  ghat.first /= 2;
}

std::vector<ngvi::report::ClaimRecord> thm1_with(const std::string& name, bool own_estimator) {
  auto& variants = ngvi::VariantRegistry::instance();
  const ngvi::Variant* v = variants.find(name);
  if (v == nullptr) {
    v = &variants.add(ngvi::Variant::make(name, "my schedule" + std::string(own_estimator ? " and estimator" : ""), false,
                                          [&]<class Scalar>() {
                                            ngvi::NgdParts<Scalar> parts;
                                            parts.schedule = my_schedule<Scalar>;
                                            if (own_estimator) parts.estimate = my_estimate<Scalar>;
                                            return parts;
                                          }));
  }
  ngvi::claims::RunContext ctx;  // quick instances, the default seed
  ctx.set_variant(v);             // the algorithm under test: the library's, with these parts swapped
  return ngvi::claims::Registry::instance().find("thm1.rate")->run(ctx);
}
// --- variant example end ---

namespace { namespace NGVI_UNITY_ID {

using ngvi::report::Kind;
using ngvi::report::Verdict;

// The schedule is the theorem's (γ_t = 2/(t+2) to rounding): every thm1.rate claim record holds.
TEST(UserVariantExample, TheoremScheduleWrittenAnotherWayHolds) {
  const auto recs = thm1_with("example: my schedule", false);
  ASSERT_FALSE(recs.empty());
  for (const auto& r : recs) {  // holds (or holds vacuously: inside a bound far above it), never broken
    if (r.kind == Kind::kClaim) {
      EXPECT_TRUE(r.verdict == Verdict::kHolds || r.verdict == Verdict::kVacuous) << r.instance << ": " << r.note;
    }
  }
}

// The estimator change biases ĝ₁ by a factor 1/2: the iterates converge to the wrong mean, and some
// thm1.rate claim record must break (the claim sees the user's estimator, not the library's).
TEST(UserVariantExample, ABiasedEstimatorBreaksTheClaim) {
  const auto recs = thm1_with("example: my schedule and estimator", true);
  int broken = 0;
  for (const auto& r : recs)
    if (r.kind == Kind::kClaim && r.verdict == Verdict::kBroken) ++broken;
  EXPECT_GT(broken, 0);
}

// The text between "// --- NAME begin ---" and "// --- NAME end ---" in the file at `path` ("" if absent).
std::string marked_block(const std::string& path, const std::string& name) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string s = ss.str();
  const auto b = s.find("// --- " + name + " begin ---"), e = s.find("// --- " + name + " end ---");
  return b == std::string::npos || e == std::string::npos ? std::string() : s.substr(b, e - b);
}

TEST(UserVariantExample, MatchesDocs) {
  const std::string root = std::string(NGVI_SOURCE_DIR) + "/";
  const std::string code = marked_block(root + "proofs_checks/tests/user_variant_example.cpp", "variant example");
  const std::string docs = marked_block(root + "README.md", "variant example");
  ASSERT_FALSE(code.empty());
  EXPECT_EQ(code, docs) << "README.md's example block differs from proofs_checks/tests/user_variant_example.cpp";
}

// README's protocol example is the out-of-tree consumer that InstallExport.ClaimsConsumerProtocol
// builds against the installed kit and runs.
TEST(UserVariantExample, ProtocolExampleMatchesDocs) {
  const std::string root = std::string(NGVI_SOURCE_DIR) + "/";
  const std::string code = marked_block(root + "lib/tests/install/consumer_claims/main.cpp", "protocol example");
  const std::string docs = marked_block(root + "README.md", "protocol example");
  ASSERT_FALSE(code.empty());
  EXPECT_EQ(code, docs) << "README.md's protocol example differs from lib/tests/install/consumer_claims/main.cpp";
}

}}  // namespace
