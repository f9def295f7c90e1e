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
// Every call runs with the interpreter lock held (call_python) and serially; a Python exception
// becomes an ImplementationError naming the call and the step (protocol_lsk_update.hpp), which the
// claim writes as its one error record.
#include <pybind11/pybind11.h>
#include <pybind11/numpy.h>

#include <memory>
#include <string>

#include "ngvi/optim/steppers/protocol_lsk_update.hpp"
#include "ngvi/protocols/lsk_update.hpp"
#include "py_bridge.hpp"

namespace {

using namespace ngvi::python;
using ngvi::Index;
using ngvi::Mat;
using ngvi::Vec;

py::object problem_namespace(const ngvi::protocols::LskProblem& p) {
  const py::object ns = py::module_::import("types").attr("SimpleNamespace")();
  ns.attr("d") = p.d;
  ns.attr("eta") = p.eta;
  ns.attr("ensure_posdef") = p.ensure_posdef;
  return ns;
}

ngvi::protocols::LskUpdate python_lsk_update(const py::object& impl, const std::shared_ptr<Interrupt>& interrupt) {
  if (!py::hasattr(impl, "start"))
    throw py::type_error("implementation: the object has no 'start' method (lsk-update: start(problem) -> trajectory)");
  ngvi::protocols::LskUpdate out;
  out.name = implementation_name(impl);
  out.version = implementation_version(impl);
  out.serial = true;
  const PyRef self(impl);
  out.start = [self, interrupt](const ngvi::protocols::LskProblem& p) {
    auto traj = std::make_shared<PyRef>(call_python(*interrupt, [&] { return PyRef(self.get().attr("start")(problem_namespace(p))); }));
    const bool has_step = call_python(*interrupt, [&] { return py::hasattr(traj->get(), "step"); });
    if (!has_step) throw std::runtime_error("returned a trajectory without a 'step' method");
    const Index d = p.d;
    ngvi::protocols::LskUpdateTrajectory run;
    run.step = [traj, interrupt, d](long t, const Vec<double>& m, const Mat<double>& s, const Vec<double>& g, const Mat<double>& h) {
      return call_python(*interrupt, [&] {
        const py::object r = traj->get().attr("step")(t, to_numpy(m), to_numpy(s), to_numpy(g), to_numpy(h));
        if (!py::isinstance<py::tuple>(r) && !py::isinstance<py::list>(r))
          throw std::runtime_error("returned " + std::string(py::str(r.get_type().attr("__name__"))) + ", expected a pair (mean, precision)");
        const py::sequence seq = r;
        if (seq.size() != 2) throw std::runtime_error("returned a sequence of length " + std::to_string(seq.size()) + ", expected (mean, precision)");
        const auto a = returned_array(seq[0], 1, d, "mean");
        const auto b = returned_array(seq[1], 2, d, "precision");
        ngvi::protocols::LskStepResult out;
        out.mean = Eigen::Map<const Vec<double>>(a.data(), d);
        out.precision = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(b.data(), d, d);
        return out;
      });
    };
    return run;
  };
  return out;
}

const ProtocolRegistrar kLskUpdateProtocol({ngvi::protocols::kLskUpdate, ngvi::protocols::kLskUpdateVersion,
                                            [](const py::object& impl, const std::shared_ptr<Interrupt>& interrupt) {
                                              return std::make_unique<ngvi::Variant>(ngvi::lsk_update_variant(python_lsk_update(impl, interrupt)));
                                            }});

}  // namespace
