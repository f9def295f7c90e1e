#pragma once
/// @file
/// Product<F>: N independent copies of a family F (N fixed at run time), q(x₁…x_N) = Πⱼ q_{ηⱼ}(xⱼ).
/// Its parameters are the stacked parameters, A(η) = Σⱼ A(ηⱼ), A*(μ) = Σⱼ A*(μⱼ), μ = (∇A(ηⱼ))ⱼ,
/// ⟨η, μ⟩ = Σⱼ ⟨ηⱼ, μⱼ⟩, KL and Bregman divergences sum, the Fisher metric is block diagonal.
///
/// Storage. Natural and Expectation are one contiguous p × N matrix (p = F's flat_size(), Eigen's
/// column-major order), column j holding component j's flat coordinates. So a product of N
/// univariate Gaussians is a 2 × N matrix and a product of K Dirichlets over V words (LDA's topics)
/// is a V × K matrix (LDA's usual K × V λ is its transpose, a view with no copy). The engine's
/// update λ ← (1 − ρ)λ + ρλ̂ is then one vectorised Eigen expression over all components, with no
/// vector of small objects. The maps go component by component through F's own functions on a
/// column: for a fixed-size component (the univariate Gaussian) that is allocation-free; for a
/// Dirichlet it copies the V entries of a column once per call, which is small next to the V
/// digamma / lgamma evaluations the map makes.
#include <type_traits>

#include "ngvi/expfam/family.hpp"

namespace ngvi {

template <ExponentialFamily F>
class Product {
 public:
  using Component = F;
  using Scalar = typename F::Scalar;
  using Natural = Mat<Scalar>;
  using Expectation = Mat<Scalar>;

  /// @throws std::invalid_argument naming 'n' if n < 1.
  Product(F component, Index n) : f_(std::move(component)), n_(n), p_(f_.flat_size()) {
    require_positive_dim(n, "ngvi::Product", "n");
  }

  template <class S>
  auto rebind() const {
    auto c = f_.template rebind<S>();
    return Product<decltype(c)>(std::move(c), n_);
  }

  const F& component() const { return f_; }
  Index components() const { return n_; }
  Index flat_size() const { return p_ * n_; }
  Index size() const { return f_.size() * n_; }

  bool in_domain(const Natural& eta) const {
    if (eta.rows() != p_ || eta.cols() != n_) return false;
    for (Index j = 0; j < n_; ++j)
      if (!component_in_domain(eta, j)) return false;
    return true;
  }
  /// Whether component j of η (column j, of the product's shape) is in F's domain: through F's
  /// in_domain_flat on the column's entries where F has one (the Dirichlet: no copy of the V entries),
  /// else F's in_domain of the unflattened column. NaturalStepper checks a step's column tiles with it.
  bool component_in_domain(const Natural& eta, Index j) const {
    if constexpr (requires { f_.in_domain_flat(eta.col(j).data()); }) return f_.in_domain_flat(eta.col(j).data());
    else return f_.in_domain(f_.unflatten_natural(eta.col(j)));
  }
  bool in_mean_domain(const Expectation& mu) const {
    if (mu.rows() != p_ || mu.cols() != n_) return false;
    for (Index j = 0; j < n_; ++j)
      if (!f_.in_mean_domain(f_.unflatten_expectation(mu.col(j)))) return false;
    return true;
  }

