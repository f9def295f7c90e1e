#pragma once
/// @file
/// Bag-of-words loaders for the topic models (docs/systems.md A): the UCI "docword" format and Matrix
/// Market coordinate files, each with an optional vocabulary file (one word per line, line i naming
/// word id i, 1-based as in both formats). Files may be gzip-compressed. Every failure throws
/// std::runtime_error naming the file, and the line where there is one: "<file>:<line>: <problem>"
/// (as the CSV loaders do): a missing or empty file, a bad header, a ragged line (wrong number of
/// fields), a non-integer field, an id out of range, a count < 1, a duplicate (document, word) entry,
/// fewer or more entries than the header announces, a vocabulary of the wrong length.
/// Implemented in lib/src/bow_loaders.cpp (part of ngvi_core).
#include <string>
#include <vector>

#include "ngvi/data/corpus.hpp"

namespace ngvi::data {

struct BagOfWords {
  lda::Corpus corpus;               ///< documents in file order of their ids; word ids 0-based
  std::vector<std::string> vocab;   ///< empty when no vocabulary file was given
};

/// UCI docword: three header lines D, W, NNZ, then NNZ lines "docID wordID count" (1-based ids).
/// Documents with no entry are kept as empty documents (ids 1..D all exist).
BagOfWords read_uci_docword(const std::string& path, const std::string& vocab_path = {});

/// Matrix Market "%%MatrixMarket matrix coordinate integer|real general": rows are documents,
/// columns are words (scikit-learn's document-term orientation); values must be integers ≥ 1.
BagOfWords read_matrix_market(const std::string& path, const std::string& vocab_path = {});

/// Either format, chosen by the first line ("%%MatrixMarket" or not).
BagOfWords read_bag_of_words(const std::string& path, const std::string& vocab_path = {});

/// Reads a vocabulary file: one word per non-empty line.
std::vector<std::string> read_vocabulary(const std::string& path);

}  // namespace ngvi::data
