#pragma once
/// @file
/// The lsk-update protocol: the smallest interface an implementation of the positive-definite LSK
/// update (Lin, Schmidt & Khan 2020; docs/systems.md C) provides for the claims that read that update
/// from outside (lsk.posdef_always) to run against it (docs/engine.md, "Protocols").
///
/// The claim hands the implementation a problem once per trajectory (start): the dimension d, the
/// step size η and whether the update must keep the precision positive definite (ensure_posdef).
/// At each step t = 0, 1, … it hands the current q = N(m, S⁻¹) as its mean m and precision S, and the
/// expectations ḡ = E_q ∇log π and H̄ = E_q ∇²log π (symmetric, possibly indefinite) at q. Every lsk
/// claim uses exact expectations, so the claim computes them; the implementation owns the update:
///
///   S' = S − ηĜ + (η²/2)ĜS⁻¹Ĝ, Ĝ = S + H̄   (ensure_posdef; equal to ½S + ½WᵀW, W = L⁻¹((1 − η)S − ηH̄))
///   S' = (1 − η)S − ηH̄                       (ensure_posdef = false)
///   m' = m + ηS'⁻¹ḡ
///
/// and returns (m', S'). With ensure_posdef = false S' may be indefinite: the implementation returns
/// it as computed (its mean step then solves with an indefinite matrix; claims that hand such steps
/// read only S'). S' is read through its symmetric part.
///
/// Versioned (kLskUpdateVersion): a change of what is handed or returned is a new version.
#include <functional>
#include <string>

#include "ngvi/scalar/types.hpp"

namespace ngvi::protocols {

/// The protocol's name (as in docs/engine.md and ngvikit.protocols) and version.
inline constexpr const char* kLskUpdate = "lsk-update";
inline constexpr int kLskUpdateVersion = 1;

/// What the claim hands at the start of a trajectory.
struct LskProblem {
  long d = 0;                 ///< dimension of q's mean
  double eta = 0;             ///< the step size η > 0
  bool ensure_posdef = true;  ///< the update with its (η²/2)ĜS⁻¹Ĝ term (true) or without it
};

/// What one step returns: q' as its mean and precision.
struct LskStepResult {
  Vec<double> mean;       ///< m', length d
  Mat<double> precision;  ///< S', d × d
};

/// One trajectory of an implementation.
struct LskUpdateTrajectory {
  /// (m', S') from step t at q = N(m, S⁻¹) with the expectations ḡ (length d) and H̄ (d × d). Required.
  std::function<LskStepResult(long t, const Vec<double>& mean, const Mat<double>& precision, const Vec<double>& gbar,
                              const Mat<double>& hbar)>
      step;
};

/// An implementation of the protocol: a name and version (recorded in claims.json's meta) and a start()
/// that begins one trajectory. start() is called for one trajectory at a time unless `serial` is false.
struct LskUpdate {
  std::string name;
  std::string version;
  std::function<LskUpdateTrajectory(const LskProblem&)> start;
  bool serial = true;
};

}  // namespace ngvi::protocols
