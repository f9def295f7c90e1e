#pragma once
/// @file
/// JUnit XML for CI systems: one <testsuite> per claim, one <testcase> per record, in the common
/// JUnit schema (testsuites/testsuite/testcase with failure, error and skipped children), so that
/// a CI system shows claims like tests. Implemented in lib/src/junit.cpp.
///
/// Records (`ngvi verify --junit`): a record of evidence passes; a claim broken or a control that
/// holds is a <failure>; a verdict `error` is an <error>; `vacuous` and `skipped` are <skipped>
/// with the reason (not evidence, not a failure).
/// Comparison (`ngvi diff --junit`): a regression or a missing record is a <failure>, an unchanged
/// record that fails in the new run too is a <failure>, every other record passes.
#include <string>
#include <vector>

#include "ngvi/report/compare.hpp"
#include "ngvi/report/record.hpp"

namespace ngvi::report {

/// @throws std::runtime_error naming the path if it cannot be written.
void write_junit_records(const std::string& path, const std::string& suite_name, const std::vector<ClaimRecord>& records);

/// @throws std::runtime_error naming the path if it cannot be written.
void write_junit_comparison(const std::string& path, const std::string& suite_name, const Comparison& comparison);

/// Escapes &, <, >, " and ' for XML text and attributes, and replaces characters XML 1.0 cannot
/// carry (control characters other than tab, newline and carriage return) by '?'.
std::string xml_escape(const std::string& text);

}  // namespace ngvi::report
