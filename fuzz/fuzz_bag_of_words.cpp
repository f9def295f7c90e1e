// libFuzzer target: the bag-of-words loaders (data::read_uci_docword, data::read_matrix_market,
// data::read_bag_of_words), with and without a vocabulary file. The bytes before the first 0xFF are
// the data file, those after it the vocabulary; the first byte chooses the loader and gzip.
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <new>

#include "fuzz_input.hpp"
#include "ngvi/data/bow_loaders.hpp"

// The corpus memory budget lowered below the fuzzer's memory limit (2 GiB, with the sanitizers'
// overhead): a header that needs more is refused by the loader, as on a machine of that size.
[[maybe_unused]] const bool kBudget = [] {
  ngvi::data::set_corpus_memory_budget(std::size_t(256) << 20);
  return true;
}();

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t mode = data[0];
  const auto [file, vocab] = ngvi::fuzz::split_two(ngvi::fuzz::view(data + 1, size - 1));
  const std::string path = mode & 4 ? ngvi::fuzz::write_input("docword.txt.gz", ngvi::fuzz::gzip(file))
                                    : ngvi::fuzz::write_input("docword.txt", file);
  const std::string vocab_path = mode & 8 ? ngvi::fuzz::write_input("vocab.txt", vocab) : std::string();
  try {
    switch (mode % 4) {
      case 0: (void)ngvi::data::read_uci_docword(path, vocab_path); break;
      case 1: (void)ngvi::data::read_matrix_market(path, vocab_path); break;
      case 2: (void)ngvi::data::read_bag_of_words(path, vocab_path); break;
      default: (void)ngvi::data::read_vocabulary(path); break;
    }
  } catch (const std::bad_alloc&) {
    std::abort();  // an allocation the input drove past memory: a finding, not an error for the user
  } catch (const std::exception&) {
  }
  return 0;
}
