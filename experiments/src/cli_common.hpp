#pragma once
// Shared pieces of the ngvi command: the one-line error type and provenance helpers.
#include <stdexcept>
#include <string>
#include <vector>

#include "ngvi/report/provenance.hpp"

namespace ngvi::cli {

/// An error the CLI reports as one line "ngvi <subcommand>: <message>" and exit status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The git commit of the source tree the binary was built from, fixed at build time ("unknown"
/// outside a checkout); see build_provenance() for the dirty flag.
std::string git_commit();
/// What `ngvi --version` prints: kit version, commit (and "dirty"), build type, compiler.
std::string version_text();
/// The provenance of this binary and machine (kit version, commit, dirty flag, build type, flags,
/// compiler, CPU model, library versions); the caller sets the times and data files.
report::Provenance build_provenance();
/// Current UTC time, ISO 8601.
std::string utc_now();
/// The command line of this process ("ngvi verify --full ..."), set once by main.
void set_command_line(int argc, char** argv);
const std::string& command_line();
/// The arguments of this process after the program name, as given (set by set_command_line).
const std::vector<std::string>& command_arguments();

}  // namespace ngvi::cli

#include <CLI/CLI.hpp>

namespace ngvi::cli {

/// Option check: a decimal integer in [lo, hi]. "abc" gives "'abc' is not an integer", "1e3" and
/// "2.5" likewise; a value outside the range names the range.
CLI::Validator integer_in(long long lo, long long hi);
/// Option check for a random seed: a decimal integer in [0, 2^64 - 1]; "-1" and values that
/// overflow 64 bits are refused (never wrapped).
CLI::Validator seed_value();
/// Option check for a path: must not be empty ('' would write to or read from the wrong place).
CLI::Validator non_empty_path();

/// Creates the parent directory of an output file named by `option` and checks that it can be
/// written. @throws UsageError on an empty path, std::runtime_error naming the file otherwise.
void check_writable(const std::string& path, const char* option);

/// Refuses (UsageError naming `option`) an allocation of `bytes` that exceeds half of this
/// machine's physical memory, before it is attempted; `what` says what the memory is for.
void check_allocation(const std::string& option, double bytes, const std::string& what);

}  // namespace ngvi::cli

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace ngvi::cli {

/// Feedback on stderr for a command made of numbered items (verify's claims, bound's steps).
/// On a terminal: one updating line "<label> [i/n] <item>  12.3 s", written when an item begins
/// and refreshed every half second, cleared by finish(). When stderr is not a terminal: nothing for
/// the first `NGVI_STATUS_EVERY` seconds (default 30; 0 switches it off), then one line per period,
/// "<label>: i-1/n done, running <item> for 4.0 s; 31.0 s elapsed", so a log shows the command is alive.
class StatusLine {
 public:
  StatusLine(std::string label, long total, bool enabled = true);
  ~StatusLine();
  StatusLine(const StatusLine&) = delete;
  StatusLine& operator=(const StatusLine&) = delete;
  /// Item `index` (1-based) of the total begins.
  void begin(long index, std::string item);
  /// Stops the status thread and clears the terminal line.
  void finish();

 private:
  void loop();
  void print_locked(bool periodic);
  std::string label_;
  long total_;
  bool tty_ = false;
  bool enabled_ = false;
  double every_ = 30.0;
  long index_ = 0;
  std::string item_;
  bool shown_ = false;
  bool stop_ = false;
  std::chrono::steady_clock::time_point start_, item_start_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::thread thread_;
};

}  // namespace ngvi::cli
