#pragma once
/// @file
/// Shared by the Paquet sweep benchmark (paquet_bench.cpp) and the sweep dump used by
/// bench/compare_paquet.py (tools/paquet_sweep_dump.cpp): the InstEval ratings, the initial point of
/// docs/systems.md B.7 (precisions 1, means N(0, 0.1²) from stream (seed, 1000), as `ngvi run
/// paquet-mf` draws it), and one sweep (the sample of Algorithm 1 drawn, then the update).
#include <cstdlib>
#include <string>

#include "ngvi/data/ratings.hpp"
#include "ngvi/optim/steppers/paquet_svb.hpp"

namespace ngvi::bench {

/// $NGVI_INSTEVAL, else ${NGVI_DATA_CACHE:-$HOME/.cache/ngvikit}/insteval.csv (scripts/export-insteval.sh).
inline std::string insteval_path() {
  if (const char* p = std::getenv("NGVI_INSTEVAL"); p != nullptr && *p != '\0') return p;
  if (const char* c = std::getenv("NGVI_DATA_CACHE"); c != nullptr && *c != '\0') return std::string(c) + "/insteval.csv";
  const char* h = std::getenv("HOME");
  return std::string(h != nullptr ? h : ".") + "/.cache/ngvikit/insteval.csv";
}

inline MfNatural<double> b7_init(const RatingMatrix& d, Index K, std::uint64_t seed) {
  random::Stream rs(seed, 1000);
  return MfNatural<double>::init(d.users, d.items, K, [&] { return rs.normal() / 10; });
}

/// One sweep of Algorithm 1: the sample drawn by `sampler`, then the update with step `rho`.
inline StepStatus paquet_sweep(PaquetStepper<double>& s, PaquetSampler& sampler, PaquetSample& dir, long t, double rho) {
  sampler.estimate(t, s, dir);
  return s.step(t, rho, dir);
}

}  // namespace ngvi::bench
