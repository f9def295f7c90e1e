#pragma once
#include <CLI/CLI.hpp>

namespace ngvi::cli {
/// Registers `ngvi verify` on the app; the callback stores its exit code in *status.
void add_verify(CLI::App& app, int* status);
}  // namespace ngvi::cli
