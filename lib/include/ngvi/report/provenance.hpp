#pragma once
/// @file
/// Provenance of a claim run (claims.json "meta.provenance") or an experiment run (run.json
/// "provenance"): what was built (kit version, commit and dirty flag, build type, compiler and
/// flags, fixed when the binary was built), where it ran (CPU model), against which libraries
/// (Eigen, Boost, MPFR, GMP, zlib, OpenSSL), when (start and end, UTC) and on which data (the
/// SHA-256 of every data file read). Implemented in lib/src/provenance.cpp.
#include <string>
#include <utility>
#include <vector>

#include "ngvi/report/record.hpp"

namespace ngvi::report {

/// One data file a run read, with its SHA-256 (OpenSSL libcrypto) and size.
struct DataFileDigest {
  std::string path;
  std::string sha256;               ///< 64 lower-case hex digits
  unsigned long long bytes = 0;
  std::vector<std::string> read_by;  ///< the claims (or the run) that read it
};

struct Provenance {
  std::string kit_version;
  std::string commit;      ///< "unknown" when built outside a git checkout
  bool dirty = false;      ///< tracked files differed from the commit when the binary was built
  std::string build_type;
  std::string compiler;
  std::string cxx_flags;
  std::string cpu_model;
  std::vector<std::pair<std::string, std::string>> libraries;  ///< (name, version)
  std::string started;     ///< UTC, ISO 8601
  std::string finished;    ///< UTC, ISO 8601
  std::vector<DataFileDigest> data_files;
};

/// The CPU model of this machine (/proc/cpuinfo "model name"; "unknown" when unavailable).
std::string cpu_model();

/// Versions of the libraries this library was built against: (name, version) for Eigen, Boost,
/// MPFR, GMP (headers and run-time library), zlib and OpenSSL.
std::vector<std::pair<std::string, std::string>> library_versions();

/// Digests of `paths` (duplicates merged, first-seen order); `read_by[i]` names who read
/// `paths[i]` (may be empty).
/// @throws std::runtime_error naming the file if one cannot be read.
std::vector<DataFileDigest> digest_files(const std::vector<std::string>& paths,
                                         const std::vector<std::string>& read_by = {});

/// write_claims_json with the provenance written as "meta.provenance".
/// @throws std::runtime_error naming the path if it cannot be written.
void write_claims_json(const std::string& path, const RunMeta& meta, const std::vector<ClaimRecord>& records,
                       const Provenance& provenance);

/// The "meta.provenance" of a claims.json (empty fields when it has none).
/// @throws std::runtime_error naming the path on a missing file, invalid JSON or a mistyped field.
Provenance read_claims_provenance(const std::string& path);

}  // namespace ngvi::report
