#pragma once
// Eq. (15) NGD on Bayesian linear regression written from the formulas (not the library's kernel) as a
// conjugate-ngd implementation (protocols/conjugate_ngd.hpp): the reference implementation of the
// protocol tests (lib/tests/optim/steppers/protocol_ngd_test.cpp; the claim tests'
// proofs_checks/tests/conjugate_ngd_protocol_test.cpp includes it too).
#include <atomic>
#include <memory>
#include <span>

#include "ngvi/protocols/conjugate_ngd.hpp"

namespace ngvi::test {

/// γ_t = 2/(t + 2 + offset) (offset 0: Theorem 1's; 1: the schedule indexed from t = 1); each step call
/// adds one to *calls when given.
inline protocols::ConjugateNgd<double> hand_ngd(long offset = 0, std::shared_ptr<std::atomic<long>> calls = nullptr) {
  protocols::ConjugateNgd<double> impl{"hand-ngd", "test", {}};
  impl.start = [offset, calls](const protocols::BlrProblem<double>& p) {
    protocols::ConjugateNgdTrajectory<double> run;
    run.step = [&p, offset, calls](long t, const GaussianNatural<double>& eta, std::span<const Index> batch) {
      if (calls) ++*calls;
      const double gamma = 2.0 / static_cast<double>(t + 2 + offset);
      const double scale = static_cast<double>(p.X.rows()) / static_cast<double>(batch.size()) / p.noise_var;
      GaussianNatural<double> target = p.prior_natural;
      for (Index i : batch) {
        target.first += scale * p.y(i) * p.X.row(i).transpose();
        target.second -= (scale / 2) * p.X.row(i).transpose() * p.X.row(i);
      }
      return (1 - gamma) * eta + gamma * target;
    };
    return run;
  };
  return impl;
}

}  // namespace ngvi::test
