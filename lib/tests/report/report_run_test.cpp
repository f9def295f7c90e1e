#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ngvi/report/html_report.hpp"
#include "ngvi/report/kill_matrix.hpp"
#include "ngvi/report/record.hpp"
#include "ngvi/report/run_record.hpp"
#include "ngvi/scalar/budget.hpp"

namespace ngvi::report {
namespace { namespace NGVI_UNITY_ID {

namespace fs = std::filesystem;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Writes DIR's report with gnuplot pointed at a missing path (the tests must not depend on it) and
// returns the page.
std::string report_without_gnuplot(const std::string& dir) {
  ReportOptions o;
  o.dir = dir;
  o.gnuplot = dir + "/no/such/gnuplot";
  return slurp(write_report(o).index_path);
}

// The sidecar of the runs the report tests write under DIR/runs/toy.
RunSidecar toy_sidecar() {
  RunSidecar s;
  s.experiment = "toy";
  s.run = "toy";
  return s;
}

std::string fresh_dir(const std::string& name) {
  const std::string d = ::testing::TempDir() + "/ngvi_report_test_" + name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

TEST(RunSidecar, RoundTripKeepsProvenanceAndPlots) {
  RunSidecar a;
  a.experiment = "fig1";
  a.run = "fig1-diabetes";
  a.description = "d";
  a.command = "ngvi run fig1";
  a.commit = "abc123";
  a.compiler = "g++";
  a.started = "2026-01-01T00:00:00Z";
  a.seconds = 1.5;
  a.seed = 18446744073709551615ULL;
  a.seeds = 4;
  a.iters = 100;
  a.parameters = {{"--iters", "100"}, {"--batch", "32"}};
  a.dataset = DatasetInfo{"diabetes", "/usr/x.csv.gz", "0badf00d", "target", 442, 10, "standardised", "", {}};
  PlotSpec p;
  p.id = "kl";
  p.y = "kl";
  p.fit_from = 10;
  p.fit_to = 100;
  p.fit_series = {"ngd"};
  PlotSpec marked;
  marked.id = "elbo";
  marked.y = "elbo";
  marked.reference_series = "full-vb";
  marked.mark_column = "diverged";
  marked.mark_label = "diverged";
  marked.ymin = -7.5;
  a.plots = {p, marked};
  a.notes = {"n1"};
  const std::string path = fresh_dir("sidecar") + "/run.json";
  write_run_sidecar(path, a);
  const RunSidecar b = read_run_sidecar(path);
  EXPECT_EQ(b.experiment, "fig1");
  EXPECT_EQ(b.run, "fig1-diabetes");
  EXPECT_EQ(b.seed, a.seed);
  EXPECT_EQ(b.seeds, 4);
  EXPECT_EQ(b.iters, 100);
  ASSERT_EQ(b.parameters.size(), 2u);
  ASSERT_TRUE(b.dataset.has_value());
  EXPECT_EQ(b.dataset->crc32, "0badf00d");
  EXPECT_EQ(b.dataset->rows, 442);
  ASSERT_EQ(b.plots.size(), 2u);
  EXPECT_EQ(b.plots[0].fit_to, 100);
  EXPECT_EQ(b.plots[0].fit_series, std::vector<std::string>{"ngd"});
  EXPECT_TRUE(b.plots[0].reference_series.empty() && b.plots[0].mark_column.empty());
  EXPECT_TRUE(std::isnan(b.plots[0].ymin));
  EXPECT_EQ(b.plots[1].reference_series, "full-vb");
  EXPECT_EQ(b.plots[1].mark_column, "diverged");
  EXPECT_EQ(b.plots[1].mark_label, "diverged");
  EXPECT_EQ(b.plots[1].ymin, -7.5);
  EXPECT_EQ(b.notes, std::vector<std::string>{"n1"});
}

TEST(RunSidecar, MalformedFilesNameThePath) {
  const std::string dir = fresh_dir("sidecar_bad");
  EXPECT_THROW(read_run_sidecar(dir + "/none.json"), std::runtime_error);
  std::ofstream(dir + "/a.json") << "{\"run\": \"x\"}";
  try {
    read_run_sidecar(dir + "/a.json");
    FAIL() << "no throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(dir + "/a.json"), std::string::npos) << e.what();
  }
}

TEST(TraceCsv, WriterAndReaderAgreeAndCountNonFiniteValues) {
  const std::string path = fresh_dir("trace") + "/trace.csv";
  TraceWriter w(path, {"method", "seed", "iter", "kl"});
  w.add("ngd").add(0).add(1L).add(0.25).end_row();
  w.add("ngd").add(0).add(2L).add(std::nan("")).end_row();
  EXPECT_THROW(w.add("a,b"), std::logic_error);
  w.add("x");
  EXPECT_THROW(w.end_row(), std::logic_error);
  w = TraceWriter(path, {"method", "seed", "iter", "kl"});
  w.add("ngd").add(0).add(1L).add(0.1).end_row();
  w.add("sgd").add(1).add(2L).add(-INFINITY).end_row();
  EXPECT_EQ(w.non_finite(), 1);
  w.close();
  const TraceTable t = read_trace_csv(path);
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.column("kl"), 3u);
  EXPECT_EQ(t.number(0, 3), 0.1);  // 17 significant digits round-trip a double exactly
  EXPECT_TRUE(std::isinf(t.number(1, 3)) && t.number(1, 3) < 0);
  EXPECT_THROW(t.column("nope"), std::runtime_error);
  EXPECT_THROW(t.number(0, 0), std::runtime_error);  // "ngd" is not a number
}

TEST(TraceCsv, RaggedRowNamesFileAndLine) {
  const std::string path = fresh_dir("ragged") + "/trace.csv";
  std::ofstream(path) << "a,b\n1,2\n3\n";
  try {
    read_trace_csv(path);
    FAIL() << "no throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":3:"), std::string::npos) << e.what();
  }
}

TEST(HtmlReport, TightnessIsReadFromTheNote) {
  EXPECT_EQ(tightness_from_note("replicates 64, tightness 0.53, bound derived"), 0.53);
  EXPECT_EQ(tightness_from_note("Tightness ratio = 1.5e-3"), 1.5e-3);
  EXPECT_TRUE(std::isnan(tightness_from_note("no ratio here")));
  EXPECT_EQ(html_escape("<a href=\"x\">&'"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
}

// A run whose trace is an exact power law y = 5/t for two seeds and a plateau series: the report
// recovers slope −1 (and 0 for the plateau), and writes a self-contained page. gnuplot is pointed at
// a missing path so the test does not depend on it: the page must say so.
TEST(HtmlReport, ExactPowerLawTraceGivesItsSlopeAndAMissingGnuplotIsReported) {
  const std::string dir = fresh_dir("html");
  fs::create_directories(dir + "/runs/toy");
  {
    TraceWriter w(dir + "/runs/toy/trace.csv", {"method", "seed", "iter", "kl"});
    for (long seed = 0; seed < 2; ++seed)
      for (long t = 1; t <= 200; ++t) {
        w.add("decay").add(seed).add(t).add(5.0 / static_cast<double>(t)).end_row();
        w.add("plateau").add(seed).add(t).add(0.5).end_row();
      }
    w.close();
  }
  RunSidecar s = toy_sidecar();
  PlotSpec p;
  p.id = "kl";
  p.y = "kl";
  p.fit_from = 20;
  p.fit_to = 200;
  s.plots = {p};
  write_run_sidecar(dir + "/runs/toy/run.json", s);
  ClaimRecord r;
  r.claim = "c.1";
  r.instance = "i";
  r.precision = "double";
  r.lhs = 1;
  r.rhs = 2;
  r.margin = 1;
  r.verdict = Verdict::kHolds;
  r.note = "tightness 0.5";
  ClaimRecord zero = r;  // a control whose bound is 0: lhs/rhs is undefined and shown as a dash
  zero.instance = "zero-bound";
  zero.kind = Kind::kControl;
  zero.lhs = 0;
  zero.rhs = 0;
  zero.margin = 0;
  zero.verdict = Verdict::kBroken;
  zero.note = "";
  write_claims_json(dir + "/claims.json", RunMeta{}, {r, zero});

  ReportOptions o;
  o.dir = dir;
  o.gnuplot = dir + "/no/such/gnuplot";
  const ReportResult res = write_report(o);
  EXPECT_TRUE(res.have_claims);
  EXPECT_TRUE(res.claims_pass());
  EXPECT_EQ(res.runs, 1);
  EXPECT_FALSE(res.gnuplot_ok);
  ASSERT_EQ(res.slopes.size(), 2u);
  const double tol = rounding_budget<double>(8 * 200, 6.0);  // sums of ≤ 200 logs of magnitude < 6
  for (const auto& sr : res.slopes) {
    ASSERT_TRUE(sr.ok) << sr.problem;
    const double want = sr.series == "decay" ? -1.0 : 0.0;
    const double err = std::fabs(sr.fit.slope - want);
    EXPECT_TRUE(err == err && err <= tol) << sr.series << " slope " << sr.fit.slope;
    EXPECT_EQ(sr.fit.points, 181);
    ASSERT_TRUE(sr.have_across_seeds);
    EXPECT_EQ(sr.across_seeds.count, 2);
  }
  const std::string html = slurp(res.index_path);
  EXPECT_NE(html.find("gnuplot was not found"), std::string::npos);
  EXPECT_NE(html.find("Claims: PASS"), std::string::npos);
  EXPECT_NE(html.find("<td>c.1</td>"), std::string::npos);
  EXPECT_EQ(html.find(">nan<"), std::string::npos);  // the zero-bound control's lhs/rhs
  EXPECT_NE(html.find("undefined: a signed lhs, or rhs is 0 or not finite"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_TRUE(fs::exists(dir + "/plots/toy--kl.csv"));
}

// The first screen names, next to the verdict, every claim without evidence (no claim record holds)
// and every claim with vacuous or skipped records beside its evidence; a claim all of whose records
// are evidence is in neither list.
TEST(HtmlReport, FirstScreenNamesTheClaimsWithoutEvidence) {
  const std::string dir = fresh_dir("html-evidence");
  auto rec = [](const std::string& claim, const std::string& inst, Kind kind, Verdict v) {
    ClaimRecord r;
    r.claim = claim;
    r.instance = inst;
    r.precision = "double";
    r.kind = kind;
    // The verdict as the report recomputes it from lhs ≤ rhs and the tightness lhs/rhs.
    r.lhs = v == Verdict::kBroken ? 2 : v == Verdict::kVacuous ? 1e-9 : 1;
    r.rhs = v == Verdict::kBroken ? 1 : v == Verdict::kVacuous ? 1 : 2;
    r.margin = r.rhs - r.lhs;
    r.verdict = v;
    return r;
  };
  write_claims_json(dir + "/claims.json", RunMeta{},
                    {rec("all.evidence", "i", Kind::kClaim, Verdict::kHolds), rec("all.evidence", "c", Kind::kControl, Verdict::kBroken),
                     rec("only.vacuous", "i", Kind::kClaim, Verdict::kVacuous), rec("only.vacuous", "c", Kind::kControl, Verdict::kBroken),
                     rec("some.skipped", "i", Kind::kClaim, Verdict::kHolds), rec("some.skipped", "j", Kind::kClaim, Verdict::kSkipped),
                     rec("some.skipped", "c", Kind::kControl, Verdict::kBroken)});
  const std::string html = report_without_gnuplot(dir);
  const auto verdict = html.find("Claims: PASS"), none = html.find("<b>No evidence</b>"), partly = html.find("<b>Vacuous or skipped records</b>");
  ASSERT_NE(verdict, std::string::npos);
  ASSERT_NE(none, std::string::npos);
  ASSERT_NE(partly, std::string::npos);
  const auto claims_section = html.find("<h2 id=\"claims\">");
  EXPECT_LT(verdict, none);
  EXPECT_LT(partly, claims_section);  // on the first screen, before the claims table
  const std::string none_line = html.substr(none, html.find("</p>", none) - none);
  const std::string partly_line = html.substr(partly, html.find("</p>", partly) - partly);
  EXPECT_NE(none_line.find("<code>only.vacuous</code> (1 vacuous, 0 skipped)"), std::string::npos) << none_line;
  EXPECT_NE(partly_line.find("<code>some.skipped</code> (0 vacuous, 1 skipped, 1 hold)"), std::string::npos) << partly_line;
  EXPECT_EQ(none_line.find("all.evidence"), std::string::npos);
  EXPECT_EQ(partly_line.find("all.evidence"), std::string::npos);
}

// The kill matrix names its mutant columns (not only M1, M2, ...) and lets its "parts read" wrap.
TEST(HtmlReport, KillMatrixColumnsAreNamed) {
  const std::string dir = fresh_dir("html-km");
  write_claims_json(dir + "/claims.json", RunMeta{}, {});
  KillMatrix m;
  m.meta.seed = 7;
  m.meta.mode = "quick";
  m.claims = {"c.one"};
  m.reads = {"schedule,estimate,averaging"};
  m.mutants = {MutantOutcome{"step-harmonic", "what", "", 1, 0.1, {}, "schedule", {}},
               MutantOutcome{"g1-bias", "what", "", 1, 0.1, {}, "estimate", {}}};
  write_kill_matrix_json(dir + "/mutants.json", m);
  const std::string html = report_without_gnuplot(dir);
  EXPECT_NE(html.find("<table class=\"km\">"), std::string::npos);
  EXPECT_NE(html.find("<span>M1 step-harmonic</span>"), std::string::npos);
  EXPECT_NE(html.find("<span>M2 g1-bias</span>"), std::string::npos);
  EXPECT_NE(html.find("schedule, estimate, averaging"), std::string::npos);
}

// Marked rows (PlotSpec::mark_column) go to a -marks.csv of their own, drawn on the axis floor ymin
// when they lie below it; unmarked rows are not in it.
TEST(HtmlReport, MarkedRowsAreWrittenAndClampedToTheAxisFloor) {
  const std::string dir = fresh_dir("html_marks");
  fs::create_directories(dir + "/runs/toy");
  {
    TraceWriter w(dir + "/runs/toy/trace.csv", {"series", "seed", "x", "y", "flag"});
    w.add("ref").add(0L).add(1L).add(-2.0).add(0L).end_row();
    w.add("run").add(0L).add(1L).add(-3.0).add(0L).end_row();
    w.add("run").add(0L).add(2L).add(-1e200).add(1L).end_row();
    w.add("other").add(0L).add(3L).add(-4.0).add(1L).end_row();
    w.close();
  }
  RunSidecar s = toy_sidecar();
  PlotSpec p;
  p.id = "y";
  p.x = "x";
  p.y = "y";
  p.series = "series";
  p.logy = false;
  p.reference_series = "ref";
  p.mark_column = "flag";
  p.ymin = -5;
  s.plots = {p};
  write_run_sidecar(dir + "/runs/toy/run.json", s);
  ReportOptions o;
  o.dir = dir;
  o.gnuplot = dir + "/no/such/gnuplot";
  write_report(o);
  const std::string marks = slurp(dir + "/plots/toy--y-marks.csv");
  EXPECT_EQ(marks, "x,y\n2,-5\n3,-4\n");
}

// A figure must show what a plain drawing hides, and its caption must say only what is drawn: a mean of
// 0 on a log axis is named (crosses at a floor), two coinciding curves are named (one dashed over the
// other), a figure without a fit does not mention one, and curves sharing only their start do not
// count as coinciding.
TEST(HtmlReport, CaptionsNameZerosOnALogAxisAndCoincidingCurvesAndNoFitThatIsNotDrawn) {
  const std::string dir = fresh_dir("html_caption");
  fs::create_directories(dir + "/runs/toy");
  {
    TraceWriter w(dir + "/runs/toy/trace.csv", {"method", "seed", "iter", "err"});
    for (long t = 1; t <= 20; ++t) {
      const double e = std::pow(0.5, static_cast<double>(t));
      w.add("gradient").add(0L).add(t).add(e).end_row();
      w.add("copy").add(0L).add(t).add(e).end_row();
      w.add("onestep").add(0L).add(t).add(t == 1 ? 1.0 : 0.0).end_row();
      w.add("apart").add(0L).add(t).add(t == 1 ? e : 1.0).end_row();  // shares only its first point
    }
    w.close();
  }
  RunSidecar s = toy_sidecar();
  PlotSpec p;
  p.id = "err";
  p.y = "err";
  p.logy = true;
  s.plots = {p};
  write_run_sidecar(dir + "/runs/toy/run.json", s);
  const std::string html = report_without_gnuplot(dir);
  EXPECT_NE(html.find("crosses: a mean of 0 (onestep), which a log axis cannot show"), std::string::npos);
  EXPECT_NE(html.find("copy and gradient coincide"), std::string::npos);
  EXPECT_EQ(html.find("apart and"), std::string::npos);
  EXPECT_EQ(html.find("and apart coincide"), std::string::npos);
  EXPECT_EQ(html.find("fitted power law"), std::string::npos);
}

// DIR/external.json (the Python package's table of implementations outside the kit): the report
// names each implementation and version with its counts, lists each failing record with the claim's
// statement, counts them on the first screen, and names the file when it is malformed.
TEST(HtmlReport, ExternalImplementationsTable) {
  const std::string dir = fresh_dir("external");
  ClaimRecord r;
  r.claim = "svi.schedule";
  r.instance = "i";
  r.lhs = 1;
  r.rhs = 2;
  r.margin = 1;
  r.verdict = Verdict::kHolds;
  write_claims_json(dir + "/claims.json", RunMeta{}, {r});
  {
    std::ofstream f(dir + "/external.json");
    f << R"json({"protocols": {"svi-lda": 1, "conjugate-ngd": 1}, "mode": "quick", "seed": 7, "claims": [],
      "implementations": [
        {"name": "lib-one", "version": "1.2.1", "adapter": "One()", "protocol": "conjugate-ngd", "protocol_version": 1,
         "claims": ["svi.schedule"],
         "verdicts": {"svi.schedule": "PASS"}, "failures": [],
         "counts": {"holds": 3, "broken": 0, "vacuous": 0, "controls_broken": 1, "controls_holding": 0, "skipped": 0, "errors": 0}},
        {"name": "lib-two", "version": "4.2.0", "adapter": "Two()", "protocol": "svi-lda", "protocol_version": 1,
         "claims": ["svi.schedule"],
         "verdicts": {"svi.schedule": "FAIL"},
         "counts": {"holds": 2, "broken": 1, "vacuous": 0, "controls_broken": 1, "controls_holding": 0, "skipped": 0, "errors": 0},
         "failures": [{"claim": "svi.schedule", "instance": "rho-at-t3", "kind": "claim", "statement": "rho_t = rho0 (t + tau)^-kappa",
                       "verdict": "broken", "margin": -0.25, "lhs": 0.5, "rhs": 0.25, "unit": "", "note": "off by one"}]}],
      "missing": [{"adapter": "GensimLda", "reason": "no module named gensim"}]})json";
  }
  ReportOptions o;
  o.dir = dir;
  o.gnuplot = dir + "/no/such/gnuplot";
  write_report(o);
  const std::string html = slurp(dir + "/index.html");
  EXPECT_NE(html.find("Implementations outside the kit: 2 put to their protocol's claims, 1 failing record(s)"), std::string::npos);
  EXPECT_NE(html.find("<td>lib-one</td><td>1.2.1</td><td><code>One()</code></td><td><code>conjugate-ngd</code> v1</td>"),
            std::string::npos);
  EXPECT_NE(html.find("the protocols <code>conjugate-ngd</code> v1, <code>svi-lda</code> v1"), std::string::npos);
  EXPECT_NE(html.find("<td>lib-two</td><td>4.2.0</td>"), std::string::npos);
  EXPECT_NE(html.find("rho_t = rho0 (t + tau)^-kappa"), std::string::npos);
  EXPECT_NE(html.find("rho-at-t3"), std::string::npos);
  EXPECT_NE(html.find("Not run: GensimLda (no module named gensim)"), std::string::npos);
  {
    std::ofstream f(dir + "/external.json");
    f << R"({"protocol": "svi-lda"})";
  }
  try {
    write_report(o);
    ADD_FAILURE() << "a malformed external.json was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("external.json' is not an external-implementations table"), std::string::npos) << e.what();
  }
}

TEST(HtmlReport, EmptyOrMissingDirectoryIsAnError) {
  EXPECT_THROW(write_report(ReportOptions{::testing::TempDir() + "/ngvi_no_such_dir", "gnuplot", "", {}}), std::runtime_error);
  EXPECT_THROW(write_report(ReportOptions{fresh_dir("empty"), "gnuplot", "", {}}), std::runtime_error);
}


// A run's *_table.csv files are shown as tables: NAME_mean with NAME_sd as one "mean ± sd" column,
// empty cells empty, other columns as written.
TEST(HtmlReport, RunTablesPairMeanAndSd) {
  const std::string dir = fresh_dir("html_tables");
  fs::create_directories(dir + "/runs/toy");
  {
    TraceWriter w(dir + "/runs/toy/trace.csv", {"seed", "iter", "y"});
    w.add(0L).add(1L).add(1.0).end_row();
    w.close();
  }
  {
    std::ofstream t(dir + "/runs/toy/auc_table.csv");
    t << "method,test_mean,test_sd,source_test_mean,source_test_sd,seeds\n"
      << "a,0.98125,0.0104,0.967,0.011,5\n"
      << "oracle,0.986,0.002,,,5\n";
  }
  RunSidecar s = toy_sidecar();
  write_run_sidecar(dir + "/runs/toy/run.json", s);
  ReportOptions o;
  o.dir = dir;
  o.gnuplot = dir + "/no/such/gnuplot";
  const ReportResult res = write_report(o);
  const std::string html = slurp(res.index_path);
  EXPECT_NE(html.find("<th>method</th><th>test</th><th>source test</th><th>seeds</th>"), std::string::npos);
  EXPECT_NE(html.find("<td>a</td><td class=\"n\">0.981 &plusmn; 0.010</td><td class=\"n\">0.967 &plusmn; 0.011</td><td>5</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<td>oracle</td><td class=\"n\">0.986 &plusmn; 0.002</td><td></td><td>5</td>"), std::string::npos);
}

// The worst-case search summaries DIR/search/CLAIM.json are shown, worst tightness next to the bound;
// one above its bound is marked a finding; the instance files beside them are not read as summaries;
// a malformed summary is an error naming its file. The summaries are written here by hand.
TEST(HtmlReport, SearchSummariesShowWorstTightnessAndFindings) {
  const std::string dir = fresh_dir("html_search");
  fs::create_directories(dir + "/search");
  auto summary = [&](const std::string& claim, double tightness, bool holds) {
    std::ofstream f(dir + "/search/" + claim + ".json");
    f << "{\"claim\": \"" << claim << "\", \"id\": \"" << claim << ".x\", \"bound\": \"B derived\", \"where\": \"restart 3\", "
      << "\"instance_file\": \"" << claim << ".instance.json\", \"note\": \"note of " << claim << "\", \"worst_tightness\": "
      << tightness << ", \"lhs\": " << tightness << ", \"rhs\": 1, \"allowance\": 1e-15, \"holds\": " << (holds ? "true" : "false")
      << ", \"evaluations\": 40}\n";
  };
  summary("cor1", 0.5, true);
  summary("lemma10", 1.25, false);
  { std::ofstream f(dir + "/search/cor1.instance.json"); f << "{\"schema_version\": 1}\n"; }
  ReportOptions o;
  o.dir = dir;
  o.gnuplot = dir + "/no/such/gnuplot";
  const ReportResult res = write_report(o);
  EXPECT_EQ(res.searches, 2);
  EXPECT_EQ(res.search_findings, 1);
  const std::string html = slurp(res.index_path);
  EXPECT_NE(html.find("<h2 id=\"search\">"), std::string::npos);
  EXPECT_NE(html.find("<code>cor1.x</code> (cor1)</td><td class=\"n\">0.5</td>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"n\">1.25</td>"), std::string::npos);
  EXPECT_NE(html.find("FINDING"), std::string::npos);
  EXPECT_NE(html.find("href=\"search/lemma10.instance.json\""), std::string::npos);
  { std::ofstream f(dir + "/search/cor2.json"); f << "{\"claim\": \"cor2\"}\n"; }
  try {
    write_report(o);
    ADD_FAILURE() << "a malformed search summary was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cor2.json"), std::string::npos) << e.what();
  }
}

}}  // namespace
}  // namespace ngvi::report
