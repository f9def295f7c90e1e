// DESCRIPTION
// The registered variants of the algorithm under test (optim/variant.hpp): each replaces one part of
// the library's NGD (the schedule, the estimator's output, the averager, the parameter maps) with a plausible
// implementation bug, so that `ngvi verify --mutant NAME` shows which claims see it and
// `ngvi verify --mutants all` prints the kill matrix (docs/engine.md, "Mutants"). The map mutants
// replace the parameter maps and the KL where the identity claims check them (GaussianMaps).
#include "ngvi/linalg/spd.hpp"
#include "ngvi/optim/steppers/protocol_lsk_update.hpp"
#include "ngvi/optim/variant.hpp"

namespace ngvi::claims {
namespace { namespace NGVI_UNITY_ID {

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
  reg.add(Variant::make("estimate-scale", "the whole estimate's n/M scale 1% off (both components: a tempered likelihood)", true,
                        []<class Scalar>() {
                          NgdParts<Scalar> p;
                          p.estimate = [](long, GaussianPair<Scalar>& g) { g *= Scalar(101) / 100; };
                          return p;
                        }));
  reg.add(Variant::make("prior-twice",
                        "the update's prior term counted twice, (1 - gamma) lambda + gamma (2 eta_p + g) (an estimate that already "
                        "carries the prior's gradient, plus the update's own prior term)",
                        true, []<class Scalar>() {
                          NgdParts<Scalar> p;
                          p.prior = [](const GaussianNatural<Scalar>& prior) {
                            GaussianNatural<Scalar> twice = prior;
                            twice *= Scalar(2);
                            return twice;
                          };
                          return p;
                        }));
  reg.add(Variant::make("without-replacement", "mini-batches of M distinct indices (variance factor (n-M)/(n-1)) where eq. (15) draws with replacement",
                        true, []<class Scalar>() {
                          NgdParts<Scalar> p;
                          p.sampling = Sampling::kWithoutReplacement;
                          return p;
                        }));
  reg.add(Variant::make("price-without-hm", "the Price gradient without its -Hbar m term (g1 = E grad l in place of E grad l - E hess l m)",
                        true, []<class Scalar>() {
                          NgdParts<Scalar> p;
                          // ĝ₂ = H̄/2, so adding 2ĝ₂m to ĝ₁ removes the −H̄m term.
                          p.estimate_at = [](long, const Vec<Scalar>& m, GaussianPair<Scalar>& g) {
                            g.first.noalias() += Scalar(2) * (g.second * m);
                          };
                          return p;
                        }));
  reg.add(Variant::make("reparam-for-price", "the reparameterisation gradient where the claim's NGD uses the Price gradient", true,
                        []<class Scalar>() {
                          NgdParts<Scalar> p;
                          p.gradient = std::string(ReparamRoute::name);
                          return p;
                        }));
  reg.add(Variant::make("lsk-no-posdef-term", "LSK's precision update without its positive-definiteness term (eta^2/2) G S^-1 G", true,
                        []<class Scalar>() {
                          NgdParts<Scalar> p;
                          p.lsk_drop_posdef_term = true;
                          return p;
                        }));
  reg.add(Variant::make("eta2-factor", "eta2 = -S^-1 in place of -S^-1/2 in the moments-to-natural map", true, []<class Scalar>() {
    NgdParts<Scalar> p;
    p.to_natural = [](const GaussianMoments<Scalar>& q) {
      auto eta = moments_to_natural(q);
      eta.eta2() *= Scalar(2);
      return eta;
    };
    return p;
  }));
  reg.add(Variant::make("mean-map-factor", "m = -eta2^-1 eta1 (= 2 S eta1) in place of S eta1 in the natural-to-moments map", true,
                        []<class Scalar>() {
                          NgdParts<Scalar> p;
                          p.to_moments = [](const GaussianNatural<Scalar>& eta) {
                            auto q = natural_to_moments(eta);
                            q.mean *= Scalar(2);
                            return q;
                          };
                          return p;
                        }));
  reg.add(Variant::make("mu2-without-mean", "mu2 = S in place of S + m m^T in the natural-to-expectation map", true, []<class Scalar>() {
    NgdParts<Scalar> p;
    p.to_expectation = [](const GaussianNatural<Scalar>& eta) {
      const auto q = natural_to_moments(eta);
      return GaussianExpectation<Scalar>(q.mean, q.cov);
    };
    return p;
  }));
  reg.add(Variant::make("kl-no-logdet", "the Gaussian KL without its log-determinant term (log det S_p - log det S_q)/2", true,
                        []<class Scalar>() {
                          NgdParts<Scalar> p;
                          p.kl = [](const GaussianMoments<Scalar>& q, const GaussianMoments<Scalar>& r) {
                            return Scalar(kl_gaussian(q, r) - (log_det_spd(r.cov) - log_det_spd(q.cov)) / 2);
                          };
                          return p;
                        }));
  // LSK's mean step with the old precision: implementations in the field differ on whether
  // m' = m + η S'⁻¹ ḡ uses the updated precision S' (the library's, Lin et al. 2020) or the old one S.
  // Given as a whole lsk-update implementation (the library's precision update, this mean step), so
  // the claims of that protocol run it.
  {
    auto old_mean = []<class Scalar>() {
      protocols::LskUpdateOf<Scalar> impl = kit_lsk_update<Scalar>();
      impl.name = "lsk-mean-old-precision";
      impl.start = [](const protocols::LskProblemOf<Scalar>& p) {
        protocols::LskUpdateTrajectoryOf<Scalar> traj;
        // The library's step, then the mean step redone with S where the library has S'.
        traj.step = [p, kit = kit_lsk_update<Scalar>().start(p)](long t, const Vec<Scalar>& m, const Mat<Scalar>& s, const Vec<Scalar>& gbar,
                                                                  const Mat<Scalar>& hbar) {
          protocols::LskStepResultOf<Scalar> r = kit.step(t, m, s, gbar, hbar);
          r.mean = m + p.eta * Eigen::LDLT<Mat<Scalar>>(s).solve(gbar);
          return r;
        };
        return traj;
      };
      return impl;
    };
    Variant v = lsk_update_variant(old_mean.template operator()<double>(), old_mean.template operator()<mp50>(),
                                   "LSK's mean step m' = m + eta S^-1 gbar with the old precision S in place of the new S'");
    v.mutant = true;
    reg.add(std::move(v));
  }
  // An equivalent mutant: the same update in another, algebraically identical form. Its records must
  // keep every verdict (the kill matrix shows it "equivalent"; a flip would be a claim that depends on
  // the last bits of a symmetric matrix's off-diagonal, i.e. a false alarm).
  {
    Variant v = Variant::make("g2-symmetric-part", "the estimate's second component replaced by its symmetric part (G + G^T)/2", true,
                              []<class Scalar>() {
                                NgdParts<Scalar> p;
                                p.estimate = [](long, GaussianPair<Scalar>& g) {
                                  const Mat<Scalar> sym = (g.second + g.second.transpose()) / Scalar(2);
                                  g.second = sym;
                                };
                                return p;
                              });
    v.equivalent = "the second component of every estimate is symmetric in exact arithmetic (sums of the prior's -S_p^-1/2 and of "
                   "symmetric per-datum terms, -x x^T/(2 s_e^2) or -H/2), so its symmetric part is itself: the same update up to rounding";
    reg.add(std::move(v));
  }
  return true;
}();

}}  // namespace
}  // namespace ngvi::claims
