// Uses the installed headers: KL between two Gaussians, checked against the d = 1 closed form.
#include <cmath>
#include <cstdio>

#include "ngvi/expfam.hpp"

int main() {
  ngvi::GaussianMoments<double> q{ngvi::Vec<double>::Constant(1, 1.0), ngvi::Mat<double>::Constant(1, 1, 2.0)};
  ngvi::GaussianMoments<double> p{ngvi::Vec<double>::Constant(1, 0.0), ngvi::Mat<double>::Constant(1, 1, 1.0)};
  const double kl = ngvi::kl_gaussian(q, p);
  const double ref = 0.5 * (2.0 + 1.0 - 1.0 - std::log(2.0));
  std::printf("KL = %.17g (closed form %.17g)\n", kl, ref);
  return std::abs(kl - ref) <= 8 * 2.220446049250313e-16 * ref ? 0 : 1;
}
