// JUnit XML writers (see ngvi/report/junit.hpp).
#include "ngvi/report/junit.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <map>
#include <stdexcept>

namespace ngvi::report {

std::string xml_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += (c < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') ? '?' : ch;
    }
  }
  return out;
}

namespace {

std::string num(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return fmt::format("{:.6g}", x);
}

/// One <testcase>: `result` is "" (pass), "failure", "error" or "skipped".
struct Case {
  std::string name, classname, result, message, body;
  double seconds = 0;
};

std::string record_line(const ClaimRecord& r) {
  return fmt::format("{} {} [{}] {}: lhs {} rhs {} margin {} {} {} {} verdict {}{}", r.claim, r.instance, r.precision,
                     to_string(r.kind), num(r.lhs), num(r.rhs), num(r.margin), r.unit,
                     r.form == Form::kDifference ? "resolution" : "tightness",
                     num(r.form == Form::kDifference ? r.resolution : r.tightness), to_string(r.verdict),
                     r.note.empty() ? "" : "; " + r.note);
}

void write_cases(const std::string& path, const std::string& suite_name, const std::map<std::string, std::vector<Case>>& by) {
  long tests = 0, failures = 0, errors = 0, skipped = 0;
  double seconds = 0;
  std::string suites;
  int id = 0;
  for (const auto& [suite, cases] : by) {
    long t = 0, f = 0, e = 0, s = 0;
    double secs = 0;
    std::string body;
    for (const auto& c : cases) {
      ++t;
      f += c.result == "failure";
      e += c.result == "error";
      s += c.result == "skipped";
      const double cs = std::isfinite(c.seconds) && c.seconds >= 0 ? c.seconds : 0.0;
      secs += cs;
      body += fmt::format("    <testcase name=\"{}\" classname=\"{}\" time=\"{:.6f}\"", xml_escape(c.name),
                          xml_escape(c.classname), cs);
      if (c.result.empty() && c.body.empty()) {
        body += "/>\n";
        continue;
      }
      body += ">\n";
      if (!c.result.empty())
        body += fmt::format("      <{0} message=\"{1}\" type=\"{2}\">{3}</{0}>\n", c.result, xml_escape(c.message),
                            c.result == "skipped" ? "skipped" : "ngvi." + c.result, xml_escape(c.body));
      if (c.result.empty() && !c.body.empty()) body += "      <system-out>" + xml_escape(c.body) + "</system-out>\n";
      body += "    </testcase>\n";
    }
    suites += fmt::format(
        "  <testsuite name=\"{}\" id=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{:.6f}\">\n{}  "
        "</testsuite>\n",
        xml_escape(suite), id++, t, f, e, s, secs, body);
    tests += t;
    failures += f;
    errors += e;
    skipped += s;
    seconds += secs;
  }
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write --junit file '" + path + "'");
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << fmt::format("<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" time=\"{:.6f}\">\n",
                     xml_escape(suite_name), tests, failures, errors, seconds);
  out << suites << "</testsuites>\n";
  out.close();
  if (!out) throw std::runtime_error("error while writing --junit file '" + path + "'");
  (void)skipped;
}

std::string case_name(const ClaimRecord& r) { return r.instance + " [" + r.precision + "] " + to_string(r.kind); }

}  // namespace

void write_junit_records(const std::string& path, const std::string& suite_name, const std::vector<ClaimRecord>& records) {
  std::map<std::string, std::vector<Case>> by;
  for (const auto& r : records) {
    Case c;
    c.name = case_name(r);
    c.classname = r.claim;
    c.seconds = r.seconds;
    c.body = record_line(r);
    switch (outcome(r)) {
      case Outcome::kPass: break;
      case Outcome::kFail:
        c.result = r.verdict == Verdict::kError ? "error" : "failure";
        c.message = r.verdict == Verdict::kError ? "non-finite lhs, rhs or margin"
                    : r.kind == Kind::kClaim     ? "claim " + to_string(r.verdict)
                                                 : "negative control " + to_string(r.verdict) + " (must be broken)";
        break;
      case Outcome::kVacuous:
        c.result = "skipped";
        c.message = r.form == Form::kDifference
                        ? "vacuous: resolution " + num(r.resolution) + " at least " + num(kCoarsestResolution) + " (not evidence)"
                        : "vacuous: tightness " + num(r.tightness) + " below " + num(kVacuousTightness) + " (not evidence)";
        break;
      case Outcome::kSkipped:
        c.result = "skipped";
        c.message = r.note.empty() ? "skipped" : r.note;
        break;
    }
    by[r.claim].push_back(std::move(c));
  }
  write_cases(path, suite_name, by);
}

void write_junit_comparison(const std::string& path, const std::string& suite_name, const Comparison& comparison) {
  std::map<std::string, std::vector<Case>> by;
  for (const auto& rc : comparison.rows) {
    const ClaimRecord& r = rc.has_new ? rc.new_record : rc.old_record;
    Case c;
    c.name = case_name(r);
    c.classname = rc.claim;
    c.seconds = rc.has_new ? rc.new_record.seconds : 0.0;
    c.body = (rc.has_old ? "old: " + record_line(rc.old_record) + "\n" : std::string()) +
             (rc.has_new ? "new: " + record_line(rc.new_record) : std::string());
    if (rc.change == Change::kRegression || rc.change == Change::kMissing) {
      c.result = "failure";
      c.message = to_string(rc.change) + ": " + rc.what;
    } else if (rc.has_new && outcome(rc.new_record) == Outcome::kFail) {
      c.result = rc.new_record.verdict == Verdict::kError ? "error" : "failure";
      c.message = "fails in both runs: " + to_string(rc.new_record.verdict);
    }
    by[rc.claim].push_back(std::move(c));
  }
  write_cases(path, suite_name, by);
}

}  // namespace ngvi::report
