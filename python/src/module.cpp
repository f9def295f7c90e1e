// The Python binding of the kit's claims (package ngvikit, module ngvikit._core): list and describe
// the claims and the registered variants; run a selection against the library's algorithm, a
// registered variant, or a Python implementation of the conjugate-NGD protocol
// (protocols/conjugate_ngd.hpp); write claims.json, JUnit and the HTML report. The Python layer
// (ngvikit/__init__.py) turns the records into dicts and DataFrames; this file only crosses the
// language boundary.
//
// The interpreter lock: the claims run with the lock released (their Monte Carlo replicates on the
// kit's own threads); every call into Python (the implementation's start, step and average) takes it
// back for the call only. A Python implementation is run serially (protocols::ConjugateNgd::serial),
// so its trajectories never interleave and its records do not depend on the thread count.
//
// A Python exception raised by the implementation is caught while the lock is held and becomes a
// C++ exception carrying its type and message; the protocol stepper turns it into the trajectory's
// failure, naming the call and the step, and the claim into one error record. A KeyboardInterrupt
// (or any BaseException that is not an Exception) is not a finding about the implementation: it
// stops the run after the current claim and is raised again to the caller.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/numpy.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <ctime>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "ngvi/claims/registry.hpp"
#include "ngvi/optim/variant.hpp"
#include "ngvi/protocols/conjugate_ngd.hpp"
#include "ngvi/report/html_report.hpp"
#include "ngvi/report/junit.hpp"
#include "ngvi/report/provenance.hpp"
#include "ngvi/report/record.hpp"
#include "ngvi_build_info.hpp"
#include "py_bridge.hpp"

namespace py = pybind11;

namespace {

using namespace ngvi::python;
using ngvi::GaussianExpectation;
using ngvi::GaussianNatural;
using ngvi::Index;
using ngvi::report::ClaimRecord;
using ngvi::report::RunMeta;

// A pair (first, second) returned by the implementation: a tuple or list of two array-likes, read
// as float64 (double) or through mpmath.mpf and rounded once to mp50 (mp50).
template <class Pair>
Pair returned_pair(const py::object& r, Index d, const char* first, const char* second, const char* call) {
  using Scalar = typename std::remove_reference_t<decltype(std::declval<Pair&>().first)>::Scalar;
  if (!py::isinstance<py::tuple>(r) && !py::isinstance<py::list>(r))
    throw std::runtime_error(std::string(call) + " returned " + std::string(py::str(r.get_type().attr("__name__"))) +
                             ", expected a pair (" + first + ", " + second + ")");
  const py::sequence s = r;
  if (s.size() != 2)
    throw std::runtime_error(std::string(call) + " returned a sequence of length " + std::to_string(s.size()) +
                             ", expected a pair (" + first + ", " + second + ")");
  Pair p;
  p.first = returned_vector<Scalar>(s[0], d, first);
  p.second = returned_square<Scalar>(s[1], d, second);
  return p;
}

// The problem as the implementation sees it: a types.SimpleNamespace of numpy arrays it owns (float64
// in double; object arrays of mpmath.mpf holding the claim's mp50 values exactly in mp50, with
// noise_var an mpf and precision "mp50").
template <class Scalar>
py::object problem_namespace(const ngvi::protocols::BlrProblem<Scalar>& p) {
  const py::object ns = py::module_::import("types").attr("SimpleNamespace")();
  ns.attr("X") = to_numpy(p.X);
  ns.attr("y") = to_numpy(p.y);
  ns.attr("noise_var") = number(p.noise_var);
  ns.attr("prior_mean") = to_numpy(p.prior_mean);
  ns.attr("prior_cov") = to_numpy(p.prior_cov);
  ns.attr("prior_natural") = py::make_tuple(to_numpy(p.prior_natural.first), to_numpy(p.prior_natural.second));
  ns.attr("batch") = p.batch;
  ns.attr("initial") = py::make_tuple(to_numpy(p.initial.first), to_numpy(p.initial.second));
  ns.attr("n") = p.X.rows();
  ns.attr("d") = p.X.cols();
  ns.attr("precision") = std::is_same_v<Scalar, double> ? "double" : "mp50";
  return ns;
}

// The state of one trajectory of a Python implementation. In double, the natural parameter handed to
// step t is the pair the implementation returned at step t − 1 when the kit's iterate still equals it
// (compared entry by entry): no copy in either direction in the common case. In mp50 it is converted
// every step (the mp50 claims make one step call per trajectory).
template <class Scalar>
struct PyTrajectory {
  PyRef traj;
  Index d = 0;
  std::shared_ptr<Interrupt> interrupt;
  std::unique_ptr<PyRef> last;  // the pair the implementation returned last (double)

