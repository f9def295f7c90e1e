// Out-of-line helpers of check_util.hpp and expfam_common.hpp whose instantiations (Eigen's
// eigensolver) would otherwise be compiled again by every claim's translation unit.
#include "ngvi/claims/check_util.hpp"
#include "ngvi/claims/expfam_common.hpp"

#include <Eigen/Eigenvalues>

namespace ngvi::claims {

double spd_condition(const Mat<double>& a) {
  Eigen::SelfAdjointEigenSolver<Mat<double>> es(a, Eigen::EigenvaluesOnly);
  return es.eigenvalues().maxCoeff() / es.eigenvalues().minCoeff();
}

double map_condition(const GaussianMoments<double>& q) {
  Eigen::SelfAdjointEigenSolver<Mat<double>> es(q.cov, Eigen::EigenvaluesOnly);
  const double lo = es.eigenvalues().minCoeff();
  const double hi = es.eigenvalues().maxCoeff();
  return (hi / lo) * (1.0 + q.mean.squaredNorm() / lo);
}

}  // namespace ngvi::claims
