// ngvi run: the experiment registry, the per-run output (trace CSV + JSON sidecar), progress and
// data resolution shared by every experiment.
#include "experiment.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include "cli_common.hpp"
#include "ngvi/data/file_digest.hpp"
#include "ngvi/data/loaders.hpp"
#include "ngvi/models/glm_likelihood.hpp"
#include "ngvi/report/record.hpp"

namespace ngvi::cli {

// ---------------------------------------------------------------------------------------------
// Progress

Progress::Progress(std::string label, long total, bool quiet, double after_seconds)
    : label_(std::move(label)),
      total_(total),
      enabled_(!quiet && isatty(STDERR_FILENO) == 1),
      after_(after_seconds),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {}

Progress::~Progress() { finish(); }

void Progress::update(long done) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (elapsed < after_ || (shown_ && std::chrono::duration<double>(now - last_).count() < 0.1)) return;
  last_ = now;
  const double frac = total_ > 0 ? static_cast<double>(done) / static_cast<double>(total_) : 0.0;
  fmt::print(stderr, "\r\033[K{}  {:3.0f}% ({}/{})  {:.1f} s", label_, 100.0 * frac, done, total_, elapsed);
  std::fflush(stderr);
  shown_ = true;
}

void Progress::advance(long n) {
  std::lock_guard<std::mutex> lock(mutex_);
  done_ += n;
  update(done_);
}

void Progress::finish() {
  if (shown_) {
    fmt::print(stderr, "\r\033[K");
    std::fflush(stderr);
    shown_ = false;
  }
}

// ---------------------------------------------------------------------------------------------
// RunOutput

namespace { namespace NGVI_UNITY_ID {
std::string make_run_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create directory '" + dir + "': " + ec.message());
  return dir;
}
}}  // namespace

RunOutput::RunOutput(const std::string& dir, report::RunSidecar sidecar, std::vector<std::string> columns,
                     std::chrono::steady_clock::time_point start)
    : dir_(NGVI_UNITY_ID::make_run_dir(dir)),
      sidecar_(std::move(sidecar)),
      trace_(dir + "/" + sidecar_.csv, std::move(columns)),
      start_(start) {}

void RunOutput::set_dataset(report::DatasetInfo d) {
  sidecar_.provenance.data_files = report::digest_files(d.files, std::vector<std::string>(d.files.size(), sidecar_.run));
  sidecar_.dataset = std::move(d);
}

std::string RunOutput::finish() {
  trace_.close();
  sidecar_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  sidecar_.provenance.finished = utc_now();
  if (trace_.non_finite() > 0)
    sidecar_.notes.push_back(fmt::format("{} non-finite value(s) in the trace (written as nan/inf)", trace_.non_finite()));
  report::write_run_sidecar(dir_ + "/run.json", sidecar_);
  return dir_;
}

// ---------------------------------------------------------------------------------------------
// ExperimentContext

ExperimentContext::ExperimentContext(const ExperimentInfo& info, const CommonRunOptions& opts, std::string command,
                                     std::vector<std::pair<std::string, std::string>> parameters)
    : info_(info), opts_(opts), command_(std::move(command)), parameters_(std::move(parameters)), started_(utc_now()) {}

