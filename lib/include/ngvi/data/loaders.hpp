#pragma once
/// @file
/// Loaders for real data: CSV (header and delimiter detection, gzip read transparently through
/// zlib), IDX (the MNIST/Fashion-MNIST format, gzip or plain), the data sets that Debian packages
/// ship, standardisation and a seeded train/test split. Every failure throws std::runtime_error
/// whose message names the file, and the line where there is one: "<file>:<line>: <problem>".
/// Implemented in lib/src/loaders.cpp (part of ngvi_core).
#include <cstdint>
#include <string>
#include <vector>

#include "ngvi/data/dataset.hpp"

namespace ngvi::data {

struct CsvOptions {
  char delimiter = 0;  ///< 0: detect among ',', '\t', ';' and runs of spaces
  int header = -1;     ///< -1: detect (a first row with a non-numeric field is a header); 0: no; 1: yes
};

/// A numeric table with column names (c0, c1, … when the file has no header).
struct Table {
  std::string source;
  std::vector<std::string> columns;
  Mat<double> values;  ///< rows × columns
};

/// Reads a CSV file (plain or gzip). Empty lines at the end are ignored.
/// @throws std::runtime_error naming the file and line: missing/unreadable file, empty file, ragged
///         rows, a non-numeric or non-finite value, duplicate column names.
Table read_csv(const std::string& path, const CsvOptions& options = {});

/// Splits a table into features (every other column) and the target column.
/// @throws std::runtime_error naming the table's file and the column when it does not exist.
Dataset<double> table_to_dataset(const Table& table, const std::string& target_column);

/// An IDX array: dimensions and unsigned-byte data (the only type the MNIST family uses).
struct IdxArray {
  std::string source;
  std::vector<std::uint32_t> dims;
  std::vector<std::uint8_t> data;
};

/// Reads an IDX file (plain or gzip).
/// @throws std::runtime_error naming the file: bad magic, unsupported element type, truncated data.
IdxArray read_idx(const std::string& path);

/// A two-class subset of an IDX image/label pair: rows are images with pixels scaled to [0, 1],
/// averaged over pool × pool blocks (pool = 1 keeps every pixel), labels 1 for class_b and 0 for
/// class_a. At most max_rows rows (0 = all), in file order.
/// @throws std::runtime_error naming the file on inconsistent inputs, std::domain_error on bad
///         arguments (classes outside 0..9 or equal, pool not dividing the image size).
Dataset<double> idx_two_class(const std::string& images, const std::string& labels, int class_a, int class_b,
                              int pool = 1, long max_rows = 0);

/// Column means and standard deviations used by `standardize`, to apply the same map to test data.
struct Standardization {
  Vec<double> mean;
  Vec<double> scale;  ///< 1 for constant columns (they become all zero)
};

/// Standardises the columns of X to zero mean and unit (population) variance; y is untouched.
Standardization standardize(Dataset<double>& data);
/// Applies a standardisation computed on other data (e.g. the training split).
void apply_standardization(Dataset<double>& data, const Standardization& s);
/// Subtracts the mean of y (for regression targets); returns that mean.
double center_targets(Dataset<double>& data);

/// A seeded random split: a fraction `test_fraction` ∈ (0, 1) of rows goes to the test set.
std::pair<Dataset<double>, Dataset<double>> train_test_split(const Dataset<double>& data, double test_fraction,
                                                             std::uint64_t seed);

/// The data sets Debian packages ship, by name:
///   "diabetes"              python3-sklearn, 442 × 10, target: disease progression (regression)
///   "breast_cancer"         python3-sklearn, 569 × 30, target: 0/1 (classification)
///   "randhie"               python3-statsmodels, 20190 × 9, target: mdvis (visit counts)
///   "fashion_mnist_2class"  dataset-fashion-mnist, T-shirt (0) vs trouser (1), 12000 training
///                           images pooled 2 × 2 to 196 features in [0, 1]
/// Data are returned raw (not standardised).
std::vector<std::string> builtin_names();
bool builtin_available(const std::string& name);
/// The main file of a builtin data set (for provenance and checksums).
std::string builtin_path(const std::string& name);
/// @throws std::runtime_error naming the expected file and the Debian package when it is missing,
///         std::invalid_argument for an unknown name (listing the known ones).
Dataset<double> load_builtin(const std::string& name);

/// CRC-32 (zlib) of a file's bytes, as 8 hex digits, for provenance records.
std::string file_crc32(const std::string& path);

}  // namespace ngvi::data
