#pragma once
/// @file
/// The svi-gmm protocol: the smallest interface a stochastic variational inference implementation for
/// the Bayesian Gaussian mixture of docs/systems.md A.3 provides for the claims that read SVI on the
/// mixture from outside (gmm.recovery, and the mixture records of svi.cavi_equivalence) to run against
/// it (docs/engine.md, "svi-gmm").
///
/// The model: π ~ Dir(α₀ 1_K), μ_k ~ N(m₀, s₀² I_d), z_n ~ Cat(π), x_n | z_n = k ~ N(μ_k, σ² I_d) with σ²
/// known; q(π) = Dir(γ), q(μ_k) = N(m_k, s_k² I_d), q(z_n) = Cat(φ_n). The global natural parameter λ is
/// K × (d + 2), row k = (γ_k, m_k/s_k² (d entries), −1/(2 s_k²)) (gmm::Global, models/gmm.hpp).
///
/// The claim hands the implementation a problem once per trajectory (start): the data X (N × d; the
/// minibatches are rows of it), K, α₀, σ², s₀², m₀, the nominal minibatch size, the schedule constants
/// (κ, τ, ρ₀) the implementation must be configured with, the initial λ₀ and a seed for whatever the
/// implementation randomises. At each update t = 0, 1, …, T − 1 it hands the step index t, the current
/// λ_t and the minibatch S_t as row indices into X; the implementation returns λ_{t+1}. It owns what real
/// implementations own (BayesPy's VB.gradient_step after the local update of the minibatch's z):
///   - its schedule ρ_t = ρ₀ (τ + t + origin)^(−κ) at update t, `origin` the index of its first update
///     in its own counting, declared with the implementation (κ = 0 and ρ₀ = 1 is the batch step, ρ ≡ 1);
///   - its local step (φ of the minibatch's points at λ_t) and the replication N/|S_t|;
///   - its update λ_{t+1} = (1 − ρ_t)λ_t + ρ_t(λ_prior + (N/|S_t|) Σ_{n∈S_t} E_φ[t(x_n, z_n)]).
///
/// λ_t is an argument, not only the state the implementation returned last (a claim may hand its own),
/// so an implementation sets its global factors from λ_t before its local step.
///
/// Versioned (kSviGmmVersion): a change of what is handed or returned is a new version.
#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "ngvi/scalar/types.hpp"

namespace ngvi::protocols {

/// The protocol's name (as in docs/engine.md and ngvikit.protocols) and version.
inline constexpr const char* kSviGmm = "svi-gmm";
inline constexpr int kSviGmmVersion = 1;

/// What the claim hands at the start of a trajectory. The implementation may keep a reference to it:
/// it lives until the trajectory's last call.
struct GmmProblem {
  Mat<double> X;           ///< the data, N × d (point n in row n)
  long K = 0;              ///< mixture components
  double alpha0 = 0;       ///< α₀, the symmetric Dirichlet prior of π
  double sigma2 = 0;       ///< σ², the known variance of every component
  double s0_2 = 0;         ///< s₀², the prior variance of every μ_k
  Vec<double> m0;          ///< m₀, the prior mean of every μ_k (d entries)
  long batch = 0;          ///< the nominal minibatch size |S| (the last minibatch of a pass may be shorter)
  double kappa = 0;        ///< κ: ρ_t = ρ₀ (τ + t + origin)^(−κ)
  double tau = 0;          ///< τ
  double rho0 = 1;         ///< ρ₀
  Mat<double> lambda0;     ///< λ₀, K × (d + 2)
  std::uint64_t seed = 0;  ///< for the implementation's own random draws
};

/// One trajectory of an implementation.
struct SviGmmTrajectory {
  /// λ_{t+1} (K × (d + 2)) from update t, λ_t and the minibatch S_t (row indices into X). Required.
  std::function<Mat<double>(long t, const Mat<double>& lambda, std::span<const long> batch)> update;
};

/// An implementation of the protocol: a name and version (recorded in claims.json's meta), the index of
/// its first update in its schedule's counting (`origin`), and a start() that begins one trajectory.
/// start() is called for one trajectory at a time unless `serial` is false.
struct SviGmm {
  std::string name;
  std::string version;
  long origin = 1;
  std::function<SviGmmTrajectory(const GmmProblem&)> start;
  bool serial = true;
};

}  // namespace ngvi::protocols
