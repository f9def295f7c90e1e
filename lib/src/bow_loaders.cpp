// Bag-of-words loaders (ngvi/data/bow_loaders.hpp).
#include "ngvi/data/bow_loaders.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace ngvi::data {

std::string detail_read_file(const std::string& path);  // lib/src/loaders.cpp: plain or gzip, trailer checked

namespace {

[[noreturn]] void fail(const std::string& where, const std::string& what) { throw std::runtime_error(where + ": " + what); }

std::string at(const std::string& path, std::size_t line) { return path + ":" + std::to_string(line); }

std::string slurp_gz(const std::string& path) { return detail_read_file(path); }

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    if (!l.empty() && l.back() == '\r') l.pop_back();
    lines.push_back(std::move(l));
  }
  while (!lines.empty() && lines.back().find_first_not_of(" \t") == std::string::npos) lines.pop_back();
  return lines;
}

std::vector<std::string> fields_of(const std::string& line) {
  std::istringstream s(line);
  std::vector<std::string> f;
  for (std::string x; s >> x;) f.push_back(x);
  return f;
}

bool parse_long(const std::string& s, long* v) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const long x = std::strtol(s.c_str(), &end, 10);
  if (errno != 0 || end != s.c_str() + s.size()) return false;
  *v = x;
  return true;
}

// A count written as an integer, or (Matrix Market "real") as a real with no fractional part.
bool parse_count(const std::string& s, bool allow_real, long* v) {
  if (parse_long(s, v)) return true;
  if (!allow_real) return false;
  char* end = nullptr;
  const double x = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !(x == x) || x != static_cast<double>(static_cast<long>(x))) return false;
  *v = static_cast<long>(x);
  return true;
}

struct Entry {
  long doc, word, count;
};

std::size_t& budget() {
  static std::size_t b = [] {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) / 2 * static_cast<std::size_t>(page) : std::size_t(1) << 31;
  }();
  return b;
}

// The header's sizes (line `ln` of `path`) against the 32-bit ids and the memory budget, before any
// allocation: 8 bytes per document offset, 12 per entry kept and 32 per entry while sorting.
void check_sizes(const std::string& path, std::size_t ln, long D, long W, long nnz) {
  constexpr long kMaxId = 2147483647L;
  if (D > kMaxId) fail(at(path, ln), "D (documents) = " + std::to_string(D) + " exceeds 2^31 - 1");
  if (W > kMaxId) fail(at(path, ln), "W (words) = " + std::to_string(W) + " exceeds 2^31 - 1 (word ids are 32-bit)");
  const double need = 8.0 * (static_cast<double>(D) + 1) + 44.0 * static_cast<double>(nnz);
  if (need > static_cast<double>(budget()))
    fail(at(path, ln), "the header's D = " + std::to_string(D) + " documents and NNZ = " + std::to_string(nnz) + " entries need " +
                           std::to_string(static_cast<long long>(need / 1048576)) + " MiB, more than the corpus memory budget of " +
                           std::to_string(budget() / 1048576) + " MiB (a corrupt header?)");
}

BagOfWords assemble(const std::string& path, long D, long W, std::vector<std::pair<Entry, std::size_t>>& entries,
                    const std::string& vocab_path) {
  std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    return a.first.doc != b.first.doc ? a.first.doc < b.first.doc : a.first.word < b.first.word;
  });
  BagOfWords out;
  out.corpus.source = path;
  out.corpus.n_words = W;
  out.corpus.doc_ptr.reserve(static_cast<std::size_t>(D) + 1);
  out.corpus.word.reserve(entries.size());
  out.corpus.count.reserve(entries.size());
  std::size_t i = 0;
  for (long d = 0; d < D; ++d) {
    std::vector<std::pair<std::int32_t, std::int64_t>> bag;
    for (; i < entries.size() && entries[i].first.doc == d; ++i) {
      if (!bag.empty() && bag.back().first == entries[i].first.word)
        fail(at(path, entries[i].second), "duplicate entry for document " + std::to_string(d + 1) + ", word " + std::to_string(entries[i].first.word + 1));
      bag.emplace_back(static_cast<std::int32_t>(entries[i].first.word), entries[i].first.count);
    }
    out.corpus.add_document(bag);
  }
  if (!vocab_path.empty()) {
    out.vocab = read_vocabulary(vocab_path);
    if (static_cast<long>(out.vocab.size()) != W)
      fail(vocab_path, "has " + std::to_string(out.vocab.size()) + " words, but " + path + " declares " + std::to_string(W));
  }
  return out;
}

