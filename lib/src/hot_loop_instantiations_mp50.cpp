// Explicit instantiation definitions of the NGD hot loop's heavy routines for Scalar = mp50,
// compiled once for every in-tree target. The in-tree targets are compiled with
// NGVI_EXTERN_TEMPLATES, under which the headers declare these instantiations extern, so no other
// translation unit instantiates them (or the passes they dispatch to compile-time orders,
// kernels/static_order.hpp). Consumers of the installed header-only core do not define the macro
// and instantiate the same definitions from the headers. The code is the headers' code, compiled
// with the same flags, so results are the same either way.
#include "ngvi/diagnostics/step_variance.hpp"
#include "ngvi/estimators/minibatch_gradient.hpp"
#include "ngvi/expfam/gaussian_maps.hpp"
#include "ngvi/expfam/kl.hpp"
#include "ngvi/kernels/natural_update.hpp"
#include "ngvi/kernels/spd_inverse.hpp"
#include "ngvi/optim/averaging.hpp"
#include "ngvi/optim/steppers/ngd_gaussian.hpp"

namespace ngvi {

// Parameter maps and the KL divergence (expfam/gaussian_maps.hpp, expfam/kl.hpp), used by most units.
template GaussianNatural<mp50> moments_to_natural<mp50>(const GaussianMoments<mp50>&);
template GaussianMoments<mp50> natural_to_moments<mp50>(const GaussianNatural<mp50>&);
template GaussianExpectation<mp50> moments_to_expectation<mp50>(const GaussianMoments<mp50>&);
template GaussianMoments<mp50> expectation_to_moments<mp50>(const GaussianExpectation<mp50>&);
template GaussianExpectation<mp50> natural_to_expectation<mp50>(const GaussianNatural<mp50>&);
template GaussianNatural<mp50> expectation_to_natural<mp50>(const GaussianExpectation<mp50>&);
template mp50 kl_gaussian<mp50>(const GaussianMoments<mp50>&, const GaussianMoments<mp50>&);
template mp50 kl_gaussian<mp50>(const GaussianNatural<mp50>&, const GaussianNatural<mp50>&);
template mp50 kl_gaussian<mp50>(const GaussianExpectation<mp50>&, const GaussianExpectation<mp50>&);

template class IterateAverage<mp50>;
template class MinibatchGradient<mp50>;
template class MomentWorkspace<mp50>;
template bool spd_inverse_in_place<mp50>(Mat<mp50>&, Mat<mp50>&, Mat<mp50>&, parallel::TilePool*);
template void kernels::gaussian_natural_update<mp50>(GaussianPair<mp50>&, const GaussianPair<mp50>&, const GaussianPair<mp50>&,
                                                   const GaussianPair<mp50>&, const mp50&, parallel::TilePool*);
template mp50 step_variance_sample<mp50>(const LinearRegression<mp50>&, const GaussianNatural<mp50>&, const GaussianPair<mp50>&, const mp50&);
template mp50 step_variance_exact<mp50>(MinibatchGradient<mp50>&, const GaussianNatural<mp50>&, const mp50&, long);
template VarianceEstimate step_variance_mc<mp50>(MinibatchGradient<mp50>&, const GaussianNatural<mp50>&, const mp50&, random::Stream&, long);
template StepVarianceProfile step_variance_along_trajectory<mp50>(const LinearRegression<mp50>&, long, const GaussianNatural<mp50>&,
                                                                const StepSchedule<mp50>&, const std::vector<long>&, random::Stream,
                                                                random::Stream, const StepVarianceOptions&);

}  // namespace ngvi
