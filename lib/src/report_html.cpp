#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

#include "ngvi/report/html_report.hpp"
#include "ngvi/report/kill_matrix.hpp"
#include "ngvi/report/record.hpp"
#include "ngvi/report/run_record.hpp"
#include "json_io.hpp"

namespace fs = std::filesystem;

namespace ngvi::report {

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

double tightness_from_note(const std::string& note) {
  static const std::regex re(R"(tightness(?: ratio)?\s*[=:]?\s*([-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?))",
                             std::regex::icase);
  std::smatch m;
  if (std::regex_search(note, m, re)) return std::strtod(m[1].str().c_str(), nullptr);
  return std::nan("");
}

namespace {

std::string num(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return fmt::format("{:.4g}", x);
}

/// An abscissa such as an iteration count: integers in full, other values like num().
std::string xnum(double x) {
  if (std::isfinite(x) && x == std::floor(x) && std::fabs(x) < 1e15) return fmt::format("{:.0f}", x);
  return num(x);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string gnuplot_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

std::string file_safe(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c : '_';
  return out;
}

/// Locates the gnuplot executable: a path is checked as given, a bare name is looked up on PATH.
bool find_executable(const std::string& name, std::string* found) {
  if (name.find('/') != std::string::npos) {
    if (access(name.c_str(), X_OK) == 0) {
      *found = name;
      return true;
    }
    return false;
  }
  const char* path = std::getenv("PATH");
  std::stringstream ss(path ? path : "");
  for (std::string dir; std::getline(ss, dir, ':');) {
    if (dir.empty()) continue;
    const std::string candidate = dir + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) {
      *found = candidate;
      return true;
    }
  }
  return false;
}

/// Runs `exe script` in `cwd`; returns "" on success, else the first line of its output.
std::string run_gnuplot(const std::string& exe, const std::string& cwd, const std::string& script) {
  const std::string cmd = "cd " + shell_quote(cwd) + " && " + shell_quote(exe) + " " + shell_quote(script) + " 2>&1";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  if (!pipe) return "cannot start '" + exe + "'";
  std::string out;
  std::array<char, 512> buf{};
  while (fgets(buf.data(), buf.size(), pipe.get()) != nullptr) out += buf.data();
  const int status = pclose(pipe.release());
  if (status == 0) return "";
  std::string first = out.substr(0, out.find('\n'));
  if (first.empty()) first = fmt::format("exit status {}", WIFEXITED(status) ? WEXITSTATUS(status) : status);
  return first;
}

/// The y values of one series at one x, over the seeds (rows) that recorded it.
struct SeriesCurve {
  std::map<double, std::vector<double>> by_x;                     // x -> y over rows
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> by_seed;  // seed -> (x, y)
};

struct FigureData {
  std::vector<std::string> series;  // in order of first appearance
  std::map<std::string, SeriesCurve> curves;
  long non_finite = 0;
  std::vector<std::pair<double, double>> marks;  // (x, y) of the rows marked by PlotSpec::mark_column
};

FigureData collect(const TraceTable& t, const PlotSpec& p) {
  const std::size_t cx = t.column(p.x);
  const std::size_t cy = t.column(p.y);
  const bool has_series = !p.series.empty();
  const std::size_t cs = has_series ? t.column(p.series) : 0;
  std::size_t cseed = t.columns.size();
  for (std::size_t i = 0; i < t.columns.size(); ++i)
    if (t.columns[i] == "seed") cseed = i;
  const std::size_t cmark = p.mark_column.empty() ? t.columns.size() : t.column(p.mark_column);
  FigureData f;
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    const std::string s = has_series ? t.rows[r][cs] : p.y;
    const double x = t.number(r, cx);
    const double y = t.number(r, cy);
    if (!f.curves.count(s)) f.series.push_back(s);
    auto& c = f.curves[s];
    if (!std::isfinite(x) || !std::isfinite(y)) {
      ++f.non_finite;
      continue;
    }
    c.by_x[x].push_back(y);
    if (cmark < t.columns.size() && t.number(r, cmark) != 0) f.marks.emplace_back(x, y);
    const std::string seed = cseed < t.columns.size() ? t.rows[r][cseed] : "0";
    c.by_seed[seed].first.push_back(x);
    c.by_seed[seed].second.push_back(y);
  }
  return f;
}

double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (double y : v) s += y;
  return s / static_cast<double>(v.size());
}

/// The seed-averaged y of each series at x = 1, 10, 100, … and at the last x (the values behind
/// statements such as "lower KL after 100 iterations"), with the number of seeds at each point.
/// When a series ends before the last x (a run that diverged, or one that reads fewer data for the
/// same sweeps), a last column gives each series' value at its own last x, and that x.
std::string checkpoint_table(const FigureData& f, const PlotSpec& p, const std::set<double>& xs) {
  if (xs.empty()) return "";
  std::vector<double> cps;
  for (double c = 1; c < *xs.rbegin(); c *= 10)
    if (xs.count(c)) cps.push_back(c);
  cps.push_back(*xs.rbegin());
  bool ends_early = false;
  for (const auto& s : f.series) {
    const auto& c = f.curves.at(s).by_x;
    if (!c.empty() && c.rbegin()->first < *xs.rbegin()) ends_early = true;
  }
  std::string h = fmt::format("<table>\n<tr><th>{} (mean over seeds) at {} =</th>", html_escape(p.y), html_escape(p.x));
  for (double c : cps) h += fmt::format("<th>{}</th>", xnum(c));
  if (ends_early) h += fmt::format("<th>at the series' own last {}</th>", html_escape(p.x));
  h += "</tr>\n";
  for (const auto& s : f.series) {
    h += fmt::format("<tr><td>{}</td>", html_escape(s));
    const auto& c = f.curves.at(s).by_x;
    for (double x : cps) {
      const auto it = c.find(x);
      h += it == c.end() ? std::string("<td class=\"n\">&mdash;</td>")
                         : fmt::format("<td class=\"n\">{} <small>({})</small></td>", num(mean_of(it->second)), it->second.size());
    }
    if (ends_early)
      h += c.empty() ? std::string("<td class=\"n\">&mdash;</td>")
                     : fmt::format("<td class=\"n\">{} <small>({} = {}; {})</small></td>", num(mean_of(c.rbegin()->second)),
                                   html_escape(p.x), xnum(c.rbegin()->first), c.rbegin()->second.size());
    h += "</tr>\n";
  }
  return h + "</table>\n";
}

struct RunView {
  RunSidecar meta;
  std::string dir_name;
  std::vector<std::string> figure_html;
  std::vector<std::string> plot_csvs;
  std::vector<SlopeResult> slopes;
  std::vector<std::string> warnings;
  std::string headline_html;  ///< the run's headline numbers as a table ("" when it has none)
};

