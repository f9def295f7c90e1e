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
#include "ngvi/report/record.hpp"
#include "ngvi/report/run_record.hpp"

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
};

FigureData collect(const TraceTable& t, const PlotSpec& p) {
  const std::size_t cx = t.column(p.x);
  const std::size_t cy = t.column(p.y);
  const bool has_series = !p.series.empty();
  const std::size_t cs = has_series ? t.column(p.series) : 0;
  std::size_t cseed = t.columns.size();
  for (std::size_t i = 0; i < t.columns.size(); ++i)
    if (t.columns[i] == "seed") cseed = i;
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
std::string checkpoint_table(const FigureData& f, const PlotSpec& p, const std::set<double>& xs) {
  if (xs.empty()) return "";
  std::vector<double> cps;
  for (double c = 1; c < *xs.rbegin(); c *= 10)
    if (xs.count(c)) cps.push_back(c);
  cps.push_back(*xs.rbegin());
  std::string h = fmt::format("<table>\n<tr><th>{} (mean over seeds) at {} =</th>", html_escape(p.y), html_escape(p.x));
  for (double c : cps) h += fmt::format("<th>{}</th>", xnum(c));
  h += "</tr>\n";
  for (const auto& s : f.series) {
    h += fmt::format("<tr><td>{}</td>", html_escape(s));
    const auto& c = f.curves.at(s).by_x;
    for (double x : cps) {
      const auto it = c.find(x);
      h += it == c.end() ? std::string("<td class=\"n\">&mdash;</td>")
                         : fmt::format("<td class=\"n\">{} <small>({})</small></td>", num(mean_of(it->second)), it->second.size());
    }
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
};

constexpr const char* kCss = R"(
body{font-family:-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:2em auto;max-width:1200px;color:#222;line-height:1.4;padding:0 1em}
h1{font-size:1.6em;margin-bottom:.2em}h2{border-bottom:2px solid #ddd;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;margin:.6em 0;font-size:.86em}th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}
th{background:#f3f3f3}td.n{text-align:right;font-family:monospace;white-space:nowrap}
.holds{color:#11662b;font-weight:bold}.broken{color:#a31515;font-weight:bold}
tr.fail td{background:#fde8e8}.summary{font-size:1.1em;padding:.6em;border-radius:4px}
.pass{background:#e6f4ea}.failbox{background:#fde8e8}.warn{background:#fff4ce;padding:.5em;border-radius:4px}
.prov td:first-child{font-weight:bold;white-space:nowrap}figure{margin:1em 0}figure svg{max-width:100%;height:auto}
code{background:#f5f5f5;padding:0 .2em}small{color:#666}
)";

/// One row per claim id: its statement, record counts, smallest claim margin and overall result.
std::string claims_overview(const std::vector<ClaimRecord>& recs, const std::map<std::string, ClaimDescription>& known) {
  struct Agg {
    long claims = 0, holds = 0, controls = 0, broken = 0;
    double min_margin = INFINITY;
    std::string unit;
  };
  std::map<std::string, Agg> by;
  for (const auto& r : recs) {
    auto& a = by[r.claim];
    if (r.kind == Kind::kClaim) {
      ++a.claims;
      a.holds += record_passes(r);
      if (!(r.margin >= a.min_margin)) {
        a.min_margin = r.margin;
        a.unit = r.unit;
      }
    } else {
      ++a.controls;
      a.broken += record_passes(r);
    }
  }
  std::string h = "<table>\n<tr><th>claim</th><th>tag</th><th>statement</th><th>source</th><th>claim records "
                   "holding</th><th>controls broken</th><th>smallest claim margin</th><th>result</th></tr>\n";
  for (const auto& [id, a] : by) {
    const auto it = known.find(id);
    const bool ok = a.holds == a.claims && a.broken == a.controls;
    h += fmt::format(
        "<tr{}><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"n\">{}/{}</td><td class=\"n\">{}/{}</td>"
        "<td class=\"n\">{}</td><td class=\"{}\">{}</td></tr>\n",
        ok ? "" : " class=\"fail\"", html_escape(id), it == known.end() ? "" : html_escape(it->second.tag),
        it == known.end() ? "" : html_escape(it->second.statement), it == known.end() ? "" : html_escape(it->second.source),
        a.holds, a.claims, a.broken, a.controls, a.claims ? num(a.min_margin) + " " + html_escape(a.unit) : std::string("&mdash;"),
        ok ? "holds" : "broken", ok ? "pass" : "FAIL");
  }
  return h + "</table>\n";
}

std::string claims_section(const std::vector<ClaimRecord>& recs, const RunMeta& meta, const std::string& path,
                           const std::map<std::string, ClaimDescription>& known, ReportResult* res) {
  std::string h;
  h += "<h2 id=\"claims\">Claims</h2>\n";
  h += claims_overview(recs, known);
  h += "<h3>Provenance of the claims run</h3>\n";
  h += "<table class=\"prov\">\n";
  h += fmt::format("<tr><td>file</td><td><code>{}</code></td></tr>\n", html_escape(path));
  h += fmt::format("<tr><td>commit</td><td><code>{}</code></td></tr>\n", html_escape(meta.commit));
  h += fmt::format("<tr><td>compiler</td><td>{}</td></tr>\n", html_escape(meta.compiler));
  h += fmt::format("<tr><td>seed</td><td>{}</td></tr>\n", meta.seed);
  std::string prec;
  for (const auto& p : meta.precisions) prec += (prec.empty() ? "" : ", ") + p;
  h += fmt::format("<tr><td>precisions</td><td>{}</td></tr>\n", html_escape(prec));
  h += fmt::format("<tr><td>mode</td><td>{}</td></tr>\n", html_escape(meta.mode));
  h += fmt::format("<tr><td>started</td><td>{}</td></tr>\n", html_escape(meta.started));
  if (!meta.command.empty()) h += fmt::format("<tr><td>command</td><td><code>{}</code></td></tr>\n", html_escape(meta.command));
  if (meta.threads > 0) h += fmt::format("<tr><td>threads</td><td>{}</td></tr>\n", meta.threads);
  h += "</table>\n";
  h += "<p><small>margin &gt; 0 means the statement holds on that instance (rhs &minus; lhs for an inequality "
       "lhs &le; rhs, budget &minus; error for an identity). A <em>claim</em> record passes when it holds, a "
       "<em>control</em> (the check run with its hypothesis broken) passes when it is broken. lhs/rhs is the "
       "tightness of an inequality (the share of the budget used, for an identity; &mdash; where rhs is 0 or not "
       "finite); the tightness column is the "
       "one the claim reports in its note, where it does.</small></p>\n";
  h += "<h3>Every record</h3>\n";
  h += "<table>\n<tr><th>claim</th><th>instance</th><th>precision</th><th>kind</th><th>lhs</th><th>rhs</th>"
       "<th>margin</th><th>unit</th><th>lhs/rhs</th><th>tightness</th><th>verdict</th><th>result</th><th>seconds</th>"
       "<th>note</th></tr>\n";
  for (const auto& r : recs) {
    const bool ok = record_passes(r);
    if (r.kind == Kind::kClaim) {
      ++res->claims_total;
      res->claims_hold += ok;
    } else {
      ++res->controls_total;
      res->controls_broken += ok;
    }
    // lhs/rhs is undefined where rhs is 0 or not finite (a control's zero bound, say): a dash with
    // the reason, not "nan".
    const double ratio = (std::isfinite(r.rhs) && r.rhs != 0) ? r.lhs / r.rhs : std::nan("");
    const std::string ratio_cell = std::isnan(ratio) ? std::string("<span title=\"undefined: rhs is 0 or not finite\">&mdash;</span>") : num(ratio);
    const double tight = tightness_from_note(r.note);
    h += fmt::format(
        "<tr{}><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>"
        "<td class=\"n\">{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"{}\">{}</td>"
        "<td>{}</td><td class=\"n\">{:.3f}</td><td>{}</td></tr>\n",
        ok ? "" : " class=\"fail\"", html_escape(r.claim), html_escape(r.instance), html_escape(r.precision),
        to_string(r.kind), num(r.lhs), num(r.rhs), num(r.margin), html_escape(r.unit), ratio_cell,
        std::isnan(tight) ? std::string() : num(tight), to_string(r.verdict), to_string(r.verdict),
        ok ? "ok" : "<b>FAIL</b>", r.seconds, html_escape(r.note));
  }
  h += "</table>\n";
  res->claim_records = static_cast<long>(recs.size());
  return h;
}

void render_run(const std::string& dir, const std::string& run_dir, const std::string& gnuplot_exe, bool gnuplot_ok,
                const std::string& gnuplot_problem, RunView* view, ReportResult* res) {
  const std::string sidecar_path = run_dir + "/run.json";
  view->meta = read_run_sidecar(sidecar_path);
  const auto& m = view->meta;
  const TraceTable t = read_trace_csv(run_dir + "/" + m.csv);
  const std::string plots_dir = dir + "/plots";
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
    {
      std::ofstream out(plots_dir + "/" + base + ".csv");
      if (!out) throw std::runtime_error("cannot write '" + plots_dir + "/" + base + ".csv'");
      out << p.x;
      for (const auto& s : f.series) out << "," << s << " (mean)";
      out << '\n';
      for (double x : xs) {
        out << fmt::format("{:.17g}", x);
        for (const auto& s : f.series) {
          const auto& c = f.curves.at(s).by_x;
          const auto it = c.find(x);
          out << "," << (it == c.end() ? std::string("nan") : fmt::format("{:.17g}", mean_of(it->second)));
        }
        out << '\n';
      }
    }
    view->plot_csvs.push_back("plots/" + base + ".csv");
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
      gp << "set xlabel " << gnuplot_quote(p.xlabel) << "\nset ylabel " << gnuplot_quote(p.ylabel) << "\n";
      gp << "set title " << gnuplot_quote(p.title) << "\nset grid\nset key outside below\nset samples 400\n";
      gp << "plot";
      int k = 0;
      for (std::size_t i = 0; i < f.series.size(); ++i) {
        gp << (k++ ? ", \\\n  " : " ") << gnuplot_quote(base + ".csv") << " using 1:" << (i + 2) << " with lines lw 2 lc "
           << (i + 1) << " title " << gnuplot_quote(f.series[i] + " (mean of seeds)");
      }
      for (const auto& sr : fits) {
        if (!sr.ok) continue;
        const std::size_t i = static_cast<std::size_t>(std::find(f.series.begin(), f.series.end(), sr.series) - f.series.begin());
        gp << ", \\\n  (x >= " << fmt::format("{:.17g}", sr.fit.x_from) << " && x <= " << fmt::format("{:.17g}", sr.fit.x_to)
           << " ? exp(" << fmt::format("{:.17g}", sr.fit.intercept) << ") * x**(" << fmt::format("{:.17g}", sr.fit.slope)
           << ") : 1/0) with lines dt 2 lw 2 lc " << (i + 1) << " title "
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
    fig += fmt::format("<figcaption><small>{} against {}, mean over the seeds of each series; dashed: fitted power "
                       "law on the fit window. Data: <a href=\"{}\">{}</a>.</small></figcaption>\n</figure>\n",
                       html_escape(p.y), html_escape(p.x), html_escape("plots/" + base + ".csv"),
                       html_escape("plots/" + base + ".csv"));
    fig += checkpoint_table(f, p, xs);
    view->figure_html.push_back(fig);
    view->slopes.insert(view->slopes.end(), fits.begin(), fits.end());
  }
}

std::string run_section(const RunView& v) {
  const auto& m = v.meta;
  std::string h = fmt::format("<h3 id=\"run-{0}\">{0}</h3>\n<p>{1}</p>\n", html_escape(v.dir_name), html_escape(m.description));
  for (const auto& w : v.warnings) h += fmt::format("<p class=\"warn\">{}</p>\n", html_escape(w));
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
  if (!res.have_claims && run_dirs.empty())
    throw std::runtime_error("'" + dir + "' holds neither claims.json nor runs/<run>/run.json (run 'ngvi verify --json " +
                             claims_path + "' or 'ngvi run EXPERIMENT --out " + dir + "' first)");

  std::string claims_html;
  if (res.have_claims) {
    RunMeta meta;
    const auto recs = read_claims_json(claims_path, &meta);
    claims_html = claims_section(recs, meta, "claims.json", o.claims, &res);
  } else {
    res.warnings.push_back("no claims.json in '" + dir + "': the claims table is missing (run 'ngvi verify --json " +
                           claims_path + "')");
    claims_html = "<h2 id=\"claims\">Claims</h2>\n<p class=\"warn\">No claims.json in this directory.</p>\n";
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
  for (const auto& name : run_dirs) {
    RunView v;
    v.dir_name = name;
    render_run(dir, dir + "/runs/" + name, gnuplot_exe, gnuplot_ok, res.gnuplot_problem, &v, &res);
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
    summary = fmt::format("Claims: {} &mdash; {}/{} claim records hold, {}/{} negative controls broken ({} records).",
                          pass ? "PASS" : "FAIL", res.claims_hold, res.claims_total, res.controls_broken,
                          res.controls_total, res.claim_records);
  else
    summary = "Claims: no claims.json.";
  long fitted = 0;
  for (const auto& s : res.slopes) fitted += s.ok;
  summary += fmt::format(" Experiments: {} run(s), {} figure(s), {} fitted slope(s).", res.runs, res.figures, fitted);
  h += fmt::format("<p class=\"summary {}\">{}</p>\n", !res.have_claims ? "" : (pass ? "pass" : "failbox"), summary);
  if (!res.gnuplot_ok) h += fmt::format("<p class=\"warn\">Figures are missing: {}.</p>\n", html_escape(res.gnuplot_problem));
  h += "<p><a href=\"#claims\">Claims</a> &middot; <a href=\"#experiments\">Experiments</a></p>\n";
  h += claims_html;
  h += "<h2 id=\"experiments\">Experiments</h2>\n";
  if (views.empty()) h += "<p>No experiment runs in runs/ (run <code>ngvi run EXPERIMENT --out DIR</code>).</p>\n";
  for (const auto& v : views) h += run_section(v);
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
