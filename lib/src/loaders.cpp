#include "ngvi/data/loaders.hpp"
#include "ngvi/data/file_digest.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <numeric>
#include <set>
#include <sstream>
#include <mutex>
#include <stdexcept>
#include <sys/stat.h>

#include <openssl/evp.h>

#include "ngvi/random/stream.hpp"

namespace ngvi::data {
namespace {

[[noreturn]] void fail(const std::string& where, const std::string& what) { throw std::runtime_error(where + ": " + what); }

bool file_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// The log of files the loaders read (for provenance: files_read()).
std::mutex& read_log_mutex() {
  static std::mutex m;
  return m;
}
std::vector<std::string>& read_log() {
  static std::vector<std::string> v;
  return v;
}
// The calling thread's ReadScope sink (null outside a scope); thread-local, so no lock.
std::vector<std::string>*& read_scope_sink() {
  thread_local std::vector<std::string>* sink = nullptr;
  return sink;
}

// Reads a whole file, decompressing gzip transparently (gzread passes plain files through). A gzip
// stream must be complete: zlib checks the trailer's CRC-32 and length (ISIZE) against the data
// and reports a stream that ends before its trailer as Z_BUF_ERROR; both are errors here, so a
// truncated file is never read as a shorter table.
}  // namespace

/// The whole of a plain or gzip file, a gzip checked to its trailer (see above); shared with the
/// bag-of-words loaders (lib/src/bow_loaders.cpp).
std::string detail_read_file(const std::string& path) {
  if (!file_exists(path)) fail(path, "no such file");
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) fail(path, std::string("cannot open: ") + std::strerror(errno));
  std::string out;
  char buf[1 << 16];
  for (;;) {
    const int n = gzread(f, buf, sizeof buf);
    if (n < 0) {
      int err = 0;
      const std::string msg = gzerror(f, &err);
      gzclose(f);
      fail(path, "read error (corrupt gzip?): " + msg);
    }
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  int err = Z_OK;
  gzerror(f, &err);
  const bool compressed = gzdirect(f) == 0;
  const int closed = gzclose(f);
  if (compressed && (err == Z_BUF_ERROR || closed == Z_BUF_ERROR))
    fail(path, "truncated gzip: the compressed stream ends before its trailer (CRC-32 and length); " +
                   std::to_string(out.size()) + " bytes decompressed before the end");
  if (closed != Z_OK && closed != Z_BUF_ERROR) fail(path, "error while closing (corrupt gzip?), zlib code " + std::to_string(closed));
  {
    std::lock_guard<std::mutex> lock(read_log_mutex());
    read_log().push_back(path);
  }
  if (auto* sink = read_scope_sink(); sink != nullptr) sink->push_back(path);
  return out;
}

namespace {

std::string slurp(const std::string& path) { return detail_read_file(path); }

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    start = end + 1;
  }
  while (!lines.empty() && lines.back().find_first_not_of(" \t") == std::string::npos) lines.pop_back();
  return lines;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\"");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\"");
  return s.substr(b, e - b + 1);
}

// Splits on `delim`; a space delimiter means runs of blanks and tabs.
std::vector<std::string> split_fields(const std::string& line, char delim) {
  std::vector<std::string> out;
  if (delim == ' ') {
    std::istringstream ss(line);
    for (std::string tok; ss >> tok;) out.push_back(tok);
    return out;
  }
  std::size_t start = 0;
  for (;;) {
    const std::size_t pos = line.find(delim, start);
    out.push_back(trim(line.substr(start, pos == std::string::npos ? std::string::npos : pos - start)));
    if (pos == std::string::npos) break;
    start = pos + 1;
  }
  return out;
}

bool parse_double(const std::string& s, double* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || errno == ERANGE) return false;
  *out = v;
  return true;
}

char detect_delimiter(const std::vector<std::string>& lines) {
  const std::size_t probe = std::min<std::size_t>(lines.size(), 20);
  for (char c : {',', '\t', ';', ' '}) {
    std::size_t fields = 0;
    bool consistent = true;
    for (std::size_t i = 0; i < probe; ++i) {
      if (lines[i].empty()) continue;
      const std::size_t n = split_fields(lines[i], c).size();
      if (fields == 0) fields = n;
      else if (n != fields) consistent = false;
    }
    if (consistent && fields > 1) return c;
  }
  return ',';  // a single column
}

std::uint32_t be32(const std::string& b, std::size_t off) {
  return (std::uint32_t(std::uint8_t(b[off])) << 24) | (std::uint32_t(std::uint8_t(b[off + 1])) << 16) |
         (std::uint32_t(std::uint8_t(b[off + 2])) << 8) | std::uint32_t(std::uint8_t(b[off + 3]));
}