constexpr const char* kCss = R"(
body{font-family:-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:1.5em auto;max-width:1340px;color:#222;line-height:1.4;padding:0 1em}
h1{font-size:1.6em;margin-bottom:.2em}h2{border-bottom:2px solid #ddd;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;margin:.6em 0;font-size:.86em;max-width:100%}th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top;overflow-wrap:break-word}
table.wide{width:100%}th{background:#f3f3f3}td.n{text-align:right;font-family:monospace;white-space:nowrap}
.holds,.asreq{color:#11662b;font-weight:bold}.broken,.failing{color:#a31515;font-weight:bold}.vacuous,.skipped{color:#8a6d00;font-weight:bold}
tr.fail td{background:#fde8e8}tr.vac td{background:#fff8e1}.summary{font-size:1.1em;padding:.6em;border-radius:4px}
.pass{background:#e6f4ea}.failbox{background:#fde8e8}.warn{background:#fff4ce;padding:.5em;border-radius:4px}
.prov td:first-child{font-weight:bold;white-space:nowrap}figure{margin:1em 0}figure svg{max-width:100%;height:auto}
code{background:#f5f5f5;padding:0 .2em}small{color:#666}
tr.note td{border-top:none;color:#555;font-size:.92em;padding-top:0;padding-left:1.5em}tr.rec td{border-bottom:none}
details{margin:.3em 0}details>summary{cursor:pointer;padding:.2em 0}details>summary b{font-family:monospace}
dl.legend{display:grid;grid-template-columns:max-content auto;gap:.1em 1em;font-size:.9em}dl.legend dt{font-weight:bold}dl.legend dd{margin:0}
table.km td{padding:.15em .25em;text-align:center}table.km td.c{text-align:left;white-space:nowrap}table.km td.parts{text-align:left;max-width:14em;font-size:.85em}
table.km th.m{padding:.3em .1em;vertical-align:bottom}table.km th.m span{writing-mode:vertical-rl;transform:rotate(180deg);white-space:nowrap;font-weight:normal}
)";

/// The verdict cell of a record: what the verdict means for the suite, in words and colour. A
/// control that is broken passes ("broken as required", green).
std::string verdict_cell(const ClaimRecord& r) {
  switch (outcome(r)) {
    case Outcome::kPass:
      return r.kind == Kind::kControl ? "<span class=\"asreq\">broken as required</span>" : "<span class=\"holds\">holds</span>";
    case Outcome::kVacuous: return "<span class=\"vacuous\">vacuous</span> <small>(holds, not evidence)</small>";
    case Outcome::kSkipped: return "<span class=\"skipped\">skipped</span>";
    case Outcome::kFail:
      if (r.verdict == Verdict::kError) return "<span class=\"failing\">ERROR</span> <small>(non-finite)</small>";
      return r.kind == Kind::kControl ? "<span class=\"failing\">FAIL: control holds</span>"
                                      : "<span class=\"failing\">FAIL: broken</span>";
  }
  return "";
}

std::string legend() {
  return "<dl class=\"legend\">\n"
         "<dt>[R]</dt><dd>reconstructed: the statement is forced by the paper's prose plus standard mathematics</dd>\n"
         "<dt>[D]</dt><dd>derived: the paper gives only the proof strategy; the constant is the kit's, obtained by carrying the proof out</dd>\n"
         "<dt>[X]</dt><dd>extra: a fact the kit derived that the paper does not state</dd>\n"
         "<dt>claim / control</dt><dd>a claim record passes when it holds; a control (the check with its hypothesis broken by a small "
         "amount) passes when it is broken (&ldquo;broken as required&rdquo;)</dd>\n"
         "<dt>margin</dt><dd>&gt; 0 when the statement holds: rhs &minus; lhs for an inequality lhs &le; rhs, budget &minus; error for an identity</dd>\n"
         "<dt>tightness</dt><dd>lhs/rhs of an inequality with lhs &ge; 0 and rhs &gt; 0: the share of the bound the measured side uses (1 = tight)</dd>\n"
         "<dt>resolution</dt><dd>of a difference (a measured quantity against a reference value of the theory, lhs its deviation, rhs "
         "the budget): budget/|reference|, the smallest relative deviation the record can see (shown as &ldquo;res&rdquo;)</dd>\n"
         "<dt>vacuous</dt><dd>a claim record that holds but could not have failed: an inequality with tightness below 1e-3 (so far inside "
         "its bound), or a difference with resolution at least 1 (a budget as large as the reference); listed, never counted as "
         "evidence, not a failure</dd>\n"
         "<dt>skipped</dt><dd>not computed (e.g. a data set not installed); never counts as holding</dd>\n"
         "<dt>error</dt><dd>lhs, rhs or margin is NaN or infinite: a failure of either kind of record</dd>\n"
         "<dt>unit eps</dt><dd>an identity's error and budget in units of the precision's machine epsilon (mp50 identity claims are "
         "also held to 1e-40 relative)</dd>\n"
         "<dt>unit (blank)</dt><dd>plain values of the quantity the claim bounds; relative margins (margin/|rhs|) compare across units</dd>\n"
         "</dl>\n";
}

/// Records of one claim, ordered for reading: failures first, then by tightness, largest (most
/// informative) first, identities and undefined tightness after.
std::vector<const ClaimRecord*> sorted_records(const std::vector<const ClaimRecord*>& in) {
  auto v = in;
  auto rank = [](const ClaimRecord* r) { return outcome(*r) == Outcome::kFail ? 0 : 1; };
  std::stable_sort(v.begin(), v.end(), [&](const ClaimRecord* a, const ClaimRecord* b) {
    if (rank(a) != rank(b)) return rank(a) < rank(b);
    const bool ta = std::isfinite(a->tightness), tb = std::isfinite(b->tightness);
    if (ta != tb) return ta;
    return ta && a->tightness > b->tightness;
  });
  return v;
}

std::map<std::string, std::vector<const ClaimRecord*>> by_claim(const std::vector<ClaimRecord>& recs) {
  std::map<std::string, std::vector<const ClaimRecord*>> m;
  for (const auto& r : recs) m[r.claim].push_back(&r);
  return m;
}

/// One row per claim id: its tag and statement, its evidence, and its result.
std::string claims_overview(const std::vector<ClaimRecord>& recs, const std::map<std::string, ClaimDescription>& known) {
  std::string h = "<table class=\"wide\">\n<tr><th>claim</th><th>tag</th><th>statement</th><th>claim records holding</th>"
                  "<th>vacuous</th><th>skipped</th><th>controls broken as required</th><th>largest tightness</th>"
                  "<th>smallest relative margin</th><th>result</th></tr>\n";
  for (const auto& [id, rs] : by_claim(recs)) {
    SuiteCounts c;
    double max_t = std::nan(""), min_rel = std::nan("");
    std::vector<ClaimRecord> copy;
    for (const auto* r : rs) {
      copy.push_back(*r);
      if (r->kind != Kind::kClaim || outcome(*r) == Outcome::kSkipped) continue;
      if (std::isfinite(r->tightness) && !(r->tightness <= max_t)) max_t = r->tightness;
      if (std::isfinite(r->margin) && std::isfinite(r->rhs) && r->rhs != 0 && !(r->margin / std::fabs(r->rhs) >= min_rel))
        min_rel = r->margin / std::fabs(r->rhs);
    }
    c = count_records(copy);
    const auto it = known.find(id);
    const bool ok = c.failures == 0;
    const bool evidence = c.claims_hold > 0;
    const std::string result = !ok ? "<span class=\"failing\">FAIL</span>"
                               : evidence ? "<span class=\"holds\">holds</span>"
                                          : "<span class=\"vacuous\">no evidence</span>";
    h += fmt::format(
        "<tr{}><td>{}</td><td>{}</td><td>{}{}</td><td class=\"n\">{}/{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>"
        "<td class=\"n\">{}/{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td></tr>\n",
        ok ? (evidence ? "" : " class=\"vac\"") : " class=\"fail\"", html_escape(id),
        it == known.end() ? "" : html_escape(it->second.tag), it == known.end() ? "" : html_escape(it->second.statement),
        it == known.end() || it->second.source.empty() ? "" : " <small>(" + html_escape(it->second.source) + ")</small>",
        c.claims_hold, c.claims, c.vacuous, c.skipped, c.controls_broken, c.controls,
        std::isnan(max_t) ? std::string("&mdash;") : num(max_t), std::isnan(min_rel) ? std::string("&mdash;") : num(min_rel),
        result);
  }
  return h + "</table>\n<p><small>largest tightness: the largest lhs/rhs among the claim's inequality records; smallest "
             "relative margin: the smallest margin/|rhs| among its claim records (unitless, so identities in eps and "
             "inequalities compare).</small></p>\n";
}

/// The vacuous records, listed on their own: they hold, but are not evidence.
std::string vacuous_section(const std::vector<ClaimRecord>& recs) {
  std::string rows;
  long n = 0;
  for (const auto& r : recs) {
    if (outcome(r) != Outcome::kVacuous && outcome(r) != Outcome::kSkipped) continue;
    ++n;
    rows += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"n\">{}</td><td>{}</td></tr>\n",
                        html_escape(r.claim), html_escape(r.instance), html_escape(r.precision), verdict_cell(r),
                        std::isfinite(r.tightness)    ? num(r.tightness)
                        : std::isfinite(r.resolution) ? "res " + num(r.resolution)
                                                      : std::string("&mdash;"),
                        html_escape(r.note));
  }
  std::string h = "<h3 id=\"vacuous\">Records that are not evidence (vacuous or skipped)</h3>\n";
  if (n == 0) return h + "<p>None.</p>\n";
  // The explanation stays visible; the list is closed by default, since it can run to dozens of rows and
  // would otherwise push the experiments' figures far down the page.
  return h + fmt::format("<p>{} record(s). A vacuous record holds with tightness below {} (its bound is so loose that the "
                         "check could not have failed) or, for a difference, with a budget at least {} times its reference; a "
                         "skipped record was not computed. Neither counts for or against the suite.</p>\n<details><summary>Show "
                         "the {} record(s)</summary>\n",
                         n, num(kVacuousTightness), num(kCoarsestResolution), n) +
         "<table class=\"wide\">\n<tr><th>claim</th><th>instance</th><th>precision</th><th>verdict</th><th>tightness</th>"
         "<th>note</th></tr>\n" + rows + "</table>\n</details>\n";
}

/// Every record, one collapsible block per claim (open when the claim fails), each record's note
/// on a row of its own under it so the table fits the page.
std::string records_section(const std::vector<ClaimRecord>& recs) {
  std::string h = "<h2 id=\"records\">Every record</h2>\n<p><small>Per claim, failures first, then by tightness (largest "
                  "first). Click a claim to open its records.</small></p>\n";
  for (const auto& [id, rs] : by_claim(recs)) {
    std::vector<ClaimRecord> copy;
    for (const auto* r : rs) copy.push_back(*r);
    const auto c = count_records(copy);
    h += fmt::format("<details{}><summary><b>{}</b> &mdash; {} record(s): {}/{} claim records hold, {} vacuous, {} skipped, "
                     "{}/{} controls broken as required{}</summary>\n",
                     c.failures ? " open" : "", html_escape(id), c.records, c.claims_hold, c.claims, c.vacuous, c.skipped,
                     c.controls_broken, c.controls, c.failures ? fmt::format(", <span class=\"failing\">{} failing</span>", c.failures) : "");
    h += "<table class=\"wide\">\n<tr><th>instance</th><th>precision</th><th>kind</th><th>lhs</th><th>rhs</th><th>margin</th>"
         "<th>unit</th><th>tightness</th><th>level</th><th>verdict</th><th>seconds</th></tr>\n";
    for (const auto* r : sorted_records(rs)) {
      const auto o = outcome(*r);
      const std::string cls = o == Outcome::kFail ? " fail" : (o == Outcome::kVacuous || o == Outcome::kSkipped) ? " vac" : "";
      // Tightness is undefined where rhs is 0 or not finite (a control's zero bound, say) and for
      // identities: a dash with the reason, not "nan".
      const std::string tight =
          std::isfinite(r->tightness) ? num(r->tightness)
          : r->form == Form::kIdentity ? std::string("<span title=\"identity: error against a budget\">&mdash;</span>")
          : r->form == Form::kDifference
              ? (std::isfinite(r->resolution)
                     ? "<span title=\"difference: resolution budget/|reference|\">res " + num(r->resolution) + "</span>"
                     : std::string("<span title=\"difference against a reference of 0\">&mdash;</span>"))
              : std::string("<span title=\"undefined: a signed lhs, or rhs is 0 or not finite\">&mdash;</span>");
      auto cell = [](double x) { return std::isnan(x) ? std::string("&mdash;") : num(x); };
      h += fmt::format(
          "<tr class=\"rec{}\"><td>{}</td><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>"
          "<td class=\"n\">{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td>"
          "<td class=\"n\">{:.3f}</td></tr>\n",
          cls, html_escape(r->instance), html_escape(r->precision), to_string(r->kind), cell(r->lhs), cell(r->rhs),
          cell(r->margin), html_escape(r->unit), tight,
          std::isfinite(r->level) ? num(r->level) : std::string("<span title=\"deterministic record\">&mdash;</span>"),
          verdict_cell(*r), r->seconds);
      h += fmt::format("<tr class=\"note{}\"><td colspan=\"11\">{}</td></tr>\n", cls,
                       r->note.empty() ? std::string("&nbsp;") : html_escape(r->note));
    }
    h += "</table>\n</details>\n";
  }
  return h;
}

// The kill matrix of DIR/mutants.json: one row per mutant, then claims x mutants.
std::string mutants_section(const KillMatrix& m) {
  std::string h = "<h2 id=\"mutants\">Mutants: the kill matrix</h2>\n";
  // The algorithm under test: the library's, or a program's (--algorithm exec:CMD --mutants: its
  // mutations are the protocol's, docs/protocol.md).
  const bool program = !m.meta.implementation.empty();
  h += fmt::format("<p class=\"summary {}\">{} mutant(s) of {} (plausible implementation bugs): {} killed, {} "
                   "marked equivalent, {} gap(s) (survivors not marked equivalent, or equivalents killed). {} "
                   "own run: {} record(s), {} failure(s). Seed {}, {} mode.</p>\n",
                   m.pass() ? "pass" : "failbox", m.mutants.size(),
                   program ? html_escape(describe_implementation(m.meta)) + " (mutations of what crosses its protocol)" : std::string("the algorithm"),
                   m.killed(), m.equivalent(), m.gaps(), program ? "The implementation's" : "The library's", m.library.records,
                   m.library.failures, m.meta.seed, html_escape(m.meta.mode));
  h += "<p><small>A record <i>flips</i> when its verdict against the mutant differs from its verdict against the library's "
       "algorithm (same seed); it <i>kills</i> when the flip makes the suite fail (a claim broken or in error, a control "
       "that holds). A claim runs against a mutant only when the mutant replaces a part of the algorithm the claim read in "
       "the library's run; against the others its records are the library's (<code>&ndash;</code> below).</small></p>\n";
  h += "<table>\n<tr><th>col</th><th>mutant</th><th>status</th><th>killing records</th><th>flips</th><th>seconds</th>"
       "<th>parts replaced</th><th>claims run</th><th>what it changes</th></tr>\n";
  for (std::size_t i = 0; i < m.mutants.size(); ++i) {
    const auto& mu = m.mutants[i];
    const std::string st = mu.status();
    // Matrices written before the matrix by parts have no per-mutant not_rerun: every claim counted.
    const std::size_t run = m.claims.size() - std::min(m.claims.size(), mu.not_rerun.size());
    h += fmt::format("<tr><td>M{}</td><td><code>{}</code></td><td class=\"{}\">{}</td><td>{}</td><td>{}</td><td>{:.1f}</td>"
                     "<td>{}</td><td>{} of {}</td><td>{}{}</td></tr>\n",
                     i + 1, html_escape(mu.name), mu.gap() ? "failbox" : "pass", html_escape(st), mu.kills(), mu.flips.size(),
                     mu.seconds, mu.replaces.empty() ? std::string("&ndash;") : html_escape(mu.replaces), run, m.claims.size(),
                     html_escape(mu.description),
                     mu.equivalent.empty() ? "" : " <i>(equivalent: " + html_escape(mu.equivalent) + ")</i>");
  }
  h += "</table>\n<p>Killing records per claim (rows) and mutant (columns); <code>~</code> flipped without a failure, "
       "<code>.</code> unchanged, <code>&ndash;</code> not run against the mutant (it replaces none of the parts the claim "
       "read). The columns are named, written upwards, so that the matrix fits the page.</p>\n<table class=\"km\">\n"
       "<tr><th>claim</th><th>parts read</th>";
  for (std::size_t i = 0; i < m.mutants.size(); ++i)
    h += fmt::format("<th class=\"m\" title=\"M{0} {1}\"><span>M{0} {1}</span></th>", i + 1, html_escape(m.mutants[i].name));
  h += "</tr>\n";
  for (std::size_t j = 0; j < m.claims.size(); ++j) {
    const auto& c = m.claims[j];
    const std::string reads = j < m.reads.size() ? m.reads[j] : std::string();
    std::string spaced = reads;  // "schedule,estimate" wraps after its commas
    for (std::size_t at = spaced.find(','); at != std::string::npos; at = spaced.find(',', at + 2)) spaced.insert(at + 1, " ");
    h += "<tr><td class=\"c\"><code>" + html_escape(c) + "</code></td><td class=\"parts\">" +
         (reads.empty() ? std::string("&ndash;") : html_escape(spaced)) + "</td>";
    for (const auto& mu : m.mutants) {
      if (std::find(mu.not_rerun.begin(), mu.not_rerun.end(), c) != mu.not_rerun.end()) {
        h += "<td title=\"not run: the mutant replaces none of the parts this claim read\">&ndash;</td>";
        continue;
      }
      const std::string cell = mu.cell(c);
      h += fmt::format("<td{}>{}</td>", cell != "." && cell != "~" ? " class=\"pass\"" : "", cell);
    }
    h += "</tr>\n";
  }
  h += "</table>\n";
  return h;
}

// One worst-case search summary, DIR/search/CLAIM.json (ngvi verify --search CLAIM --out DIR).
struct SearchSummary {
  std::string claim, id, bound, where, instance_file, note;
  double tightness = 0, lhs = 0, rhs = 0, allowance = 0;
  bool holds = false;
  long evaluations = 0;
};

double json_number(const nlohmann::json& v) {
  if (v.is_number()) return v.get<double>();
  return std::nan("");  // written as "nan" when nothing was evaluated
}

// The summaries of DIR/search/*.json in name order (the *.instance.json files are the instances).
// @throws std::runtime_error naming the file if one is malformed.
std::vector<SearchSummary> read_searches(const std::string& dir) {
  std::vector<SearchSummary> out;
  std::error_code ec;
  if (!fs::is_directory(dir + "/search", ec)) return out;
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir + "/search")) {
    const std::string name = e.path().filename().string();
    if (e.path().extension() == ".json" && name.find(".instance.json") == std::string::npos) files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    const nlohmann::json j = detail::read_json_file(f);
    try {
      SearchSummary s;
      s.claim = j.at("claim").get<std::string>();
      s.id = j.at("id").get<std::string>();
      s.bound = j.at("bound").get<std::string>();
      s.where = j.at("where").get<std::string>();
      s.instance_file = j.at("instance_file").get<std::string>();
      s.note = j.at("note").get<std::string>();
      s.tightness = json_number(j.at("worst_tightness"));
      s.lhs = json_number(j.at("lhs"));
      s.rhs = json_number(j.at("rhs"));
      s.allowance = json_number(j.at("allowance"));
      s.holds = j.at("holds").get<bool>();
      s.evaluations = j.at("evaluations").get<long>();
      out.push_back(std::move(s));
    } catch (const nlohmann::json::exception& e) {
      throw std::runtime_error("'" + f + "' is not a search summary: " + e.what());
    }
  }
  return out;
}

// The worst tightness each search found, next to the claim's bound.
std::string search_section(const std::vector<SearchSummary>& v) {
  std::string h = "<h2 id=\"search\">Worst-case search</h2>\n";
  h += "<p><small>For each searched claim, the largest tightness lhs/bound found by <code>ngvi verify --search</code> "
       "(random restarts over Bayesian-linear-regression instances, then local refinement; docs/cli.md) and the instance "
       "file that reproduces it (<code>ngvi verify --instance FILE</code>). Above 1 + the rounding allowance it is a "
       "finding: the claim's record is broken on that instance.</small></p>\n";
  h += "<table>\n<tr><th>claim</th><th>worst tightness</th><th>lhs</th><th>bound</th><th>result</th><th>found at</th>"
       "<th>evaluations</th><th>instance file</th></tr>\n";
  for (const auto& s : v) {
    h += fmt::format("<tr><td><code>{}</code> ({})</td><td class=\"n\">{:.7g}</td><td class=\"n\">{:.4g}</td><td class=\"n\">{:.4g} "
                     "<small>{}</small></td><td class=\"{}\">{}</td><td>{}</td><td>{}</td><td><a href=\"search/{}\">{}</a></td></tr>\n",
                     html_escape(s.id), html_escape(s.claim), s.tightness, s.lhs, s.rhs, html_escape(s.bound),
                     s.holds ? "pass" : "failbox", s.holds ? "holds" : "FINDING: above the bound", html_escape(s.where), s.evaluations,
                     html_escape(s.instance_file), html_escape(s.instance_file));
    h += "<tr><td></td><td colspan=\"7\"><small>" + html_escape(s.note) + "</small></td></tr>\n";
  }
  h += "</table>\n";
  return h;
}

// DIR/external.json (python3 -m ngvikit.external, docs/python.md): implementations outside the kit put
// to the claims of their protocol. One row per implementation, then each failing record with the
// claim's statement and how far it misses. Returns "" when the file is absent.
// @throws std::runtime_error naming the file if it is malformed.
struct ExternalTable {
  bool present = false;
  long implementations = 0, failing = 0;
  std::string html;
};

std::string json_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number()) return fmt::format("{:.6g}", v.get<double>());
  if (v.is_null()) return "nan";
  return v.dump();
}

ExternalTable external_section(const std::string& dir) {
  ExternalTable t;
  const std::string path = dir + "/external.json";
  std::error_code ec;
  if (!fs::exists(path, ec)) return t;
  const nlohmann::json j = detail::read_json_file(path);
  std::string h = "<h2 id=\"external\">Implementations outside the kit</h2>\n";
  try {
    std::string protocols;
    for (const auto& [name, version] : j.at("protocols").items())
      protocols += fmt::format("{}<code>{}</code> v{}", protocols.empty() ? "" : ", ", html_escape(name), version.get<int>());
    h += fmt::format("<p><small>The field's implementations, driven step by step through the protocols {} by the adapters "
                     "of the Python package (<code>python3 -m ngvikit.external</code>; docs/python.md), against the claims "
                     "that accept their protocol ({} mode, seed {}; each row names the claims run). A failing record is a "
                     "finding about the implementation or about the claim's reading of it: docs/systems.md, \"External "
                     "implementations\", says which.</small></p>\n",
                     protocols.empty() ? std::string("(none)") : protocols, html_escape(j.at("mode").get<std::string>()),
                     json_text(j.at("seed")));
    h += "<table>\n<tr><th>implementation</th><th>version</th><th>adapter</th><th>protocol</th><th>claims</th><th>holds</th>"
         "<th>broken</th><th>vacuous</th><th>controls broken</th><th>controls holding</th><th>skipped</th><th>errors</th>"
         "<th>verdicts</th></tr>\n";
    std::string fails;
    for (const auto& row : j.at("implementations")) {
      ++t.implementations;
      const auto& c = row.at("counts");
      std::string claims, verdicts;
      for (const auto& x : row.at("claims")) claims += (claims.empty() ? "" : ", ") + html_escape(x.get<std::string>());
      for (const auto& [k, v] : row.at("verdicts").items()) {
        const std::string verdict = v.get<std::string>();
        verdicts += fmt::format("<code>{}</code> <span class=\"{}\">{}</span><br>", html_escape(k),
                                verdict == "FAIL" ? "failbox" : (verdict == "PASS" ? "pass" : ""), html_escape(verdict));
      }
      h += fmt::format("<tr><td>{}</td><td>{}</td><td><code>{}</code></td><td><code>{}</code> v{}</td><td><small>{}</small></td>"
                       "<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>"
                       "<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td><small>{}</small></td></tr>\n",
                       html_escape(row.at("name").get<std::string>()), html_escape(json_text(row.at("version"))),
                       html_escape(row.at("adapter").get<std::string>()), html_escape(row.at("protocol").get<std::string>()),
                       row.at("protocol_version").get<int>(), claims, c.at("holds").get<long>(),
                       c.at("broken").get<long>(), c.at("vacuous").get<long>(), c.at("controls_broken").get<long>(),
                       c.at("controls_holding").get<long>(), c.at("skipped").get<long>(), c.at("errors").get<long>(), verdicts);
      for (const auto& f : row.at("failures")) {
        ++t.failing;
        fails += fmt::format("<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td class=\"n\">{}</td>"
                             "<td class=\"n\">{}</td><td class=\"n\">{} {}</td><td><small>{}</small></td></tr>\n",
                             html_escape(row.at("name").get<std::string>()), html_escape(f.at("claim").get<std::string>()),
                             html_escape(f.at("statement").get<std::string>()), html_escape(f.at("instance").get<std::string>()),
                             html_escape(f.at("kind").get<std::string>() + " " + f.at("verdict").get<std::string>()),
                             html_escape(json_text(f.at("lhs"))), html_escape(json_text(f.at("rhs"))),
                             html_escape(json_text(f.at("margin"))), html_escape(f.at("unit").get<std::string>()),
                             html_escape(f.at("note").get<std::string>()));
      }
    }
    h += "</table>\n";
    if (!fails.empty())
      h += "<h3>Failing records</h3>\n<table>\n<tr><th>implementation</th><th>claim</th><th>statement</th><th>instance</th>"
           "<th>record</th><th>lhs</th><th>rhs</th><th>margin</th><th>note</th></tr>\n" + fails + "</table>\n";
    if (j.contains("missing"))
      for (const auto& m : j.at("missing"))
        h += fmt::format("<p class=\"warn\">Not run: {} ({}).</p>\n", html_escape(m.at("adapter").get<std::string>()),
                         html_escape(m.at("reason").get<std::string>()));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error("'" + path + "' is not an external-implementations table (python3 -m ngvikit.external): " + e.what());
  }
  t.present = true;
  t.html = h;
  return t;
}

std::string claims_provenance(const RunMeta& meta, const std::string& path) {
  std::string h = "<h3 id=\"claims-provenance\">Provenance of the claims run</h3>\n<table class=\"prov\">\n";
  h += fmt::format("<tr><td>file</td><td><code>{}</code></td></tr>\n", html_escape(path));
  h += fmt::format("<tr><td>commit</td><td><code>{}</code></td></tr>\n", html_escape(meta.commit));
  h += fmt::format("<tr><td>compiler</td><td>{}</td></tr>\n", html_escape(meta.compiler));
  h += fmt::format("<tr><td>seed</td><td>{}</td></tr>\n", meta.seed);
  std::string prec;
  for (const auto& p : meta.precisions) prec += (prec.empty() ? "" : ", ") + p;
  h += fmt::format("<tr><td>precisions</td><td>{}</td></tr>\n", html_escape(prec));
  h += fmt::format("<tr><td>mode</td><td>{}</td></tr>\n", html_escape(meta.mode));
  if (!meta.claims.empty()) h += fmt::format("<tr><td>claims</td><td><code>{}</code></td></tr>\n", html_escape(meta.claims));
  h += fmt::format("<tr><td>started</td><td>{}</td></tr>\n", html_escape(meta.started));
  if (!meta.command.empty()) h += fmt::format("<tr><td>command</td><td><code>{}</code></td></tr>\n", html_escape(meta.command));
  if (meta.threads > 0) h += fmt::format("<tr><td>threads</td><td>{}</td></tr>\n", meta.threads);
  h += fmt::format("<tr><td>implementation</td><td>{}</td></tr>\n", html_escape(describe_implementation(meta)));
  return h + "</table>\n";
}

/// One colour per series name across every figure of the report, assigned in order of first
/// appearance (runs in name order, series in trace order) from a palette readable on white.
std::string series_colour(const std::string& series, std::map<std::string, std::string>* colours) {
  static const char* const kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                         "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"};
  const auto it = colours->find(series);
  if (it != colours->end()) return it->second;
  const std::string c = kPalette[colours->size() % (sizeof(kPalette) / sizeof(kPalette[0]))];
  (*colours)[series] = c;
  return c;
}

/// The headline table of a run whose trace is a table of iterations to objective levels (columns
/// method, step, delta, median_iterations, runs_reaching, runs; lsk-compare): per method and level,
/// the fewest median iterations over the step grid and the step that gives them. "" for other runs.
std::string levels_table(const TraceTable& t) {
  for (const char* c : {"method", "step", "delta", "median_iterations", "runs_reaching", "runs"})
    if (std::find(t.columns.begin(), t.columns.end(), c) == t.columns.end()) return "";
  const auto cm = t.column("method"), cs = t.column("step"), cd = t.column("delta"), ci = t.column("median_iterations"),
             cr = t.column("runs_reaching"), cn = t.column("runs");
  std::vector<std::string> methods;
  std::set<double, std::greater<double>> deltas;
  struct Best {
    double iters = -1, step = 0, reaching = 0, runs = 0;
  };
  std::map<std::pair<std::string, double>, Best> best;
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    const std::string m = t.rows[r][cm];
    if (std::find(methods.begin(), methods.end(), m) == methods.end()) methods.push_back(m);
    const double d = t.number(r, cd), it = t.number(r, ci);
    deltas.insert(d);
    auto& b = best[{m, d}];
    if (it >= 0 && (b.iters < 0 || it < b.iters)) b = {it, t.number(r, cs), t.number(r, cr), t.number(r, cn)};
    if (b.iters < 0) b.runs = t.number(r, cn);
  }
  std::string h = "<h4>Iterations to reach f* + &delta; (median over seeds, each method at its best step for that level)</h4>\n"
                  "<table>\n<tr><th>method</th>";
  for (double d : deltas) h += fmt::format("<th>f* + {}</th>", num(d));
  h += "</tr>\n";
  for (const auto& m : methods) {
    h += "<tr><td>" + html_escape(m) + "</td>";
    for (double d : deltas) {
      const auto& b = best[{m, d}];
      h += b.iters < 0 ? std::string("<td class=\"n\">not reached</td>")
                       : fmt::format("<td class=\"n\">{} <small>(step {}, {}/{} runs)</small></td>", xnum(b.iters), num(b.step),
                                     xnum(b.reaching), xnum(b.runs));
    }
    h += "</tr>\n";
  }
  return h + "</table>\n";
}

