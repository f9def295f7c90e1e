// A child process spoken to in lines over pipes (protocols/exec_process.hpp).
#include "ngvi/protocols/exec_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

extern char** environ;

namespace ngvi::protocols {

namespace {

using Clock = std::chrono::steady_clock;

std::string quote(const std::string& s) { return "'" + s + "'"; }

// Moves fd above the standard descriptors (a pipe end that landed on 0, 1 or 2 because one of them
// was closed would be lost by the dup2 onto it), keeping close-on-exec.
int above_std(int fd) {
  if (fd > 2) return fd;
  const int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
  close(fd);
  return moved;
}

std::string seconds_text(std::chrono::milliseconds d) {
  const auto ms = d.count();
  if (ms % 1000 == 0) return std::to_string(ms / 1000) + " s";
  return std::to_string(ms / 1000) + "." + std::to_string((ms % 1000) / 100) + std::to_string((ms % 100) / 10) +
         std::to_string(ms % 10) + " s";
}

const char* signal_name(int sig) {
  switch (sig) {
    case SIGHUP: return "HUP";
    case SIGINT: return "INT";
    case SIGQUIT: return "QUIT";
    case SIGILL: return "ILL";
    case SIGTRAP: return "TRAP";
    case SIGABRT: return "ABRT";
    case SIGBUS: return "BUS";
    case SIGFPE: return "FPE";
    case SIGKILL: return "KILL";
    case SIGSEGV: return "SEGV";
    case SIGPIPE: return "PIPE";
    case SIGALRM: return "ALRM";
    case SIGTERM: return "TERM";
    default: return nullptr;
  }
}

}  // namespace

std::vector<std::string> split_command(const std::string& command) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (std::size_t i = 0; i < command.size(); ++i) {
    const char c = command[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else if (c == '\'') {
      const auto end = command.find('\'', i + 1);
      if (end == std::string::npos) throw std::invalid_argument("command " + quote(command) + " has an unbalanced single quote");
      word += command.substr(i + 1, end - i - 1);
      in_word = true;
      i = end;
    } else if (c == '"') {
      std::size_t j = i + 1;
      for (; j < command.size() && command[j] != '"'; ++j) {
        if (command[j] == '\\' && j + 1 < command.size() && (command[j + 1] == '"' || command[j + 1] == '\\')) ++j;
        word += command[j];
      }
      if (j >= command.size()) throw std::invalid_argument("command " + quote(command) + " has an unbalanced double quote");
      in_word = true;
      i = j;
    } else if (c == '\\' && i + 1 < command.size()) {
      word += command[++i];
      in_word = true;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(std::move(word));
  if (words.empty()) throw std::invalid_argument("command " + quote(command) + " names no program");
  return words;
}

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = signal_name(sig);
    return "was killed by signal " + std::to_string(sig) + (name != nullptr ? std::string(" (") + name + ")" : std::string());
  }
  return "stopped with wait status " + std::to_string(status);
}

LineProcess::LineProcess(const std::vector<std::string>& argv) {
  if (argv.empty()) throw std::invalid_argument("LineProcess: argv is empty (no program to start)");
  for (const auto& w : argv) command_ += (command_.empty() ? "" : " ") + w;
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0) throw ProcessStartError("cannot start " + quote(command_) + ": pipe: " + std::strerror(errno));
  if (pipe2(out, O_CLOEXEC) != 0) {
    const int e = errno;
    close(in[0]);
    close(in[1]);
    throw ProcessStartError("cannot start " + quote(command_) + ": pipe: " + std::strerror(e));
  }
  for (int* fd : {&in[0], &in[1], &out[0], &out[1]}) *fd = above_std(*fd);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  // The child starts with no signal blocked and SIGPIPE at its default, whatever this thread has.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<char*> args;
  for (const auto& w : argv) args.push_back(const_cast<char*>(w.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, args[0], &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close(in[0]);
  close(out[1]);
  if (rc != 0) {
    close(in[1]);
    close(out[0]);
    throw ProcessStartError("cannot start " + quote(command_) + ": " + std::strerror(rc));
  }
  pid_ = pid;
  to_child_ = in[1];
  from_child_ = out[0];
  fcntl(to_child_, F_SETFL, fcntl(to_child_, F_GETFL) | O_NONBLOCK);
  fcntl(from_child_, F_SETFL, fcntl(from_child_, F_GETFL) | O_NONBLOCK);
}

LineProcess::~LineProcess() {
  if (pid_ > 0) reap(std::chrono::milliseconds(1000));  // EOF on its stdin first: a client ends there
  close_fds();
}

void LineProcess::close_fds() {
  if (to_child_ >= 0) close(to_child_);
  if (from_child_ >= 0) close(from_child_);
  to_child_ = from_child_ = -1;
}

std::string LineProcess::reap(std::chrono::milliseconds grace) {
  if (to_child_ >= 0) {
    close(to_child_);
    to_child_ = -1;
  }
  int status = 0;
  const auto deadline = Clock::now() + grace;
  auto nap = std::chrono::microseconds(200);
  for (;;) {
    const pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) break;
    if (r < 0 && errno != EINTR) {  // not our child any more (cannot happen unless someone else reaped it)
      pid_ = -1;
      close_fds();
      return "could not be waited for (" + std::string(std::strerror(errno)) + ")";
    }
    if (Clock::now() >= deadline) {
      ::kill(pid_, SIGKILL);
      while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    std::this_thread::sleep_for(nap);
    nap = std::min(nap * 2, std::chrono::microseconds(20000));
  }
  pid_ = -1;
  close_fds();
  return describe_wait_status(status);
}

void LineProcess::kill_now() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  reap(std::chrono::milliseconds(1000));
}

void LineProcess::fail(const std::string& what) { throw ProcessFailure(what); }

std::string LineProcess::exchange(const std::string& line, std::chrono::milliseconds timeout) {
  if (pid_ <= 0) throw std::logic_error("LineProcess::exchange: the process " + quote(command_) + " is gone");
  const auto deadline = Clock::now() + timeout;
  auto remaining_ms = [&] {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return static_cast<int>(std::max<long long>(0, std::min<long long>(left, 1 << 30)));
  };
  auto timed_out = [&] {
    ::kill(pid_, SIGKILL);
    reap(std::chrono::milliseconds(1000));
    fail("gave no answer within " + seconds_text(timeout) + " (killed)");
  };

  // Write the request. SIGPIPE is blocked on this thread for the write, so a reader that has gone
  // gives EPIPE; a SIGPIPE raised meanwhile is taken off this thread before the mask is restored.
  const std::string msg = line + "\n";
  std::size_t sent = 0;
  sigset_t pipe_set, old;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
  int write_error = 0;
  bool output_open = true;  // while writing: the child's stdout has not reached its end
  while (sent < msg.size()) {
    const ssize_t w = ::write(to_child_, msg.data() + sent, msg.size() - sent);
    if (w > 0) {
      sent += static_cast<std::size_t>(w);
      continue;
    }
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      // The pipe is full: wait until it drains, reading what the child writes meanwhile (a child
      // that answers while it reads must not block on its own full output pipe).
      pollfd p[2] = {{to_child_, POLLOUT, 0}, {output_open ? from_child_ : -1, POLLIN, 0}};
      const int ms = remaining_ms();
      if (ms == 0 || poll(p, 2, ms) == 0) {
        write_error = ETIMEDOUT;
        break;
      }
      if ((p[1].revents & (POLLIN | POLLHUP)) != 0) {
        char chunk[65536];
        const ssize_t r = ::read(from_child_, chunk, sizeof chunk);
        if (r > 0) buffer_.append(chunk, static_cast<std::size_t>(r));
        if (r == 0) output_open = false;  // read again below, where the end of its output is reported
      }
      continue;
    }
    write_error = errno;
    break;
  }
  if (write_error == EPIPE) {
    const timespec zero{0, 0};
    while (sigtimedwait(&pipe_set, nullptr, &zero) > 0) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (write_error == ETIMEDOUT) timed_out();
  if (write_error != 0) {
    const std::string status = reap(std::chrono::milliseconds(1000));
    fail(status + " (it no longer read its input: " + std::strerror(write_error) + ")");
  }

  // Read the answer line.
  for (;;) {
    const auto nl = buffer_.find('\n');
    if (nl != std::string::npos) {
      std::string answer = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      if (!answer.empty() && answer.back() == '\r') answer.pop_back();
      return answer;
    }
    pollfd p{from_child_, POLLIN, 0};
    const int ms = remaining_ms();
    const int ready = ms == 0 ? 0 : poll(&p, 1, ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) timed_out();
    char chunk[65536];
    const ssize_t r = ::read(from_child_, chunk, sizeof chunk);
    if (r > 0) {
      buffer_.append(chunk, static_cast<std::size_t>(r));
      continue;
    }
    if (r < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
    // End of its output (or a read error): it has exited or is about to; a child that closed its
    // stdout and lives on is killed after a moment.
    const std::string partial = buffer_;
    buffer_.clear();
    const std::string status = reap(std::chrono::milliseconds(1000));
    fail(status + " before answering" + (partial.empty() ? "" : " (after a partial line of " + std::to_string(partial.size()) + " bytes)"));
  }
}

}  // namespace ngvi::protocols
