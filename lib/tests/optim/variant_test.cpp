// Variants' read notes (optim/variant.hpp): each helper notes exactly the parts it reads, and a
// variant's replaced() names exactly the parts it sets. `ngvi verify --mutants` runs a claim again only
// against the mutants that replace a part the claim read, so a helper that read a part without noting
// it would hide that part's mutants from the claim.
#include "ngvi/optim/variant.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "ngvi/optim/schedule.hpp"

namespace ngvi {
namespace {

// An empty variant (the library's algorithm) noting its reads, as the kill matrix's library run uses.
struct Probe {
  std::atomic<std::uint32_t> reads{0};
  Variant v;
  Probe() { v.reads = &reads; }
  std::uint32_t take() { return reads.exchange(0); }
};

TEST(VariantReads, EachHelperNotesExactlyItsParts) {
  Probe p;
  const auto lib = StepSchedule<double>::theorem1();
  const auto s = schedule_for<double>(&p.v, lib);
  EXPECT_EQ(p.take(), kPartSchedule);
  EXPECT_EQ(s.at(3), lib.at(3));  // empty: the library's schedule
  EXPECT_EQ(sampling_for<double>(&p.v), Sampling::kWithReplacement);
  EXPECT_EQ(p.take(), kPartSampling);
  EXPECT_EQ(gradient_for<double>(&p.v, PriceRoute::name), PriceRoute::name);
  EXPECT_EQ(p.take(), kPartGradient);
  EXPECT_TRUE(lsk_posdef_for<double>(&p.v, true));
  EXPECT_EQ(p.take(), kPartLskPosdef);
  EXPECT_EQ(averaging_for<double>(&p.v), AverageWeights::kLinear);
  EXPECT_EQ(p.take(), kPartAveraging);
  EXPECT_EQ(estimator_parts<double>(&p.v), nullptr);
  EXPECT_EQ(p.take(), kPartEstimate | kPartEstimateAt);
  EXPECT_FALSE(changes_estimator<double>(&p.v));
  EXPECT_EQ(p.take(), kPartEstimate | kPartEstimateAt | kPartSampling);
  EXPECT_FALSE(replaces<double>(&p.v, kPartSchedule | kPartKl));
  EXPECT_EQ(p.take(), kPartSchedule | kPartKl);
  EXPECT_EQ(system_parts_for<int>(&p.v, kPartSystemSvi), nullptr);
  EXPECT_EQ(p.take(), kPartSystemSvi);
  EXPECT_EQ(conjugate_ngd_for<double>(&p.v), nullptr);
  EXPECT_EQ(p.take(), kPartConjugateNgd);
  EXPECT_EQ(parts_of<double>(&p.v), nullptr);
  EXPECT_EQ(p.take(), kPartsAll);
  EXPECT_EQ(parts_read<double>(&p.v, kPartGradient | kPartKl), nullptr);
  EXPECT_EQ(p.take(), kPartGradient | kPartKl);

  const auto maps = maps_for<double>(&p.v);
  EXPECT_EQ(p.take(), 0u);  // the maps note each map when it is evaluated
  GaussianMoments<double> q{Vec<double>::Zero(2), Mat<double>::Identity(2, 2)};
  const auto eta = maps.moments_to_natural(q);
  EXPECT_EQ(p.take(), kPartToNatural);
  (void)maps.natural_to_moments(eta);
  EXPECT_EQ(p.take(), kPartToMoments);
  EXPECT_EQ(maps.kl(q, q), 0.0);
  EXPECT_EQ(p.take(), kPartKl);
}

TEST(VariantReads, NothingIsNotedWithoutAProbe) {
  const auto lib = StepSchedule<double>::theorem1();
  EXPECT_EQ(schedule_for<double>(nullptr, lib).at(2), lib.at(2));
  Variant plain;  // reads null: helpers run, note nowhere
  EXPECT_EQ(sampling_for<double>(&plain), Sampling::kWithReplacement);
  EXPECT_EQ(system_parts_for<int>(nullptr, kPartSystemVpng), nullptr);
}

TEST(VariantReads, ReplacedNamesExactlyTheSetParts) {
  const Variant sched = Variant::make("t-sched", "", true, []<class Scalar>() {
    NgdParts<Scalar> parts;
    parts.schedule = [](long t, const std::function<Scalar(long)>& lib) { return lib(t + 1); };
    return parts;
  });
  EXPECT_EQ(sched.replaced(), kPartSchedule);
  EXPECT_TRUE(replaces<double>(&sched, kPartSchedule));
  EXPECT_FALSE(replaces<double>(&sched, kPartEstimate));
  Variant mixed;
  mixed.d.sampling = Sampling::kWithoutReplacement;  // double only: still replaced
  mixed.mp.lsk_drop_posdef_term = true;
  EXPECT_EQ(mixed.replaced(), kPartSampling | kPartLskPosdef);
  // A related system's parts: filed under its bit, found by their type under that bit only.
  Variant sys;
  sys.name = "svi.some_parts";
  sys.set_system_parts(kPartSystemSvi, 7);
  EXPECT_EQ(sys.replaced(), kPartSystemSvi);
  ASSERT_NE(system_parts_for<int>(&sys, kPartSystemSvi), nullptr);
  EXPECT_EQ(*system_parts_for<int>(&sys, kPartSystemSvi), 7);
  EXPECT_EQ(system_parts_for<long>(&sys, kPartSystemSvi), nullptr);
  EXPECT_EQ(system_parts_for<int>(&sys, kPartSystemPaquet), nullptr);
  // An implementation given as a value replaces the whole conjugate-NGD algorithm.
  protocols::ConjugateNgd<double> impl{"impl", "1", {}};
  const Variant whole = Variant::conjugate_ngd(impl);
  EXPECT_EQ(whole.replaced(), kPartConjugateNgd);
  EXPECT_EQ(whole.protocol, protocols::kConjugateNgd);
  EXPECT_NE(conjugate_ngd_for<double>(&whole), nullptr);
  EXPECT_EQ(conjugate_ngd_for<mp50>(&whole), nullptr);
  // With its mp50 form, the mp50 claims run that one.
  protocols::ConjugateNgd<mp50> impl_mp{"impl", "1", {}};
  const Variant both = Variant::conjugate_ngd(impl, impl_mp);
  EXPECT_EQ(both.replaced(), kPartConjugateNgd);
  EXPECT_NE(conjugate_ngd_for<double>(&both), nullptr);
  ASSERT_NE(conjugate_ngd_for<mp50>(&both), nullptr);
  EXPECT_EQ(conjugate_ngd_for<mp50>(&both)->name, "impl");
  EXPECT_EQ(variant_part_names(kPartSchedule | kPartKl | kPartSystemPaquet), "schedule,kl,paquet");
  EXPECT_EQ(variant_part_names(0), "");
  EXPECT_EQ(variant_part_names(kPartsAll), "all");
}

}  // namespace
}  // namespace ngvi