const char* kSklearnData = "/usr/lib/python3/dist-packages/sklearn/datasets/data/";
const char* kStatsmodelsRandhie = "/usr/lib/python3/dist-packages/statsmodels/datasets/randhie/randhie.csv";
const char* kFashion = "/usr/share/datasets/fashion-mnist/";

}  // namespace

Table read_csv(const std::string& path, const CsvOptions& options) {
  const std::vector<std::string> lines = split_lines(slurp(path));
  if (lines.empty()) fail(path, "is empty");
  const char delim = options.delimiter != 0 ? options.delimiter : detect_delimiter(lines);
  Table t;
  t.source = path;
  std::vector<std::string> first = split_fields(lines[0], delim);
  bool header = options.header == 1;
  if (options.header == -1) {
    double v;
    header = std::any_of(first.begin(), first.end(), [&](const std::string& s) { return !parse_double(s, &v); });
  }
  const std::size_t ncol = first.size();
  if (header) {
    t.columns = first;
    std::set<std::string> seen;
    for (const auto& c : t.columns)
      if (!seen.insert(c).second) fail(path + ":1", "duplicate column name '" + c + "'");
  } else {
    for (std::size_t j = 0; j < ncol; ++j) t.columns.push_back(std::string(1, 'c').append(std::to_string(j)));
  }
  const std::size_t start = header ? 1 : 0;
  if (lines.size() <= start) fail(path, "has a header but no data rows");
  t.values.resize(static_cast<Index>(lines.size() - start), static_cast<Index>(ncol));
  for (std::size_t i = start; i < lines.size(); ++i) {
    const std::string where = path + ":" + std::to_string(i + 1);
    if (lines[i].find_first_not_of(" \t") == std::string::npos) fail(where, "is an empty line inside the data");
    const auto fields = split_fields(lines[i], delim);
    if (fields.size() != ncol)
      fail(where, "has " + std::to_string(fields.size()) + " fields, expected " + std::to_string(ncol) + " (ragged row)");
    for (std::size_t j = 0; j < ncol; ++j) {
      double v;
      if (!parse_double(fields[j], &v))
        fail(where, "field " + std::to_string(j + 1) + " ('" + fields[j] + "') of column '" + t.columns[j] + "' is not a number");
      if (!std::isfinite(v)) fail(where, "field " + std::to_string(j + 1) + " of column '" + t.columns[j] + "' is not finite");
      t.values(static_cast<Index>(i - start), static_cast<Index>(j)) = v;
    }
  }
  return t;
}

Dataset<double> table_to_dataset(const Table& table, const std::string& target_column) {
  const auto it = std::find(table.columns.begin(), table.columns.end(), target_column);
  if (it == table.columns.end()) {
    std::string known;
    for (const auto& c : table.columns) known += (known.empty() ? "" : ", ") + c;
    fail(table.source, "has no column '" + target_column + "' (columns: " + known + ")");
  }
  if (table.columns.size() < 2) fail(table.source, "has no feature column besides the target");
  const Index j = static_cast<Index>(it - table.columns.begin());
  Dataset<double> d;
  d.y = table.values.col(j);
  d.X.resize(table.values.rows(), table.values.cols() - 1);
  Index k = 0;
  for (Index c = 0; c < table.values.cols(); ++c)
    if (c != j) d.X.col(k++) = table.values.col(c);
  return d;
}

IdxArray read_idx(const std::string& path) {
  const std::string b = slurp(path);
  if (b.size() < 4) fail(path, "is too short for an IDX header");
  if (b[0] != 0 || b[1] != 0) fail(path, "has a bad IDX magic number (first two bytes must be zero)");
  if (std::uint8_t(b[2]) != 0x08) fail(path, "has IDX element type " + std::to_string(std::uint8_t(b[2])) + "; only unsigned bytes (0x08) are supported");
  const int ndim = std::uint8_t(b[3]);
  if (ndim < 1 || ndim > 4) fail(path, "has an unsupported IDX dimension count " + std::to_string(ndim));
  if (b.size() < 4 + 4 * std::size_t(ndim)) fail(path, "is truncated inside its IDX header");
  IdxArray a;
  a.source = path;
  std::size_t total = 1;
  for (int k = 0; k < ndim; ++k) {
    a.dims.push_back(be32(b, 4 + 4 * std::size_t(k)));
    total *= a.dims.back();
  }
  const std::size_t off = 4 + 4 * std::size_t(ndim);
  if (b.size() - off != total)
    fail(path, "holds " + std::to_string(b.size() - off) + " data bytes, the header announces " + std::to_string(total));
  a.data.assign(b.begin() + static_cast<long>(off), b.end());
  return a;
}

