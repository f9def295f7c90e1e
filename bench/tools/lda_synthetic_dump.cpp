// A synthetic LDA corpus of the kit's generator (data/lda_synthetic.hpp, docs/systems.md A.4) written
// as a UCI docword file, so that bench/compare_lda.py fits the kit, scikit-learn and gensim on the
// same counts: every 5th document (d % 5 == 4) is one of the generator's held-out documents, which is
// the split the script and `ngvi run svi-lda --holdout-every 5` take.
//
// Usage: ngvi_lda_synthetic_dump TOPICS VOCAB MEAN_LENGTH DOCS SEED OUT
//   the corpus: TOPICS true topics ~ Dir(0.05) over VOCAB words, θ ~ Dir(0.1), Poisson(MEAN_LENGTH)
//   tokens a document, DOCS documents of which every 5th is held out; prints the mean number of
//   distinct words a document.
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

#include "ngvi/data/lda_synthetic.hpp"

namespace {

long positive(const char* name, const char* text) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < 1) {
    std::cerr << "ngvi_lda_synthetic_dump: " << name << " must be a positive integer, got '" << text << "'\n";
    std::exit(2);
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 7) {
    std::cerr << "usage: ngvi_lda_synthetic_dump TOPICS VOCAB MEAN_LENGTH DOCS SEED OUT\n";
    return 2;
  }
  const long k = positive("TOPICS", argv[1]), v = positive("VOCAB", argv[2]), length = positive("MEAN_LENGTH", argv[3]);
  const long docs = positive("DOCS", argv[4]), seed = positive("SEED", argv[5]);
  if (docs < 5 || docs % 5 != 0) {
    std::cerr << "ngvi_lda_synthetic_dump: DOCS must be a positive multiple of 5 (every 5th is held out), got " << docs << "\n";
    return 2;
  }
  try {
    const auto syn = ngvi::lda::synthetic_lda(k, v, docs / 5 * 4, docs / 5, double(length), 0.05, 0.1, static_cast<std::uint64_t>(seed));
    std::ofstream out(argv[6]);
    if (!out) {
      std::cerr << "ngvi_lda_synthetic_dump: OUT '" << argv[6] << "' cannot be written\n";
      return 2;
    }
    const long nnz = long(syn.train.word.size() + syn.test.word.size());
    out << docs << "\n" << v << "\n" << nnz << "\n";
    long distinct = 0;
    for (long d = 0; d < docs; ++d) {
      const bool held = d % 5 == 4;
      const auto& c = held ? syn.test : syn.train;
      const long i = held ? d / 5 : d / 5 * 4 + d % 5;
      for (long j = c.doc_ptr[static_cast<std::size_t>(i)]; j < c.doc_ptr[static_cast<std::size_t>(i) + 1]; ++j)
        out << d + 1 << " " << c.word[static_cast<std::size_t>(j)] + 1 << " " << c.count[static_cast<std::size_t>(j)] << "\n";
      distinct += c.doc_ptr[static_cast<std::size_t>(i) + 1] - c.doc_ptr[static_cast<std::size_t>(i)];
    }
    if (!out) {
      std::cerr << "ngvi_lda_synthetic_dump: writing OUT '" << argv[6] << "' failed\n";
      return 2;
    }
    std::cout << "mean distinct words a document: " << double(distinct) / double(docs) << "\n";
  } catch (const std::exception& e) {
    std::cerr << "ngvi_lda_synthetic_dump: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
