#pragma once
/// @file
/// Counter-based random streams. A stream is fixed by (seed, stream id): replicate r of a Monte Carlo
/// claim uses stream id r, so its draws do not depend on which thread runs it, nor on how many
/// threads there are. The generator is SplitMix64 (Steele, Lea & Flood 2014) keyed by a hash of
/// (seed, stream id); output k of a stream is mix(key + (k+1)·φ), a pure function of (seed, id, k).
/// It satisfies UniformRandomBitGenerator, so Boost.Random distributions (whose algorithms are the
/// same on every platform) can draw from it.
#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <cstdint>
#include <limits>

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

}  // namespace ngvi::random
