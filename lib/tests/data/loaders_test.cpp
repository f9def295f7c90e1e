// Loader tests on fixtures written by the test itself (plain and gzip), never on the network.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <fstream>

#include "ngvi/data/loaders.hpp"
#include "test_util.hpp"

namespace ngvi::data {
namespace { namespace NGVI_UNITY_ID {

std::string write_file(const std::string& name, const std::string& content, bool gzip = false) {
  const std::string path = ::testing::TempDir() + "/ngvi_loader_" + name;
  if (gzip) {
    gzFile f = gzopen(path.c_str(), "wb");
    gzwrite(f, content.data(), static_cast<unsigned>(content.size()));
    gzclose(f);
  } else {
    std::ofstream(path, std::ios::binary) << content;
  }
  return path;
}

std::string idx_bytes(const std::vector<std::uint32_t>& dims, const std::vector<std::uint8_t>& data, std::uint8_t type = 8) {
  std::string b{char(0), char(0), char(type), char(dims.size())};
  for (auto d : dims)
    for (int s = 24; s >= 0; s -= 8) b.push_back(char((d >> s) & 0xff));
  b.append(data.begin(), data.end());
  return b;
}

TEST(ReadCsv, HeaderAndDelimiterDetection) {
  const auto a = read_csv(write_file("h.csv", "x1,x2,y\n1,2,3\n4,5,6\n\n"));
  EXPECT_EQ(a.columns, (std::vector<std::string>{"x1", "x2", "y"}));
  EXPECT_EQ(a.values.rows(), 2);
  EXPECT_EQ(a.values(1, 2), 6.0);
  const auto b = read_csv(write_file("s.txt", "1.5 2  3\n4 5 6e-1\n"));
  EXPECT_EQ(b.columns, (std::vector<std::string>{"c0", "c1", "c2"}));
  EXPECT_EQ(b.values(1, 2), 0.6);
  const auto c = read_csv(write_file("t.tsv", "a\tb\n1\t2\n"));
  EXPECT_EQ(c.columns[1], "b");
  const auto d = read_csv(write_file("sc.csv", "a;b\r\n1;2\r\n"));
  EXPECT_EQ(d.values(0, 1), 2.0);
  const auto g = read_csv(write_file("g.csv.gz", "p,q\n7,8\n", true));
  EXPECT_EQ(g.values(0, 0), 7.0);
  const auto ds = table_to_dataset(a, "x2");
  EXPECT_EQ(ds.y(1), 5.0);
  EXPECT_EQ(ds.X(1, 1), 6.0);
}

TEST(ReadCsv, EveryFailureNamesFileAndLine) {
  using test::throws_with;
  const auto ragged = write_file("r.csv", "a,b\n1,2\n3\n");
  EXPECT_TRUE(throws_with<std::runtime_error>([&] { read_csv(ragged); }, {ragged + ":3", "1 fields, expected 2", "ragged"}));
  const auto text = write_file("n.csv", "a,b\n1,2\n3,abc\n");
  EXPECT_TRUE(throws_with<std::runtime_error>([&] { read_csv(text); }, {text + ":3", "'abc'", "column 'b'", "not a number"}));
  const auto empty = write_file("e.csv", "");
  EXPECT_TRUE(throws_with<std::runtime_error>([&] { read_csv(empty); }, {empty, "is empty"}));
  EXPECT_TRUE(throws_with<std::runtime_error>([&] { read_csv("/nonexistent/x.csv"); }, {"/nonexistent/x.csv", "no such file"}));
  const auto inf = write_file("i.csv", "a,b\n1,inf\n");
  EXPECT_TRUE(throws_with<std::runtime_error>([&] { read_csv(inf); }, {inf + ":2", "not finite"}));
  const auto dup = write_file("d.csv", "a,a\n1,2\n");
  EXPECT_TRUE(throws_with<std::runtime_error>([&] { read_csv(dup); }, {dup + ":1", "duplicate column"}));
  const auto ok = read_csv(write_file("ok.csv", "a,b\n1,2\n"));
  EXPECT_TRUE(throws_with<std::runtime_error>([&] { table_to_dataset(ok, "zz"); }, {"no column 'zz'", "columns: a, b"}));
  const auto corrupt = write_file("c.csv.gz", std::string("\x1f\x8b\x08\x00garbage", 12));
  EXPECT_TRUE(throws_with<std::runtime_error>([&] { read_csv(corrupt); }, {corrupt}));
}

TEST(ReadIdx, ValidAndCorruptFiles) {
  const auto good = write_file("img.idx.gz", idx_bytes({2, 2, 2}, {0, 255, 0, 255, 255, 255, 255, 255}), true);
  const auto a = read_idx(good);
  EXPECT_EQ(a.dims, (std::vector<std::uint32_t>{2, 2, 2}));
  EXPECT_EQ(a.data[1], 255);
  using test::throws_with;
  const auto magic = write_file("m.idx", std::string("\x01\x00\x08\x01\x00\x00\x00\x01\x05", 9));
  EXPECT_TRUE(throws_with<std::runtime_error>([&] { read_idx(magic); }, {magic, "bad IDX magic"}));
  const auto type = write_file("t.idx", idx_bytes({1}, {0, 0, 0, 0}, 0x0d));
  EXPECT_TRUE(throws_with<std::runtime_error>([&] { read_idx(type); }, {type, "element type 13"}));
  const auto trunc = write_file("tr.idx", idx_bytes({3}, {1, 2}));
  EXPECT_TRUE(throws_with<std::runtime_error>([&] { read_idx(trunc); }, {trunc, "2 data bytes", "announces 3"}));
  const auto labels = write_file("lab.idx", idx_bytes({2}, {3, 7}));
  const auto two = idx_two_class(good, labels, 3, 7, 2);
  EXPECT_EQ(two.X.rows(), 2);
  EXPECT_EQ(two.X.cols(), 1);
  EXPECT_DOUBLE_EQ(two.X(0, 0), 0.5);  // pooled mean of {0, 1, 0, 1}: exact in binary
  EXPECT_EQ(two.y(0), 0.0);
  EXPECT_EQ(two.y(1), 1.0);
  EXPECT_TRUE(throws_with<std::domain_error>([&] { idx_two_class(good, labels, 3, 3); }, {"'class_b'"}));
  EXPECT_TRUE(throws_with<std::domain_error>([&] { idx_two_class(good, labels, 3, 7, 3); }, {"'pool'", "divide"}));
}

TEST(Standardize, ZeroMeanUnitVarianceAndSplit) {
  data::Rng rng(4);
  Dataset<double> d{data::gaussian_matrix(50, 3, rng) * 3.0, data::gaussian_vector(50, rng)};
  d.X.col(2).setConstant(5.0);
  auto s = standardize(d);
  const double tol = rounding_budget<double>(4 * 50);
  for (Index j = 0; j < 2; ++j) {
    EXPECT_LE(std::abs(d.X.col(j).mean()), tol * 10);
    EXPECT_TRUE(test::rel_close<double>(d.X.col(j).squaredNorm() / 50, 1.0, tol * 10));
  }
  EXPECT_EQ(d.X.col(2).norm(), 0.0);
  EXPECT_EQ(s.scale(2), 1.0);
  const auto [train, test] = train_test_split(d, 0.2, 9);
  EXPECT_EQ(train.n() + test.n(), 50);
  EXPECT_EQ(test.n(), 10);
  const auto [train2, test2] = train_test_split(d, 0.2, 9);
  EXPECT_EQ(train.X, train2.X);
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { train_test_split(d, 1.0, 1); }, {"'test_fraction'"}));
  const double m = center_targets(d);
  EXPECT_LE(std::abs(d.y.mean()), tol);
  EXPECT_TRUE(std::isfinite(m));
}

// Builtins depend on installed Debian packages: when present the shapes are checked, when absent
// the error must name the missing package.
TEST(Builtins, ShapesWhenInstalledClearErrorOtherwise) {
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([] { load_builtin("nope"); }, {"unknown data set 'nope'", "diabetes"}));
  for (const auto& name : builtin_names()) {
    if (builtin_available(name)) {
      const auto d = load_builtin(name);
      EXPECT_GT(d.n(), 100) << name;
      EXPECT_EQ(d.y.size(), d.n());
      EXPECT_EQ(file_crc32(builtin_path(name)).size(), 8u);
    } else {
      EXPECT_TRUE(test::throws_with<std::runtime_error>([&] { load_builtin(name); }, {"needs the Debian package"})) << name;
    }
  }
  if (builtin_available("diabetes")) {
    const auto d = load_builtin("diabetes");
    EXPECT_EQ(d.n(), 442);
    EXPECT_EQ(d.d(), 10);
  }
  if (builtin_available("breast_cancer")) {
    const auto d = load_builtin("breast_cancer");
    EXPECT_EQ(d.n(), 569);
    EXPECT_EQ(d.d(), 30);
    EXPECT_TRUE((d.y.array() == 0.0 || d.y.array() == 1.0).all());
  }
}

}}  // namespace
}  // namespace ngvi::data
