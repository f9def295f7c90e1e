#pragma once
/// @file
/// A child process spoken to in lines over its stdin and stdout (docs/protocol.md, "Transport"): the
/// transport of `ngvi verify --algorithm exec:CMD`, in which an implementation of a protocol written in
/// any language answers one line per request line.
///
///   split_command   CMD ARGS split into words as a shell splits plain words and '…' / "…" quotes
///                   (no shell is run: no variables, globs, pipes or redirections);
///   LineProcess     the child: started with posix_spawnp, its stdin and stdout pipes of ours (close-on-
///                   exec, so no other child inherits them), its stderr ngvi's own; exchange() writes one
///                   line and reads one line back within a timeout (poll()); a write to a child that has
///                   gone returns EPIPE instead of raising SIGPIPE (blocked for that write on the calling
///                   thread only; the process's disposition is not changed). A child that dies, closes
///                   its stdout or does not answer in time is killed if need be and reaped there, and
///                   the error says which (exit status or signal, or the timeout); the destructor closes
///                   its stdin, waits a moment for it to exit, then kills and reaps it: no zombie, no
///                   descriptor left open.
///
/// Not thread-safe: one caller at a time (conjugate_ngd_exec.hpp holds a mutex around each exchange).
#include <sys/types.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

namespace ngvi::protocols {

/// The words of a command line: split at unquoted blanks; '…' keeps everything inside literally; "…"
/// keeps everything but \" and \\ (which stand for " and \); outside quotes \x stands for x.
/// @throws std::invalid_argument naming the command on an unbalanced quote or an empty command.
std::vector<std::string> split_command(const std::string& command);

/// The child could not be started at all (no such program, not executable, …).
struct ProcessStartError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The child failed during an exchange: it exited or was killed, closed its output, or did not answer
/// within the timeout (then it is killed). The process is gone after this error (alive() is false).
struct ProcessFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class LineProcess {
 public:
  /// Starts argv[0] (looked up in PATH when it has no '/') with the arguments argv[1..].
  /// @throws std::invalid_argument if argv is empty; ProcessStartError naming the program and the
  ///         system's reason if it cannot be started.
  explicit LineProcess(const std::vector<std::string>& argv);
  ~LineProcess();
  LineProcess(const LineProcess&) = delete;
  LineProcess& operator=(const LineProcess&) = delete;

  /// Writes `line` and a newline to the child's stdin and returns the next line of its stdout (without
  /// the newline), waiting at most `timeout` in all.
  /// @throws ProcessFailure saying what happened ("exited with status 9", "was killed by signal 9
  ///         (KILL)", "closed its output", "gave no answer within 2 s (killed)") once the child is
  ///         reaped; std::logic_error if the process is already gone.
  std::string exchange(const std::string& line, std::chrono::milliseconds timeout);

  /// Kills (SIGKILL) and reaps the child now, if it still runs; the descriptors are closed.
  void kill_now();

  /// True until an exchange failed or kill_now() was called.
  bool alive() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  /// The words it was started with, joined by blanks (for messages).
  const std::string& command() const { return command_; }

 private:
  [[noreturn]] void fail(const std::string& what);
  /// Waits for the child to exit (at most `grace`), then kills it; returns its status as text.
  std::string reap(std::chrono::milliseconds grace);
  void close_fds();

  pid_t pid_ = -1;
  int to_child_ = -1;    ///< the child's stdin
  int from_child_ = -1;  ///< the child's stdout
  std::string buffer_;   ///< bytes read past the last line returned
  std::string command_;
};

/// A wait status as text: "exited with status N" or "was killed by signal N (NAME)".
std::string describe_wait_status(int status);

}  // namespace ngvi::protocols
