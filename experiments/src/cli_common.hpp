#pragma once
// Shared pieces of the ngvi command: the one-line error type and provenance helpers.
#include <stdexcept>
#include <string>

namespace ngvi::cli {

/// An error the CLI reports as one line "ngvi <subcommand>: <message>" and exit status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The git commit of the source tree the binary was built from ("unknown" outside a checkout).
std::string git_commit();
/// Current UTC time, ISO 8601.
std::string utc_now();
/// The command line of this process ("ngvi verify --full ..."), set once by main.
void set_command_line(int argc, char** argv);
const std::string& command_line();

}  // namespace ngvi::cli
