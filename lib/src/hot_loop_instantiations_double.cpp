// Explicit instantiation definitions of the NGD hot loop's heavy routines for Scalar = double,
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
template GaussianNatural<double> moments_to_natural<double>(const GaussianMoments<double>&);
template GaussianMoments<double> natural_to_moments<double>(const GaussianNatural<double>&);
template GaussianExpectation<double> moments_to_expectation<double>(const GaussianMoments<double>&);
template GaussianMoments<double> expectation_to_moments<double>(const GaussianExpectation<double>&);
template GaussianExpectation<double> natural_to_expectation<double>(const GaussianNatural<double>&);
template GaussianNatural<double> expectation_to_natural<double>(const GaussianExpectation<double>&);
template double kl_gaussian<double>(const GaussianMoments<double>&, const GaussianMoments<double>&);
template double kl_gaussian<double>(const GaussianNatural<double>&, const GaussianNatural<double>&);
template double kl_gaussian<double>(const GaussianExpectation<double>&, const GaussianExpectation<double>&);

template class IterateAverage<double>;
template class MinibatchGradient<double>;
template class MomentWorkspace<double>;
template bool spd_inverse_in_place<double>(Mat<double>&, Mat<double>&, Mat<double>&, parallel::TilePool*);
template void kernels::gaussian_natural_update<double>(GaussianPair<double>&, const GaussianPair<double>&, const GaussianPair<double>&,
                                                   const GaussianPair<double>&, const double&, parallel::TilePool*);
template double step_variance_sample<double>(const LinearRegression<double>&, const GaussianNatural<double>&, const GaussianPair<double>&, const double&);
template double step_variance_exact<double>(MinibatchGradient<double>&, const GaussianNatural<double>&, const double&, long);
template VarianceEstimate step_variance_mc<double>(MinibatchGradient<double>&, const GaussianNatural<double>&, const double&, random::Stream&, long);
template StepVarianceProfile step_variance_along_trajectory<double>(const LinearRegression<double>&, long, const GaussianNatural<double>&,
                                                                const StepSchedule<double>&, const std::vector<long>&, random::Stream,
                                                                random::Stream, const StepVarianceOptions&);

}  // namespace ngvi
