#pragma once
/// @file
/// Counter-based random streams. A stream is fixed by (seed, stream id): replicate r of a Monte Carlo
/// claim uses stream id r, so its draws do not depend on which thread runs it, nor on how many
/// threads there are. The generator is SplitMix64 (Steele, Lea & Flood 2014) keyed by a hash of
/// (seed, stream id); output k of a stream is mix(key + (k+1)·φ), a pure function of (seed, id, k).
/// It satisfies UniformRandomBitGenerator, so Boost.Random distributions (whose algorithms are the
/// same on every platform) can draw from it.
#include <libdivide.h>

#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <cstdint>
#include <limits>
#include <stdexcept>

namespace ngvi::random {

/// The SplitMix64 finaliser: a bijective 64-bit mixing function.
constexpr std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

inline constexpr std::uint64_t kGolden = 0x9E3779B97F4A7C15ULL;

class Stream {
 public:
  using result_type = std::uint64_t;

  Stream(std::uint64_t seed, std::uint64_t stream_id)
      : key_(mix64(mix64(seed + kGolden) ^ (stream_id * 0xD1B54A32D192ED03ULL + 0x8CB92BA72F3D8DD7ULL))) {}

  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }

  result_type operator()() { return mix64(key_ + (++counter_) * kGolden); }

  /// Number of 64-bit words drawn so far.
  std::uint64_t position() const { return counter_; }
  /// Moves to draw number k (so a stream can be replayed from any point).
  void seek(std::uint64_t k) { counter_ = k; }

  /// A uniform double in [0, 1) with 53 random bits.
  double uniform01() { return static_cast<double>((*this)() >> 11) * 0x1.0p-53; }

  /// A uniform index in {0, …, n−1} (Boost's unbiased rejection method).
  std::uint64_t index(std::uint64_t n) { return boost::random::uniform_int_distribution<std::uint64_t>(0, n - 1)(*this); }

  /// A standard normal draw (Boost's ziggurat).
  double normal() { return normal_(*this); }

 private:
  std::uint64_t key_;
  std::uint64_t counter_ = 0;
  boost::random::normal_distribution<double> normal_;
};

/// Uniform indices in {0, …, n−1} for a fixed n, drawn many times (the mini-batch estimators):
/// exactly the values, and the stream words consumed, of `Stream::index(n)`, i.e. of Boost's
/// uniform_int_distribution. That algorithm returns ⌊w / b⌋ for a raw word w, rejecting results
/// above n − 1, with the bucket width b = ⌊(2⁶⁴−1)/n⌋ (+1 when (2⁶⁴−1) mod n = n − 1). Boost
/// derives b with two divisions at every call and then divides once more; here b is computed once
/// and the per-draw division is libdivide's multiply-and-shift by the invariant b, which is exact.
/// That removes two of the three divisions per draw and makes the third a multiplication
/// (bench/README.md has the measurement). n = 1 returns 0 without drawing, as Boost does.
class IndexSampler {
 public:
  /// @throws std::invalid_argument naming 'n' if n = 0.
  explicit IndexSampler(std::uint64_t n) : last_(n - 1) {
    if (n == 0) throw std::invalid_argument("ngvi::random::IndexSampler: argument 'n' must be >= 1");
    if (n == 1) return;
    constexpr std::uint64_t all = std::numeric_limits<std::uint64_t>::max();
    std::uint64_t bucket = all / n;
    if (all % n == last_) ++bucket;
    bucket_ = libdivide::divider<std::uint64_t>(bucket);
  }

  /// One index from `rng` (a Stream, or any generator of uniform 64-bit words).
  template <class Engine>
  std::uint64_t operator()(Engine& rng) const {
    static_assert(Engine::min() == 0 && Engine::max() == std::numeric_limits<std::uint64_t>::max(),
                  "IndexSampler needs a generator of uniform 64-bit words");
    if (last_ == 0) return 0;
    for (;;) {
      const std::uint64_t k = rng() / bucket_;
      if (k <= last_) return k;
    }
  }

 private:
  std::uint64_t last_;
  libdivide::divider<std::uint64_t> bucket_;
};

}  // namespace ngvi::random
