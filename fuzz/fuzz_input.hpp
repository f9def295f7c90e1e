#pragma once
// The kit's loaders read paths, so a fuzz input becomes a file: written into a directory of this
// process's own (made once, removed at exit), under the name the loader dispatches on. A loader may
// throw std::exception for any input (the error a user sees); a crash, a sanitizer report, a leak or a
// hang is a finding; so is std::bad_alloc (the input drove an allocation past memory, which a loader
// must refuse with its own error first).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ngvi::fuzz {

/// Writes `bytes` to <the process's directory>/<name> and returns the path.
std::string write_input(const std::string& name, std::string_view bytes);

/// `bytes` as a gzip stream (zlib's deflate with a gzip header), to fuzz a parser beneath gzip.
std::string gzip(std::string_view bytes);

/// The input's bytes as a view.
inline std::string_view view(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// Splits `bytes` at the first 0xFF byte: (before, after); after is empty when there is none. Lets one
/// input carry two files (a data file and its vocabulary).
std::pair<std::string_view, std::string_view> split_two(std::string_view bytes);

}  // namespace ngvi::fuzz
