#pragma once
/// @file
/// Byte serialisation of replicate results, so that run_replicates can split replicates across the
/// ranks of a process group and gather them (parallel/replicates.hpp). Values are copied bit for bit
/// (a double keeps its exact bits, NaN payloads and signed zeros included), so a gathered result is
/// bitwise the one a single process computes. Ranks run the same binary on the same platform.
///
/// A type T is serialisable (`Serialisable<T>`) when it is, in this order of precedence:
///  1. a type with ADL functions `serialise(ngvi::parallel::Writer&, const T&)` and
///     `deserialise(ngvi::parallel::Reader&, T&)` (the general hook);
///  2. a type with an ADL function `serial_fields(T&)` returning `std::tie(members...)` of
///     serialisable members (the short hook for a struct of fields);
///  3. trivially copyable (copied as its object representation);
///  4. std::string, std::vector, std::optional, std::pair or std::tuple of serialisable types;
///  5. a dense Eigen matrix or vector (Eigen::Matrix) of a serialisable scalar.
/// ```cpp
/// struct Run { std::vector<double> kl; bool stopped = false; long stopped_at = -1; };
/// auto serial_fields(Run& r) { return std::tie(r.kl, r.stopped, r.stopped_at); }
/// ```
#include <Eigen/Core>
#include <cstddef>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace ngvi::parallel {

/// Appends bytes to a growing buffer.
class Writer {
 public:
  void write_bytes(const void* p, std::size_t n) {
    const auto* b = static_cast<const std::byte*>(p);
    buf_.insert(buf_.end(), b, b + n);
  }
  const std::vector<std::byte>& bytes() const { return buf_; }
  std::vector<std::byte> take() { return std::move(buf_); }

 private:
  std::vector<std::byte> buf_;
};

/// Reads bytes from a buffer it does not own, front to back.
class Reader {
 public:
  Reader(const std::byte* data, std::size_t size) : data_(data), size_(size) {}
  explicit Reader(const std::vector<std::byte>& v) : Reader(v.data(), v.size()) {}
  /// @throws std::runtime_error if fewer than n bytes remain.
  void read_bytes(void* p, std::size_t n) {
    if (n > size_ - pos_)
      throw std::runtime_error("ngvi::parallel::Reader: the buffer ends after " + std::to_string(size_) + " bytes, " +
                               std::to_string(n) + " more were expected at byte " + std::to_string(pos_));
    if (n > 0) std::memcpy(p, data_ + pos_, n);
    pos_ += n;
  }
  std::size_t remaining() const { return size_ - pos_; }

