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

/// While it lives, every file the loaders read ON THE CALLING THREAD is also appended to `*sink`
/// (files_read() still logs it), so work running concurrently on other threads (the claims of
/// `ngvi verify`, run by a pool) learns which files it read itself. Scopes nest per thread: the
/// innermost one receives the reads, the enclosing one again when it ends. Reads made on other
/// threads (workers the calling code starts) are not attributed to the scope.
class ReadScope {
 public:
  explicit ReadScope(std::vector<std::string>* sink);
  ~ReadScope();
  ReadScope(const ReadScope&) = delete;
  ReadScope& operator=(const ReadScope&) = delete;

 private:
  std::vector<std::string>* previous_;
};

}  // namespace ngvi::data