int ExperimentContext::threads() const {
  return opts_.threads > 0 ? opts_.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

RunOutput ExperimentContext::open_run(const std::string& run_name, std::vector<std::string> columns) const {
  if (run_name.empty() || run_name.find_first_of("/\\ ") != std::string::npos)
    throw std::logic_error("ngvi::cli::ExperimentContext::open_run: run name '" + run_name + "' is empty or has a slash or space");
  report::RunSidecar s;
  s.experiment = info_.id;
  s.run = run_name;
  s.description = info_.description;
  s.command = command_;
  s.commit = git_commit();
  s.compiler = report::compiler_id();
  s.started = started_;
  s.seed = opts_.seed;
  s.seeds = opts_.seeds;
  s.iters = opts_.iters;
  s.parameters = parameters_;
  s.provenance = build_provenance();
  s.provenance.started = started_;
  return RunOutput(opts_.out + "/runs/" + run_name, std::move(s), std::move(columns), start_);
}

std::unique_ptr<Progress> ExperimentContext::progress(const std::string& what, long total) const {
  return std::make_unique<Progress>(what.empty() ? info_.id : info_.id + " " + what, total, opts_.quiet, opts_.progress_after);
}

void ExperimentContext::say(const std::string& line) const {
  if (!opts_.quiet) fmt::print("{}\n", line);
}

std::vector<LoadedData> ExperimentContext::datasets(const std::vector<std::string>& defaults, bool standardise) const {
  std::vector<LoadedData> out;
  auto finish = [&](LoadedData ld) {
    if (standardise) {
      data::standardize(ld.data);
      ld.info.preprocessing = "features standardised to zero mean and unit variance";
    }
    ld.info.rows = static_cast<long>(ld.data.n());
    ld.info.cols = static_cast<long>(ld.data.d());
    ld.info.crc32 = data::file_crc32(ld.info.path);
    ld.info.sha256 = data::file_sha256(ld.info.path);
    out.push_back(std::move(ld));
  };
  const auto names = data::builtin_names();
  auto is_builtin = [&](const std::string& n) { return std::find(names.begin(), names.end(), n) != names.end(); };
  // The files each data set's loading read (data::files_read() grows as the loaders read).
  auto record_files = [](LoadedData& ld, std::size_t first) {
    const auto all = data::files_read();
    ld.info.files.assign(all.begin() + static_cast<std::ptrdiff_t>(std::min(first, all.size())), all.end());
  };
  if (!opts_.data.empty()) {
    LoadedData ld;
    const std::size_t first = data::files_read().size();
    if (is_builtin(opts_.data)) {
      if (!opts_.target.empty()) throw UsageError("--target is not used with the builtin data set '" + opts_.data + "'");
      ld.data = data::load_builtin(opts_.data);
      ld.info.name = opts_.data;
      ld.info.path = data::builtin_path(opts_.data);
      ld.info.target = "builtin target";
    } else {
      if (opts_.target.empty()) throw UsageError("--data " + opts_.data + " needs --target COLUMN");
      const auto table = data::read_csv(opts_.data);
      ld.data = data::table_to_dataset(table, opts_.target);
      ld.info.name = std::filesystem::path(opts_.data).filename().string();
      ld.info.path = opts_.data;
      ld.info.target = opts_.target;
    }
    record_files(ld, first);
    finish(std::move(ld));
    return out;
  }
  if (!opts_.target.empty()) throw UsageError("--target needs --data FILE");
  std::string missing;
  for (const auto& name : defaults) {
    if (!data::builtin_available(name)) {
      missing += (missing.empty() ? "" : ", ") + name + " (" + data::builtin_path(name) + ")";
      fmt::print(stderr, "ngvi run {}: data set '{}' is not installed ({}); skipped\n", info_.id, name, data::builtin_path(name));
      continue;
    }
    LoadedData ld;
    const std::size_t first = data::files_read().size();
    ld.data = data::load_builtin(name);
    record_files(ld, first);
    ld.info.name = name;
    ld.info.path = data::builtin_path(name);
    ld.info.target = "builtin target";
    finish(std::move(ld));
  }
  if (out.empty())
    throw std::runtime_error("none of the default data sets is installed: " + missing +
                             "; install the Debian packages (make verify does) or pass --data FILE --target COLUMN");
  return out;
}

// ---------------------------------------------------------------------------------------------
// Registry

ExperimentRegistry& ExperimentRegistry::instance() {
  static ExperimentRegistry r;
  return r;
}

void ExperimentRegistry::add(ExperimentInfo info) {
  if (find(info.id) != nullptr)
    throw std::logic_error("ngvi::cli::ExperimentRegistry::add: experiment id '" + info.id + "' registered twice");
  experiments_.push_back(std::move(info));
  std::sort(experiments_.begin(), experiments_.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
}

const ExperimentInfo* ExperimentRegistry::find(const std::string& id) const {
  for (const auto& e : experiments_)
    if (e.id == id) return &e;
  return nullptr;
}

Dataset<double> logistic_design(LoadedData& ld, long max_rows) {
  validate_binary_labels(ld.data, "data set '" + ld.info.name + "'");
  Dataset<double> data = ld.data;
  if (max_rows > 0 && data.n() > max_rows) {
    data.X = Mat<double>(data.X.topRows(max_rows));
    data.y = Vec<double>(data.y.head(max_rows));
  }
  data.X = with_bias_column<double>(data.X);
  ld.info.preprocessing += fmt::format("; first {} rows; bias column appended", data.n());
  return data;
}

std::vector<long> record_iterations(long T, int per_decade) {
  std::vector<long> out;
  for (long t = 1; t <= std::min(T, 100L); ++t) out.push_back(t);
  if (T > 100) {
    const double step = std::pow(10.0, 1.0 / per_decade);
    for (double x = 100.0 * step; x < static_cast<double>(T); x *= step) {
      const long t = std::lround(x);
      if (t > out.back() && t < T) out.push_back(t);
    }
    out.push_back(T);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The `ngvi run` subcommand

namespace { namespace NGVI_UNITY_ID {

std::string known_experiments() {
  std::string s;
  for (const auto& e : ExperimentRegistry::instance().experiments()) s += (s.empty() ? "" : ", ") + e.id;
  return s;
}

/// Every option of the experiment's subcommand, as given on the command line or defaulted.
std::vector<std::pair<std::string, std::string>> collect_parameters(const CLI::App& sub) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const CLI::Option* opt : sub.get_options()) {
    const std::string name = opt->get_name();
    if (name == "--help" || name == "-h" || name.empty()) continue;
    std::string value;
    if (opt->get_expected_min() == 0) {
      value = opt->count() > 0 ? "true" : "false";
    } else if (opt->count() > 0) {
      for (const auto& r : opt->results()) value += (value.empty() ? "" : " ") + r;
    } else {
      value = opt->get_default_str();
    }
    out.emplace_back(name, value);
  }
  return out;
}

/// "--noise (now 1e-300) or --clamp (now 0.001)" for the experiment's numeric options.
std::string numeric_hint(const ExperimentInfo& e, const std::vector<std::pair<std::string, std::string>>& params) {
  std::string s;
  for (std::size_t i = 0; i < e.numeric_options.size(); ++i) {
    const auto& name = e.numeric_options[i];
    std::string value = "?";
    for (const auto& [k, v] : params)
      if (k == name) value = v;
    s += (i == 0 ? "" : i + 1 == e.numeric_options.size() ? " or " : ", ") + name + " (now " + value + ")";
  }
  return s;
}

int run_experiment(const ExperimentInfo& e, const CommonRunOptions& o, const CLI::App& sub) {
  const auto params = collect_parameters(sub);
  ExperimentContext ctx(e, o, command_line(), params);
  // A domain or range error from the library inside the run is a numerical failure caused by the
  // scale of the problem: reported as one line naming the options that set that scale.
  const auto numerical = [&](const std::exception& ex) -> std::runtime_error {
    if (e.numeric_options.empty()) return std::runtime_error(ex.what());
    return std::runtime_error(fmt::format("numerical failure inside the run ({}); change {}", ex.what(), numeric_hint(e, params)));
  };
  try {
    e.run(ctx);
  } catch (const UsageError&) {
    throw;
  } catch (const std::domain_error& ex) {
    throw numerical(ex);
  } catch (const std::range_error& ex) {
    throw numerical(ex);
  }
  return 0;
}

}}  // namespace

void add_run(CLI::App& app, int* status) {
  auto* run = app.add_subcommand("run", "Run an experiment; writes OUT/runs/<run>/trace.csv and run.json (see 'ngvi run --list')");
  auto list = std::make_shared<bool>(false);
  auto unknown = std::make_shared<std::string>();
  run->add_flag("--list", *list, "List the registered experiments and exit (default: off)");
  run->add_option("EXPERIMENT", *unknown, "Experiment id: " + NGVI_UNITY_ID::known_experiments());
  run->require_subcommand(0, 1);
  for (const auto& e : ExperimentRegistry::instance().experiments()) {
    auto o = std::make_shared<CommonRunOptions>();
    o->iters = e.default_iters;
    o->seeds = e.default_seeds;
    auto* sub = run->add_subcommand(e.id, e.description);
    sub->add_option("--out", o->out, "Output directory; the run is written to OUT/runs/<run>/")
        ->capture_default_str()
        ->check(non_empty_path());
    sub->add_option("--seed", o->seed, "Base random seed; seed k of --seeds uses stream k of it (also NGVI_SEED)")
        ->envname("NGVI_SEED")
        ->capture_default_str()
        ->check(seed_value());
    sub->add_option("--seeds", o->seeds, "Number of independent seeds (replicates)")
        ->capture_default_str()
        ->check(integer_in(1, 100000));
    if (e.default_iters > 0) {
      sub->add_option("--iters", o->iters, "Iterations per run")->capture_default_str()->check(integer_in(1, 1000000000));
    } else {
      // An experiment whose length is set by its own options (default_iters = 0) refuses --iters
      // rather than ignore it.
      sub->add_option("--iters", o->iters, "Not used: the experiment's own options set its length")
          ->check(CLI::Validator([id = e.id](std::string&) { return "does not apply to " + id + ": its own options (e.g. --passes) set its length"; },
                                 "N/A"));
    }
    sub->add_option("--threads", o->threads, "Worker threads (0 = all cores); results do not depend on it")
        ->capture_default_str()
        ->check(integer_in(0, 4096));
    if (e.uses_data) {
      sub->add_option("--data", o->data,
                      "A builtin data set name or a CSV file (plain or gzip) (default: none, i.e. " + e.data_help + ")")
          ->capture_default_str()
          ->check(non_empty_path());
      sub->add_option("--target", o->target, "Target column of the --data CSV file (default: none)")
          ->capture_default_str()
          ->check(CLI::Validator([](std::string& s) { return s.empty() ? std::string("is empty; name a column") : std::string(); }, "COLUMN"));
    }
    sub->add_flag("--quiet", o->quiet, "No progress line and no summary on stdout (default: off)");
    sub->add_option("--progress-after", o->progress_after,
                    "Seconds a run lasts before its progress line appears on a terminal (also NGVI_PROGRESS_AFTER)")
        ->envname("NGVI_PROGRESS_AFTER")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 86400.0));
    if (e.add_options) e.add_options(*sub);
    const std::string id = e.id;
    sub->callback([id, o, sub, status] {
      const auto* info = ExperimentRegistry::instance().find(id);
      *status = NGVI_UNITY_ID::run_experiment(*info, *o, *sub);
    });
  }
  run->callback([run, list, unknown, status] {
    if (*list) {
      for (const auto& e : ExperimentRegistry::instance().experiments())
        fmt::print("{:<24} {}\n", e.id, e.description);
      *status = 0;
      return;
    }
    if (!unknown->empty())
      throw UsageError("unknown experiment '" + *unknown + "' (known: " + NGVI_UNITY_ID::known_experiments() + ")");
    if (run->get_subcommands().empty())
      throw UsageError("name an experiment (known: " + NGVI_UNITY_ID::known_experiments() + "; see ngvi run --list)");
  });
}

}  // namespace ngvi::cli