 private:
  const std::byte* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

namespace detail {

template <class T, template <class...> class Tmpl>
struct is_spec : std::false_type {};
template <template <class...> class Tmpl, class... A>
struct is_spec<Tmpl<A...>, Tmpl> : std::true_type {};

template <class T>
struct is_eigen_matrix : std::false_type {};
template <class S, int R, int C, int O, int MR, int MC>
struct is_eigen_matrix<Eigen::Matrix<S, R, C, O, MR, MC>> : std::true_type {};

template <class T>
concept HasSerialiseHook = requires(Writer& w, Reader& r, const T& c, T& m) {
  serialise(w, c);
  deserialise(r, m);
};

template <class T>
concept HasFieldsHook = requires(T& m) { serial_fields(m); };

template <class Tuple, std::size_t... I>
constexpr bool all_serialisable(std::index_sequence<I...>);

template <class T>
constexpr bool serialisable() {
  if constexpr (HasSerialiseHook<T>) {
    return true;
  } else if constexpr (HasFieldsHook<T>) {
    using Tie = decltype(serial_fields(std::declval<T&>()));
    return all_serialisable<Tie>(std::make_index_sequence<std::tuple_size_v<Tie>>{});
  } else if constexpr (std::is_trivially_copyable_v<T>) {
    return true;
  } else if constexpr (std::is_same_v<T, std::string>) {
    return true;
  } else if constexpr (is_spec<T, std::vector>::value || is_spec<T, std::optional>::value) {
    return serialisable<typename T::value_type>();
  } else if constexpr (is_spec<T, std::pair>::value) {
    return serialisable<typename T::first_type>() && serialisable<typename T::second_type>();
  } else if constexpr (is_spec<T, std::tuple>::value) {
    return all_serialisable<T>(std::make_index_sequence<std::tuple_size_v<T>>{});
  } else if constexpr (is_eigen_matrix<T>::value) {
    return serialisable<typename T::Scalar>();
  } else {
    return false;
  }
}

template <class Tuple, std::size_t... I>
constexpr bool all_serialisable(std::index_sequence<I...>) {
  return (serialisable<std::remove_cvref_t<std::tuple_element_t<I, Tuple>>>() && ...);
}

}  // namespace detail

/// True when values of T can be written with `put` and read back with `get` (see the file comment).
template <class T>
concept Serialisable = detail::serialisable<T>();

/// Writes x (see the file comment for the supported types and the two hooks).
template <class T>
void put(Writer& w, const T& x) {
  static_assert(Serialisable<T>, "ngvi::parallel::put: T is not serialisable; give it serial_fields(T&) or serialise/deserialise");
  if constexpr (detail::HasSerialiseHook<T>) {
    serialise(w, x);
  } else if constexpr (detail::HasFieldsHook<T>) {
    std::apply([&](auto&... f) { (put(w, f), ...); }, serial_fields(const_cast<T&>(x)));
  } else if constexpr (std::is_trivially_copyable_v<T>) {
    w.write_bytes(&x, sizeof(T));
  } else if constexpr (std::is_same_v<T, std::string>) {
    put(w, static_cast<std::uint64_t>(x.size()));
    w.write_bytes(x.data(), x.size());
  } else if constexpr (detail::is_spec<T, std::vector>::value) {
    using E = typename T::value_type;
    put(w, static_cast<std::uint64_t>(x.size()));
    if constexpr (std::is_trivially_copyable_v<E> && !detail::HasSerialiseHook<E> && !detail::HasFieldsHook<E>) {
      w.write_bytes(x.data(), x.size() * sizeof(E));
    } else {
      for (const auto& e : x) put(w, e);
    }
  } else if constexpr (detail::is_spec<T, std::optional>::value) {
    put(w, x.has_value());
    if (x) put(w, *x);
  } else if constexpr (detail::is_spec<T, std::pair>::value) {
    put(w, x.first);
    put(w, x.second);
  } else if constexpr (detail::is_spec<T, std::tuple>::value) {
    std::apply([&](const auto&... f) { (put(w, f), ...); }, x);
  } else {
    static_assert(detail::is_eigen_matrix<T>::value);
    using S = typename T::Scalar;
    put(w, static_cast<std::int64_t>(x.rows()));
    put(w, static_cast<std::int64_t>(x.cols()));
    if constexpr (std::is_trivially_copyable_v<S>) {
      w.write_bytes(x.data(), static_cast<std::size_t>(x.size()) * sizeof(S));
    } else {
      for (Eigen::Index i = 0; i < x.size(); ++i) put(w, x.data()[i]);
    }
  }
}

/// Reads into x what `put` wrote.
/// @throws std::runtime_error if the buffer ends early or a size does not fit the type.
template <class T>
void get(Reader& r, T& x) {
  static_assert(Serialisable<T>, "ngvi::parallel::get: T is not serialisable; give it serial_fields(T&) or serialise/deserialise");
  if constexpr (detail::HasSerialiseHook<T>) {
    deserialise(r, x);
  } else if constexpr (detail::HasFieldsHook<T>) {
    std::apply([&](auto&... f) { (get(r, f), ...); }, serial_fields(x));
  } else if constexpr (std::is_trivially_copyable_v<T>) {
    r.read_bytes(&x, sizeof(T));
  } else if constexpr (std::is_same_v<T, std::string>) {
    std::uint64_t n = 0;
    get(r, n);
    if (n > r.remaining()) throw std::runtime_error("ngvi::parallel::get: a string is longer than the buffer");
    x.resize(static_cast<std::size_t>(n));
    r.read_bytes(x.data(), x.size());
  } else if constexpr (detail::is_spec<T, std::vector>::value) {
    using E = typename T::value_type;
    std::uint64_t n = 0;
    get(r, n);
    if constexpr (std::is_trivially_copyable_v<E> && !detail::HasSerialiseHook<E> && !detail::HasFieldsHook<E>) {
      if (n > r.remaining() / (sizeof(E) > 0 ? sizeof(E) : 1))
        throw std::runtime_error("ngvi::parallel::get: a vector is longer than the buffer");
      x.resize(static_cast<std::size_t>(n));
      r.read_bytes(x.data(), x.size() * sizeof(E));
    } else {
      if (n > r.remaining()) throw std::runtime_error("ngvi::parallel::get: a vector is longer than the buffer");
      x.clear();
      x.reserve(static_cast<std::size_t>(n));
      for (std::uint64_t i = 0; i < n; ++i) {
        E e{};
        get(r, e);
        x.push_back(std::move(e));
      }
    }
  } else if constexpr (detail::is_spec<T, std::optional>::value) {
    bool has = false;
    get(r, has);
    if (has) {
      typename T::value_type v{};
      get(r, v);
      x = std::move(v);
    } else {
      x.reset();
    }
  } else if constexpr (detail::is_spec<T, std::pair>::value) {
    get(r, x.first);
    get(r, x.second);
  } else if constexpr (detail::is_spec<T, std::tuple>::value) {
    std::apply([&](auto&... f) { (get(r, f), ...); }, x);
  } else {
    static_assert(detail::is_eigen_matrix<T>::value);
    using S = typename T::Scalar;
    std::int64_t rows = 0, cols = 0;
    get(r, rows);
    get(r, cols);
    const bool rows_ok = T::RowsAtCompileTime == Eigen::Dynamic ? rows >= 0 : rows == T::RowsAtCompileTime;
    const bool cols_ok = T::ColsAtCompileTime == Eigen::Dynamic ? cols >= 0 : cols == T::ColsAtCompileTime;
    if (!rows_ok || !cols_ok || (cols > 0 && static_cast<std::uint64_t>(rows) > r.remaining() / static_cast<std::uint64_t>(cols)))
      throw std::runtime_error("ngvi::parallel::get: a matrix has a shape that does not fit its type or the buffer");
    x.resize(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
    if constexpr (std::is_trivially_copyable_v<S>) {
      r.read_bytes(x.data(), static_cast<std::size_t>(x.size()) * sizeof(S));
    } else {
      for (Eigen::Index i = 0; i < x.size(); ++i) get(r, x.data()[i]);
    }
  }
}

}  // namespace ngvi::parallel
