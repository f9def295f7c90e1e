#pragma once
/// @file
/// An lsk-update implementation given as a value (protocols/lsk_update.hpp) as the claims run it, and
/// the kit's own implementation of the protocol (the in-tree reference):
///
///   lsk_update_variant  the Variant that carries an implementation, so that the claims that accept
///                       the protocol run it and the others write "not applicable". It is filed under
///                       kPartLskPosdef, the bit of LSK's precision update (the part it replaces whole),
///                       as a system's parts;
///   lsk_update_for      the implementation a variant carries, or null (a claim's read of the part);
///   LskUpdateRunner     one trajectory: start() once, then step(t, m, S, ḡ, H̄), each result checked
///                       (m' of length d, S' d × d, finite entries) and S' returned as its symmetric part.
///                       Whatever the implementation throws and whatever it returns that the protocol
///                       does not allow is an ImplementationError naming the protocol call, the step and
///                       the implementation (as protocol_ngd.hpp): it leaves the claim, which
///                       claims::run_claim writes as its one error record;
///   kit_lsk_update      the library's update behind the protocol: lsk_precision_update (the
///                       Cholesky form ½S + ½WᵀW) and m' = m + ηS'⁻¹ḡ by an LDLᵀ solve (S' may be
///                       indefinite without ensure_posdef).
#include <memory>
#include <string>
#include <utility>

#include <Eigen/Cholesky>

#include "ngvi/linalg/spd.hpp"
#include "ngvi/linalg/validate.hpp"
#include "ngvi/optim/lsk_ngvi.hpp"
#include "ngvi/optim/steppers/protocol_common.hpp"
#include "ngvi/optim/variant.hpp"
#include "ngvi/protocols/lsk_update.hpp"

namespace ngvi {

/// A variant that is a whole lsk-update implementation (double; the claims of that protocol run in double).
inline Variant lsk_update_variant(protocols::LskUpdate impl, std::string description = {}) {
  return protocol_variant(std::move(impl), kPartLskPosdef, protocols::kLskUpdate, protocols::kLskUpdateVersion, "an LSK-update implementation", std::move(description));
}

/// The lsk-update implementation `v` hands the claims in place of the library's update, or null; notes
/// a read of kPartLskPosdef.
inline const protocols::LskUpdate* lsk_update_for(const Variant* v) { return protocol_implementation<protocols::LskUpdate>(v, kPartLskPosdef); }

/// One trajectory of an lsk-update implementation (see the file comment).
class LskUpdateRunner {
 public:
  /// @throws ImplementationError naming the call 'start' if the implementation throws or returns no
  ///         step function.
  LskUpdateRunner(const protocols::LskUpdate& impl, protocols::LskProblem problem)
      : name_(impl.name),
        problem_(problem),
        traj_(start_trajectory(protocols::kLskUpdate, impl, problem_, &protocols::LskUpdateTrajectory::step, "step")) {}
  LskUpdateRunner(const LskUpdateRunner&) = delete;
  LskUpdateRunner& operator=(const LskUpdateRunner&) = delete;

  const protocols::LskProblem& problem() const { return problem_; }

  /// The implementation's step t at q = N(m, S⁻¹) with ḡ, H̄, checked; S' as its symmetric part.
  protocols::LskStepResult step(long t, const Vec<double>& mean, const Mat<double>& precision, const Vec<double>& gbar,
                                const Mat<double>& hbar) {
    protocols::LskStepResult r;
    try {
      r = traj_.step(t, mean, precision, gbar, hbar);
    } catch (const std::exception& e) {
      fail_call("step", t, std::string("threw: ") + e.what());
    }
    const long d = problem_.d;
    if (r.mean.size() != d) fail_call("step", t, "returned a mean of length " + std::to_string(r.mean.size()) + ", expected " + std::to_string(d));
    if (r.precision.rows() != d || r.precision.cols() != d)
      fail_call("step", t, "returned a precision of shape (" + std::to_string(r.precision.rows()) + ", " + std::to_string(r.precision.cols()) +
                               "), expected (" + std::to_string(d) + ", " + std::to_string(d) + ")");
    if (!all_finite(r.mean) || !all_finite(r.precision)) fail_call("step", t, "returned a non-finite entry");
    r.precision = symmetrise(r.precision);
    return r;
  }

 private:
  [[noreturn]] void fail_call(const char* call, long t, const std::string& what) const {
    throw_implementation_error(protocols::kLskUpdate, name_, call, t, what);
  }

  std::string name_;
  protocols::LskProblem problem_;
  protocols::LskUpdateTrajectory traj_;
};

/// The library's LSK update behind the protocol (the in-tree reference; see the file comment).
inline protocols::LskUpdate kit_lsk_update() {
  protocols::LskUpdate impl;
  impl.name = "ngvikit lsk_precision_update";
  impl.version = "1";
  impl.serial = false;
  impl.start = [](const protocols::LskProblem& p) {
    protocols::LskUpdateTrajectory traj;
    traj.step = [p](long, const Vec<double>& m, const Mat<double>& s, const Vec<double>& gbar, const Mat<double>& hbar) {
      const Mat<double> l = SpdFactor<double>(s, "kit_lsk_update", "S").lower();
      protocols::LskStepResult r;
      r.precision = lsk_precision_update(s, l, hbar, p.eta, p.ensure_posdef);
      r.mean = m + p.eta * Eigen::LDLT<Mat<double>>(r.precision).solve(gbar);
      return r;
    };
    return traj;
  };
  return impl;
}

}  // namespace ngvi
