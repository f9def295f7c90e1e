// DESCRIPTION
// The registered variants of the algorithm under test (optim/variant.hpp): each replaces one part of
// the library's NGD (the schedule, the estimator's output, the averager) with a plausible
// implementation bug, so that `ngvi verify --variant NAME` shows which claims see it. They are the
// parts-level mutants; their kill matrix is issue work in progress (docs/engine.md).
#include "ngvi/optim/variant.hpp"

namespace ngvi::claims {
namespace {

[[maybe_unused]] const bool kRegistered = [] {
  auto& reg = VariantRegistry::instance();
  reg.add(Variant::make("uniform-averaging", "the average of mu_t with uniform weights 1/T in place of Theorem 1's t-weights", true,
                        []<class Scalar>() {
                          NgdParts<Scalar> p;
                          p.averaging = AverageWeights::kUniform;
                          return p;
                        }));
  reg.add(Variant::make("last-iterate", "the last iterate mu_T in place of Theorem 1's average", true, []<class Scalar>() {
    NgdParts<Scalar> p;
    p.averaging = AverageWeights::kLast;
    return p;
  }));
  reg.add(Variant::make("step-harmonic", "gamma_t = 1/(t+1) in place of the claim's schedule", true, []<class Scalar>() {
    NgdParts<Scalar> p;
    p.schedule = [](long t, const std::function<Scalar(long)>&) { return Scalar(1) / Scalar(t + 1); };
    return p;
  }));
  reg.add(Variant::make("step-constant-after-0", "gamma_t = gamma_1 for every t >= 1 (the schedule stops decreasing after t = 0)", true,
                        []<class Scalar>() {
                          NgdParts<Scalar> p;
                          p.schedule = [](long t, const std::function<Scalar(long)>& lib) { return t == 0 ? lib(0) : lib(1); };
                          return p;
                        }));
  reg.add(Variant::make("step-off-by-one", "gamma_t = gamma_{t+1} (the schedule indexed from t = 1)", true, []<class Scalar>() {
    NgdParts<Scalar> p;
    p.schedule = [](long t, const std::function<Scalar(long)>& lib) { return lib(t + 1); };
    return p;
  }));
  reg.add(Variant::make("g1-bias", "the estimate of the first natural-gradient component multiplied by 1.01", true, []<class Scalar>() {
    NgdParts<Scalar> p;
    p.estimate = [](long, GaussianPair<Scalar>& g) { g.first *= Scalar(101) / 100; };
    return p;
  }));
  reg.add(Variant::make("g2-bias", "the estimate of the second natural-gradient component multiplied by 1.01", true, []<class Scalar>() {
    NgdParts<Scalar> p;
    p.estimate = [](long, GaussianPair<Scalar>& g) { g.second *= Scalar(101) / 100; };
    return p;
  }));
  return true;
}();

}  // namespace
}  // namespace ngvi::claims