Dataset<double> idx_two_class(const std::string& images, const std::string& labels, int class_a, int class_b, int pool,
                              long max_rows) {
  constexpr const char* f = "ngvi::data::idx_two_class";
  if (class_a < 0 || class_a > 9) throw_domain(f, "class_a", "must lie in 0..9");
  if (class_b < 0 || class_b > 9) throw_domain(f, "class_b", "must lie in 0..9");
  if (class_a == class_b) throw_domain(f, "class_b", "must differ from class_a");
  if (pool < 1) throw_domain(f, "pool", "must be at least 1");
  if (max_rows < 0) throw_domain(f, "max_rows", "must be >= 0");
  const IdxArray img = read_idx(images);
  const IdxArray lab = read_idx(labels);
  if (img.dims.size() != 3) fail(images, "is not a 3-dimensional IDX image array");
  if (lab.dims.size() != 1) fail(labels, "is not a 1-dimensional IDX label array");
  if (img.dims[0] != lab.dims[0]) fail(labels, "has " + std::to_string(lab.dims[0]) + " labels for " + std::to_string(img.dims[0]) + " images");
  const int h = static_cast<int>(img.dims[1]), w = static_cast<int>(img.dims[2]);
  if (h % pool != 0 || w % pool != 0) throw_domain(f, "pool", "must divide the image size " + std::to_string(h) + "x" + std::to_string(w));
  const int ph = h / pool, pw = w / pool;
  std::vector<long> rows;
  for (long i = 0; i < static_cast<long>(lab.dims[0]); ++i) {
    const int l = lab.data[static_cast<std::size_t>(i)];
    if (l == class_a || l == class_b) rows.push_back(i);
    if (max_rows > 0 && static_cast<long>(rows.size()) == max_rows) break;
  }
  if (rows.empty()) fail(labels, "has no image of class " + std::to_string(class_a) + " or " + std::to_string(class_b));
  Dataset<double> d{Mat<double>::Zero(static_cast<Index>(rows.size()), ph * pw), Vec<double>(static_cast<Index>(rows.size()))};
  const double norm = 1.0 / (255.0 * pool * pool);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const std::size_t base = static_cast<std::size_t>(rows[r]) * std::size_t(h) * std::size_t(w);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        d.X(static_cast<Index>(r), (y / pool) * pw + x / pool) += img.data[base + std::size_t(y) * std::size_t(w) + std::size_t(x)] * norm;
    d.y(static_cast<Index>(r)) = lab.data[static_cast<std::size_t>(rows[r])] == class_b ? 1.0 : 0.0;
  }
  return d;
}

Standardization standardize(Dataset<double>& data) {
  Standardization s;
  const double n = static_cast<double>(data.n());
  if (data.n() < 1) throw_size("ngvi::data::standardize", "data.X", "has no rows");
  s.mean = data.X.colwise().mean().transpose();
  s.scale = Vec<double>::Ones(data.d());
  for (Index j = 0; j < data.d(); ++j) {
    const double var = (data.X.col(j).array() - s.mean(j)).square().sum() / n;
    if (var > 0) s.scale(j) = std::sqrt(var);
  }
  apply_standardization(data, s);
  return s;
}

void apply_standardization(Dataset<double>& data, const Standardization& s) {
  if (s.mean.size() != data.d()) throw_size("ngvi::data::apply_standardization", "s", "has a different number of columns from 'data'");
  for (Index j = 0; j < data.d(); ++j) data.X.col(j) = (data.X.col(j).array() - s.mean(j)) / s.scale(j);
}

double center_targets(Dataset<double>& data) {
  const double m = data.y.mean();
  data.y.array() -= m;
  return m;
}

std::pair<Dataset<double>, Dataset<double>> train_test_split(const Dataset<double>& data, double test_fraction,
                                                             std::uint64_t seed) {
  if (!(test_fraction > 0.0 && test_fraction < 1.0))
    throw_domain("ngvi::data::train_test_split", "test_fraction", "must lie in (0, 1)");
  std::vector<Index> idx(static_cast<std::size_t>(data.n()));
  std::iota(idx.begin(), idx.end(), Index(0));
  random::Stream rng(seed, 0);
  for (std::size_t i = idx.size(); i > 1; --i) std::swap(idx[i - 1], idx[rng.index(i)]);  // Fisher–Yates
  const auto n_test = static_cast<std::size_t>(std::llround(test_fraction * static_cast<double>(data.n())));
  if (n_test == 0 || n_test >= idx.size()) throw_domain("ngvi::data::train_test_split", "test_fraction", "leaves an empty split");
  auto take = [&](std::size_t from, std::size_t to) {
    Dataset<double> d{Mat<double>(static_cast<Index>(to - from), data.d()), Vec<double>(static_cast<Index>(to - from))};
    for (std::size_t k = from; k < to; ++k) {
      d.X.row(static_cast<Index>(k - from)) = data.X.row(idx[k]);
      d.y(static_cast<Index>(k - from)) = data.y(idx[k]);
    }
    return d;
  };
  return {take(n_test, idx.size()), take(0, n_test)};
}

