#pragma once
/// @file
/// A sparse matrix of ratings in both orientations (the data of Bayesian matrix factorisation,
/// models/paquet_mf.hpp). It lives in data/ so that the loaders and generators (data/ratings.hpp)
/// need no model header.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ngvi/linalg/validate.hpp"
#include "ngvi/scalar/types.hpp"

namespace ngvi {

/// Observed ratings, stored once per rating and in both orientations (compressed rows by user and
/// by item), so that the children of u_mk are row m of the user view and those of v_nk row n of the
/// item view. Values are doubles (data); models convert them exactly to their Scalar.
struct RatingMatrix {
  Index users = 0;
  Index items = 0;
  std::vector<std::int32_t> user, item;  ///< per rating
  std::vector<double> value;             ///< per rating
  // By user: ratings of user m are slots user_ptr[m] .. user_ptr[m+1]−1.
  std::vector<std::int64_t> user_ptr;
  std::vector<std::int32_t> user_item;   ///< the item of each slot
  std::vector<double> user_value;
  std::vector<std::int64_t> user_slot;   ///< rating → its slot in the user view
  // By item.
  std::vector<std::int64_t> item_ptr;
  std::vector<std::int32_t> item_user;
  std::vector<double> item_value;
  std::vector<std::int64_t> item_slot;

  Index size() const { return static_cast<Index>(value.size()); }
  Index user_degree(Index m) const { return static_cast<Index>(user_ptr[m + 1] - user_ptr[m]); }
  Index item_degree(Index n) const { return static_cast<Index>(item_ptr[n + 1] - item_ptr[n]); }

  /// Builds both views from triples. Duplicate (user, item) pairs are kept as separate children.
  /// @throws std::invalid_argument naming 'user'/'item'/'value' on unequal lengths;
  ///         std::domain_error naming 'users'/'items' (negative), 'user'/'item' (index out of range,
  ///         with the rating's position) or 'value' (non-finite).
  static RatingMatrix build(Index users, Index items, std::vector<std::int32_t> user, std::vector<std::int32_t> item,
                            std::vector<double> value) {
    constexpr const char* f = "ngvi::RatingMatrix::build";
    if (users < 0) throw_domain(f, "users", "must be >= 0");
    if (items < 0) throw_domain(f, "items", "must be >= 0");
    if (user.size() != value.size() || item.size() != value.size()) throw_size(f, "user/item/value", "must have equal lengths");
    RatingMatrix d;
    d.users = users;
    d.items = items;
    const std::size_t n = value.size();
    for (std::size_t e = 0; e < n; ++e) {
      if (user[e] < 0 || user[e] >= users) throw_domain(f, "user", "index out of [0, users) at rating " + std::to_string(e));
      if (item[e] < 0 || item[e] >= items) throw_domain(f, "item", "index out of [0, items) at rating " + std::to_string(e));
      if (!is_finite_scalar(value[e])) throw_domain(f, "value", "is not finite at rating " + std::to_string(e));
    }
    auto view = [&](const std::vector<std::int32_t>& row, const std::vector<std::int32_t>& col, Index rows, std::vector<std::int64_t>& ptr,
                    std::vector<std::int32_t>& other, std::vector<double>& val, std::vector<std::int64_t>& slot) {
      ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
      for (std::size_t e = 0; e < n; ++e) ++ptr[static_cast<std::size_t>(row[e]) + 1];
      for (Index r = 0; r < rows; ++r) ptr[r + 1] += ptr[r];
      std::vector<std::int64_t> fill(ptr.begin(), ptr.end() - 1);
      other.resize(n);
      val.resize(n);
      slot.resize(n);
      for (std::size_t e = 0; e < n; ++e) {
        const std::int64_t s = fill[static_cast<std::size_t>(row[e])]++;
        other[static_cast<std::size_t>(s)] = col[e];
        val[static_cast<std::size_t>(s)] = value[e];
        slot[e] = s;
      }
    };
    view(user, item, users, d.user_ptr, d.user_item, d.user_value, d.user_slot);
    view(item, user, items, d.item_ptr, d.item_user, d.item_value, d.item_slot);
    d.user = std::move(user);
    d.item = std::move(item);
    d.value = std::move(value);
    return d;
  }
};

}  // namespace ngvi
