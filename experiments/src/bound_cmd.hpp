#pragma once
#include <CLI/CLI.hpp>

namespace ngvi::cli {
/// Registers `ngvi bound` (Lemma 3's sigma^2 and Theorem 1's bound for a user's regression data).
void add_bound(CLI::App& app, int* status);
}  // namespace ngvi::cli