/// The tables a run writes beside its trace, files named `*_table.csv` in its directory (vpng-logistic's
/// auc_table.csv), as HTML tables in file-name order: a pair of columns NAME_mean, NAME_sd is shown as
/// one column NAME reading "mean ± sd" (to 3 decimals), other cells as written; underscores in headers
/// become spaces. "" when the run wrote none.
std::string run_tables(const std::string& run_dir) {
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(run_dir)) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && name.size() > std::string("_table.csv").size() && name.ends_with("_table.csv")) files.push_back(name);
  }
  std::sort(files.begin(), files.end());
  std::string h;
  for (const auto& f : files) {
    const TraceTable t = read_trace_csv(run_dir + "/" + f);
    struct Col {
      std::string label;
      std::size_t a, b;  // b == a: one column; else mean at a, sd at b
    };
    std::vector<Col> cols;
    for (std::size_t c = 0; c < t.columns.size(); ++c) {
      const std::string& name = t.columns[c];
      if (name.ends_with("_sd")) {
        const auto mean = std::find(t.columns.begin(), t.columns.end(), name.substr(0, name.size() - 3) + "_mean");
        if (mean != t.columns.end()) continue;  // shown with its mean
      }
      std::string label = name;
      std::size_t b = c;
      if (name.ends_with("_mean")) {
        const auto sd = std::find(t.columns.begin(), t.columns.end(), name.substr(0, name.size() - 5) + "_sd");
        if (sd != t.columns.end()) {
          label = name.substr(0, name.size() - 5);
          b = static_cast<std::size_t>(sd - t.columns.begin());
        }
      }
      std::replace(label.begin(), label.end(), '_', ' ');
      cols.push_back({label, c, b});
    }
    h += fmt::format("<h4>{}</h4>\n<table>\n<tr>", html_escape(f));
    for (const auto& c : cols) h += "<th>" + html_escape(c.label) + "</th>";
    h += "</tr>\n";
    for (std::size_t r = 0; r < t.rows.size(); ++r) {
      h += "<tr>";
      for (const auto& c : cols) {
        const std::string& x = t.rows[r][c.a];
        if (c.b == c.a || x.empty() || t.rows[r][c.b].empty())
          h += "<td>" + html_escape(x) + "</td>";
        else
          h += fmt::format("<td class=\"n\">{:.3f} &plusmn; {:.3f}</td>", t.number(r, c.a), t.number(r, c.b));
      }
      h += "</tr>\n";
    }
    h += "</table>\n";
  }
  return h;
}

