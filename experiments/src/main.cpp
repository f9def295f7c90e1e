// ngvi: the ngvikit command. Subcommands register themselves on the CLI11 app; any error is reported
// as exactly one line "ngvi[ <subcommand>]: <message>" on stderr with a non-zero exit status
// (2 for a usage error, 1 for a failure while running).
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "cli_common.hpp"
#include "bound_cmd.hpp"
#include "diff_cmd.hpp"
#include "experiment.hpp"
#include "mpi_group.hpp"
#include "verify.hpp"

namespace { namespace NGVI_UNITY_ID {

/// The error text on one line: line breaks become "; ", trailing blanks are dropped.
std::string one_line(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  std::string out;
  for (char c : s) {
    if (c == '\n') out += "; ";
    else if (c != '\r') out += c;
  }
  return out;
}

int fail(const std::string& prefix, const std::string& what, int code) {
  fmt::print(stderr, "{}: {}\n", prefix, one_line(what));
  return code;
}

}}  // namespace

int main(int argc, char** argv) {
  // Under mpirun every rank runs the same commands (replicates are split inside run_replicates);
  // only rank 0 prints and writes files.
  struct MpiSession {
    MpiSession(int* c, char*** v) {
      if (ngvi::cli::distributed_init(c, v) != 0 && std::freopen("/dev/null", "w", stdout) == nullptr) std::abort();
    }
    ~MpiSession() { ngvi::cli::distributed_finalize(); }
  } mpi(&argc, &argv);
  ngvi::cli::set_command_line(argc, argv);
  CLI::App app{"ngvi: executable, verified theory of natural-gradient variational inference"};
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", ngvi::cli::version_text(), "Print the kit version, commit, build type, compiler and flags, then exit");
  int status = 0;
  ngvi::cli::add_verify(app, &status);
  ngvi::cli::add_run(app, &status);
  ngvi::cli::add_report(app, &status);
  ngvi::cli::add_bound(app, &status);
  ngvi::cli::add_diff(app, &status);
  ngvi::cli::add_merge(app, &status);
  app.allow_extras();  // set after the subcommands, which keep rejecting unknown arguments
  app.callback([&app] {
    if (app.remaining_size() > 0)
      throw ngvi::cli::UsageError("unknown command or option '" + app.remaining().front() + "' (known commands: verify, run, report, bound, diff, merge)");
    if (app.get_subcommands().empty()) throw ngvi::cli::UsageError("name a command: verify, run, report, bound, diff or merge (see ngvi --help)");
  });
  std::string prefix = "ngvi";
  if (argc > 1) {
    const std::string first = argv[1];
    for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; }))
      if (sub->get_name() == first) prefix += " " + first;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return NGVI_UNITY_ID::fail(prefix, e.what(), 2);
  } catch (const ngvi::cli::UsageError& e) {
    return NGVI_UNITY_ID::fail(prefix, e.what(), 2);
  } catch (const std::exception& e) {
    return NGVI_UNITY_ID::fail(prefix, e.what(), 1);
  } catch (...) {
    return NGVI_UNITY_ID::fail(prefix, "unknown error", 1);
  }
  return status;
}