void read_entries(const std::string& path, const std::vector<std::string>& lines, std::size_t first, long D, long W, long nnz, bool allow_real,
                  std::vector<std::pair<Entry, std::size_t>>& entries) {
  for (std::size_t i = first; i < lines.size(); ++i) {
    const std::size_t ln = i + 1;
    if (lines[i].find_first_not_of(" \t") == std::string::npos) fail(at(path, ln), "is an empty line inside the data");
    const auto f = fields_of(lines[i]);
    if (f.size() != 3) fail(at(path, ln), "has " + std::to_string(f.size()) + " fields, expected 3 (document word count)");
    long d = 0, w = 0, c = 0;
    if (!parse_long(f[0], &d)) fail(at(path, ln), "document id '" + f[0] + "' is not an integer");
    if (!parse_long(f[1], &w)) fail(at(path, ln), "word id '" + f[1] + "' is not an integer");
    if (!parse_count(f[2], allow_real, &c)) fail(at(path, ln), "count '" + f[2] + "' is not an integer");
    if (d < 1 || d > D) fail(at(path, ln), "document id " + std::to_string(d) + " outside [1, " + std::to_string(D) + "]");
    if (w < 1 || w > W) fail(at(path, ln), "word id " + std::to_string(w) + " outside [1, " + std::to_string(W) + "]");
    if (c < 1) fail(at(path, ln), "count " + std::to_string(c) + " is not >= 1");
    entries.push_back({{d - 1, w - 1, c}, ln});
  }
  if (static_cast<long>(entries.size()) != nnz)
    fail(path, "has " + std::to_string(entries.size()) + " entries, but its header announces " + std::to_string(nnz));
}

}  // namespace

std::size_t corpus_memory_budget() { return budget(); }
void set_corpus_memory_budget(std::size_t bytes) { budget() = bytes; }

std::vector<std::string> read_vocabulary(const std::string& path) {
  const auto lines = lines_of(slurp_gz(path));
  if (lines.empty()) fail(path, "is empty");
  std::vector<std::string> v;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto f = fields_of(lines[i]);
    if (f.size() != 1) fail(at(path, i + 1), "must hold exactly one word (found " + std::to_string(f.size()) + " fields)");
    v.push_back(f[0]);
  }
  return v;
}

BagOfWords read_uci_docword(const std::string& path, const std::string& vocab_path) {
  const auto lines = lines_of(slurp_gz(path));
  if (lines.empty()) fail(path, "is empty");
  if (lines.size() < 3) fail(path, "is missing its header (three lines: D, W, NNZ)");
  long h[3];
  const char* names[3] = {"D (documents)", "W (words)", "NNZ (entries)"};
  for (int i = 0; i < 3; ++i) {
    const auto f = fields_of(lines[static_cast<std::size_t>(i)]);
    if (f.size() != 1 || !parse_long(f[0], &h[i])) fail(at(path, static_cast<std::size_t>(i) + 1), std::string("must hold the integer ") + names[i]);
    if (h[i] < (i == 2 ? 0 : 1)) fail(at(path, static_cast<std::size_t>(i) + 1), std::string(names[i]) + " is out of range");
  }
  check_sizes(path, 1, h[0], h[1], h[2]);
  std::vector<std::pair<Entry, std::size_t>> entries;
  read_entries(path, lines, 3, h[0], h[1], h[2], false, entries);
  return assemble(path, h[0], h[1], entries, vocab_path);
}

BagOfWords read_matrix_market(const std::string& path, const std::string& vocab_path) {
  const auto lines = lines_of(slurp_gz(path));
  if (lines.empty()) fail(path, "is empty");
  auto banner = fields_of(lines[0]);
  for (auto& b : banner) std::transform(b.begin(), b.end(), b.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (banner.size() != 5 || banner[0] != "%%matrixmarket" || banner[1] != "matrix" || banner[2] != "coordinate" ||
      (banner[3] != "integer" && banner[3] != "real") || banner[4] != "general")
    fail(at(path, 1), "is not '%%MatrixMarket matrix coordinate integer|real general'");
  std::size_t i = 1;
  while (i < lines.size() && (lines[i].empty() || lines[i][0] == '%')) ++i;
  if (i >= lines.size()) fail(path, "has no size line");
  const auto f = fields_of(lines[i]);
  long h[3];
  if (f.size() != 3 || !parse_long(f[0], &h[0]) || !parse_long(f[1], &h[1]) || !parse_long(f[2], &h[2]) || h[0] < 1 || h[1] < 1 || h[2] < 0)
    fail(at(path, i + 1), "must be the size line 'documents words entries' with positive integers");
  check_sizes(path, i + 1, h[0], h[1], h[2]);
  std::vector<std::pair<Entry, std::size_t>> entries;
  read_entries(path, lines, i + 1, h[0], h[1], h[2], banner[3] == "real", entries);
  return assemble(path, h[0], h[1], entries, vocab_path);
}

BagOfWords read_bag_of_words(const std::string& path, const std::string& vocab_path) {
  const auto lines = lines_of(slurp_gz(path));
  if (!lines.empty() && lines[0].rfind("%%", 0) == 0) return read_matrix_market(path, vocab_path);
  return read_uci_docword(path, vocab_path);
}

}  // namespace ngvi::data
