#include "cli_common.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <filesystem>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace ngvi::cli {

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

namespace { namespace NGVI_UNITY_ID {
std::string& command_line_storage() {
  static std::string s;
  return s;
}
std::vector<std::string>& command_arguments_storage() {
  static std::vector<std::string> v;
  return v;
}
}}  // namespace

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
  NGVI_UNITY_ID::command_line_storage() = s;
  NGVI_UNITY_ID::command_arguments_storage().assign(argv + (argc > 0 ? 1 : 0), argv + argc);
}

const std::vector<std::string>& command_arguments() { return NGVI_UNITY_ID::command_arguments_storage(); }

const std::string& command_line() { return NGVI_UNITY_ID::command_line_storage(); }

}  // namespace ngvi::cli

namespace ngvi::cli {

namespace { namespace NGVI_UNITY_ID {
std::string strip_plus(const std::string& s) { return !s.empty() && s[0] == '+' ? s.substr(1) : s; }
bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}
}}  // namespace

CLI::Validator integer_in(long long lo, long long hi) {
  const std::string range = "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  return CLI::Validator(
      [lo, hi, range](std::string& s) -> std::string {
        const std::string t = NGVI_UNITY_ID::strip_plus(s);
        const bool neg = !t.empty() && t[0] == '-';
        if (!NGVI_UNITY_ID::all_digits(neg ? t.substr(1) : t)) return "'" + s + "' is not an integer (expected an integer in " + range + ")";
        long long v = 0;
        const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
        if (ec == std::errc::result_out_of_range || ptr != t.data() + t.size() || v < lo || v > hi)
          return "'" + s + "' is outside " + range;
        return {};
      },
      "INT in " + range, "integer_in");
}

CLI::Validator seed_value() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        const std::string t = NGVI_UNITY_ID::strip_plus(s);
        if (!t.empty() && t[0] == '-') return "'" + s + "' is negative; a seed is an integer in [0, 18446744073709551615]";
        if (!NGVI_UNITY_ID::all_digits(t)) return "'" + s + "' is not an integer; a seed is an integer in [0, 18446744073709551615]";
        unsigned long long v = 0;
        const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
        if (ec == std::errc::result_out_of_range || ptr != t.data() + t.size())
          return "'" + s + "' overflows 64 bits; a seed is an integer in [0, 18446744073709551615]";
        return {};
      },
      "UINT64", "seed_value");
}

CLI::Validator non_empty_path() {
  return CLI::Validator([](std::string& s) -> std::string { return s.empty() ? "is empty; give a file or directory name" : ""; },
                        "PATH", "non_empty_path");
}

void check_allocation(const std::string& option, double bytes, const std::string& what) {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  const double limit = pages > 0 && page > 0 ? 0.5 * static_cast<double>(pages) * static_cast<double>(page) : 64e9;
  if (!(bytes <= limit))
    throw UsageError(fmt::format("{}: {} would need {:.3g} GB, more than half of this machine's {:.3g} GB of memory; choose a smaller {}",
                                 option, what, bytes / 1e9, 2 * limit / 1e9, option));
}

}  // namespace ngvi::cli

namespace ngvi::cli {

StatusLine::StatusLine(std::string label, long total, bool enabled)
    : label_(std::move(label)), total_(total), start_(std::chrono::steady_clock::now()), item_start_(start_) {
  tty_ = isatty(STDERR_FILENO) == 1;
  if (const char* e = std::getenv("NGVI_STATUS_EVERY"); e != nullptr && *e != '\0') {
    char* end = nullptr;
    const double v = std::strtod(e, &end);
    if (end != e && *end == '\0' && v >= 0) every_ = v;
  }
  enabled_ = enabled && (tty_ || every_ > 0);
  if (enabled_) thread_ = std::thread([this] { loop(); });
}

StatusLine::~StatusLine() { finish(); }

void StatusLine::begin(long index, std::string item) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  index_ = index;
  item_ = std::move(item);
  item_start_ = std::chrono::steady_clock::now();
  if (tty_) print_locked(false);
}

void StatusLine::print_locked(bool periodic) {
  const auto now = std::chrono::steady_clock::now();
  const double total = std::chrono::duration<double>(now - start_).count();
  const double item = std::chrono::duration<double>(now - item_start_).count();
  if (tty_) {
    fmt::print(stderr, "\r\033[K{} [{}/{}] {}  {:.1f} s", label_, index_, total_, item_, total);
    shown_ = true;
  } else if (periodic) {
    fmt::print(stderr, "{}: {}/{} done, running {} for {:.1f} s; {:.1f} s elapsed\n", label_, index_ > 0 ? index_ - 1 : 0,
               total_, item_, item, total);
  }
  std::fflush(stderr);
}

void StatusLine::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  const auto period = std::chrono::duration<double>(tty_ ? 0.5 : every_);
  while (!stop_) {
    if (cv_.wait_for(lock, period, [this] { return stop_; })) break;
    if (index_ > 0) print_locked(true);
  }
}

void StatusLine::finish() {
  if (!enabled_) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (shown_) {
    fmt::print(stderr, "\r\033[K");
    std::fflush(stderr);
    shown_ = false;
  }
  enabled_ = false;
}

void check_writable(const std::string& path, const char* option) {
  if (path.empty()) throw UsageError(std::string(option) + " needs a file name (got an empty path)");
  const auto parent = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  if (ec) throw std::runtime_error(std::string("cannot create the directory of ") + option + " file '" + path + "': " + ec.message());
  std::ofstream probe(path, std::ios::app);
  if (!probe) throw std::runtime_error(std::string("cannot write ") + option + " file '" + path + "'");
}

}  // namespace ngvi::cli
