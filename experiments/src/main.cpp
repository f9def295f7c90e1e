// ngvi: the ngvikit command. Subcommands register themselves on the CLI11 app; any error is reported
// as one line on stderr with a non-zero exit status.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <exception>

#include "cli_common.hpp"
#include "verify.hpp"

int main(int argc, char** argv) {
  CLI::App app{"ngvi: executable, verified theory of natural-gradient variational inference"};
  app.require_subcommand(1);
  int status = 0;
  ngvi::cli::add_verify(app, &status);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "ngvi: {}\n", e.what());
    return 2;
  } catch (const ngvi::cli::UsageError& e) {
    fmt::print(stderr, "ngvi: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "ngvi: {}\n", e.what());
    return 1;
  }
  return status;
}
