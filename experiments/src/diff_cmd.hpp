#pragma once
#include <CLI/CLI.hpp>

#include "ngvi/report/compare.hpp"

namespace ngvi::cli {
/// Registers `ngvi diff OLD.json NEW.json` on the app; the callback stores its exit code in *status.
void add_diff(CLI::App& app, int* status);
/// Registers `ngvi merge PART... --json OUT` (merge_cmd.cpp): the shards of a sharded run joined.
void add_merge(CLI::App& app, int* status);
/// Prints a comparison's changes: each regression (and missing record) as "REGRESSION ..." on
/// stderr, improvements ("IMPROVEMENT ...") and new records ("NEW ...") on stdout.
void print_changes(const report::Comparison& c);
}  // namespace ngvi::cli
