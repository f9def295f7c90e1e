#pragma once
/// @file
/// Provenance of data files: the SHA-256 of a file and the log of every file the loaders of
/// data/loaders.hpp have read in this process. Implemented in lib/src/loaders.cpp (ngvi::io).
#include <string>
#include <vector>

namespace ngvi::data {

/// SHA-256 (OpenSSL libcrypto) of a file's bytes, as 64 lower-case hex digits, for provenance
/// records; the file's size goes to *bytes when given.
/// @throws std::runtime_error naming the file if it cannot be read.
std::string file_sha256(const std::string& path, unsigned long long* bytes = nullptr);

/// Every file the loaders (read_csv, read_idx, load_builtin, ...) of this process have read so
/// far, in order (a file read twice appears twice); thread-safe.
std::vector<std::string> files_read();

}  // namespace ngvi::data
