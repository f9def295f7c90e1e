// Comparison of two claim runs and its HTML page (see ngvi/report/compare.hpp).
#include "ngvi/report/compare.hpp"

#include <fmt/format.h>
#include <fnmatch.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "ngvi/report/html_report.hpp"

namespace ngvi::report {

double MarginTolerance::for_unit(const std::string& unit) const {
  const auto it = per_unit.find(unit);
  return it == per_unit.end() ? default_fraction : it->second;
}

void parse_margin_tolerance(const std::string& text, MarginTolerance* tol) {
  const auto eq = text.find('=');
  std::string unit = eq == std::string::npos ? std::string() : text.substr(0, eq);
  const std::string value = eq == std::string::npos ? text : text.substr(eq + 1);
  if (eq != std::string::npos && unit.empty())
    throw std::invalid_argument("--margin-tolerance '" + text + "': the unit before '=' is empty (write plain=F for plain values)");
  std::size_t used = 0;
  double f = 0;
  try {
    f = std::stod(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != value.size())
    throw std::invalid_argument("--margin-tolerance '" + text + "': '" + value + "' is not a number");
  if (!(f >= 0 && f <= 1)) throw std::invalid_argument("--margin-tolerance '" + text + "': the fraction must lie in [0, 1]");
  if (eq == std::string::npos) {
    tol->default_fraction = f;
    return;
  }
  if (unit == "plain") unit.clear();
  tol->per_unit[unit] = f;
}

std::string to_string(Change c) {
  switch (c) {
    case Change::kUnchanged: return "unchanged";
    case Change::kRegression: return "regression";
    case Change::kImprovement: return "improvement";
    case Change::kNew: return "new";
    case Change::kMissing: return "missing";
  }
  return "unchanged";
}

bool selection_matches(const std::string& selection, const std::string& id) {
  if (selection.empty()) return true;
  std::stringstream ss(selection);
  for (std::string g; std::getline(ss, g, ',');)
    if (!g.empty() && fnmatch(g.c_str(), id.c_str(), 0) == 0) return true;
  return false;
}

namespace {

std::string num(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return fmt::format("{:.4g}", x);
}

std::string joined(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

using Key = std::tuple<std::string, std::string, std::string>;

/// Records by (claim, instance, precision); a key repeated within one file gets "#2", "#3", ... on
/// its instance, in file order, so that no record is lost to a collision.
std::map<Key, const ClaimRecord*> index(const std::vector<ClaimRecord>& recs) {
  std::map<Key, const ClaimRecord*> out;
  for (const auto& r : recs) {
    Key k{r.claim, r.instance, r.precision};
    for (int n = 2; out.count(k); ++n) k = Key{r.claim, r.instance + "#" + std::to_string(n), r.precision};
    out[k] = &r;
  }
  return out;
}

std::string outcome_word(const ClaimRecord& r) {
  switch (outcome(r)) {
    case Outcome::kPass: return to_string(r.verdict);
    case Outcome::kFail: return to_string(r.verdict) + " (failing)";
    case Outcome::kVacuous: return "vacuous";
    case Outcome::kSkipped: return "skipped";
  }
  return "";
}

void judge(RecordChange* c, const MarginTolerance& tol) {
  const ClaimRecord& o = c->old_record;
  const ClaimRecord& n = c->new_record;
  if (o.kind != n.kind) {
    c->change = Change::kRegression;
    c->what = "kind changed: " + to_string(o.kind) + " -> " + to_string(n.kind);
    return;
  }
  const Outcome a = outcome(o), b = outcome(n);
  const std::string verdicts = "verdict " + outcome_word(o) + " -> " + outcome_word(n);
  if (a == Outcome::kPass && b != Outcome::kPass) {
    c->change = Change::kRegression;
    const std::string why = n.form == Form::kDifference ? "resolution " + num(n.resolution) : "tightness " + num(n.tightness);
    c->what = verdicts + (b == Outcome::kVacuous ? " (no longer evidence, " + why + ")" : "");
    return;
  }
  // A claim inequality that was vacuous (lhs/rhs < kVacuousTightness) and holds now is an improvement
  // of the evidence when its bound came down towards the measured side, not when the measured side
  // went up towards the bound: an implementation with a larger error (a worse estimator, a variant
  // against the library) makes the same bound look tighter. Tightness = lhs/rhs rose by
  // (n.lhs/o.lhs)·(o.rhs/n.rhs); it counts as an improvement when the bound's factor o.rhs/n.rhs is
  // the larger of the two (or the measured side did not grow), else the row is a neutral change.
  if (a == Outcome::kVacuous && b == Outcome::kPass && n.kind == Kind::kClaim && n.form == Form::kInequality &&
      n.lhs > o.lhs) {
    const bool bound_moved_more = o.lhs > 0 && n.rhs > 0 && o.rhs / n.rhs > n.lhs / o.lhs;
    if (!bound_moved_more) {
      c->change = Change::kUnchanged;
      c->what = fmt::format("{}: the measured side grew {} -> {} against a bound {} -> {} {} (a larger left side, "
                            "not a tighter bound: not an improvement)",
                            verdicts, num(o.lhs), num(n.lhs), num(o.rhs), num(n.rhs), n.unit);
      return;
    }
  }
  if (a != Outcome::kPass && b == Outcome::kPass) {
    c->change = Change::kImprovement;
    c->what = verdicts;
    return;
  }
  if (a != Outcome::kFail && b == Outcome::kFail) {
    c->change = Change::kRegression;
    c->what = verdicts;
    return;
  }
  if (a == Outcome::kFail && b != Outcome::kFail) {
    c->change = Change::kImprovement;
    c->what = verdicts + " (no longer failing)";
    return;
  }
  if (a != b) {  // vacuous <-> skipped: neither is evidence
    c->change = Change::kUnchanged;
    c->what = verdicts;
    return;
  }
  if (a == Outcome::kPass && n.kind == Kind::kClaim) {
    if (o.unit != n.unit) {
      c->change = Change::kRegression;
      c->what = "unit changed: '" + o.unit + "' -> '" + n.unit + "' (margins not comparable)";
      return;
    }
    const double f = tol.for_unit(n.unit);
    if (!(n.margin >= o.margin - f * std::fabs(o.margin))) {
      c->change = Change::kRegression;
      c->what = fmt::format("margin shrank {} -> {} {} (tolerance {} of |baseline margin| for unit '{}')", num(o.margin),
                            num(n.margin), n.unit, f, n.unit.empty() ? "plain" : n.unit);
      return;
    }
  }
  c->change = Change::kUnchanged;
}

}  // namespace

std::vector<std::string> meta_differences(const RunMeta& b, const RunMeta& n, const std::pair<const char*, const char*>& labels) {
  const auto [lb, ln] = labels;
  std::vector<std::string> d;
  if (b.seed != n.seed) d.push_back(fmt::format("seed {} ({}) vs {} ({})", b.seed, lb, n.seed, ln));
  if (!b.mode.empty() && !n.mode.empty() && b.mode != n.mode)
    d.push_back(fmt::format("mode {} ({}) vs {} ({})", b.mode, lb, n.mode, ln));
  if (!b.precisions.empty() && !n.precisions.empty() && joined(b.precisions) != joined(n.precisions))
    d.push_back(fmt::format("precisions {} ({}) vs {} ({})", joined(b.precisions), lb, joined(n.precisions), ln));
  if (!b.claims.empty() && !n.claims.empty() && b.claims != n.claims)
    d.push_back(fmt::format("claim selection '{}' ({}) vs '{}' ({})", b.claims, lb, n.claims, ln));
  // Records of another implementation are not a baseline of this one (an older file reads as the
  // library's algorithm or its variant: RunMeta::implementation).
  if (b.implementation != n.implementation || b.implementation_version != n.implementation_version)
    d.push_back(fmt::format("implementation {} ({}) vs {} ({})", describe_implementation(b), lb, describe_implementation(n), ln));
  else if (b.protocol != n.protocol || b.protocol_version != n.protocol_version)
    d.push_back(fmt::format("protocol {} v{} ({}) vs {} v{} ({})", b.protocol, b.protocol_version, lb, n.protocol, n.protocol_version, ln));
  return d;
}

Comparison compare_runs(const std::vector<ClaimRecord>& baseline, const std::vector<ClaimRecord>& now,
                        const RunMeta& now_meta, const MarginTolerance& tol) {
  const auto old_ix = index(baseline);
  const auto new_ix = index(now);
  // Precisions in scope: those the new run asked for, and those it produced (a claim may record in
  // a precision of its own, e.g. interval certificates in mpfi50 next to the double records).
  std::set<std::string> precisions(now_meta.precisions.begin(), now_meta.precisions.end());
  for (const auto& r : now) precisions.insert(r.precision);
  Comparison c;
  std::set<Key> keys;
  for (const auto& [k, r] : old_ix) keys.insert(k);
  for (const auto& [k, r] : new_ix) keys.insert(k);
  for (const auto& k : keys) {
    const auto io = old_ix.find(k);
    const auto in = new_ix.find(k);
    RecordChange rc;
    std::tie(rc.claim, rc.instance, rc.precision) = k;
    if (io != old_ix.end()) {
      rc.has_old = true;
      rc.old_record = *io->second;
    }
    if (in != new_ix.end()) {
      rc.has_new = true;
      rc.new_record = *in->second;
    }
    if (rc.has_old && rc.has_new) {
      ++c.compared;
      judge(&rc, tol);
    } else if (rc.has_new) {
      rc.change = Change::kNew;
      rc.what = "new record: " + outcome_word(rc.new_record);
    } else {
      const bool precision_in = now_meta.precisions.empty() || precisions.count(rc.precision) > 0;
      if (!precision_in || !selection_matches(now_meta.claims, rc.claim)) {
        ++c.out_of_scope;
        continue;
      }
      rc.change = Change::kMissing;
      rc.what = "missing from the new run (baseline: " + outcome_word(rc.old_record) + ")";
    }
    c.regressions += rc.change == Change::kRegression || rc.change == Change::kMissing;
    c.improvements += rc.change == Change::kImprovement;
    c.added += rc.change == Change::kNew;
    c.missing += rc.change == Change::kMissing;
    c.rows.push_back(std::move(rc));
  }
  return c;
}

std::vector<ClaimDiffSummary> summarize_by_claim(const Comparison& c) {
  std::map<std::string, ClaimDiffSummary> by;
  auto tally = [](const ClaimRecord& r, long* records, long* pass, long* fail, long* vac, long* skip, double* min_rel,
                  double* max_t) {
    ++*records;
    const Outcome o = outcome(r);
    *pass += o == Outcome::kPass;
    *fail += o == Outcome::kFail;
    *vac += o == Outcome::kVacuous;
    *skip += o == Outcome::kSkipped;
    if (r.kind != Kind::kClaim) return;
    if (std::isfinite(r.margin) && std::isfinite(r.rhs) && r.rhs != 0) {
      const double rel = r.margin / std::fabs(r.rhs);
      if (!(rel >= *min_rel)) *min_rel = rel;
    }
    if (std::isfinite(r.tightness) && !(r.tightness <= *max_t)) *max_t = r.tightness;
  };
  for (const auto& rc : c.rows) {
    auto [it, fresh] = by.try_emplace(rc.claim);
    auto& s = it->second;
    if (fresh) {
      s.claim = rc.claim;
      s.old_min_rel_margin = s.new_min_rel_margin = s.old_max_tightness = s.new_max_tightness = std::nan("");
    }
    if (rc.has_old)
      tally(rc.old_record, &s.old_records, &s.old_pass, &s.old_fail, &s.old_vacuous, &s.old_skipped, &s.old_min_rel_margin,
            &s.old_max_tightness);
    if (rc.has_new)
      tally(rc.new_record, &s.new_records, &s.new_pass, &s.new_fail, &s.new_vacuous, &s.new_skipped, &s.new_min_rel_margin,
            &s.new_max_tightness);
    s.regressions += rc.change == Change::kRegression || rc.change == Change::kMissing;
    s.improvements += rc.change == Change::kImprovement;
    s.added += rc.change == Change::kNew;
    s.missing += rc.change == Change::kMissing;
  }
  std::vector<ClaimDiffSummary> out;
  for (auto& [id, s] : by) out.push_back(s);
  return out;
}

void write_diff_html(const std::string& path, const Comparison& c, const std::string& old_path, const RunMeta& old_meta,
                     const std::string& new_path, const RunMeta& new_meta, const std::vector<std::string>& meta_diffs) {
  auto e = [](const std::string& s) { return html_escape(s); };
  auto arrow = [](const std::string& a, const std::string& b) {
    return a == b ? a : a + " &rarr; <b>" + b + "</b>";
  };
  std::string h =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>ngvi diff</title>\n<style>\n"
      "body{font-family:-apple-system,\"Segoe UI\",Helvetica,Arial,sans-serif;margin:1.5em auto;max-width:1360px;"
      "color:#222;line-height:1.4;padding:0 1em}\n"
      "table{border-collapse:collapse;margin:.6em 0;font-size:.86em;width:100%;table-layout:auto}"
      "th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top;overflow-wrap:anywhere}\n"
      "th{background:#f3f3f3}td.n{text-align:right;font-family:monospace}\n"
      ".regression td{background:#fde8e8}.improvement td{background:#e6f4ea}.new td{background:#eef3fb}"
      ".missing td{background:#fde8e8}.summary{font-size:1.1em;padding:.6em;border-radius:4px}"
      ".pass{background:#e6f4ea}.failbox{background:#fde8e8}.warn{background:#fff4ce;padding:.5em;border-radius:4px}\n"
      "</style>\n</head>\n<body>\n<h1>ngvi diff</h1>\n";
  const bool bad = c.regressed() || c.nothing_compared();
  h += fmt::format(
      "<p class=\"summary {}\">{}: {} record(s) compared, {} regression(s) (of which {} missing), {} improvement(s), "
      "{} new, {} baseline record(s) outside the new run's selection.</p>\n",
      bad ? "failbox" : "pass", c.nothing_compared() ? "NOTHING COMPARED" : (c.regressed() ? "REGRESSION" : "NO REGRESSION"),
      c.compared, c.regressions, c.missing, c.improvements, c.added, c.out_of_scope);
  for (const auto& d : meta_diffs) h += "<p class=\"warn\">The runs differ in " + e(d) + ".</p>\n";
  h += "<p>Old: " + e(describe_implementation(old_meta)) + "; new: " + e(describe_implementation(new_meta)) + ".</p>\n";
  h += "<table>\n<tr><th></th><th>file</th><th>commit</th><th>seed</th><th>mode</th><th>precisions</th><th>claims</th>"
       "<th>started</th></tr>\n";
  for (const auto& [label, p, m] : {std::tuple<const char*, const std::string&, const RunMeta&>{"old", old_path, old_meta},
                                    std::tuple<const char*, const std::string&, const RunMeta&>{"new", new_path, new_meta}})
    h += fmt::format("<tr><td>{}</td><td><code>{}</code></td><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td>"
                     "<td><code>{}</code></td><td>{}</td></tr>\n",
                     label, e(p), e(m.commit), m.seed, e(m.mode), e(joined(m.precisions)), e(m.claims), e(m.started));
  h += "</table>\n<h2>Per claim (old &rarr; new)</h2>\n<p><small>evidence: claim records that hold and controls that "
       "are broken; smallest relative margin: min over claim records of margin/|rhs| (unitless, so records in eps and "
       "plain units compare); largest tightness: max lhs/rhs of the claim's inequality records.</small></p>\n";
  h += "<table>\n<tr><th>claim</th><th>records</th><th>evidence</th><th>failing</th><th>vacuous</th><th>skipped</th>"
       "<th>smallest relative margin</th><th>largest tightness</th><th>regressions</th><th>improvements</th><th>new</th></tr>\n";
  for (const auto& s : summarize_by_claim(c)) {
    const char* cls = s.regressions ? " class=\"regression\"" : (s.improvements ? " class=\"improvement\"" : "");
    h += fmt::format(
        "<tr{}><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>"
        "<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>"
        "<td class=\"n\">{}</td></tr>\n",
        cls, e(s.claim), arrow(std::to_string(s.old_records), std::to_string(s.new_records)),
        arrow(std::to_string(s.old_pass), std::to_string(s.new_pass)), arrow(std::to_string(s.old_fail), std::to_string(s.new_fail)),
        arrow(std::to_string(s.old_vacuous), std::to_string(s.new_vacuous)),
        arrow(std::to_string(s.old_skipped), std::to_string(s.new_skipped)),
        arrow(num(s.old_min_rel_margin), num(s.new_min_rel_margin)), arrow(num(s.old_max_tightness), num(s.new_max_tightness)),
        s.regressions, s.improvements, s.added);
  }
  h += "</table>\n<h2>Changed records</h2>\n";
  long changed = 0;
  std::string rows;
  for (const auto& rc : c.rows) {
    if (rc.change == Change::kUnchanged && rc.what.empty()) continue;
    ++changed;
    auto side = [](bool has, const ClaimRecord& r, double ClaimRecord::*f) { return has ? num(r.*f) : std::string("&mdash;"); };
    rows += fmt::format(
        "<tr class=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>"
        "<td>{}</td><td>{}</td></tr>\n",
        to_string(rc.change), e(rc.claim), e(rc.instance), e(rc.precision), to_string(rc.change),
        arrow(side(rc.has_old, rc.old_record, &ClaimRecord::margin), side(rc.has_new, rc.new_record, &ClaimRecord::margin)),
        arrow(side(rc.has_old, rc.old_record, &ClaimRecord::tightness), side(rc.has_new, rc.new_record, &ClaimRecord::tightness)),
        e(rc.has_new ? rc.new_record.unit : rc.old_record.unit), e(rc.what));
  }
  if (changed == 0) h += "<p>No record changed.</p>\n";
  else
    h += "<table>\n<tr><th>claim</th><th>instance</th><th>precision</th><th>change</th><th>margin</th><th>tightness</th>"
         "<th>unit</th><th>what</th></tr>\n" + rows + "</table>\n";
  h += "</body>\n</html>\n";
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write '" + path + "'");
  out << h;
  out.close();
  if (!out) throw std::runtime_error("error while writing '" + path + "'");
}

}  // namespace ngvi::report
