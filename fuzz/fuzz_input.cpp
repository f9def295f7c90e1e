#include "fuzz_input.hpp"

#include <zlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <utility>

namespace ngvi::fuzz {
namespace {
struct Dir {
  std::filesystem::path path;
  Dir() {
    std::string templ = (std::filesystem::temp_directory_path() / "ngvi-fuzz-XXXXXX").string();
    if (mkdtemp(templ.data()) == nullptr) throw std::runtime_error("cannot create a directory for the fuzz inputs");
    path = templ;
  }
  ~Dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};
const Dir& dir() {
  static const Dir d;
  return d;
}
}  // namespace

std::string write_input(const std::string& name, std::string_view bytes) {
  const std::string p = (dir().path / name).string();
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) std::abort();  // the harness's own failure, not the loader's
  return p;
}

std::string gzip(std::string_view bytes) {
  z_stream z{};
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) std::abort();
  std::string out(deflateBound(&z, static_cast<uLong>(bytes.size())) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) std::abort();
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::pair<std::string_view, std::string_view> split_two(std::string_view bytes) {
  const auto k = bytes.find('\xff');
  if (k == std::string_view::npos) return {bytes, {}};
  return {bytes.substr(0, k), bytes.substr(k + 1)};
}

}  // namespace ngvi::fuzz
