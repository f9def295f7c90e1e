#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "ngvi/data/ratings.hpp"

namespace ngvi::data {
namespace {

[[noreturn]] void fail(const std::string& where, const std::string& what) { throw std::runtime_error(where + ": " + what); }

std::vector<std::string> fields_of(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool any = false;
  auto flush = [&] {
    const auto b = cur.find_first_not_of(" \t\"");
    const auto e = cur.find_last_not_of(" \t\"");
    out.push_back(b == std::string::npos ? std::string() : cur.substr(b, e - b + 1));
    cur.clear();
  };
  const bool delimited = line.find_first_of(",;\t") != std::string::npos;
  for (char c : line) {
    if (delimited ? (c == ',' || c == ';' || c == '\t') : (c == ' ')) {
      if (!delimited && cur.find_first_not_of(' ') == std::string::npos) {
        cur.clear();
        continue;  // runs of spaces
      }
      flush();
      any = true;
    } else {
      cur.push_back(c);
    }
  }
  if (any || !cur.empty()) flush();
  return out;
}

bool parse_number(const std::string& s, double* v) {
  if (s.empty()) return false;
  const char* b = s.c_str();
  char* end = nullptr;
  errno = 0;
  *v = std::strtod(b, &end);
  return end == b + s.size() && errno != ERANGE;
}

}  // namespace

double centre_ratings(RatingMatrix& r) {
  if (r.size() == 0) return 0;
  double sum = 0;
  for (double x : r.value) sum += x;
  const double mean = sum / static_cast<double>(r.size());
  for (auto* v : {&r.value, &r.user_value, &r.item_value})
    for (double& x : *v) x -= mean;
  return mean;
}

RatingsTable read_ratings_csv(const std::string& path, bool centre) {
  std::ifstream in(path);
  if (!in) fail(path, std::string("cannot open: ") + std::strerror(errno));
  RatingsTable t;
  t.source = path;
  std::unordered_map<std::string, std::int32_t> users, items;
  std::vector<std::int32_t> us, is;
  std::vector<double> rs;
  std::string line;
  long lineno = 0;
  bool first = true;
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    const auto f = fields_of(line);
    const std::string where = path + ":" + std::to_string(lineno);
    if (f.size() != 3) fail(where, "expected 3 fields (user, item, rating), found " + std::to_string(f.size()));
    double r = 0;
    const bool numeric = parse_number(f[2], &r);
    if (first && !numeric) {
      first = false;
      continue;  // header
    }
    first = false;
    if (!numeric) fail(where, "rating '" + f[2] + "' is not a number");
    if (!std::isfinite(r)) fail(where, "rating '" + f[2] + "' is not finite");
    if (f[0].empty()) fail(where, "empty user");
    if (f[1].empty()) fail(where, "empty item");
    auto id = [](std::unordered_map<std::string, std::int32_t>& m, std::vector<std::string>& labels, const std::string& key) {
      const auto [it, inserted] = m.emplace(key, static_cast<std::int32_t>(labels.size()));
      if (inserted) labels.push_back(key);
      return it->second;
    };
    us.push_back(id(users, t.user_labels, f[0]));
    is.push_back(id(items, t.item_labels, f[1]));
    rs.push_back(r);
  }
  if (rs.empty()) fail(path, "has no ratings");
  t.ratings = RatingMatrix::build(static_cast<Index>(t.user_labels.size()), static_cast<Index>(t.item_labels.size()), std::move(us),
                                  std::move(is), std::move(rs));
  if (centre) t.centre = centre_ratings(t.ratings);
  return t;
}

}  // namespace ngvi::data
