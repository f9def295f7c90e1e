// Bag-of-words loaders (data/bow_loaders.hpp): both formats read into the same corpus, and each kind
// of bad input is one error naming the file and line.
#include <cstdio>
#include <fstream>
#include <string>

#include "ngvi/data/bow_loaders.hpp"
#include "test_util.hpp"

namespace ngvi::data {
namespace { namespace NGVI_UNITY_ID {

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "ngvi_bow_" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(BagOfWords, UciAndMatrixMarketGiveTheSameCorpus) {
  const auto uci = write_temp("a.txt", "3\n4\n5\n1 2 3\n1 1 1\n3 4 2\n3 2 1\n1 4 7\n");
  const auto mm = write_temp("a.mtx", "%%MatrixMarket matrix coordinate integer general\n% a comment\n3 4 5\n1 1 1\n1 2 3\n1 4 7\n3 2 1\n3 4 2\n");
  const auto voc = write_temp("a.vocab", "alpha\nbeta\ngamma\ndelta\n");
  const auto a = read_uci_docword(uci, voc);
  const auto b = read_bag_of_words(mm, voc);
  for (const auto* x : {&a, &b}) {
    EXPECT_EQ(x->corpus.n_docs(), 3);
    EXPECT_EQ(x->corpus.n_words, 4);
    EXPECT_EQ(x->corpus.doc_ptr, (std::vector<long>{0, 3, 3, 5}));  // document 2 is empty
    EXPECT_EQ(x->corpus.word, (std::vector<std::int32_t>{0, 1, 3, 1, 3}));
    EXPECT_EQ(x->corpus.count, (std::vector<std::int64_t>{1, 3, 7, 1, 2}));
    EXPECT_EQ(x->vocab.at(3), "delta");
  }
  EXPECT_NO_THROW(lda::validate_corpus(a.corpus));
}

TEST(BagOfWords, BadInputNamesFileAndLine) {
  auto expect = [](const std::string& name, const std::string& text, std::initializer_list<std::string> frags) {
    const auto p = write_temp(name, text);
    std::vector<std::string> all(frags);
    all.push_back(p);
    EXPECT_TRUE(test::throws_with<std::runtime_error>([&] { read_bag_of_words(p); }, {p})) << name;
    for (const auto& f : frags) EXPECT_TRUE(test::throws_with<std::runtime_error>([&] { read_bag_of_words(p); }, {f})) << name << ": " << f;
  };
  expect("ragged", "2\n3\n2\n1 2 3\n2 1\n", {":5:", "fields"});
  expect("nonint", "2\n3\n2\n1 2 3\n2 x 1\n", {":5:", "word id 'x'"});
  expect("frac", "2\n3\n1\n1 2 1.5\n", {":4:", "count '1.5'"});
  expect("docrange", "2\n3\n1\n3 2 1\n", {":4:", "document id 3 outside"});
  expect("wordrange", "2\n3\n1\n1 0 1\n", {":4:", "word id 0 outside"});
  expect("zero", "2\n3\n1\n1 1 0\n", {":4:", "count 0"});
  expect("dup", "2\n3\n2\n1 1 1\n1 1 2\n", {":5:", "duplicate"});
  expect("short", "2\n3\n3\n1 1 1\n", {"header announces 3"});
  expect("header", "2\nthree\n1\n1 1 1\n", {":2:", "W (words)"});
  expect("mmbanner", "%%MatrixMarket matrix array real general\n2 2\n", {":1:", "coordinate"});
  expect("mmsize", "%%MatrixMarket matrix coordinate integer general\n2 -2 1\n1 1 1\n", {":2:", "size line"});
  EXPECT_TRUE(test::throws_with<std::runtime_error>([&] { read_bag_of_words(::testing::TempDir() + "ngvi_bow_missing"); }, {"no such file"}));
  const auto ok = write_temp("ok.txt", "1\n3\n1\n1 2 1\n");
  const auto voc = write_temp("short.vocab", "a\nb\n");
  EXPECT_TRUE(test::throws_with<std::runtime_error>([&] { read_uci_docword(ok, voc); }, {voc, "2 words", "declares 3"}));
  const auto voc2 = write_temp("bad.vocab", "a\nb c\nd\n");
  EXPECT_TRUE(test::throws_with<std::runtime_error>([&] { read_uci_docword(ok, voc2); }, {voc2 + ":2:", "one word"}));
}

// A header's sizes are checked before anything is allocated (the fuzz target's first finding: a
// docword header of D = 4 444 444 440 005 with four entries made the loader allocate until the
// process was killed; fuzz/regressions/bag_of_words/ keeps that input).
TEST(BagOfWords, HeaderSizesAreCheckedBeforeAllocating) {
  auto throws = [](const std::string& name, const std::string& text, std::initializer_list<std::string> frags) {
    const auto p = write_temp(name, text);
    return test::throws_with<std::runtime_error>([&] { read_bag_of_words(p); }, frags);
  };
  EXPECT_TRUE(throws("hugeD", "4444444440005\n5\n1\n1 1 1\n", {":1:", "D (documents) = 4444444440005 exceeds 2^31 - 1"}));
  EXPECT_TRUE(throws("hugeW", "2\n4444444440005\n1\n1 1 1\n", {":1:", "W (words)", "32-bit"}));
  EXPECT_TRUE(throws("mmhugeD", "%%MatrixMarket matrix coordinate integer general\n4444444440005 3 1\n1 1 1\n", {":2:", "exceeds 2^31 - 1"}));
  // Within the ids, against the budget: the memory a header needs, 8 (D + 1) + 44 NNZ bytes.
  const std::size_t saved = corpus_memory_budget();
  set_corpus_memory_budget(8 * 1001 + 44 * 2);  // exactly D = 1000 documents and NNZ = 2 entries
  const auto fits = write_temp("fits", "1000\n3\n2\n1 1 1\n1000 3 2\n");
  EXPECT_EQ(read_bag_of_words(fits).corpus.n_docs(), 1000);
  EXPECT_TRUE(throws("overbudget", "1001\n3\n2\n1 1 1\n1001 3 2\n", {":1:", "D = 1001", "corpus memory budget", "corrupt header"}));
  EXPECT_TRUE(throws("overbudget-nnz", "1000\n3\n3\n1 1 1\n1000 3 2\n1 2 1\n", {":1:", "NNZ = 3"}));
  set_corpus_memory_budget(saved);
  EXPECT_GT(corpus_memory_budget(), std::size_t(1) << 28);  // half of any machine this kit builds on
}

}}  // namespace
}  // namespace ngvi::data
