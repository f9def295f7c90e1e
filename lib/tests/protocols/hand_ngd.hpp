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
/// adds one to *calls when given. In Scalar (double, or mp50 for the protocol's mp50 form).
template <class Scalar = double>
protocols::ConjugateNgd<Scalar> hand_ngd(long offset = 0, std::shared_ptr<std::atomic<long>> calls = nullptr) {
  protocols::ConjugateNgd<Scalar> impl{"hand-ngd", "test", {}};
  impl.start = [offset, calls](const protocols::BlrProblem<Scalar>& p) {
    protocols::ConjugateNgdTrajectory<Scalar> run;
    run.step = [&p, offset, calls](long t, const GaussianNatural<Scalar>& eta, std::span<const Index> batch) {
      if (calls) ++*calls;
      const Scalar gamma = Scalar(2) / Scalar(t + 2 + offset);
      const Scalar scale = Scalar(p.X.rows()) / Scalar(static_cast<long>(batch.size())) / p.noise_var;
      GaussianNatural<Scalar> target = p.prior_natural;
      for (Index i : batch) {
        target.first += scale * p.y(i) * p.X.row(i).transpose();
        target.second -= (scale / 2) * p.X.row(i).transpose() * p.X.row(i);
      }
      return GaussianNatural<Scalar>((Scalar(1) - gamma) * eta + gamma * target);
    };
    return run;
  };
  return impl;
}

}  // namespace ngvi::test
