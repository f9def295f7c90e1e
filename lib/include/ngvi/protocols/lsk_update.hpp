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
/// The protocol is the same in double and in mp50 (the claims hand and read mp50 values in their mp50
/// runs). Versioned (kLskUpdateVersion): a change of what is handed or returned is a new version.
#include <functional>
#include <string>

#include "ngvi/scalar/types.hpp"

namespace ngvi::protocols {

/// The protocol's name (as in docs/engine.md and ngvikit.protocols) and version.
inline constexpr const char* kLskUpdate = "lsk-update";
inline constexpr int kLskUpdateVersion = 1;

/// What the claim hands at the start of a trajectory, in the scalar type the claim runs in (double
/// or mp50: the step size is handed exactly, η = 1/10 in mp50 is not the double nearest 0.1).
template <class Scalar>
struct LskProblemOf {
  long d = 0;                 ///< dimension of q's mean
  Scalar eta = Scalar(0);     ///< the step size η > 0
  bool ensure_posdef = true;  ///< the update with its (η²/2)ĜS⁻¹Ĝ term (true) or without it
};

/// What one step returns: q' as its mean and precision.
template <class Scalar>
struct LskStepResultOf {
  Vec<Scalar> mean;       ///< m', length d
  Mat<Scalar> precision;  ///< S', d × d
};

/// One trajectory of an implementation.
template <class Scalar>
struct LskUpdateTrajectoryOf {
  /// (m', S') from step t at q = N(m, S⁻¹) with the expectations ḡ (length d) and H̄ (d × d). Required.
  std::function<LskStepResultOf<Scalar>(long t, const Vec<Scalar>& mean, const Mat<Scalar>& precision, const Vec<Scalar>& gbar,
                                        const Mat<Scalar>& hbar)>
      step;
};

/// An implementation of the protocol in one scalar type: a name and version (recorded in claims.json's
/// meta) and a start() that begins one trajectory. start() is called for one trajectory at a time
/// unless `serial` is false. An implementation that computes in mp50 as well is two of these, one per
/// scalar type, carried by one variant (protocol_lsk_update.hpp, lsk_update_variant): the lsk claims
/// run it in each precision it has, and write a skipped record in one it lacks.
template <class Scalar>
struct LskUpdateOf {
  std::string name;
  std::string version;
  std::function<LskUpdateTrajectoryOf<Scalar>(const LskProblemOf<Scalar>&)> start;
  bool serial = true;
};

/// The double forms (what most implementations provide).
using LskProblem = LskProblemOf<double>;
using LskStepResult = LskStepResultOf<double>;
using LskUpdateTrajectory = LskUpdateTrajectoryOf<double>;
using LskUpdate = LskUpdateOf<double>;

}  // namespace ngvi::protocols
