// The Python binding of the svi-gmm protocol (protocols/svi_gmm.hpp): a Python object with
// `protocol = "svi-gmm"`, an optional `origin` (the index of its first update in its schedule's
// counting; default 1), `start(problem)` returning a trajectory, and the trajectory's
// `update(t, lam, batch)`:
//
//   problem  a types.SimpleNamespace: X (N × d float64 array), K, alpha0, sigma2, s0_2, batch, kappa,
//            tau, rho0, seed (numbers), m0 ((d,) array) and lambda0 (K × (d + 2) array), arrays it owns;
//            ρ_t = rho0 (tau + t + origin)^(−kappa);
//   t        the update index 0, 1, …;
//   lam      λ_t, a K × (d + 2) float64 array, row k = (γ_k, m_k/s_k², −1/(2 s_k²)) (the implementation
//            sets its global factors from it);
//   batch    S_t, an int64 array of row indices into X;
//   returns  λ_{t+1} as a K × (d + 2) array-like.
//
// Every call runs with the interpreter lock held (call_python) and serially; a Python exception
// becomes an ImplementationError naming the call and the step (protocol_svi_gmm.hpp), which the claim
// writes as its one error record.
#include <pybind11/pybind11.h>
#include <pybind11/numpy.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "ngvi/optim/steppers/protocol_svi_gmm.hpp"
#include "ngvi/protocols/svi_gmm.hpp"
#include "py_bridge.hpp"

namespace {

using namespace ngvi::python;
using ngvi::Index;
using ngvi::Mat;

py::object problem_namespace(const ngvi::protocols::GmmProblem& p) {
  const py::object ns = py::module_::import("types").attr("SimpleNamespace")();
  ns.attr("X") = to_numpy(p.X);
  ns.attr("K") = p.K;
  ns.attr("alpha0") = p.alpha0;
  ns.attr("sigma2") = p.sigma2;
  ns.attr("s0_2") = p.s0_2;
  ns.attr("m0") = to_numpy(p.m0);
  ns.attr("batch") = p.batch;
  ns.attr("kappa") = p.kappa;
  ns.attr("tau") = p.tau;
  ns.attr("rho0") = p.rho0;
  ns.attr("lambda0") = to_numpy(p.lambda0);
  ns.attr("seed") = p.seed;
  return ns;
}

ngvi::protocols::SviGmm python_svi_gmm(const py::object& impl, const std::shared_ptr<Interrupt>& interrupt) {
  if (!py::hasattr(impl, "start"))
    throw py::type_error("implementation: the object has no 'start' method (svi-gmm: start(problem) -> trajectory)");
  ngvi::protocols::SviGmm out;
  out.name = implementation_name(impl);
  out.version = implementation_version(impl);
  out.origin = implementation_origin(impl, 1);
  out.serial = true;
  const PyRef self(impl);
  out.start = [self, interrupt](const ngvi::protocols::GmmProblem& p) {
    auto traj = std::make_shared<PyRef>(call_python(*interrupt, [&] { return PyRef(self.get().attr("start")(problem_namespace(p))); }));
    const bool has_update = call_python(*interrupt, [&] { return py::hasattr(traj->get(), "update"); });
    if (!has_update) throw std::runtime_error("returned a trajectory without an 'update' method");
    const Index K = p.K, cols = p.X.cols() + 2;
    ngvi::protocols::SviGmmTrajectory run;
    run.update = [traj, interrupt, K, cols](long t, const Mat<double>& lambda, std::span<const long> batch) {
      return call_python(*interrupt, [&] {
        py::array_t<std::int64_t> idx(static_cast<py::ssize_t>(batch.size()));
        auto w = idx.mutable_unchecked<1>();
        for (std::size_t i = 0; i < batch.size(); ++i) w(static_cast<py::ssize_t>(i)) = batch[i];
        return returned_matrix(traj->get().attr("update")(t, to_numpy(lambda), idx), K, cols, "lam");
      });
    };
    return run;
  };
  return out;
}

const ProtocolRegistrar kSviGmmProtocol({ngvi::protocols::kSviGmm, ngvi::protocols::kSviGmmVersion,
                                         [](const py::object& impl, const std::shared_ptr<Interrupt>& interrupt) {
                                           return std::make_unique<ngvi::Variant>(ngvi::svi_gmm_variant(python_svi_gmm(impl, interrupt)));
                                         }});

}  // namespace
