#pragma once
/// @file
/// What every protocol runner shares (protocol_ngd.hpp, protocol_svi_lda.hpp, protocol_lsk_update.hpp):
///
///   ImplementationError       an implementation given as a value broke its protocol: it threw, or
///                             returned what the protocol does not allow. Not a StepFailure: it leaves
///                             the claim, which claims::run_claim writes as its one error record;
///   throw_implementation_error  throws one, worded "<protocol> call '<call>' at step t = <t> of
///                             implementation '<name>': <what>" (no step for t < 0);
///   start_trajectory          impl.start(problem), with an ImplementationError naming the call 'start'
///                             when the implementation has no start, its start throws, or the
///                             trajectory it returns lacks the protocol's required function;
///   protocol_variant          the Variant that carries an implementation given as a value, filed
///                             as a system's parts under one part bit;
///   protocol_implementation   the implementation a variant carries under that bit, or null.
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "ngvi/optim/variant.hpp"

namespace ngvi {

/// An implementation given as a value broke its protocol (see the file comment).
class ImplementationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// @throws ImplementationError "<protocol> call '<call>'[ at step t = <t>] of implementation '<name>': <what>".
[[noreturn]] inline void throw_implementation_error(const char* protocol, const std::string& name, const char* call, long t,
                                                    const std::string& what) {
  std::string where = std::string(protocol) + " call '" + call + "'";
  if (t >= 0) where += " at step t = " + std::to_string(t);
  throw ImplementationError(where + " of implementation '" + name + "': " + what);
}

/// One trajectory of `impl` on `problem`: impl.start(problem), checked to hold `required` (the
/// trajectory's member function the protocol needs, named `required_name` in the error).
/// @throws ImplementationError naming the call 'start' (see the file comment).
template <class Impl, class Problem, class Member>
auto start_trajectory(const char* protocol, const Impl& impl, const Problem& problem, Member required, const char* required_name) {
  if (!impl.start) throw_implementation_error(protocol, impl.name, "start", -1, "the implementation has no start function");
  decltype(impl.start(problem)) traj;
  try {
    traj = impl.start(problem);
  } catch (const std::exception& e) {
    throw_implementation_error(protocol, impl.name, "start", -1, std::string("threw: ") + e.what());
  }
  if (!(traj.*required))
    throw_implementation_error(protocol, impl.name, "start", -1, std::string("returned a trajectory without a ") + required_name + " function");
  return traj;
}

/// A variant that is a whole implementation of `protocol` v`version` (its claims run it in double):
/// named and versioned as the implementation, `impl` filed under `part`; `what` words the default
/// description ("an online-LDA implementation").
template <class Impl>
Variant protocol_variant(Impl impl, VariantPart part, const char* protocol, int version, const std::string& what, std::string description) {
  Variant v;
  v.name = impl.name;
  v.version = impl.version;
  v.description = description.empty() ? what + " given as a value (protocol " + protocol + " v" + std::to_string(version) + ")" : std::move(description);
  v.protocol = protocol;
  v.set_system_parts(part, std::make_shared<const Impl>(std::move(impl)));
  return v;
}

/// The implementation of type Impl that `v` carries under `part`, or null; notes a read of `part`.
template <class Impl>
const Impl* protocol_implementation(const Variant* v, VariantPart part) {
  const auto* p = system_parts_for<std::shared_ptr<const Impl>>(v, part);
  return p != nullptr ? p->get() : nullptr;
}

}  // namespace ngvi
