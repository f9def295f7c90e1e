// The Python binding of the svi-lda protocol (protocols/svi_lda.hpp): a Python object with
// `protocol = "svi-lda"`, an optional `origin` (the index of its first update in its schedule's
// counting: 1 for Hoffman et al. and scikit-learn, 0 for gensim; default 1), `start(problem)`
// returning a trajectory, and the trajectory's `update(t, lam, docs)`:
//
//   problem  a types.SimpleNamespace: V, K, alpha, eta, D, batch, kappa, tau0, seed (numbers) and
//            lambda0 (K × V float64 array it owns);
//   t        the update index 0, 1, …;
//   lam      λ_t, a K × V float64 array (the implementation sets its topics from it);
//   docs     the minibatch: a list of |S| pairs (ids, counts), ids an int64 array of word ids (strictly
//            increasing), counts a float64 array of the same length;
//   returns  λ_{t+1} as a K × V array-like, or a tuple (λ_{t+1}, γ) with γ the |S| × K γ of its last
//            E-step on the minibatch (or None).
//
// Every call runs with the interpreter lock held (call_python) and serially; a Python exception
// becomes an ImplementationError naming the call and the step (protocol_svi_lda.hpp), which the claim
// writes as its one error record.
#include <pybind11/pybind11.h>
#include <pybind11/numpy.h>

#include <cstring>
#include <memory>
#include <string>

#include "ngvi/optim/steppers/protocol_svi_lda.hpp"
#include "ngvi/protocols/svi_lda.hpp"
#include "py_bridge.hpp"

namespace {

using namespace ngvi::python;
using ngvi::Index;
using ngvi::Mat;

py::object problem_namespace(const ngvi::protocols::LdaProblem& p) {
  const py::object ns = py::module_::import("types").attr("SimpleNamespace")();
  ns.attr("V") = p.V;
  ns.attr("K") = p.K;
  ns.attr("alpha") = p.alpha;
  ns.attr("eta") = p.eta;
  ns.attr("D") = p.D;
  ns.attr("batch") = p.batch;
  ns.attr("kappa") = p.kappa;
  ns.attr("tau0") = p.tau0;
  ns.attr("seed") = p.seed;
  ns.attr("lambda0") = to_numpy(p.lambda0);
  return ns;
}

py::list docs_list(const ngvi::lda::Corpus& b) {
  py::list out;
  for (long d = 0; d < b.n_docs(); ++d) {
    const long lo = b.doc_ptr[static_cast<std::size_t>(d)], hi = b.doc_ptr[static_cast<std::size_t>(d) + 1];
    py::array_t<std::int64_t> ids(hi - lo);
    py::array_t<double> counts(hi - lo);
    auto wi = ids.mutable_unchecked<1>();
    auto wc = counts.mutable_unchecked<1>();
    for (long j = lo; j < hi; ++j) {
      wi(j - lo) = b.word[static_cast<std::size_t>(j)];
      wc(j - lo) = double(b.count[static_cast<std::size_t>(j)]);
    }
    out.append(py::make_tuple(ids, counts));
  }
  return out;
}

ngvi::protocols::SviLda python_svi_lda(const py::object& impl, const std::shared_ptr<Interrupt>& interrupt) {
  ngvi::protocols::SviLda out;
  out.name = implementation_name(impl);
  out.version = implementation_version(impl);
  out.origin = implementation_origin(impl, 1);
  out.serial = true;
  const PyRef self(impl);
  out.start = [self, interrupt](const ngvi::protocols::LdaProblem& p) {
    auto traj = std::make_shared<PyRef>(call_python(*interrupt, [&] { return PyRef(self.get().attr("start")(problem_namespace(p))); }));
    const bool has_update = call_python(*interrupt, [&] { return py::hasattr(traj->get(), "update"); });
    if (!has_update) throw std::runtime_error("returned a trajectory without an 'update' method");
    const Index K = p.K, V = p.V;
    ngvi::protocols::SviLdaTrajectory run;
    run.update = [traj, interrupt, K, V](long t, const Mat<double>& lambda, const ngvi::lda::Corpus& batch) {
      return call_python(*interrupt, [&] {
        const py::object r = traj->get().attr("update")(t, to_numpy(lambda), docs_list(batch));
        ngvi::protocols::LdaUpdate u;
        if (py::isinstance<py::tuple>(r)) {
          const py::tuple tup = r;
          if (tup.size() != 2) throw std::runtime_error("returned a tuple of length " + std::to_string(tup.size()) + ", expected (lam, gamma)");
          u.lambda = returned_matrix(tup[0], K, V, "lam");
          if (!tup[1].is_none()) u.gamma = returned_matrix(tup[1], batch.n_docs(), K, "gamma");
        } else {
          u.lambda = returned_matrix(r, K, V, "lam");
        }
        return u;
      });
    };
    return run;
  };
  return out;
}

const ProtocolRegistrar kSviLdaProtocol({ngvi::protocols::kSviLda, ngvi::protocols::kSviLdaVersion,
                                         [](const py::object& impl, const std::shared_ptr<Interrupt>& interrupt) {
                                           return std::make_unique<ngvi::Variant>(ngvi::svi_lda_variant(python_svi_lda(impl, interrupt)));
                                         }});

}  // namespace