std::vector<std::string> builtin_names() { return {"diabetes", "breast_cancer", "randhie", "fashion_mnist_2class"}; }

std::string builtin_path(const std::string& name) {
  if (name == "diabetes") return std::string(kSklearnData) + "diabetes_data_raw.csv.gz";
  if (name == "breast_cancer") return std::string(kSklearnData) + "breast_cancer.csv";
  if (name == "randhie") return kStatsmodelsRandhie;
  if (name == "fashion_mnist_2class") return std::string(kFashion) + "train-images-idx3-ubyte.gz";
  std::string known;
  for (const auto& n : builtin_names()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown data set '" + name + "' (known: " + known + ")");
}

bool builtin_available(const std::string& name) {
  const std::string p = builtin_path(name);
  if (!file_exists(p)) return false;
  if (name == "diabetes") return file_exists(std::string(kSklearnData) + "diabetes_target.csv.gz");
  if (name == "fashion_mnist_2class") return file_exists(std::string(kFashion) + "train-labels-idx1-ubyte.gz");
  return true;
}

Dataset<double> load_builtin(const std::string& name) {
  const std::string path = builtin_path(name);
  const char* package = name == "randhie" ? "python3-statsmodels" : name == "fashion_mnist_2class" ? "dataset-fashion-mnist" : "python3-sklearn";
  if (!builtin_available(name)) fail(path, std::string("missing: data set '") + name + "' needs the Debian package " + package + " (make verify installs it)");
  if (name == "diabetes") {
    const Table x = read_csv(path, CsvOptions{' ', 0});
    const Table y = read_csv(std::string(kSklearnData) + "diabetes_target.csv.gz", CsvOptions{',', 0});
    if (y.values.rows() != x.values.rows() || y.values.cols() != 1) fail(y.source, "does not hold one target per row of " + path);
    return Dataset<double>{x.values, y.values.col(0)};
  }
  if (name == "breast_cancer") {
    // The first line is sklearn's own header "n_samples,n_features,class names"; the data follow.
    const std::string text = slurp(path);
    const std::size_t nl = text.find('\n');
    if (nl == std::string::npos) fail(path, "has no data rows");
    std::vector<std::string> lines = split_lines(text.substr(nl + 1));
    Table t;
    t.source = path;
    const std::size_t ncol = split_fields(lines.at(0), ',').size();
    t.values.resize(static_cast<Index>(lines.size()), static_cast<Index>(ncol));
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const auto fields = split_fields(lines[i], ',');
      if (fields.size() != ncol) fail(path + ":" + std::to_string(i + 2), "has " + std::to_string(fields.size()) + " fields, expected " + std::to_string(ncol));
      for (std::size_t j = 0; j < ncol; ++j) {
        double v;
        if (!parse_double(fields[j], &v)) fail(path + ":" + std::to_string(i + 2), "field " + std::to_string(j + 1) + " is not a number");
        t.values(static_cast<Index>(i), static_cast<Index>(j)) = v;
      }
    }
    return Dataset<double>{t.values.leftCols(t.values.cols() - 1), t.values.col(t.values.cols() - 1)};
  }
  if (name == "randhie") return table_to_dataset(read_csv(path), "mdvis");
  return idx_two_class(path, std::string(kFashion) + "train-labels-idx1-ubyte.gz", 0, 1, 2, 0);
}

std::string file_crc32(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open for checksum");
  uLong crc = crc32(0L, Z_NULL, 0);
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) crc = crc32(crc, reinterpret_cast<const Bytef*>(buf), static_cast<uInt>(in.gcount()));
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08lx", static_cast<unsigned long>(crc));
  return hex;
}

std::string file_sha256(const std::string& path, unsigned long long* bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open for checksum");
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) fail(path, "OpenSSL could not start a SHA-256 digest");
  unsigned long long total = 0;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    if (EVP_DigestUpdate(ctx.get(), buf, static_cast<std::size_t>(in.gcount())) != 1) fail(path, "OpenSSL SHA-256 update failed");
    total += static_cast<unsigned long long>(in.gcount());
  }
  if (in.bad()) fail(path, "read error while computing its checksum");
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(ctx.get(), md, &len) != 1) fail(path, "OpenSSL SHA-256 final step failed");
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < len; ++i) {
    out += hex[md[i] >> 4];
    out += hex[md[i] & 15];
  }
  if (bytes != nullptr) *bytes = total;
  return out;
}

std::vector<std::string> files_read() {
  std::lock_guard<std::mutex> lock(read_log_mutex());
  return read_log();
}

ReadScope::ReadScope(std::vector<std::string>* sink) : previous_(read_scope_sink()) { read_scope_sink() = sink; }
ReadScope::~ReadScope() { read_scope_sink() = previous_; }

}  // namespace ngvi::data
