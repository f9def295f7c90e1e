#pragma once
// What every Python binding of a protocol shares (module.cpp, and each protocol's binding file):
// references to Python objects that the kit's threads may copy without the interpreter lock, calls
// into Python that turn its exceptions into C++ ones, and numpy conversions.
#include <pybind11/pybind11.h>
#include <pybind11/numpy.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <optional>

#include <functional>
#include <limits>
#include <vector>

#include <boost/multiprecision/cpp_int.hpp>

#include "ngvi/optim/variant.hpp"
#include "ngvi/scalar/types.hpp"

namespace ngvi::python {

namespace py = pybind11;
using namespace pybind11::literals;
using ngvi::Index;

// A reference to a Python object that may be copied, moved and destroyed without the interpreter
// lock (the kit's std::function copies and its threads): the object itself is released with the
// lock held, once, when the last copy goes.
class PyRef {
 public:
  explicit PyRef(py::object obj) : held_(new py::object(std::move(obj)), [](py::object* p) {
    py::gil_scoped_acquire gil;
    delete p;
  }) {}
  const py::object& get() const { return *held_; }

 private:
  std::shared_ptr<py::object> held_;
};

// Set when a call into Python raised a BaseException that is not an Exception (KeyboardInterrupt,
// SystemExit): the run stops after the current claim and the exception is raised again.
struct Interrupt {
  std::atomic<bool> raised{false};
  std::string what;
};

// Runs `call` with the lock held; a Python exception becomes a std::runtime_error "Type: message".
template <class F>
auto call_python(Interrupt& interrupt, F&& call) -> decltype(call()) {
  py::gil_scoped_acquire gil;
  try {
    return call();
  } catch (py::error_already_set& e) {
    // One line: the exception's type and message (pybind11's what() appends the traceback).
    std::string line = std::string(py::str(e.type().attr("__name__")));
    const std::string message = py::str(e.value());
    if (!message.empty()) line += ": " + message;
    for (char& c : line)
      if (c == '\n' || c == '\r') c = ' ';
    if (!e.matches(PyExc_Exception)) {
      interrupt.what = line;
      interrupt.raised = true;
      throw std::runtime_error("interrupted: " + line);
    }
    throw std::runtime_error(line);
  } catch (const py::cast_error& e) {
    throw std::runtime_error(std::string("returned a value of the wrong type: ") + e.what());
  }
}

// numpy arrays that own their data (the implementation may keep them), C order.
inline py::array_t<double> to_numpy(const ngvi::Vec<double>& v) {
  py::array_t<double> a(v.size());
  std::memcpy(a.mutable_data(), v.data(), static_cast<std::size_t>(v.size()) * sizeof(double));
  return a;
}
inline py::array_t<double> to_numpy(const ngvi::Mat<double>& m) {
  py::array_t<double> a({m.rows(), m.cols()});
  auto w = a.mutable_unchecked<2>();
  for (Index i = 0; i < m.rows(); ++i)
    for (Index j = 0; j < m.cols(); ++j) w(i, j) = m(i, j);
  return a;
}

// An array-like the implementation returned, as a C-ordered double array of the given shape (numpy
// converts lists and other dtypes); names the entry and the violated shape otherwise, both written
// as numpy writes shapes ("(3,)", "(3, 4)").
inline py::array_t<double, py::array::c_style | py::array::forcecast> returned_shaped(const py::handle& h, const std::vector<Index>& shape,
                                                                               const char* what) {
  const auto text = [](std::size_t n, auto dim) {
    std::string t = "(";
    for (std::size_t k = 0; k < n; ++k) t += (k ? ", " : "") + std::to_string(dim(k));
    return t + (n == 1 ? ",)" : ")");
  };
  auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(h);
  if (!a) throw std::runtime_error(std::string("returned ") + what + " that is not convertible to a float array");
  bool ok = a.ndim() == static_cast<py::ssize_t>(shape.size());
  for (std::size_t k = 0; ok && k < shape.size(); ++k) ok = a.shape(static_cast<py::ssize_t>(k)) == shape[k];
  if (!ok)
    throw std::runtime_error(std::string("returned ") + what + " of shape " +
                             text(static_cast<std::size_t>(a.ndim()), [&](std::size_t k) { return a.shape(static_cast<py::ssize_t>(k)); }) +
                             ", expected " + text(shape.size(), [&](std::size_t k) { return shape[k]; }));
  return a;
}

// The same for a vector (rank 1) or a square matrix (rank 2) of dimension d.
inline py::array_t<double, py::array::c_style | py::array::forcecast> returned_array(const py::handle& h, int rank, Index d, const char* what) {
  return returned_shaped(h, rank == 1 ? std::vector<Index>{d} : std::vector<Index>{d, d}, what);
}

// An array-like the implementation returned, as a rows × cols float64 matrix (returned_shaped).
inline ngvi::Mat<double> returned_matrix(const py::handle& h, ngvi::Index rows, ngvi::Index cols, const char* what) {
  const auto a = returned_shaped(h, {rows, cols}, what);
  return Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(a.data(), rows, cols);
}

// An implementation object's `name` (its class name when absent) and `version` ("" when absent).
inline std::string implementation_name(const py::object& impl) {
  return py::hasattr(impl, "name") ? std::string(py::str(impl.attr("name"))) : std::string(py::str(impl.get_type().attr("__name__")));
}
inline std::string implementation_version(const py::object& impl) {
  return py::hasattr(impl, "version") ? std::string(py::str(impl.attr("version"))) : std::string();
}

// An implementation object's `origin` (the index of its first update in its schedule's counting;
// `fallback` when absent). @throws py::type_error naming 'origin' unless it is an int >= 0.
inline long implementation_origin(const py::object& impl, long fallback) {
  if (!py::hasattr(impl, "origin")) return fallback;
  const py::object o = impl.attr("origin");
  if (!py::isinstance<py::int_>(o) || py::isinstance<py::bool_>(o) || o.cast<long>() < 0)
    throw py::type_error("implementation: 'origin' must be an int >= 0 (the index of its first update in its schedule's counting), got " +
                         std::string(py::repr(o)));
  return o.cast<long>();
}

// The precisions an implementation object declares (its `precisions` attribute, an iterable of
// "double" and "mp50"; ("double",) when absent). @throws py::type_error / py::value_error naming
// 'precisions' otherwise.
inline std::vector<std::string> implementation_precisions(const py::object& impl) {
  if (!py::hasattr(impl, "precisions")) return {"double"};
  const py::object p = impl.attr("precisions");
  if (py::isinstance<py::str>(p) || !py::isinstance<py::iterable>(p))
    throw py::type_error("implementation: 'precisions' must be an iterable of str ('double', 'mp50'), got " + std::string(py::repr(p)));
  std::vector<std::string> out;
  for (const py::handle h : p) {
    if (!py::isinstance<py::str>(h))
      throw py::type_error("implementation: 'precisions' must be an iterable of str ('double', 'mp50'), got an entry " + std::string(py::repr(h)));
    const std::string s = h.cast<std::string>();
    if (s != "double" && s != "mp50")
      throw py::value_error("implementation: 'precisions' entries must be 'double' or 'mp50', got '" + s + "'");
    out.push_back(s);
  }
  return out;
}

// mp50 across the boundary: numpy object arrays of mpmath.mpf. Every call that hands or reads them runs
// with mpmath's working precision raised to kMpmathBits (MpmathPrecision), above mp50's significand, so
// that the values handed are mp50's exactly and the implementation's arithmetic on them is at least as
// fine as mp50's; the caller's setting is restored after the call.
inline constexpr int kMp50Bits = std::numeric_limits<ngvi::mp50>::digits;
inline constexpr int kMpmathBits = 2 * kMp50Bits;

class MpmathPrecision {
 public:
  MpmathPrecision() : mp_(py::module_::import("mpmath").attr("mp")), saved_(mp_.attr("prec")) {
    if (saved_.cast<long>() < kMpmathBits) mp_.attr("prec") = kMpmathBits;
  }
  ~MpmathPrecision() {
    try {
      mp_.attr("prec") = saved_;
    } catch (...) {  // a destructor does not throw; the precision stays raised
    }
  }
  MpmathPrecision(const MpmathPrecision&) = delete;
  MpmathPrecision& operator=(const MpmathPrecision&) = delete;