void render_run(const std::string& dir, const std::string& run_dir, const std::string& gnuplot_exe, bool gnuplot_ok,
                const std::string& gnuplot_problem, std::map<std::string, std::string>* colours, RunView* view,
                ReportResult* res) {
  const std::string sidecar_path = run_dir + "/run.json";
  view->meta = read_run_sidecar(sidecar_path);
  const auto& m = view->meta;
  const TraceTable t = read_trace_csv(run_dir + "/" + m.csv);
  const std::string plots_dir = dir + "/plots";
  view->headline_html = levels_table(t) + run_tables(run_dir);
  fs::create_directories(plots_dir);
  for (const auto& p : m.plots) {
    const FigureData f = collect(t, p);
    if (f.non_finite > 0)
      view->warnings.push_back(fmt::format("{} row(s) of {} have a non-finite {} or {}; they are left out of the figure "
                                           "'{}' and of its fits",
                                           f.non_finite, t.source, p.x, p.y, p.id));
    const std::string base = file_safe(view->dir_name) + "--" + file_safe(p.id);
    // Plot data: x, then the seed-averaged y of each series (nan where a series has no point).
    std::set<double> xs;
    for (const auto& s : f.series)
      for (const auto& [x, ys] : f.curves.at(s).by_x) xs.insert(x);
    // The seed-averaged y of each series at each x (NaN where the series has no point).
    std::vector<std::vector<double>> means(f.series.size());
    for (std::size_t i = 0; i < f.series.size(); ++i)
      for (double x : xs) {
        const auto& c = f.curves.at(f.series[i]).by_x;
        const auto it = c.find(x);
        means[i].push_back(it == c.end() ? std::numeric_limits<double>::quiet_NaN() : mean_of(it->second));
      }
    {
      std::ofstream out(plots_dir + "/" + base + ".csv");
      if (!out) throw std::runtime_error("cannot write '" + plots_dir + "/" + base + ".csv'");
      out << p.x;
      for (const auto& s : f.series) out << "," << s << " (mean)";
      out << '\n';
      std::size_t k = 0;
      for (double x : xs) {
        out << fmt::format("{:.17g}", x);
        for (const auto& m : means) out << "," << (std::isnan(m[k]) ? std::string("nan") : fmt::format("{:.17g}", m[k]));
        out << '\n';
        ++k;
      }
    }
    view->plot_csvs.push_back("plots/" + base + ".csv");
    if (!f.marks.empty()) {
      std::ofstream out(plots_dir + "/" + base + "-marks.csv");
      if (!out) throw std::runtime_error("cannot write '" + plots_dir + "/" + base + "-marks.csv'");
      out << p.x << "," << p.y << '\n';
      for (const auto& [x, y] : f.marks) out << fmt::format("{:.17g},{:.17g}\n", x, std::isfinite(p.ymin) ? std::max(y, p.ymin) : y);
      view->plot_csvs.push_back("plots/" + base + "-marks.csv");
    }
    // Fits.
    std::vector<SlopeResult> fits;
    if (p.fit_to > 0) {
      for (const auto& s : f.series) {
        if (!p.fit_series.empty() && std::find(p.fit_series.begin(), p.fit_series.end(), s) == p.fit_series.end())
          continue;
        SlopeResult sr;
        sr.run = view->dir_name;
        sr.plot = p.id;
        sr.series = s;
        sr.x = p.x;
        sr.y = p.y;
        const auto& c = f.curves.at(s);
        std::vector<double> vx, vy;
        for (const auto& [x, ys] : c.by_x) {
          vx.push_back(x);
          vy.push_back(mean_of(ys));
        }
        try {
          sr.fit = stats::fit_loglog<double>(vx, vy, p.fit_from, p.fit_to);
          sr.ok = true;
          std::vector<double> per_seed;
          for (const auto& [seed, xy] : c.by_seed) per_seed.push_back(stats::fit_loglog<double>(xy.first, xy.second, p.fit_from, p.fit_to).slope);
          if (per_seed.size() >= 2) {
            sr.across_seeds = stats::mean_interval<double>(per_seed);
            sr.have_across_seeds = true;
          }
        } catch (const std::exception& e) {
          sr.problem = e.what();
          view->warnings.push_back(fmt::format("no slope for {} / {} / {}: {}", view->dir_name, p.id, s, e.what()));
        }
        fits.push_back(sr);
      }
    }
    // What the figure must show that a plain drawing would hide. On a log y axis a mean of 0 (VPNG's
    // one-step convergence, say) cannot be drawn: such points are marked at a floor below the smallest
    // positive value and named in the caption. Two series that coincide (largest difference within
    // kCoincideRelative of the figure's y range) would hide one another: the later one is drawn in
    // long dashes over the earlier, and the caption says so.
    double ypos_min = std::numeric_limits<double>::infinity(), ylo = ypos_min, yhi = -ypos_min;
    for (const auto& m : means)
      for (double y : m) {
        if (!std::isfinite(y) || (std::isfinite(p.ymin) && y < p.ymin)) continue;  // outside the drawn range
        if (y > 0) ypos_min = std::min(ypos_min, y);
        ylo = std::min(ylo, y);
        yhi = std::max(yhi, y);
      }
    std::vector<std::string> zero_series;
    std::vector<bool> has_zero(f.series.size(), false);
    if (p.logy)
      for (std::size_t i = 0; i < f.series.size(); ++i)
        for (double y : means[i])
          if (std::isfinite(y) && y <= 0 && !has_zero[i]) {
            has_zero[i] = true;
            zero_series.push_back(f.series[i]);
          }
    const double zero_floor = std::isfinite(p.ymin) ? p.ymin : std::isfinite(ypos_min) ? ypos_min / 10 : 1e-16;
    std::vector<int> covers(f.series.size(), -1);  // the earlier series a series coincides with
    std::vector<std::string> coincide_text;
    if (std::isfinite(ylo) && std::isfinite(yhi)) {
      constexpr double kCoincideRelative = 1e-3;  // of the y range: below a pixel of an 800-pixel figure
      const double scale = p.logy && ypos_min > 0 ? std::log(yhi / ypos_min) : yhi - ylo;
      for (std::size_t j = 1; j < f.series.size(); ++j)
        for (std::size_t i = 0; i < j && covers[j] < 0; ++i) {
          double worst = 0;
          long shared = 0, n_i = 0, n_j = 0;
          for (std::size_t k = 0; k < xs.size(); ++k) {
            const double a = means[i][k], b = means[j][k];
            n_i += std::isfinite(a);
            n_j += std::isfinite(b);
            if (!std::isfinite(a) || !std::isfinite(b)) continue;
            ++shared;
            worst = std::max(worst, p.logy && a > 0 && b > 0 ? std::abs(std::log(a / b)) : std::abs(a - b));
          }
          // Curves that only share a starting point do not hide each other: the shared points must be
          // at least 3 and nearly all of the shorter curve's.
          const bool overlap = shared >= 3 && 10 * shared >= 9 * std::min(n_i, n_j);
          if (overlap && worst <= kCoincideRelative * (scale > 0 ? scale : 1)) {
            covers[j] = static_cast<int>(i);
            coincide_text.push_back(fmt::format("{} and {} coincide (largest difference {}{}): {} in long dashes over {}",
                                                f.series[j], f.series[i], num(worst), p.logy ? " in log y" : "", f.series[j],
                                                f.series[i]));
          }
        }
    }
    bool any_fit = false;
    for (const auto& sr : fits) any_fit = any_fit || sr.ok;
    // Figure.
    std::string fig = fmt::format("<figure id=\"{}\">\n", html_escape(base));
    if (!gnuplot_ok) {
      fig += fmt::format("<div class=\"warn\">Figure '{}' not drawn: {}. Its data are in <code>{}</code>.</div>\n",
                         html_escape(p.title), html_escape(gnuplot_problem), html_escape("plots/" + base + ".csv"));
    } else {
      std::ofstream gp(plots_dir + "/" + base + ".gp");
      gp << "set terminal svg size 800,560 noenhanced font 'Helvetica,12' background rgb 'white'\n";
      gp << "set output " << gnuplot_quote(base + ".svg") << "\n";
      gp << "set datafile separator comma\nset datafile missing 'nan'\n";
      if (p.logx) gp << "set logscale x\nset format x '%g'\n";
      if (p.logy) gp << "set logscale y\nset format y '%g'\n";
      if (std::isfinite(p.ymin)) gp << "set yrange [" << fmt::format("{:.17g}", p.ymin) << ":*]\n";
      else if (!zero_series.empty()) gp << "set yrange [" << fmt::format("{:.17g}", zero_floor / 2) << ":*]\n";
      gp << "set xlabel " << gnuplot_quote(p.xlabel) << "\nset ylabel " << gnuplot_quote(p.ylabel) << "\n";
      gp << "set title " << gnuplot_quote(p.title) << "\nset grid\nset key outside below\nset samples 400\n";
      gp << "plot";
      int k = 0;
      for (std::size_t i = 0; i < f.series.size(); ++i) {
        const bool ref = !p.reference_series.empty() && f.series[i] == p.reference_series;
        const std::string colour = ref ? std::string("#000000") : series_colour(f.series[i], colours);
        gp << (k++ ? ", \\\n  " : " ") << gnuplot_quote(base + ".csv") << " using 1:" << (i + 2)
           << (p.points ? (ref ? " with points pt 7 ps 1.2" : " with points pt 7 ps 0.4") : (ref ? " with lines lw 3" : " with lines lw 2"))
           << (covers[i] >= 0 && !p.points ? " dt (14,14)" : "") << " lc rgb '" << colour << "' title "
           << gnuplot_quote(p.points ? f.series[i] : f.series[i] + " (mean of seeds)");
        if (has_zero[i])
          gp << ", \\\n  " << gnuplot_quote(base + ".csv") << " using 1:(column(" << (i + 2) << ") <= 0 ? "
             << fmt::format("{:.17g}", zero_floor) << " : 1/0) with points pt 2 ps 1.6 lw 2 lc rgb '" << colour << "' title "
             << gnuplot_quote(f.series[i] + ": 0, drawn at " + num(zero_floor));
      }
      if (!f.marks.empty())
        gp << ", \\\n  " << gnuplot_quote(base + "-marks.csv") << " using 1:2 every ::1 with points pt 6 ps 2 lw 2 lc rgb '#000000' title "
           << gnuplot_quote(p.mark_label.empty() ? p.mark_column : p.mark_label);
      for (const auto& sr : fits) {
        if (!sr.ok) continue;
        gp << ", \\\n  (x >= " << fmt::format("{:.17g}", sr.fit.x_from) << " && x <= " << fmt::format("{:.17g}", sr.fit.x_to)
           << " ? exp(" << fmt::format("{:.17g}", sr.fit.intercept) << ") * x**(" << fmt::format("{:.17g}", sr.fit.slope)
           << ") : 1/0) with lines dt 2 lw 3 lc rgb '#000000' title "
           << gnuplot_quote(fmt::format("fit {}: slope {:.3f}", sr.series, sr.fit.slope));
      }
      gp << "\n";
      gp.close();
      const std::string problem = run_gnuplot(gnuplot_exe, plots_dir, base + ".gp");
      const std::string svg = read_text(plots_dir + "/" + base + ".svg");
      const auto at = svg.find("<svg");
      if (!problem.empty() || at == std::string::npos) {
        const std::string why = problem.empty() ? "gnuplot wrote no SVG" : "gnuplot failed: " + problem;
        res->gnuplot_ok = false;
        if (res->gnuplot_problem.empty()) res->gnuplot_problem = why;
        view->warnings.push_back("figure " + base + ": " + why);
        fig += fmt::format("<div class=\"warn\">Figure '{}' not drawn: {}. Its data are in <code>{}</code>.</div>\n",
                           html_escape(p.title), html_escape(why), html_escape("plots/" + base + ".csv"));
      } else {
        fig += svg.substr(at);
        ++res->figures;
      }
    }
    // The caption says what is drawn, and only that.
    std::string caption = fmt::format("{} against {}{}", p.y, p.x,
                                      p.points ? ", one point per row of the run" : ", mean over the seeds of each series");
    if (any_fit) caption += "; black dashes: fitted power law on the fit window, drawn on top";
    if (!f.marks.empty()) caption += "; open circles: " + (p.mark_label.empty() ? p.mark_column : p.mark_label);
    if (!zero_series.empty()) {
      std::string names;
      for (const auto& z : zero_series) names += (names.empty() ? "" : ", ") + z;
      caption += "; crosses: a mean of 0 (" + names + "), which a log axis cannot show, drawn at " + num(zero_floor);
    }
    for (const auto& c : coincide_text) caption += "; " + c;
    fig += fmt::format("<figcaption><small>{}. Data: <a href=\"{}\">{}</a>.</small></figcaption>\n</figure>\n",
                       html_escape(caption), html_escape("plots/" + base + ".csv"), html_escape("plots/" + base + ".csv"));
    if (!p.points) fig += checkpoint_table(f, p, xs);
    view->figure_html.push_back(fig);
    view->slopes.insert(view->slopes.end(), fits.begin(), fits.end());
  }
}

