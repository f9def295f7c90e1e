#pragma once
/// @file
/// A bag-of-words corpus (the data of latent Dirichlet allocation, models/lda.hpp), with its
/// invariants and document subsets. It lives in data/ so that the loaders (data/bow_loaders.hpp)
/// and generators (data/lda_synthetic.hpp) need no model header; the namespace stays ngvi::lda.
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "ngvi/linalg/validate.hpp"

namespace ngvi::lda {

/// A bag-of-words corpus in compressed rows: document d holds the pairs (word[j], count[j]) for
/// j ∈ [doc_ptr[d], doc_ptr[d+1]), word ids strictly increasing, counts ≥ 1.
struct Corpus {
  std::string source;
  long n_words = 0;                   ///< V
  std::vector<long> doc_ptr{0};       ///< D + 1 offsets
  std::vector<std::int32_t> word;
  std::vector<std::int64_t> count;

  long n_docs() const { return static_cast<long>(doc_ptr.size()) - 1; }
  long nnz() const { return static_cast<long>(word.size()); }
  long tokens(long d) const {
    long s = 0;
    for (long j = doc_ptr[static_cast<std::size_t>(d)]; j < doc_ptr[static_cast<std::size_t>(d) + 1]; ++j) s += count[static_cast<std::size_t>(j)];
    return s;
  }
  long tokens() const {
    long s = 0;
    for (auto c : count) s += c;
    return s;
  }
  /// Appends a document given as (word id, count) pairs in increasing word order.
  void add_document(const std::vector<std::pair<std::int32_t, std::int64_t>>& bag) {
    for (const auto& [w, c] : bag) {
      word.push_back(w);
      count.push_back(c);
    }
    doc_ptr.push_back(static_cast<long>(word.size()));
  }
};

/// Checks a corpus's invariants.
/// @throws std::domain_error naming 'corpus' and the first violation (document and entry).
inline void validate_corpus(const Corpus& c) {
  constexpr const char* f = "ngvi::lda::validate_corpus";
  if (c.n_words < 1) throw_domain(f, "corpus.n_words", "must be >= 1");
  if (c.doc_ptr.empty() || c.doc_ptr.front() != 0 || c.doc_ptr.back() != c.nnz() || c.word.size() != c.count.size())
    throw_domain(f, "corpus", "has inconsistent offsets");
  for (long d = 0; d < c.n_docs(); ++d)
    for (long j = c.doc_ptr[static_cast<std::size_t>(d)]; j < c.doc_ptr[static_cast<std::size_t>(d) + 1]; ++j) {
      const auto w = c.word[static_cast<std::size_t>(j)];
      if (w < 0 || w >= c.n_words)
        throw_domain(f, "corpus", "document " + std::to_string(d) + " has word id " + std::to_string(w) + " outside [0, V)");
      if (c.count[static_cast<std::size_t>(j)] < 1) throw_domain(f, "corpus", "document " + std::to_string(d) + " has a count < 1");
      if (j > c.doc_ptr[static_cast<std::size_t>(d)] && c.word[static_cast<std::size_t>(j) - 1] >= w)
        throw_domain(f, "corpus", "document " + std::to_string(d) + " has word ids not strictly increasing");
    }
}

/// The documents `docs` of a corpus, in that order.
inline Corpus subset(const Corpus& c, std::span<const long> docs) {
  Corpus out;
  out.source = c.source;
  out.n_words = c.n_words;
  for (long d : docs) {
    for (long j = c.doc_ptr[static_cast<std::size_t>(d)]; j < c.doc_ptr[static_cast<std::size_t>(d) + 1]; ++j) {
      out.word.push_back(c.word[static_cast<std::size_t>(j)]);
      out.count.push_back(c.count[static_cast<std::size_t>(j)]);
    }
    out.doc_ptr.push_back(out.nnz());
  }
  return out;
}

}  // namespace ngvi::lda
