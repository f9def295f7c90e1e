// Compile-only check: the core templates are explicitly instantiated with Boost.Math's
// std_real_concept archetype. It has no conversion to double and its functions live in namespace
// std, so a template that silently drops to double (`double x = s;`, `::log(s)`, a `const double`
// temporary fed back into the computation) fails to compile here. The archetype needs
// numeric_limits and an Eigen NumTraits shim, given below.
#include <boost/math/concepts/std_real_concept.hpp>
#include <gtest/gtest.h>

#include <limits>

namespace std {
template <>
class numeric_limits<boost::math::concepts::std_real_concept> : public numeric_limits<long double> {
  using T = boost::math::concepts::std_real_concept;
  using B = numeric_limits<long double>;

 public:
  static T min() noexcept { return T(B::min()); }
  static T max() noexcept { return T(B::max()); }
  static T lowest() noexcept { return T(B::lowest()); }
  static T epsilon() noexcept { return T(B::epsilon()); }
  static T round_error() noexcept { return T(B::round_error()); }
  static T infinity() noexcept { return T(B::infinity()); }
  static T quiet_NaN() noexcept { return T(B::quiet_NaN()); }
  static T signaling_NaN() noexcept { return T(B::signaling_NaN()); }
  static T denorm_min() noexcept { return T(B::denorm_min()); }
};
inline bool isfinite(const boost::math::concepts::std_real_concept& x) { return std::isfinite(x.value()); }
inline bool isnan(const boost::math::concepts::std_real_concept& x) { return std::isnan(x.value()); }
inline bool isinf(const boost::math::concepts::std_real_concept& x) { return std::isinf(x.value()); }
}  // namespace std

#include <Eigen/Core>

namespace Eigen {
template <>
struct NumTraits<boost::math::concepts::std_real_concept> : GenericNumTraits<boost::math::concepts::std_real_concept> {
  using Real = boost::math::concepts::std_real_concept;
  using NonInteger = Real;
  using Nested = Real;
  using Literal = Real;
  enum { IsComplex = 0, IsInteger = 0, IsSigned = 1, RequireInitialization = 1, ReadCost = 1, AddCost = 3, MulCost = 3 };
  static Real epsilon() { return std::numeric_limits<Real>::epsilon(); }
  static Real dummy_precision() { return Real(1e-12); }
  static Real highest() { return std::numeric_limits<Real>::max(); }
  static Real lowest() { return std::numeric_limits<Real>::lowest(); }
  static int digits10() { return std::numeric_limits<long double>::digits10; }
  static Real infinity() { return std::numeric_limits<Real>::infinity(); }
  static Real quiet_NaN() { return std::numeric_limits<Real>::quiet_NaN(); }
};
}  // namespace Eigen

#include "ngvi/expfam.hpp"
#include "ngvi/models/glm_likelihood.hpp"
#include "ngvi/optim/averaging.hpp"
#include "ngvi/optim/natural_update.hpp"
#include "ngvi/optim/schedule.hpp"
#include "ngvi/scalar/budget.hpp"

namespace ngvi {

using Src = boost::math::concepts::std_real_concept;

template Src rounding_budget<Src>(long, const Src&);
template class SpdFactor<Src>;
template GaussianNatural<Src> moments_to_natural<Src>(const GaussianMoments<Src>&);
template GaussianMoments<Src> natural_to_moments<Src>(const GaussianNatural<Src>&);
template GaussianExpectation<Src> moments_to_expectation<Src>(const GaussianMoments<Src>&);
template GaussianMoments<Src> expectation_to_moments<Src>(const GaussianExpectation<Src>&);
template GaussianExpectation<Src> natural_to_expectation<Src>(const GaussianNatural<Src>&);
template GaussianNatural<Src> expectation_to_natural<Src>(const GaussianExpectation<Src>&);
template Src log_partition<Src>(const GaussianNatural<Src>&);
template Src conjugate_log_partition<Src>(const GaussianExpectation<Src>&);
template Src entropy<Src>(const GaussianMoments<Src>&);
template Src kl_gaussian<Src>(const GaussianMoments<Src>&, const GaussianMoments<Src>&);
template Src bregman_log_partition<Src>(const GaussianNatural<Src>&, const GaussianNatural<Src>&);
template Src bregman_conjugate<Src>(const GaussianExpectation<Src>&, const GaussianExpectation<Src>&);
template GaussianPair<Src> fisher_apply<Src>(const GaussianNatural<Src>&, const GaussianPair<Src>&);
template GaussianPair<Src> fisher_inverse_apply<Src>(const GaussianExpectation<Src>&, const GaussianPair<Src>&);
template void natural_update<Src>(GaussianNatural<Src>&, const GaussianNatural<Src>&, const GaussianPair<Src>&, const Src&);
template bool in_natural_domain<Src>(const GaussianNatural<Src>&);
template class StepSchedule<Src>;
template class IterateAverage<Src>;
template LogLikDerivatives<Src> logistic_loglik<Src>(const Dataset<Src>&, const Vec<Src>&, bool);
template LogLikDerivatives<Src> poisson_loglik<Src>(const Dataset<Src>&, const Vec<Src>&, bool);

}  // namespace ngvi

// The instantiations above are the check; this test documents that the translation unit exists and
// runs one archetype computation end to end (the archetype wraps long double, so exact dyadic
// arithmetic gives an exact answer).
TEST(StdRealConceptArchetype, CoreTemplatesInstantiateAndRun) {
  using ngvi::Src;
  ngvi::GaussianMoments<Src> q{ngvi::Vec<Src>::Zero(2), ngvi::Mat<Src>::Identity(2, 2)};
  q.cov(0, 0) = Src(4);
  const auto eta = ngvi::moments_to_natural(q);
  EXPECT_EQ(eta.eta2()(0, 0).value(), -0.125L);
  EXPECT_EQ(ngvi::kl_gaussian(q, q).value(), 0.0L);
}
