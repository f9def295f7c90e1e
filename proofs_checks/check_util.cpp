// Out-of-line helpers of check_util.hpp whose instantiations (Eigen's eigensolver) would otherwise be
// compiled again by every claim's translation unit.
#include "check_util.hpp"

#include <Eigen/Eigenvalues>

namespace ngvi::claims {

double spd_condition(const Mat<double>& a) {
  Eigen::SelfAdjointEigenSolver<Mat<double>> es(a, Eigen::EigenvaluesOnly);
  return es.eigenvalues().maxCoeff() / es.eigenvalues().minCoeff();
}

}  // namespace ngvi::claims
