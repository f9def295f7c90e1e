// Build provenance of the ngvi command: the generated header (cmake/build_info.cmake) fixes the
// commit, dirty flag, build type and flags when the binary is built.
#include <fmt/core.h>

#include "cli_common.hpp"
#include "ngvi/report/record.hpp"
#include "ngvi_build_info.hpp"

namespace ngvi::cli {

std::string git_commit() { return NGVI_BUILD_COMMIT; }

std::string version_text() {
  return fmt::format("ngvi (ngvikit) {}\ncommit {}{}\nbuild type {}\ncompiler {}\nflags {}", NGVI_BUILD_VERSION,
                     NGVI_BUILD_COMMIT, NGVI_BUILD_DIRTY ? " (dirty: tracked files differed from the commit at build time)" : "",
                     NGVI_BUILD_TYPE, report::compiler_id(), NGVI_BUILD_FLAGS);
}

report::Provenance build_provenance() {
  report::Provenance p;
  p.kit_version = NGVI_BUILD_VERSION;
  p.commit = NGVI_BUILD_COMMIT;
  p.dirty = NGVI_BUILD_DIRTY;
  p.build_type = NGVI_BUILD_TYPE;
  p.compiler = report::compiler_id();
  p.cxx_flags = NGVI_BUILD_FLAGS;
  p.cpu_model = report::cpu_model();
  p.libraries = report::library_versions();
  return p;
}

}  // namespace ngvi::cli
