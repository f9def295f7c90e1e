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
#include <cstddef>
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

/// The memory a loaded corpus may take, in bytes (default: half this machine's physical memory). The
/// loaders check a header's sizes against it before allocating: D documents cost 8 bytes each (their
/// offsets; documents without entries are kept), NNZ entries 12 bytes each (word id and count) plus
/// the 32 bytes each takes while the file is sorted. A header that needs more (a corrupt D, W or NNZ,
/// or a corpus too large for the machine) is refused with an error naming the field, instead of a
/// process killed for want of memory. D and W must also be at most 2^31 − 1 (word ids are 32-bit).
/// The fuzz targets of fuzz/ lower it to their memory limit.
std::size_t corpus_memory_budget();
void set_corpus_memory_budget(std::size_t bytes);

/// Reads a vocabulary file: one word per non-empty line.
std::vector<std::string> read_vocabulary(const std::string& path);

}  // namespace ngvi::data
