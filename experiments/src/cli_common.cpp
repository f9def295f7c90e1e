#include "cli_common.hpp"

#include <array>
#include <cstdio>
#include <ctime>
#include <memory>

namespace ngvi::cli {

std::string git_commit() {
  const std::string cmd = std::string("git -C '") + NGVI_GIT_DIR + "' rev-parse --short=12 HEAD 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  if (!pipe) return "unknown";
  std::array<char, 64> buf{};
  std::string out;
  while (fgets(buf.data(), buf.size(), pipe.get()) != nullptr) out += buf.data();
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out.empty() ? "unknown" : out;
}

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

namespace {
std::string& command_line_storage() {
  static std::string s;
  return s;
}
}  // namespace

void set_command_line(int argc, char** argv) {
  std::string s = "ngvi";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool plain = !a.empty() && a.find_first_of(" \t'\"*?$\\;&|<>()") == std::string::npos;
    std::string quoted = "'";
    for (char c : a) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    quoted += "'";
    s += " " + (plain ? a : quoted);
  }
  command_line_storage() = s;
}

const std::string& command_line() { return command_line_storage(); }

}  // namespace ngvi::cli
