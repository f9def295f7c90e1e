// parallel/serialise.hpp: every supported kind of value comes back bit for bit (NaN payloads and
// signed zeros included, compared through their object representation, not ==), the two hooks work,
// a truncated buffer is an error that says so, and types without a way to serialise are rejected at
// compile time.
#include "ngvi/parallel/serialise.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>

#include "ngvi/linalg/validate.hpp"

namespace ngvi::parallel {
namespace { namespace NGVI_UNITY_ID {

template <class T>
T round_trip(const T& x) {
  Writer w;
  put(w, x);
  Reader r(w.bytes());
  T back{};
  get(r, back);
  EXPECT_EQ(r.remaining(), 0u);
  return back;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof(double)) == 0; }

struct Fields {
  std::vector<std::vector<double>> kl;
  std::string why;
  bool stopped = false;
};
auto serial_fields(Fields& f) { return std::tie(f.kl, f.why, f.stopped); }

// The general hook: a value stored as its decimal digits, to show the hook is what runs.
struct Decimal {
  long v = 0;
};
void serialise(Writer& w, const Decimal& d) { put(w, std::to_string(d.v)); }
void deserialise(Reader& r, Decimal& d) {
  std::string s;
  get(r, s);
  d.v = std::stol(s);
}

struct NoWay {
  std::vector<int> v;
};

static_assert(Serialisable<double> && Serialisable<std::vector<std::vector<double>>> && Serialisable<Fields> &&
              Serialisable<Decimal> && Serialisable<Vec<double>> && Serialisable<std::optional<std::string>>);
static_assert(!Serialisable<NoWay> && !Serialisable<std::vector<NoWay>> && !Serialisable<std::map<int, int>>);

TEST(Serialise, DoublesKeepTheirBits) {
  const double nan_payload = std::bit_cast<double>(0x7ff8000000000123ULL);
  for (double x : {0.0, -0.0, 1.0 / 3.0, std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::infinity(),
                   nan_payload}) {
    EXPECT_TRUE(same_bits(round_trip(x), x)) << x;
  }
  const std::vector<double> v{-0.0, nan_payload, 2.5};
  const auto back = round_trip(v);
  ASSERT_EQ(back.size(), v.size());
  for (std::size_t i = 0; i < v.size(); ++i) EXPECT_TRUE(same_bits(back[i], v[i]));
}

TEST(Serialise, ContainersStructsAndEigenRoundTrip) {
  const std::vector<std::vector<double>> nested{{}, {1.0, 2.0}, {3.0}};
  EXPECT_EQ(round_trip(nested), nested);
  EXPECT_EQ(round_trip(std::string("a\0b", 3)), std::string("a\0b", 3));
  EXPECT_EQ(round_trip(std::optional<std::string>{}), std::optional<std::string>{});
  EXPECT_EQ(round_trip(std::optional<std::string>{"x"}), std::optional<std::string>{"x"});
  EXPECT_EQ(round_trip(std::make_pair(std::string("k"), 3L)), std::make_pair(std::string("k"), 3L));
  EXPECT_EQ(round_trip(std::make_tuple(1, std::string("t"), std::vector<long>{4, 5})),
            std::make_tuple(1, std::string("t"), std::vector<long>{4, 5}));
  Mat<double> m(2, 3);
  m << 1, 2, 3, 4, 5, 6;
  const Mat<double> mb = round_trip(m);
  EXPECT_EQ(mb.rows(), 2);
  EXPECT_EQ(mb.cols(), 3);
  EXPECT_TRUE((mb.array() == m.array()).all());
  const Vec<double> v = Vec<double>::LinSpaced(4, -1.0, 2.0);
  EXPECT_TRUE((round_trip(v).array() == v.array()).all());
  Fields f{{{1.0}, {}}, "why", true};
  const Fields fb = round_trip(f);
  EXPECT_EQ(fb.kl, f.kl);
  EXPECT_EQ(fb.why, f.why);
  EXPECT_TRUE(fb.stopped);
  EXPECT_EQ(round_trip(Decimal{-42}).v, -42);
  Writer w;
  put(w, Decimal{7});
  EXPECT_EQ(w.bytes().size(), sizeof(std::uint64_t) + 1);  // the hook ran: "7" and its length
}

TEST(Serialise, TruncatedOrMisshapenBuffersAreErrors) {
  Writer w;
  put(w, std::vector<double>{1.0, 2.0, 3.0});
  std::vector<std::byte> cut = w.bytes();
  cut.pop_back();
  Reader r(cut);
  std::vector<double> back;
  try {
    get(r, back);
    FAIL() << "no error on a truncated buffer";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("longer than the buffer"), std::string::npos) << e.what();
  }
  // A 2 × 3 matrix read as a fixed 3-vector: the shape does not fit the type.
  Writer wm;
  put(wm, Mat<double>(Mat<double>::Zero(2, 3)));
  Reader rm(wm.bytes());
  Eigen::Matrix<double, 3, 1> fixed;
  EXPECT_THROW(get(rm, fixed), std::runtime_error);
  Reader empty(nullptr, 0);
  double x = 0;
  EXPECT_THROW(get(empty, x), std::runtime_error);
}

}}  // namespace
}  // namespace ngvi::parallel
