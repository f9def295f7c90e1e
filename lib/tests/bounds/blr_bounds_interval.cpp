// The bound templates run on interval_d (outward rounding, compiled with -frounding-math): every
// interval result must enclose the double evaluation (or lie above it where the interval route
// uses Gershgorin's λ lower bound), so the printed upper end is a true upper bound.
#include "ngvi/bounds/blr_constants.hpp"
#include "ngvi/data/synthetic_regression.hpp"
#include "test_util.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

void expect_upper(double value, const interval_d& enclosure, bool contains) {
  EXPECT_TRUE(value <= enclosure.upper()) << value << " above " << enclosure.upper();
  if (contains) {
    EXPECT_TRUE(enclosure.lower() <= value && value <= enclosure.upper())
        << value << " outside [" << enclosure.lower() << ", " << enclosure.upper() << "]";
  }
}

TEST(BlrBoundsInterval, EncloseDoubleValues) {
  for (int general = 0; general < 2; ++general) {
    const auto dd = data::synthetic_regression(30, 4, 100.0, 0.5, 8);
    data::Rng rng(3);
    const Mat<double> sp = general ? data::random_spd(4, 10.0, rng, 0.5) : Mat<double>::Identity(4, 4);
    const auto cd = blr_constants<double>(dd, sp, 0.3, 5);
    const auto ci = blr_constants<interval_d>(dd, sp, 0.3, 5);
    // With S_p = I, Gershgorin is exact and λ = 1 in both routes, so the enclosures must contain
    // the double values; with a general S_p the interval λ is a lower bound and the bounds rise.
    const bool same_lambda = general == 0;
    expect_upper(cd.b, ci.b, true);
    expect_upper(cd.v1, ci.v1, true);
    expect_upper(cd.v2, ci.v2, true);
    expect_upper(lemma3_sigma2(cd), lemma3_sigma2(ci), same_lambda);
    expect_upper(lemma3_sigma2_max_form(cd), lemma3_sigma2_max_form(ci), same_lambda);
    expect_upper(thm1_kl_bound(lemma3_sigma2(cd), 100), thm1_kl_bound(lemma3_sigma2(ci), 100), same_lambda);
    expect_upper(lemma7_rhs(cd), lemma7_rhs(ci), true);
    expect_upper(lemma8_rhs(cd), lemma8_rhs(ci), true);
    expect_upper(cor2_bound(cd), cor2_bound(ci), same_lambda);
    expect_upper(lemma10_rhs(cd, 0.5, 1.0, 2.0), lemma10_rhs(ci, interval_d(0.5), interval_d(1.0), interval_d(2.0)), same_lambda);
    expect_upper(lemma11_rhs(cd, 0.5, 1.0, 2.0), lemma11_rhs(ci, interval_d(0.5), interval_d(1.0), interval_d(2.0)), same_lambda);
    expect_upper(lemma6_constant(0.3), lemma6_constant(interval_d(0.3)), true);
    EXPECT_TRUE(lemma5_eta2_ceiling(ci).upper() <= 0.0);
    EXPECT_TRUE(ci.lambda.upper() <= cd.lambda);
  }
}

}}  // namespace
}  // namespace ngvi
