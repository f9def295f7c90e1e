// The Python binding of the lsk-update protocol (protocols/lsk_update.hpp): a Python object with
// `protocol = "lsk-update"`, `start(problem)` returning a trajectory, and the trajectory's
// `step(t, mean, precision, gbar, hbar)`:
//
//   problem    a types.SimpleNamespace: d, eta (η > 0), ensure_posdef (bool);
//   t          the step index 0, 1, …;
//   mean       m, a (d,) float64 array; precision S, a (d, d) float64 array (symmetric positive
//              definite); gbar ḡ = E_q ∇log π (d,), hbar H̄ = E_q ∇²log π (d, d), symmetric, possibly
//              indefinite;
//   returns    (m', S') as array-likes of shapes (d,) and (d, d).
//
// An implementation whose `precisions` attribute names "mp50" also runs in the claims' mp50 runs: the
// same calls with numpy object arrays of mpmath.mpf (mp50's values exactly), η an mpf and
// problem.precision "mp50", under mpmath's working precision raised to twice mp50's significand
// (py_bridge.hpp, MpmathPrecision); what it returns is read through mpmath.mpf and rounded once to mp50.
//
// Every call runs with the interpreter lock held (call_python) and serially; a Python exception
// becomes an ImplementationError naming the call and the step (protocol_lsk_update.hpp), which the
// claim writes as its one error record.
#include <pybind11/pybind11.h>
#include <pybind11/numpy.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

#include "ngvi/optim/steppers/protocol_lsk_update.hpp"
#include "ngvi/protocols/lsk_update.hpp"
#include "py_bridge.hpp"

namespace {

using namespace ngvi::python;
using ngvi::Index;
using ngvi::Mat;
using ngvi::Vec;


template <class Scalar>
py::object problem_namespace(const ngvi::protocols::LskProblemOf<Scalar>& p) {
  const py::object ns = py::module_::import("types").attr("SimpleNamespace")();
  ns.attr("d") = p.d;
  ns.attr("eta") = number(p.eta);
  ns.attr("ensure_posdef") = p.ensure_posdef;
  ns.attr("precision") = std::is_same_v<Scalar, double> ? "double" : "mp50";
  return ns;
}

// (m', S') from the pair the implementation returned, in Scalar.
template <class Scalar>
ngvi::protocols::LskStepResultOf<Scalar> returned_step(const py::object& r, Index d) {
  if (!py::isinstance<py::tuple>(r) && !py::isinstance<py::list>(r))
    throw std::runtime_error("returned " + std::string(py::str(r.get_type().attr("__name__"))) + ", expected a pair (mean, precision)");
  const py::sequence seq = r;
  if (seq.size() != 2) throw std::runtime_error("returned a sequence of length " + std::to_string(seq.size()) + ", expected (mean, precision)");
  ngvi::protocols::LskStepResultOf<Scalar> out;
  out.mean = returned_vector<Scalar>(seq[0], d, "mean");
  out.precision = returned_square<Scalar>(seq[1], d, "precision");
  return out;
}

// A Python object implementing lsk-update as the kit's protocol value in Scalar. In mp50 every call
// (start and step, with the conversions of what they are handed and return) runs under
// MpmathPrecision.
template <class Scalar>
ngvi::protocols::LskUpdateOf<Scalar> python_lsk_update(const py::object& impl, const std::shared_ptr<Interrupt>& interrupt) {
  if (!py::hasattr(impl, "start"))
    throw py::type_error("implementation: the object has no 'start' method (lsk-update: start(problem) -> trajectory)");
  ngvi::protocols::LskUpdateOf<Scalar> out;
  out.name = implementation_name(impl);
  out.version = implementation_version(impl);
  out.serial = true;
  const PyRef self(impl);
  out.start = [self, interrupt](const ngvi::protocols::LskProblemOf<Scalar>& p) {
    auto traj = std::make_shared<PyRef>(call_python_in<Scalar>(*interrupt, [&] {
      return PyRef(self.get().attr("start")(problem_namespace(p)));
    }));
    const bool has_step = call_python(*interrupt, [&] { return py::hasattr(traj->get(), "step"); });
    if (!has_step) throw std::runtime_error("returned a trajectory without a 'step' method");
    const Index d = p.d;
    ngvi::protocols::LskUpdateTrajectoryOf<Scalar> run;
    run.step = [traj, interrupt, d](long t, const Vec<Scalar>& m, const Mat<Scalar>& s, const Vec<Scalar>& g, const Mat<Scalar>& h) {
      return call_python_in<Scalar>(*interrupt, [&] {
        const py::object r = traj->get().attr("step")(t, to_numpy(m), to_numpy(s), to_numpy(g), to_numpy(h));
        return returned_step<Scalar>(r, d);
      });
    };
    return run;
  };
  return out;
}

// The variant of an implementation object: its double form, and its mp50 form when it declares mp50
// among its precisions.
std::unique_ptr<ngvi::Variant> lsk_variant(const py::object& impl, const std::shared_ptr<Interrupt>& interrupt) {
  const auto precisions = implementation_precisions(impl);
  auto dbl = python_lsk_update<double>(impl, interrupt);
  if (std::find(precisions.begin(), precisions.end(), "mp50") == precisions.end())
    return std::make_unique<ngvi::Variant>(ngvi::lsk_update_variant(std::move(dbl)));
  return std::make_unique<ngvi::Variant>(ngvi::lsk_update_variant(std::move(dbl), python_lsk_update<ngvi::mp50>(impl, interrupt)));
}

const ProtocolRegistrar kLskUpdateProtocol({ngvi::protocols::kLskUpdate, ngvi::protocols::kLskUpdateVersion, lsk_variant, {"double", "mp50"}});

}  // namespace
