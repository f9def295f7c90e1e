#pragma once
/// @file
/// An lsk-update implementation given as a value (protocols/lsk_update.hpp) as the claims run it, and
/// the kit's own implementation of the protocol (the in-tree reference):
///
///   lsk_update_variant  the Variant that carries an implementation (in double, and optionally its mp50
///                       form), so that the claims that accept the protocol run it and the others write
///                       "not applicable". It is filed under kPartLskPosdef, the bit of LSK's precision
///                       update (the part it replaces whole), as a system's parts, one per scalar type;
///   lsk_update_for      the implementation a variant carries in a scalar type, or null (a claim's read
///                       of the part); lsk_update_lacks tells a claim that the variant is an
///                       implementation without that scalar type's form (the claim writes skipped);
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

/// A variant that is a whole lsk-update implementation in double (the claims of that protocol run it in
/// double and write a skipped record in mp50).
inline Variant lsk_update_variant(protocols::LskUpdate impl, std::string description = {}) {
  return protocol_variant(std::move(impl), kPartLskPosdef, protocols::kLskUpdate, protocols::kLskUpdateVersion, "an LSK-update implementation", std::move(description));
}

/// A variant that is a whole lsk-update implementation in double (`impl`) and in mp50 (`impl_mp`, the
/// same implementation computing in 50 digits): the claims of that protocol run it in both.
inline Variant lsk_update_variant(protocols::LskUpdate impl, protocols::LskUpdateOf<mp50> impl_mp, std::string description = {}) {
  Variant v = lsk_update_variant(std::move(impl), std::move(description));
  v.set_system_parts(kPartLskPosdef, std::make_shared<const protocols::LskUpdateOf<mp50>>(std::move(impl_mp)));
  return v;
}

/// The lsk-update implementation in Scalar that `v` hands the claims in place of the library's update,
/// or null; notes a read of kPartLskPosdef.
template <class Scalar>
const protocols::LskUpdateOf<Scalar>* lsk_update_for(const Variant* v) {
  return protocol_implementation<protocols::LskUpdateOf<Scalar>>(v, kPartLskPosdef);
}

/// True when `v` is an lsk-update implementation without a Scalar form: a claim must not run the
/// library's update in its name (it writes a skipped record for that precision).
template <class Scalar>
bool lsk_update_lacks(const Variant* v) {
  return v != nullptr && v->protocol == protocols::kLskUpdate && lsk_update_for<Scalar>(v) == nullptr;
}

/// One trajectory of an lsk-update implementation in Scalar (see the file comment).
template <class Scalar = double>
class LskUpdateRunner {
 public:
  /// @throws ImplementationError naming the call 'start' if the implementation throws or returns no
  ///         step function.
  LskUpdateRunner(const protocols::LskUpdateOf<Scalar>& impl, protocols::LskProblemOf<Scalar> problem)
      : name_(impl.name),
        problem_(problem),
        traj_(start_trajectory(protocols::kLskUpdate, impl, problem_, &protocols::LskUpdateTrajectoryOf<Scalar>::step, "step")) {}
  LskUpdateRunner(const LskUpdateRunner&) = delete;
  LskUpdateRunner& operator=(const LskUpdateRunner&) = delete;

  const protocols::LskProblemOf<Scalar>& problem() const { return problem_; }

  /// The implementation's step t at q = N(m, S⁻¹) with ḡ, H̄, checked; S' as its symmetric part.
  protocols::LskStepResultOf<Scalar> step(long t, const Vec<Scalar>& mean, const Mat<Scalar>& precision, const Vec<Scalar>& gbar,
                                          const Mat<Scalar>& hbar) {
    protocols::LskStepResultOf<Scalar> r;
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
  protocols::LskProblemOf<Scalar> problem_;
  protocols::LskUpdateTrajectoryOf<Scalar> traj_;
};

/// The library's LSK update behind the protocol in Scalar (the in-tree reference; see the file comment).
template <class Scalar = double>
protocols::LskUpdateOf<Scalar> kit_lsk_update() {
  protocols::LskUpdateOf<Scalar> impl;
  impl.name = "ngvikit lsk_precision_update";
  impl.version = "1";
  impl.serial = false;
  impl.start = [](const protocols::LskProblemOf<Scalar>& p) {
    protocols::LskUpdateTrajectoryOf<Scalar> traj;
    traj.step = [p](long, const Vec<Scalar>& m, const Mat<Scalar>& s, const Vec<Scalar>& gbar, const Mat<Scalar>& hbar) {
      const Mat<Scalar> l = SpdFactor<Scalar>(s, "kit_lsk_update", "S").lower();
      protocols::LskStepResultOf<Scalar> r;
      r.precision = lsk_precision_update(s, l, hbar, p.eta, p.ensure_posdef);
      r.mean = m + p.eta * Eigen::LDLT<Mat<Scalar>>(r.precision).solve(gbar);
      return r;
    };
    return traj;
  };
  return impl;
}

}  // namespace ngvi
