#pragma once
/// @file
/// Rating data for the matrix-factorisation network (models/paquet_mf.hpp): the synthetic generator
/// of docs/systems.md B.7 (kit choice) and a loader of (user, item, rating) CSV triples.
/// The loader is compiled in lib/src/ratings_loader.cpp; its failures throw std::runtime_error
/// naming the file and line, "<file>:<line>: <problem>", as the CSV loaders of data/loaders.hpp do.
#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_01.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "ngvi/data/rating_matrix.hpp"
#include "ngvi/data/synthetic.hpp"

namespace ngvi::data {

/// Options of the synthetic rating generator (defaults: docs/systems.md B.7).
struct SyntheticRatingsOptions {
  Index users = 300;
  Index items = 600;
  Index rank = 5;         ///< K_true
  double density = 0.1;   ///< mean probability that a (user, item) pair is observed
  double noise = 1.0;     ///< standard deviation of the rating noise
  double zipf = 0.0;      ///< 0: uniform activity; a > 0: user and item activity ∝ rank^(−a)
};

/// Ratings r_mn = u*_mᵀ v*_n + noise·ε with u*_mk, v*_nk, ε ~ N(0, 1); each pair (m, n) observed
/// independently with probability p_mn = min(1, density·a_m·b_n), where a and b are the users' and
/// items' activity weights normalised to mean 1 (all 1 without Zipf; a_m ∝ (m+1)^(−zipf) otherwise).
/// Draw order: U*, V* (row by row), then for each pair in row-major order one uniform and, when
/// observed, one normal. Deterministic in `seed` (Boost.Random mt19937_64).
/// @throws std::domain_error naming the option that is out of range.
inline RatingMatrix synthetic_ratings(const SyntheticRatingsOptions& o, std::uint64_t seed) {
  constexpr const char* f = "ngvi::data::synthetic_ratings";
  if (o.users < 1) throw_domain(f, "users", "must be >= 1");
  if (o.items < 1) throw_domain(f, "items", "must be >= 1");
  if (o.rank < 1) throw_domain(f, "rank", "must be >= 1");
  if (!(o.density > 0 && o.density <= 1)) throw_domain(f, "density", "must lie in (0, 1]");
  if (!(o.noise >= 0) || !std::isfinite(o.noise)) throw_domain(f, "noise", "must be finite and >= 0");
  if (!(o.zipf >= 0) || !std::isfinite(o.zipf)) throw_domain(f, "zipf", "must be finite and >= 0");
  Rng rng(seed);
  const Mat<double> u = gaussian_matrix(o.users, o.rank, rng);
  const Mat<double> v = gaussian_matrix(o.items, o.rank, rng);
  auto weights = [&](Index n) {
    std::vector<double> w(static_cast<std::size_t>(n));
    double sum = 0;
    for (Index i = 0; i < n; ++i) sum += (w[static_cast<std::size_t>(i)] = std::pow(static_cast<double>(i + 1), -o.zipf));
    for (auto& x : w) x *= static_cast<double>(n) / sum;
    return w;
  };
  const auto a = weights(o.users), b = weights(o.items);
  boost::random::uniform_01<double> unif;
  boost::random::normal_distribution<double> nd;
  std::vector<std::int32_t> us, is;
  std::vector<double> rs;
  for (Index m = 0; m < o.users; ++m)
    for (Index n = 0; n < o.items; ++n) {
      const double p = std::min(1.0, o.density * a[static_cast<std::size_t>(m)] * b[static_cast<std::size_t>(n)]);
      if (unif(rng) >= p) continue;
      us.push_back(static_cast<std::int32_t>(m));
      is.push_back(static_cast<std::int32_t>(n));
      rs.push_back(u.row(m).dot(v.row(n)) + o.noise * nd(rng));
    }
  return RatingMatrix::build(o.users, o.items, std::move(us), std::move(is), std::move(rs));
}

/// A loaded rating file: the matrix (users and items numbered in order of first appearance) and
/// the labels they had in the file.
struct RatingsTable {
  std::string source;
  RatingMatrix ratings;
  std::vector<std::string> user_labels, item_labels;
  double centre = 0;  ///< the value subtracted from every rating (0 when not centred)
};

/// Reads (user, item, rating) triples: three fields per line, separated by ',', ';', a tab or
/// spaces; an optional header line (a first line whose third field is not a number); user and item
/// are arbitrary labels. With `centre`, the mean rating is subtracted and recorded.
/// @throws std::runtime_error "<file>:<line>: <problem>" for a missing or empty file, a line without
///         three fields, a rating that is not a finite number.
RatingsTable read_ratings_csv(const std::string& path, bool centre = false);

/// Subtracts the mean rating from every rating (both views) and returns it.
double centre_ratings(RatingMatrix& r);

}  // namespace ngvi::data
