#pragma once
/// @file
/// The record of one experiment run (`ngvi run`): a trace CSV in long format (one row per method,
/// seed and recorded iteration; text and numeric columns) and a JSON sidecar that carries the
/// provenance (seed, commit, compiler, every parameter, the data set and its CRC-32, the command,
/// the start time) and the plots the report should draw from the trace. Layout under an output
/// directory OUT:
///   OUT/runs/<run>/trace.csv
///   OUT/runs/<run>/run.json
/// Implemented in lib/src/report_run.cpp.
#include <fstream>
#include <optional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "ngvi/report/provenance.hpp"

namespace ngvi::report {

/// One figure: `y` against `x`, one line per distinct value of `series`, averaged over the rows
/// that share (series, x) (i.e. over seeds). With fit_to > 0, a line is fitted to log y against
/// log x for x ∈ [fit_from, fit_to] for each series listed in fit_series (all series when empty).
struct PlotSpec {
  std::string id;      ///< file-name-safe identifier, unique within the run
  std::string title;
  std::string x = "iter";
  std::string y;
  std::string series = "method";
  std::string xlabel;
  std::string ylabel;
  bool logx = true;
  bool logy = true;
  double fit_from = 0;
  double fit_to = 0;  ///< 0: no fit
  std::vector<std::string> fit_series;
  std::string reference_series;  ///< a series drawn in black (a reference such as an exact solution); empty: none
  std::string mark_column;       ///< rows with a non-zero value in this column are also drawn as marked points; empty: none
  std::string mark_label;        ///< the legend of the marked points
  /// The lower end of the y axis (NaN: automatic). Curves below it leave the figure; marked points
  /// below it are drawn on the axis.
  double ymin = std::numeric_limits<double>::quiet_NaN();
  /// Draw every series as points, not lines: a scatter plot (x, y need not be a function; rows with
  /// the same x in one series are still averaged, so give scatter rows distinct x).
  bool points = false;
};

/// The data set a run used.
struct DatasetInfo {
  std::string name;    ///< builtin name or the file's base name
  std::string path;    ///< the file read (the main file for a builtin)
  std::string crc32;   ///< zlib CRC-32 of the file's bytes, 8 hex digits
  std::string target;  ///< target column
  long rows = 0;
  long cols = 0;       ///< features
  std::string preprocessing;  ///< e.g. "standardised features, centred target"
  std::string sha256;  ///< SHA-256 of the file's bytes, 64 hex digits
  std::vector<std::string> files;  ///< every file read to load it (their SHA-256 go to the provenance)
};

struct RunSidecar {
  std::string experiment;   ///< registry id, e.g. "fig1"
  std::string run;          ///< run name, the directory under runs/, e.g. "fig1-diabetes"
  std::string description;
  std::string csv = "trace.csv";
  std::string command;      ///< the command line that produced the run
  std::string commit;
  std::string compiler;
  std::string started;      ///< UTC, ISO 8601
  double seconds = 0;       ///< wall time of the run
  unsigned long long seed = 0;
  long seeds = 0;
  long iters = 0;
  std::vector<std::pair<std::string, std::string>> parameters;  ///< every option, as given or defaulted
  std::optional<DatasetInfo> dataset;
  std::vector<PlotSpec> plots;
  std::vector<std::string> notes;
  Provenance provenance;  ///< build, machine, libraries, start/end time, SHA-256 of every data file read
};

/// Writes the sidecar as JSON.
/// @throws std::runtime_error naming the path if it cannot be written.
void write_run_sidecar(const std::string& path, const RunSidecar& run);

/// Reads a sidecar written by write_run_sidecar.
/// @throws std::runtime_error naming the path and the problem (missing file, invalid JSON, a
///         missing or mistyped field).
RunSidecar read_run_sidecar(const std::string& path);

/// A trace read back: column names and text cells (numbers are parsed on demand).
struct TraceTable {
  std::string source;
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
  /// Index of a column.
  /// @throws std::runtime_error naming the file and the column if it does not exist.
  std::size_t column(const std::string& name) const;
  /// Cell (row, col) as a number ("nan", "inf", "-inf" included).
  /// @throws std::runtime_error naming the file, the line and the column if it is not a number.
  double number(std::size_t row, std::size_t col) const;
};

/// Reads a trace CSV (comma-separated, one header line, no quoting).
/// @throws std::runtime_error naming the file and line: missing file, empty file, ragged row.
TraceTable read_trace_csv(const std::string& path);

/// Writes a trace CSV row by row. Cells must not contain commas, quotes or line breaks (checked).
/// Numbers are written with 17 significant digits; non-finite values as nan/inf/-inf, which the
/// report counts and shows.
class TraceWriter {
 public:
  /// @throws std::runtime_error naming the path if it cannot be opened.
  TraceWriter(const std::string& path, std::vector<std::string> columns);
  TraceWriter& add(const std::string& text);
  TraceWriter& add(const char* text) { return add(std::string(text)); }
  TraceWriter& add(double value);
  TraceWriter& add(long value);
  TraceWriter& add(int value) { return add(static_cast<long>(value)); }
  /// @throws std::logic_error if the row does not have one cell per column.
  void end_row();
  /// Flushes and closes. @throws std::runtime_error on a write error.
  void close();
  long rows() const { return rows_; }
  long non_finite() const { return non_finite_; }

 private:
  std::string path_;
  std::vector<std::string> columns_;
  std::vector<std::string> cells_;
  std::ofstream out_;
  long rows_ = 0;
  long non_finite_ = 0;
};

}  // namespace ngvi::report
