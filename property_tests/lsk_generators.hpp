#pragma once
/// @file
/// Adversarial RapidCheck generators for the LSK update (optim/lsk_ngvi.hpp): step sizes in (0, 10]
/// and symmetric Hessian estimates H̄ of every kind relative to the current precision S = LLᵀ —
/// indefinite with eigenvalues mixing signs over seven decades, just below −S (Ĝ = S + H̄ ≈ 0, tiny and
/// indefinite), far above (H̄ ≫ 0, the direction that breaks the plain update), rank-one spikes, and the
/// tight case where A = L⁻¹ĜL⁻ᵀ has the eigenvalue 1/η (λ_min of the whitened LSK precision is ½).
#include <rapidcheck.h>

#include <cmath>
#include <ostream>

#include "generators.hpp"

namespace ngvi::gen {

/// A step size k/2^10 in [2^-10, 10].
inline rc::Gen<double> lsk_step_size() { return dyadic(std::ldexp(1.0, -10), 10.0, 10); }

enum class HessKind { kIndefinite, kNearMinusS, kLargePositive, kRankOne, kTight };

struct HessSpec {
  HessKind kind;
  double log10_scale;  ///< in [−3, 4]
  std::uint64_t seed;
};

inline const char* hess_kind_name(HessKind k) {
  switch (k) {
    case HessKind::kIndefinite: return "indefinite";
    case HessKind::kNearMinusS: return "near -S";
    case HessKind::kLargePositive: return "large positive";
    case HessKind::kRankOne: return "rank one";
    default: return "tight (A has eigenvalue 1/eta)";
  }
}

/// RapidCheck prints a shrunk counterexample through this (found by ADL).
inline void showValue(const HessSpec& h, std::ostream& os) {
  os << "HessSpec{" << hess_kind_name(h.kind) << ", log10_scale=" << h.log10_scale << ", seed=" << h.seed << "}";
}

inline rc::Gen<HessSpec> hess_spec() {
  return rc::gen::apply([](int k, double s, std::uint64_t seed) { return HessSpec{static_cast<HessKind>(k), s, seed}; },
                        rc::gen::inRange(0, 5), dyadic(-3.0, 4.0, 6), rc::gen::arbitrary<std::uint64_t>());
}

/// H̄ for precision S (factor L) and step η, exactly symmetric.
inline Mat<double> hessian_from(const HessSpec& h, const Mat<double>& s, const Mat<double>& l, double eta) {
  data::Rng rng(h.seed);
  const Index d = s.rows();
  const double scale = std::pow(10.0, h.log10_scale);
  const Mat<double> q = data::random_orthogonal(d, rng);
  Vec<double> lam(d);
  boost::random::uniform_01<double> u01;
  for (Index i = 0; i < d; ++i) lam(i) = (u01(rng) < 0.5 ? -1.0 : 1.0) * scale * std::pow(10.0, -3 * u01(rng));
  Mat<double> out;
  switch (h.kind) {
    case HessKind::kIndefinite: out = q * lam.asDiagonal() * q.transpose() * s.norm(); break;
    case HessKind::kNearMinusS: out = -s + 1e-3 * q * lam.asDiagonal() * q.transpose(); break;
    case HessKind::kLargePositive: out = q * lam.cwiseAbs().asDiagonal() * q.transpose() * s.norm(); break;
    case HessKind::kRankOne: out = scale * s.norm() * q.col(0) * q.col(0).transpose() - s; break;
    default: {
      lam(0) = 1.0 / eta;
      out = l * (q * lam.asDiagonal() * q.transpose()) * l.transpose() - s;
    }
  }
  return symmetrise(out);
}

}  // namespace ngvi::gen