std::string run_section(const RunView& v) {
  const auto& m = v.meta;
  std::string h = fmt::format("<h3 id=\"run-{0}\">{0}</h3>\n<p>{1}</p>\n", html_escape(v.dir_name), html_escape(m.description));
  for (const auto& w : v.warnings) h += fmt::format("<p class=\"warn\">{}</p>\n", html_escape(w));
  h += v.headline_html;
  for (const auto& f : v.figure_html) h += f;
  if (!v.slopes.empty()) {
    h += "<h4>Fitted log-log slopes</h4>\n<p><small>Least squares of log y on log x over the window (points "
         "inside it), on the seed-averaged curve: slope, standard error and 95% Student-t interval with n&minus;2 "
         "degrees of freedom. The points of a trajectory are serially correlated, so that interval measures how "
         "straight the curve is rather than sampling error; the across-seed column is the 95% t-interval of the "
         "mean of the per-seed slopes (independent seeds, k&minus;1 degrees of freedom).</small></p>\n";
    h += "<table>\n<tr><th>figure</th><th>series</th><th>window</th><th>points</th><th>slope</th><th>SE</th>"
         "<th>95% interval</th><th>per-seed slopes: mean [95% interval] (k)</th></tr>\n";
    for (const auto& s : v.slopes) {
      if (!s.ok) {
        h += fmt::format("<tr><td>{}</td><td>{}</td><td colspan=\"6\">no fit: {}</td></tr>\n", html_escape(s.plot),
                         html_escape(s.series), html_escape(s.problem));
        continue;
      }
      h += fmt::format(
          "<tr><td>{}</td><td>{}</td><td>{} &isin; [{}, {}]</td><td class=\"n\">{}</td><td class=\"n\">{:.4f}</td>"
          "<td class=\"n\">{:.4f}</td><td class=\"n\">[{:.4f}, {:.4f}]</td><td class=\"n\">{}</td></tr>\n",
          html_escape(s.plot), html_escape(s.series), html_escape(s.x), xnum(s.fit.x_from), xnum(s.fit.x_to), s.fit.points,
          s.fit.slope, s.fit.std_error, s.fit.ci_low, s.fit.ci_high,
          s.have_across_seeds ? fmt::format("{:.4f} [{:.4f}, {:.4f}] ({})", s.across_seeds.mean, s.across_seeds.ci_low,
                                            s.across_seeds.ci_high, s.across_seeds.count)
                              : std::string("&mdash;"));
    }
    h += "</table>\n";
  }
  h += "<h4>Provenance</h4>\n<table class=\"prov\">\n";
  auto row = [&h](const std::string& k, const std::string& val) {
    h += fmt::format("<tr><td>{}</td><td>{}</td></tr>\n", html_escape(k), val);
  };
  row("experiment", html_escape(m.experiment));
  row("command", "<code>" + html_escape(m.command) + "</code>");
  row("commit", "<code>" + html_escape(m.commit) + "</code>");
  row("compiler", html_escape(m.compiler));
  row("started", html_escape(m.started));
  row("wall time", fmt::format("{:.2f} s", m.seconds));
  row("base seed", std::to_string(m.seed));
  row("seeds", std::to_string(m.seeds));
  row("iterations", std::to_string(m.iters));
  std::string params;
  for (const auto& [k, val] : m.parameters) params += fmt::format("<code>{}={}</code> ", html_escape(k), html_escape(val));
  row("parameters", params);
  if (m.dataset) {
    const auto& d = *m.dataset;
    row("data set", fmt::format("{} (<code>{}</code>), {} rows &times; {} features, target <code>{}</code>, CRC-32 "
                                "<code>{}</code>{}",
                                html_escape(d.name), html_escape(d.path), d.rows, d.cols, html_escape(d.target),
                                html_escape(d.crc32), d.preprocessing.empty() ? "" : "; " + html_escape(d.preprocessing)));
  } else {
    row("data set", "none (synthetic, fixed by the seed and the parameters)");
  }
  const std::string csv = "runs/" + v.dir_name + "/" + m.csv;
  std::string files = fmt::format("<a href=\"{0}\">{0}</a>, <a href=\"{1}\">{1}</a>", html_escape(csv),
                                  html_escape("runs/" + v.dir_name + "/run.json"));
  for (const auto& c : v.plot_csvs) files += fmt::format(", <a href=\"{0}\">{0}</a>", html_escape(c));
  row("files", files);
  for (const auto& n : m.notes) row("note", html_escape(n));
  h += "</table>\n";
  return h;
}

}  // namespace