  /// Σⱼ A(ηⱼ). Errors name the component: "eta(:, j)".
  Scalar log_partition(const Natural& eta) const {
    require_shape(eta, "ngvi::Product::log_partition", "eta");
    Scalar a(0);
    for (Index j = 0; j < n_; ++j)
      a += component_call(j, "eta", [&] { return f_.log_partition(f_.unflatten_natural(eta.col(j))); });
    return a;
  }
  Scalar conjugate(const Expectation& mu) const {
    require_shape(mu, "ngvi::Product::conjugate", "mu");
    Scalar a(0);
    for (Index j = 0; j < n_; ++j)
      a += component_call(j, "mu", [&] { return f_.conjugate(f_.unflatten_expectation(mu.col(j))); });
    return a;
  }
  Expectation to_mean(const Natural& eta) const {
    require_shape(eta, "ngvi::Product::to_mean", "eta");
    Expectation out(p_, n_);
    for (Index j = 0; j < n_; ++j)
      component_call(j, "eta", [&] {
        store(out, j, f_.to_mean(f_.unflatten_natural(eta.col(j))), true);
        return 0;
      });
    return out;
  }
  Natural to_natural(const Expectation& mu) const {
    require_shape(mu, "ngvi::Product::to_natural", "mu");
    Natural out(p_, n_);
    for (Index j = 0; j < n_; ++j)
      component_call(j, "mu", [&] {
        store(out, j, f_.to_natural(f_.unflatten_expectation(mu.col(j))), false);
        return 0;
      });
    return out;
  }
  /// ⟨η, μ⟩ = Σ η ∘ μ (the pairing of every family is the dot product of its flat coordinates).
  Scalar pairing(const Natural& eta, const Expectation& mu) const {
    require_shape(eta, "ngvi::Product::pairing", "eta");
    require_shape(mu, "ngvi::Product::pairing", "mu");
    return eta.cwiseProduct(mu).sum();
  }
  Scalar kl(const Natural& q, const Natural& p) const {
    require_shape(q, "ngvi::Product::kl", "q");
    require_shape(p, "ngvi::Product::kl", "p");
    Scalar k(0);
    for (Index j = 0; j < n_; ++j)
      k += component_call(j, "q or p", [&] { return f_.kl(f_.unflatten_natural(q.col(j)), f_.unflatten_natural(p.col(j))); });
    return k;
  }
  Scalar bregman_log_partition(const Natural& eta, const Natural& eta_ref) const {
    return generic_bregman_log_partition(*this, eta, eta_ref);
  }
  Scalar bregman_conjugate(const Expectation& mu, const Expectation& mu_ref) const {
    return generic_bregman_conjugate(*this, mu, mu_ref);
  }
  Expectation fisher_apply(const Natural& eta, const Natural& v) const {
    require_shape(eta, "ngvi::Product::fisher_apply", "eta");
    require_shape(v, "ngvi::Product::fisher_apply", "v");
    Expectation out(p_, n_);
    for (Index j = 0; j < n_; ++j)
      component_call(j, "eta", [&] {
        store(out, j, f_.fisher_apply(f_.unflatten_natural(eta.col(j)), f_.unflatten_natural(v.col(j))), true);
        return 0;
      });
    return out;
  }
  Natural fisher_inverse_apply(const Expectation& mu, const Expectation& u) const {
    require_shape(mu, "ngvi::Product::fisher_inverse_apply", "mu");
    require_shape(u, "ngvi::Product::fisher_inverse_apply", "u");
    Natural out(p_, n_);
    for (Index j = 0; j < n_; ++j)
      component_call(j, "mu", [&] {
        store(out, j, f_.fisher_inverse_apply(f_.unflatten_expectation(mu.col(j)), f_.unflatten_expectation(u.col(j))),
              false);
        return 0;
      });
    return out;
  }
  Vec<Scalar> flatten_natural(const Natural& eta) const { return Eigen::Map<const Vec<Scalar>>(eta.data(), eta.size()); }
  Vec<Scalar> flatten_expectation(const Expectation& mu) const { return Eigen::Map<const Vec<Scalar>>(mu.data(), mu.size()); }
  Natural unflatten_natural(const Eigen::Ref<const Vec<Scalar>>& v) const {
    if (v.size() != p_ * n_) throw_size("ngvi::Product::unflatten_natural", "v", "has a size other than p * n");
    return Eigen::Map<const Mat<Scalar>>(v.data(), p_, n_);
  }
  Expectation unflatten_expectation(const Eigen::Ref<const Vec<Scalar>>& v) const {
    if (v.size() != p_ * n_) throw_size("ngvi::Product::unflatten_expectation", "v", "has a size other than p * n");
    return Eigen::Map<const Mat<Scalar>>(v.data(), p_, n_);
  }
  /// Direction i: component i / F.size() takes F's direction i % F.size(), the others zero.
  Natural direction(Index i) const {
    Natural e = Natural::Zero(p_, n_);
    const Index s = f_.size();
    e.col(i / s) = f_.flatten_natural(f_.direction(i % s));
    return e;
  }

 private:
  void require_shape(const Mat<Scalar>& x, std::string_view func, std::string_view arg) const {
    if (x.rows() != p_ || x.cols() != n_)
      throw_size(func, arg,
                 "is " + std::to_string(x.rows()) + " x " + std::to_string(x.cols()) + ", expected " +
                     std::to_string(p_) + " x " + std::to_string(n_) + " (flat component size x components)");
  }
  /// Runs a component operation and re-throws its error naming the column of the product argument.
  template <class Op>
  auto component_call(Index j, std::string_view arg, Op&& op) const {
    try {
      return op();
    } catch (const std::domain_error& e) {
      throw std::domain_error(std::string(e.what()) + " (in ngvi::Product: component " + std::to_string(j) + ", column " +
                              std::to_string(j) + " of '" + std::string(arg) + "')");
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string(e.what()) + " (in ngvi::Product: component " + std::to_string(j) + " of '" +
                                  std::string(arg) + "')");
    }
  }
  template <class X>
  void store(Mat<Scalar>& out, Index j, const X& x, bool expectation) const {
    if constexpr (std::is_base_of_v<Eigen::MatrixBase<X>, X>) {
      if constexpr (X::ColsAtCompileTime == 1) {
        // Entry by entry: Eigen's packet assignment of a fixed 2-vector into a dynamic column makes
        // GCC 12 warn of an out-of-bounds 512-bit load on a path that never runs (-Warray-bounds).
        for (Index i = 0; i < x.size(); ++i) out(i, j) = x(i);
        return;
      }
    }
    if (expectation) out.col(j) = f_.flatten_expectation(x);
    else out.col(j) = f_.flatten_natural(x);
  }

  F f_;
  Index n_;
  Index p_;
};

}  // namespace ngvi