  static bool same(const py::handle& h, const double* data, std::size_t n) {
    const auto a = py::array_t<double, py::array::c_style>::ensure(h);
    return a && static_cast<std::size_t>(a.size()) == n && std::memcmp(a.data(), data, n * sizeof(double)) == 0;
  }
  py::object eta_for_python(const GaussianNatural<Scalar>& eta) const {
    if constexpr (std::is_same_v<Scalar, double>) {
      if (last) {
        const py::sequence s = last->get();
        const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> second = eta.second;
        if (same(s[0], eta.first.data(), static_cast<std::size_t>(d)) &&
            same(s[1], second.data(), static_cast<std::size_t>(d * d)))
          return last->get();
      }
    }
    return py::make_tuple(to_numpy(eta.first), to_numpy(eta.second));
  }
};

// A Python object implementing conjugate-ngd as the kit's protocol value in Scalar. In mp50 every
// call (start, step and average, with the conversions of what they are handed and return) runs under
// MpmathPrecision.
template <class Scalar>
ngvi::protocols::ConjugateNgd<Scalar> python_conjugate_ngd(const py::object& impl, const std::shared_ptr<Interrupt>& interrupt) {
  constexpr bool kMp = !std::is_same_v<Scalar, double>;
  if (!py::hasattr(impl, "start"))
    throw py::type_error("implementation: the object has no 'start' method (conjugate-ngd: start(problem) -> trajectory)");
  ngvi::protocols::ConjugateNgd<Scalar> out;
  out.name = implementation_name(impl);
  out.version = implementation_version(impl);
  out.serial = true;
  const PyRef self(impl);
  out.start = [self, interrupt](const ngvi::protocols::BlrProblem<Scalar>& p) {
    auto state = std::make_shared<PyTrajectory<Scalar>>(PyTrajectory<Scalar>{
        call_python_in<Scalar>(*interrupt, [&] { return PyRef(self.get().attr("start")(problem_namespace(p))); }), p.X.cols(), interrupt,
        nullptr});
    const bool has_step = call_python(*interrupt, [&] { return py::hasattr(state->traj.get(), "step"); });
    if (!has_step) throw std::runtime_error("returned a trajectory without a 'step' method");
    ngvi::protocols::ConjugateNgdTrajectory<Scalar> run;
    run.step = [state](long t, const GaussianNatural<Scalar>& eta, std::span<const Index> batch) {
      return call_python_in<Scalar>(*state->interrupt, [&] {
        py::array_t<Index> idx(static_cast<py::ssize_t>(batch.size()));
        std::memcpy(idx.mutable_data(), batch.data(), batch.size() * sizeof(Index));
        py::object r = state->traj.get().attr("step")(t, state->eta_for_python(eta), idx);
        auto next = returned_pair<GaussianNatural<Scalar>>(r, state->d, "eta1", "eta2", "step");
        if constexpr (!kMp) {
          // Keep the returned pair as float arrays, to hand back at the next step.
          const py::sequence s = r;
          state->last = std::make_unique<PyRef>(py::make_tuple(returned_array(s[0], 1, state->d, "eta1"),
                                                               returned_array(s[1], 2, state->d, "eta2")));
        }
        return next;
      });
    };
    const bool has_average = call_python(*interrupt, [&] { return py::hasattr(state->traj.get(), "average"); });
    if (has_average)
      run.average = [state] {
        return call_python_in<Scalar>(*state->interrupt, [&] {
          return returned_pair<GaussianExpectation<Scalar>>(state->traj.get().attr("average")(), state->d, "mean",
                                                            "second_moment", "average");
        });
      };
    return run;
  };
  return out;
}

// The variant of an implementation object: its double form, and its mp50 form when it declares mp50
// among its precisions.
std::unique_ptr<ngvi::Variant> conjugate_ngd_variant(const py::object& impl, const std::shared_ptr<Interrupt>& interrupt) {
  const auto precisions = implementation_precisions(impl);
  auto dbl = python_conjugate_ngd<double>(impl, interrupt);
  if (std::find(precisions.begin(), precisions.end(), "mp50") == precisions.end())
    return std::make_unique<ngvi::Variant>(ngvi::Variant::conjugate_ngd(std::move(dbl)));
  return std::make_unique<ngvi::Variant>(ngvi::Variant::conjugate_ngd(std::move(dbl), python_conjugate_ngd<ngvi::mp50>(impl, interrupt)));
}

const ProtocolRegistrar kConjugateNgdProtocol({ngvi::protocols::kConjugateNgd, ngvi::protocols::kConjugateNgdVersion,
                                                conjugate_ngd_variant, {"double", "mp50"}});

std::string utc_now() {
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

ngvi::report::Provenance build_provenance() {
  ngvi::report::Provenance p;
  p.kit_version = NGVI_BUILD_VERSION;
  p.commit = NGVI_BUILD_COMMIT;
  p.dirty = NGVI_BUILD_DIRTY;
  p.build_type = NGVI_BUILD_TYPE;
  p.compiler = ngvi::report::compiler_id();
  p.cxx_flags = NGVI_BUILD_FLAGS;
  p.cpu_model = ngvi::report::cpu_model();
  p.libraries = ngvi::report::library_versions();
  return p;
}

// The records and meta of one run (what claims.json holds).
struct Run {
  std::vector<ClaimRecord> records;
  RunMeta meta;
  ngvi::report::Provenance provenance;
};

// The claims a comma-separated selection names; every item must match at least one claim.
std::vector<const ngvi::claims::ClaimInfo*> select_claims(const std::string& selection) {
  try {
    return ngvi::claims::Registry::instance().select(selection);
  } catch (const std::invalid_argument& e) {
    throw py::value_error(std::string("claims: ") + e.what() + " (see ngvikit.claims())");
  }
}

Run run_claims(const std::string& selection, const py::object& implementation, const std::string& variant,
               const std::string& precision, std::uint64_t seed, bool full, int threads) {
  if (!implementation.is_none() && !variant.empty())
    throw py::value_error("implementation and variant are exclusive (a variant replaces parts of the library's algorithm, "
                          "an implementation replaces all of it)");
  ngvi::claims::RunContext ctx;
  ctx.full = full;
  ctx.seed = seed;
  if (threads < 0) throw py::value_error("threads must be >= 0 (0: one per core), got " + std::to_string(threads));
  ctx.threads = threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (precision == "all") ctx.precisions = {"double", "mp50"};
  else if (precision == "double" || precision == "mp50") ctx.precisions = {precision};
  else throw py::value_error("precision must be 'double', 'mp50' or 'all', got '" + precision + "'");
  const auto selected = select_claims(selection);

  Run run;
  auto interrupt = std::make_shared<Interrupt>();
  std::unique_ptr<ngvi::Variant> own;  // the Python implementation as a variant
  const ngvi::Variant* v = nullptr;
  if (!implementation.is_none()) {
    const std::string protocol = py::hasattr(implementation, "protocol") ? std::string(py::str(implementation.attr("protocol")))
                                                                          : std::string(ngvi::protocols::kConjugateNgd);
    const PyProtocol* proto = nullptr;
    for (const auto& p : py_protocols())
      if (p.name == protocol) proto = &p;
    if (proto == nullptr)
      throw py::value_error("implementation: protocol '" + protocol + "' (its 'protocol' attribute) is not one the package knows "
                            "(see ngvikit.protocols)");
    // Every precision asked must be one the protocol's binding runs and one the implementation declares.
    const auto declared = implementation_precisions(implementation);
    auto listed = [](const std::vector<std::string>& v) {
      std::string s = "(";
      for (const auto& x : v) s += "'" + x + "', ";
      return s.substr(0, s.size() - 2) + (v.size() == 1 ? ",)" : ")");
    };
    for (const auto& want : ctx.precisions) {
      if (std::find(proto->precisions.begin(), proto->precisions.end(), want) == proto->precisions.end()) {
        std::vector<std::string> names;  // the protocols whose bindings run mp50
        for (const auto& p : py_protocols())
          if (std::find(p.precisions.begin(), p.precisions.end(), "mp50") != p.precisions.end()) names.push_back(p.name);
        std::sort(names.begin(), names.end());
        std::string with_mp;
        for (const auto& n : names) with_mp += (with_mp.empty() ? "" : ", ") + n;
        throw py::value_error("precision: an implementation of protocol '" + protocol + "' runs in " + listed(proto->precisions) +
                              " only (numpy float64); got '" + precision + "' (mp50 is available for " + with_mp + ")");
      }
      if (std::find(declared.begin(), declared.end(), want) == declared.end())
        throw py::value_error("precision: the implementation declares precisions " + listed(declared) + " (its 'precisions' attribute); got '" +
                              precision + "'");
    }
    if (std::find(ctx.precisions.begin(), ctx.precisions.end(), "mp50") != ctx.precisions.end()) {
      try {
        py::module_::import("mpmath");
      } catch (py::error_already_set&) {
        throw py::value_error("precision: 'mp50' for a Python implementation hands mpmath.mpf values, and mpmath is not importable "
                              "(Debian: python3-mpmath)");
      }
    }
    own = proto->make(implementation, interrupt);
    v = own.get();
  } else if (!variant.empty()) {
    v = ngvi::VariantRegistry::instance().find(variant);
    if (v == nullptr) throw py::value_error("variant: '" + variant + "' is not a registered variant (see ngvikit.variants())");
  }
  ctx.set_variant(v);

  run.meta.commit = NGVI_BUILD_COMMIT;
  run.meta.compiler = ngvi::report::compiler_id();
  run.meta.seed = seed;
  run.meta.precisions = ctx.precisions;
  run.meta.started = utc_now();
  run.meta.mode = full ? "full" : "quick";
  run.meta.command = "ngvikit.verify (Python)";
  run.meta.threads = ctx.threads;
  run.meta.variant = v == nullptr || own ? "" : v->name;
  // The implementation under test, as ngvi verify records it: a baseline made against another one is
  // refused (ngvi verify --baseline, ngvi diff), and the report names it.
  if (v != nullptr) {
    run.meta.implementation = v->name;
    run.meta.implementation_version = v->version;
    run.meta.protocol = v->protocol;
    for (const auto& p : py_protocols())
      if (p.name == v->protocol) run.meta.protocol_version = p.version;
  }
  run.meta.claims = selection;
  run.provenance = build_provenance();
  run.provenance.started = run.meta.started;
  {
    py::gil_scoped_release release;
    for (const auto* claim : selected) {
      auto recs = ngvi::claims::run_claim(*claim, ctx);
      run.records.insert(run.records.end(), recs.begin(), recs.end());
      if (interrupt->raised) break;
    }
  }
  run.provenance.finished = utc_now();
  if (interrupt->raised) {
    PyErr_SetString(PyExc_KeyboardInterrupt, interrupt->what.c_str());
    throw py::error_already_set();
  }
  return run;
}

py::dict record_dict(const ClaimRecord& r) {
  py::dict d;
  d["claim"] = r.claim;
  d["instance"] = r.instance;
  d["precision"] = r.precision;
  d["kind"] = ngvi::report::to_string(r.kind);
  d["form"] = ngvi::report::to_string(r.form);
  d["lhs"] = r.lhs;
  d["rhs"] = r.rhs;
  d["margin"] = r.margin;
  d["tightness"] = r.tightness;
  d["resolution"] = r.resolution;
  d["verdict"] = ngvi::report::to_string(r.verdict);
  static constexpr const char* kOutcome[] = {"pass", "fail", "vacuous", "skipped"};
  d["outcome"] = kOutcome[static_cast<int>(ngvi::report::outcome(r))];
  d["seconds"] = r.seconds;
  d["unit"] = r.unit;
  d["note"] = r.note;
  d["level"] = r.level;
  if (r.kind == ngvi::report::Kind::kControl) d["control_route"] = r.injected ? "injected" : "rerun";
  else d["control_route"] = py::none();
  return d;
}

py::dict meta_dict(const RunMeta& m) {
  py::dict d;
  d["commit"] = m.commit;
  d["compiler"] = m.compiler;
  d["seed"] = m.seed;
  d["precisions"] = m.precisions;
  d["started"] = m.started;
  d["mode"] = m.mode;
  d["command"] = m.command;
  d["threads"] = m.threads;
  d["variant"] = m.variant;
  d["implementation"] = m.implementation;
  d["implementation_version"] = m.implementation_version;
  d["protocol"] = m.protocol;
  d["protocol_version"] = m.protocol_version;
  d["claims"] = m.claims;
  return d;
}

py::dict counts_dict(const std::vector<ClaimRecord>& recs) {
  const auto c = ngvi::report::count_records(recs);
  py::dict d;
  d["records"] = c.records;
  d["claims"] = c.claims;
  d["claims_hold"] = c.claims_hold;
  d["controls"] = c.controls;
  d["controls_broken"] = c.controls_broken;
  d["vacuous"] = c.vacuous;
  d["skipped"] = c.skipped;
  d["errors"] = c.errors;
  d["failures"] = c.failures;
  d["passed"] = c.pass();
  return d;
}

// A path a writer was given: its directory must exist or be creatable; names the argument otherwise.
void check_output(const std::string& path, const char* argument) {
  if (path.empty()) throw py::value_error(std::string(argument) + " must be a non-empty path");
  const auto parent = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  if (ec) throw py::value_error(std::string(argument) + ": cannot create the directory of '" + path + "': " + ec.message());
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "ngvikit's claims, bound from C++ (use the ngvikit package, not this module)";
  m.attr("kit_version") = NGVI_BUILD_VERSION;
  m.attr("commit") = NGVI_BUILD_COMMIT;
  m.attr("conjugate_ngd_protocol") = ngvi::protocols::kConjugateNgd;
  m.def("protocols", [] {
    py::dict d;
    for (const auto& p : py_protocols()) d[py::str(p.name)] = p.version;
    return d;
  });
  m.attr("default_seed") = ngvi::claims::RunContext{}.seed;

  m.def("claims", [] {
    py::list out;
    for (const auto& c : ngvi::claims::Registry::instance().claims()) {
      py::dict d;
      d["id"] = c.id;
      d["statement"] = c.statement;
      d["source"] = c.source;
      d["tag"] = c.tag;
      d["protocols"] = c.protocols;
      d["cost_quick"] = c.cost.quick;
      d["cost_full"] = c.cost.full;
      out.append(d);
    }
    return out;
  });
  m.def("variants", [] {
    py::list out;
    for (const auto* v : ngvi::VariantRegistry::instance().all()) {
      py::dict d;
      d["name"] = v->name;
      d["description"] = v->description;
      d["mutant"] = v->mutant;
      d["replaces"] = ngvi::variant_part_names(v->replaced());
      out.append(d);
    }
    return out;
  });

  py::class_<Run>(m, "Run")
      .def_property_readonly("records", [](const Run& r) {
        py::list out;
        for (const auto& rec : r.records) out.append(record_dict(rec));
        return out;
      })
      .def_property_readonly("meta", [](const Run& r) { return meta_dict(r.meta); })
      .def_property_readonly("counts", [](const Run& r) { return counts_dict(r.records); })
      .def("write_json", [](const Run& r, const std::string& path) {
        check_output(path, "path");
        ngvi::report::write_claims_json(path, r.meta, r.records, r.provenance);
      }, py::arg("path"))
      .def("write_junit", [](const Run& r, const std::string& path) {
        check_output(path, "path");
        ngvi::report::write_junit_records(path, "ngvikit", r.records);
      }, py::arg("path"));

  m.def("run", &run_claims, py::arg("claims"), py::arg("implementation"), py::arg("variant"), py::arg("precision"),
        py::arg("seed"), py::arg("full"), py::arg("threads"));

  m.def("write_report", [](const std::string& dir, const std::string& gnuplot) {
    if (!std::filesystem::is_directory(dir)) throw py::value_error("directory: '" + dir + "' is not a directory");
    ngvi::report::ReportOptions o;
    o.dir = dir;
    o.gnuplot = gnuplot;
    o.generator = "ngvikit (Python, commit " + std::string(NGVI_BUILD_COMMIT) + ", " + utc_now() + ")";
    for (const auto& c : ngvi::claims::Registry::instance().claims()) o.claims[c.id] = {c.statement, c.source, c.tag};
    ngvi::report::ReportResult r;
    {
      py::gil_scoped_release release;
      r = ngvi::report::write_report(o);
    }
    return r.index_path;
  }, py::arg("directory"), py::arg("gnuplot") = "gnuplot");
}