ReportResult write_report(const ReportOptions& o) {
  ReportResult res;
  const std::string& dir = o.dir;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw std::runtime_error("'" + dir + "' is not a directory");
  const std::string claims_path = dir + "/claims.json";
  std::vector<std::string> run_dirs;
  std::vector<std::string> skipped;
  if (fs::is_directory(dir + "/runs", ec)) {
    for (const auto& e : fs::directory_iterator(dir + "/runs")) {
      if (!e.is_directory()) continue;
      if (fs::exists(e.path() / "run.json")) run_dirs.push_back(e.path().filename().string());
      else skipped.push_back(e.path().filename().string());
    }
    std::sort(run_dirs.begin(), run_dirs.end());
  }
  for (const auto& s : skipped)
    res.warnings.push_back("runs/" + s + " has no run.json (an unfinished run?); skipped");
  res.have_claims = fs::exists(claims_path, ec);
  KillMatrix kill_matrix;
  const std::string mutants_path = dir + "/mutants.json";
  if (fs::exists(mutants_path, ec)) {
    kill_matrix = read_kill_matrix_json(mutants_path);
    res.have_mutants = true;
    res.mutants = static_cast<long>(kill_matrix.mutants.size());
    res.mutants_killed = kill_matrix.killed();
    res.mutant_gaps = kill_matrix.gaps();
  }
  const std::vector<SearchSummary> searches = read_searches(dir);
  const ExternalTable external = external_section(dir);
  res.searches = static_cast<long>(searches.size());
  for (const auto& s : searches) res.search_findings += !s.holds;
  if (!res.have_claims && run_dirs.empty() && !res.have_mutants && searches.empty())
    throw std::runtime_error("'" + dir + "' holds none of claims.json, mutants.json, runs/<run>/run.json (run 'ngvi verify --json " +
                             claims_path + "' or 'ngvi run EXPERIMENT --out " + dir + "' first)");

  std::vector<ClaimRecord> recs;
  RunMeta claims_meta;
  if (res.have_claims) {
    recs = read_claims_json(claims_path, &claims_meta);
    const auto c = count_records(recs);
    res.claim_records = c.records;
    res.claims_hold = c.claims_hold;
    res.claims_total = c.claims;
    res.controls_broken = c.controls_broken;
    res.controls_total = c.controls;
    res.controls_injected = c.controls_injected;
    res.vacuous = c.vacuous;
    res.skipped = c.skipped;
    res.errors = c.errors;
    res.failures = c.failures;
  } else {
    res.warnings.push_back("no claims.json in '" + dir + "': the claims table is missing (run 'ngvi verify --json " +
                           claims_path + "')");
  }

  std::string gnuplot_exe;
  bool gnuplot_ok = find_executable(o.gnuplot, &gnuplot_exe);
  if (!gnuplot_ok && !run_dirs.empty()) {
    res.gnuplot_ok = false;
    res.gnuplot_problem = "gnuplot was not found ('" + o.gnuplot + "'" +
                          (o.gnuplot.find('/') == std::string::npos ? " on PATH" : "") +
                          "; install the Debian package gnuplot-nox)";
    res.warnings.push_back("figures not drawn: " + res.gnuplot_problem);
  }
  std::vector<RunView> views;
  std::map<std::string, std::string> colours;
  for (const auto& name : run_dirs) {
    RunView v;
    v.dir_name = name;
    render_run(dir, dir + "/runs/" + name, gnuplot_exe, gnuplot_ok, res.gnuplot_problem, &colours, &v, &res);
    res.slopes.insert(res.slopes.end(), v.slopes.begin(), v.slopes.end());
    for (const auto& w : v.warnings) res.warnings.push_back(w);
    views.push_back(std::move(v));
  }
  res.runs = static_cast<long>(views.size());

  std::string h;
  h += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>ngvikit report</title>\n<style>";
  h += kCss;
  h += "</style>\n</head>\n<body>\n<h1>ngvikit report</h1>\n";
  h += fmt::format("<p><small>Natural-gradient variational inference (Wu &amp; Gardner, ICML 2024), made executable. "
                   "Written by {}.</small></p>\n",
                   html_escape(o.generator.empty() ? std::string("ngvi report") : o.generator));
  const bool pass = res.claims_pass();
  std::string summary;
  if (res.have_claims)
    summary = fmt::format("Claims: {} &mdash; {}/{} claim records hold, {}/{} negative controls broken as required "
                          "({} of them injected by the checker into a computed value, {}%; the others re-run the library "
                          "under a violated hypothesis), {} vacuous (not evidence), {} skipped, {} error(s); {} records.",
                          pass ? "PASS" : "FAIL", res.claims_hold, res.claims_total, res.controls_broken, res.controls_total,
                          res.controls_injected,
                          num(res.controls_total > 0 ? 100.0 * static_cast<double>(res.controls_injected) / static_cast<double>(res.controls_total) : 0.0),
                          res.vacuous, res.skipped, res.errors, res.claim_records) +
              fmt::format(" Family-wise false-alarm rate &le; {}% (Bonferroni: the sum of the levels of the stochastic "
                          "claim records; at most {}% allowed).",
                          num(100 * suite_level(recs)), num(100 * kSuiteLevel)) +
              " Checked against " + html_escape(describe_implementation(claims_meta)) + ".";
  else
    summary = "Claims: no claims.json.";
  long fitted = 0;
  for (const auto& s : res.slopes) fitted += s.ok;
  summary += fmt::format(" Experiments: {} run(s), {} figure(s), {} fitted slope(s).", res.runs, res.figures, fitted);
  if (external.present)
    summary += fmt::format(" Implementations outside the kit: {} put to their protocol's claims, {} failing record(s) "
                           "(findings, not the kit's verdict).", external.implementations, external.failing);
  h += fmt::format("<p class=\"summary {}\">{}</p>\n", !res.have_claims ? "" : (pass ? "pass" : "failbox"), summary);
  if (res.have_claims) {
    // Next to the verdict: every claim that has no evidence in the run, and every claim with vacuous
    // or skipped records beside its evidence (the details are under "Not evidence").
    std::string none, partly;
    for (const auto& g : evidence_gaps(recs)) {
      const std::string item = fmt::format("<code>{}</code> ({} vacuous, {} skipped{})", html_escape(g.claim), g.vacuous, g.skipped,
                                           g.none() ? "" : fmt::format(", {} hold", g.holds));
      std::string& list = g.none() ? none : partly;
      list += (list.empty() ? "" : ", ") + item;
    }
    if (!none.empty()) h += "<p class=\"warn\"><b>No evidence</b> (no claim record holds): " + none + ".</p>\n";
    if (!partly.empty())
      h += "<p><b>Vacuous or skipped records</b> beside evidence: " + partly + " (<a href=\"#vacuous\">Not evidence</a>).</p>\n";
  }
  if (!res.gnuplot_ok) h += fmt::format("<p class=\"warn\">Figures are missing: {}.</p>\n", html_escape(res.gnuplot_problem));
  h += std::string("<p><a href=\"#claims\">Claims</a> &middot; <a href=\"#vacuous\">Not evidence</a> &middot; ") +
       (res.have_mutants ? "<a href=\"#mutants\">Mutants</a> &middot; " : "") +
       (searches.empty() ? "" : "<a href=\"#search\">Worst-case search</a> &middot; ") +
       (external.present ? "<a href=\"#external\">Implementations outside the kit</a> &middot; " : "") +
       "<a href=\"#experiments\">Experiments</a> &middot; <a href=\"#records\">Every record</a> &middot; <a "
       "href=\"#legend\">Legend</a></p>\n";
  h += "<h2 id=\"claims\">Claims</h2>\n";
  if (res.have_claims) {
    h += claims_overview(recs, o.claims);
    h += vacuous_section(recs);
  } else {
    h += "<p class=\"warn\">No claims.json in this directory.</p>\n";
  }
  if (res.have_mutants) h += mutants_section(kill_matrix);
  if (!searches.empty()) h += search_section(searches);
  h += external.html;
  h += "<details id=\"legend\" open><summary><b>Legend</b>: tags [R]/[D]/[X], verdicts, units</summary>\n" + legend() + "</details>\n";
  h += "<h2 id=\"experiments\">Experiments</h2>\n";
  if (views.empty()) h += "<p>No experiment runs in runs/ (run <code>ngvi run EXPERIMENT --out DIR</code>).</p>\n";
  for (const auto& v : views) h += run_section(v);
  if (res.have_claims) {
    h += records_section(recs);
    h += claims_provenance(claims_meta, "claims.json");
  }
  h += "</body>\n</html>\n";

  res.index_path = dir + "/index.html";
  std::ofstream out(res.index_path);
  if (!out) throw std::runtime_error("cannot write '" + res.index_path + "'");
  out << h;
  out.close();
  if (!out) throw std::runtime_error("error while writing '" + res.index_path + "'");
  return res;
}

}  // namespace ngvi::report
