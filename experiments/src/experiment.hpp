#pragma once
// The experiment registry behind `ngvi run EXPERIMENT`. An experiment is one file
// experiments/src/run_<name>.cpp that registers itself at static-initialisation time, as claims do:
//
//   namespace {
//   struct Params { int dim = 5; };                     // experiment-specific options
//   Params& params() { static Params p; return p; }
//   void run(ngvi::cli::ExperimentContext& ctx) { ... ctx.open_run(...) ... }
//   const ngvi::cli::ExperimentRegistrar reg({
//       .id = "my-experiment", .description = "...", .default_iters = 1000, .default_seeds = 5,
//       .uses_data = false,
//       .add_options = [](CLI::App& app) { app.add_option("--dim", params().dim, "...")->capture_default_str(); },
//       .run = run});
//   }  // namespace
//
// The framework gives every experiment the common options (--out, --seed, --seeds, --iters,
// --threads, --quiet and, with uses_data, --data/--target), records every option's value in the
// run's JSON sidecar, and writes OUT/runs/<run>/{trace.csv, run.json} through RunOutput.
#include <CLI/CLI.hpp>
#include <chrono>
#include <mutex>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ngvi/data/dataset.hpp"
#include "ngvi/report/run_record.hpp"

namespace ngvi::cli {

/// The options every experiment has.
struct CommonRunOptions {
  std::string out = "report";
  std::uint64_t seed = 20240601ULL;
  int seeds = 5;
  long iters = 1000;
  int threads = 0;
  std::string data;
  std::string target;
  bool quiet = false;
  double progress_after = 1.0;  ///< seconds before the progress line appears (--progress-after)
};

/// One updating line on stderr ("label  42% (4200/10000)  1.3 s"), shown only when stderr is a
/// terminal, not --quiet, and the run has lasted `after_seconds` (default one second); updated at
/// most every 0.1 s; cleared when done.
class Progress {
 public:
  Progress(std::string label, long total, bool quiet, double after_seconds = 1.0);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  /// Reports that `done` of `total` units are finished (one caller at a time; see `advance`).
  void update(long done);
  /// Adds `n` finished units; safe to call from several replicate threads at once.
  void advance(long n);
  void finish();

 private:
  std::mutex mutex_;
  long done_ = 0;
  std::string label_;
  long total_;
  bool enabled_;
  bool shown_ = false;
  double after_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_;
};

/// A data set resolved from --data/--target (or a builtin default) with its provenance.
struct LoadedData {
  Dataset<double> data;
  report::DatasetInfo info;
};

/// The output of one run: a trace CSV plus its JSON sidecar under OUT/runs/<run>/.
class RunOutput {
 public:
  RunOutput(const std::string& dir, report::RunSidecar sidecar, std::vector<std::string> columns,
            std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now());
  report::TraceWriter& trace() { return trace_; }
  void add_plot(report::PlotSpec p) { sidecar_.plots.push_back(std::move(p)); }
  /// Records the data set and the SHA-256 of every file read to load it (in the provenance).
  void set_dataset(report::DatasetInfo d);
  void note(std::string n) { sidecar_.notes.push_back(std::move(n)); }
  /// Closes the trace and writes run.json (with the wall time). Returns the run directory.
  std::string finish();

 private:
  std::string dir_;
  report::RunSidecar sidecar_;
  report::TraceWriter trace_;
  std::chrono::steady_clock::time_point start_;
};

struct ExperimentInfo;

/// What an experiment's run function receives.
class ExperimentContext {
 public:
  ExperimentContext(const ExperimentInfo& info, const CommonRunOptions& opts, std::string command,
                    std::vector<std::pair<std::string, std::string>> parameters);
  const CommonRunOptions& options() const { return opts_; }
  const ExperimentInfo& info() const { return info_; }
  /// Worker threads (resolved: --threads 0 means all cores).
  int threads() const;
  /// Opens OUT/runs/<run_name>/ with the given trace columns; the sidecar carries the provenance.
  RunOutput open_run(const std::string& run_name, std::vector<std::string> columns) const;
  /// Progress for `total` units of work, labelled with the experiment id and `what`.
  std::unique_ptr<Progress> progress(const std::string& what, long total) const;
  /// The data sets this run should use: --data (a builtin name, or a CSV file with --target) when
  /// given, else each of `defaults` (builtin names) that is installed; a missing default is skipped
  /// with a message on stderr. Features are standardised when `standardise`.
  /// @throws UsageError for --data FILE without --target; std::runtime_error from the loaders
  ///         (file and line) for unreadable data.
  std::vector<LoadedData> datasets(const std::vector<std::string>& defaults, bool standardise) const;
  /// Prints one line on stdout unless --quiet.
  void say(const std::string& line) const;

 private:
  const ExperimentInfo& info_;
  const CommonRunOptions& opts_;
  std::string command_;
  std::vector<std::pair<std::string, std::string>> parameters_;
  std::string started_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

struct ExperimentInfo {
  std::string id;
  std::string description;
  long default_iters = 1000;
  int default_seeds = 5;
  bool uses_data = false;                           ///< offer --data/--target
  std::string data_help;                            ///< what --data defaults to, for --help
  std::function<void(CLI::App&)> add_options;       ///< experiment-specific options (may be empty)
  /// The options that set the numerical scale of the problem (e.g. {"--noise", "--clamp"}): a
  /// numerical failure inside the run (std::domain_error or std::range_error from the library) is
  /// reported as one line naming them with their values, so the user knows what to change.
  std::vector<std::string> numeric_options;
  std::function<void(ExperimentContext&)> run;
};

class ExperimentRegistry {
 public:
  static ExperimentRegistry& instance();
  void add(ExperimentInfo info);
  const std::vector<ExperimentInfo>& experiments() const { return experiments_; }
  const ExperimentInfo* find(const std::string& id) const;

 private:
  std::vector<ExperimentInfo> experiments_;
};

struct ExperimentRegistrar {
  explicit ExperimentRegistrar(ExperimentInfo info) { ExperimentRegistry::instance().add(std::move(info)); }
};

/// The design of a logistic regression with bias on a loaded data set: checks the labels are 0/1
/// (std::domain_error naming the data row), keeps the first `max_rows` rows (0 = all), appends a
/// column of ones, and records both steps in `ld.info.preprocessing`.
Dataset<double> logistic_design(LoadedData& ld, long max_rows);

/// Iterations at which a trajectory of T steps is recorded: every t ≤ 100, then about
/// `per_decade` log-spaced values per decade, and T itself.
std::vector<long> record_iterations(long T, int per_decade = 40);

/// Registers `ngvi run` on the app; the callback stores its exit code in *status.
void add_run(CLI::App& app, int* status);

}  // namespace ngvi::cli

namespace ngvi::cli {
/// Registers `ngvi report DIR` on the app (experiments/src/report_cmd.cpp).
void add_report(CLI::App& app, int* status);
}  // namespace ngvi::cli
