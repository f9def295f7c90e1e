#pragma once
/// @file
/// A supervised dataset: n rows x_iᵀ of X ∈ R^{n×d} and targets y ∈ R^n. Models take it by const
/// reference; loaders (ngvi/data) produce it in double, and `cast_dataset` gives any other scalar.
#include <string_view>

#include "ngvi/linalg/validate.hpp"

namespace ngvi {

template <class Scalar>
struct Dataset {
  Mat<Scalar> X;  ///< n × d design matrix, one row per observation
  Vec<Scalar> y;  ///< n targets
  Index n() const { return X.rows(); }
  Index d() const { return X.cols(); }
};

/// Checks n ≥ 1, d ≥ 1, matching sizes and finite entries; names `func` and the argument.
template <class Scalar>
void validate_dataset(const Dataset<Scalar>& data, std::string_view func, std::string_view arg = "data") {
  if (data.X.rows() < 1) throw_size(func, std::string(arg) + ".X", "has no rows (n = 0)");
  if (data.X.cols() < 1) throw_size(func, std::string(arg) + ".X", "has no columns (d = 0)");
  if (data.y.size() != data.X.rows())
    throw_size(func, std::string(arg) + ".y", "has " + std::to_string(data.y.size()) + " entries for " +
                                                  std::to_string(data.X.rows()) + " rows of X");
  require_finite(data.X, func, std::string(arg) + ".X");
  require_finite(data.y, func, std::string(arg) + ".y");
}

template <class To, class From>
Dataset<To> cast_dataset(const Dataset<From>& d) {
  return Dataset<To>{d.X.unaryExpr([](const From& x) { return To(x); }), d.y.unaryExpr([](const From& x) { return To(x); })};
}

}  // namespace ngvi