 private:
  py::object mp_, saved_;
};

// x as an mpmath.mpf, exactly: x = k·2^(e − kMp50Bits) with k the integer significand.
inline py::object to_mpf(const ngvi::mp50& x) {
  const py::object mpmath = py::module_::import("mpmath");
  if (x == 0) return mpmath.attr("mpf")(0);
  int e = 0;
  const ngvi::mp50 m = boost::multiprecision::frexp(x, &e);  // |m| in [1/2, 1)
  const boost::multiprecision::cpp_int k = static_cast<boost::multiprecision::cpp_int>(boost::multiprecision::ldexp(m, kMp50Bits));
  return mpmath.attr("ldexp")(mpmath.attr("mpf")(py::int_(py::str(k.str()))), e - kMp50Bits);
}

// A scalar handed in a problem: a float in double, an mpmath.mpf (exactly the claim's mp50 value) in mp50.
inline py::object number(double x) { return py::float_(x); }
inline py::object number(const ngvi::mp50& x) { return to_mpf(x); }

// A number the implementation returned, as mp50: through mpmath.mpf (exact for an mpf, a float, an
// int), then its (mantissa, exponent) rounded once to mp50. Non-finite values stay non-finite (the
// protocol runner rejects them). @throws std::runtime_error naming `what` if mpmath cannot read it.
inline ngvi::mp50 from_mpf(const py::handle& h, const char* what) {
  const py::object mpmath = py::module_::import("mpmath");
  py::object v;
  try {
    v = mpmath.attr("mpf")(h);
  } catch (py::error_already_set& e) {
    throw std::runtime_error(std::string("returned ") + what + " with an entry mpmath.mpf cannot read (" + std::string(py::repr(h)) + ")");
  }
  if (!mpmath.attr("isfinite")(v).cast<bool>()) return std::numeric_limits<ngvi::mp50>::quiet_NaN();
  // man_exp is (|mantissa|, exponent): the sign is read apart.
  const py::tuple me = v.attr("man_exp");
  const ngvi::mp50 mag = boost::multiprecision::ldexp(ngvi::mp50(boost::multiprecision::cpp_int(py::str(me[0]).cast<std::string>())),
                                                      me[1].cast<int>());
  return v.attr("__lt__")(0).cast<bool>() ? ngvi::mp50(-mag) : mag;
}

// An mp50 vector or matrix as a numpy object array of mpmath.mpf (the implementation's to keep).
inline py::object to_numpy(const ngvi::Vec<ngvi::mp50>& v) {
  py::list l;
  for (Index i = 0; i < v.size(); ++i) l.append(to_mpf(v(i)));
  return py::module_::import("numpy").attr("array")(l, "dtype"_a = "object");
}
inline py::object to_numpy(const ngvi::Mat<ngvi::mp50>& m) {
  py::list rows;
  for (Index i = 0; i < m.rows(); ++i) {
    py::list r;
    for (Index j = 0; j < m.cols(); ++j) r.append(to_mpf(m(i, j)));
    rows.append(r);
  }
  py::object a = py::module_::import("numpy").attr("array")(rows, "dtype"_a = "object");
  if (m.rows() == 0) a = a.attr("reshape")(0, m.cols());
  return a;
}

// An array-like the implementation returned in an mp50 run, as mp50 values of the given shape (rank 1:
// (d,), rank 2: (d, d)); names the entry and the violated shape otherwise.
inline std::vector<ngvi::mp50> returned_mp50(const py::handle& h, int rank, Index d, const char* what) {
  py::object a;
  try {
    a = py::module_::import("numpy").attr("asarray")(h, "dtype"_a = "object");
  } catch (py::error_already_set&) {
    throw std::runtime_error(std::string("returned ") + what + " that is not convertible to an array");
  }
  const py::tuple shape = a.attr("shape");
  bool ok = static_cast<int>(shape.size()) == rank;
  for (std::size_t k = 0; ok && k < shape.size(); ++k) ok = shape[k].cast<Index>() == d;
  if (!ok) {
    const std::string want = rank == 1 ? "(" + std::to_string(d) + ",)" : "(" + std::to_string(d) + ", " + std::to_string(d) + ")";
    throw std::runtime_error(std::string("returned ") + what + " of shape " + std::string(py::repr(shape)) + ", expected " + want);
  }
  std::vector<ngvi::mp50> out;
  for (const py::handle x : a.attr("reshape")(-1).attr("tolist")()) out.push_back(from_mpf(x, what));
  return out;
}

// call_python under MpmathPrecision when Scalar is mp50 (a call that hands or reads mp50 values), as
// call_python alone in double.
template <class Scalar, class F>
auto call_python_in(Interrupt& interrupt, F&& call) -> decltype(call()) {
  return call_python(interrupt, [&] {
    std::optional<MpmathPrecision> prec;
    if constexpr (!std::is_same_v<Scalar, double>) prec.emplace();
    return call();
  });
}

// A vector (d,) or a square matrix (d, d) the implementation returned, in Scalar: read as float64 in
// double (returned_array), through mpmath.mpf and rounded once in mp50 (returned_mp50).
template <class Scalar>
ngvi::Vec<Scalar> returned_vector(const py::handle& h, Index d, const char* what) {
  if constexpr (std::is_same_v<Scalar, double>) {
    const auto a = returned_array(h, 1, d, what);
    return Eigen::Map<const ngvi::Vec<double>>(a.data(), d);
  } else {
    const auto a = returned_mp50(h, 1, d, what);
    return Eigen::Map<const ngvi::Vec<Scalar>>(a.data(), d);
  }
}
template <class Scalar>
ngvi::Mat<Scalar> returned_square(const py::handle& h, Index d, const char* what) {
  using RowMajor = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  if constexpr (std::is_same_v<Scalar, double>) {
    const auto a = returned_array(h, 2, d, what);
    return Eigen::Map<const RowMajor>(a.data(), d, d);
  } else {
    const auto a = returned_mp50(h, 2, d, what);
    return Eigen::Map<const RowMajor>(a.data(), d, d);
  }
}

// A protocol a Python object may implement: its name and version, and how an implementation object
// becomes the kit's value (a Variant whose protocol the accepting claims run). Each protocol's
// binding file registers one (ProtocolRegistrar at namespace scope); the object declares its
// protocol by a `protocol` attribute ("conjugate-ngd" when absent).
struct PyProtocol {
  std::string name;
  int version = 0;
  std::function<std::unique_ptr<ngvi::Variant>(const py::object& impl, const std::shared_ptr<Interrupt>& interrupt)> make;
  std::vector<std::string> precisions{"double"};  // the precisions its binding can run an implementation in
};
inline std::vector<PyProtocol>& py_protocols() {
  static std::vector<PyProtocol> all;
  return all;
}
struct ProtocolRegistrar {
  explicit ProtocolRegistrar(PyProtocol p) { py_protocols().push_back(std::move(p)); }
};

}  // namespace ngvi::python
