#pragma once
/// @file
/// The kernel of the natural-parameter update for the full-covariance Gaussian pair,
///   out = (1 − γ)·η + γ·(η_p + ĝ),
/// written into `out` (which may be η itself: every entry is read before it is written). Hardware
/// floating point updates the whole matrix in one vectorised pass; software scalars (mp50 and the
/// like), where each multiplication is a software routine, update the lower triangle and mirror it,
/// which halves the multiplications and gives the same entries when the inputs are exactly
/// symmetric. From order kTiledOrder the matrix pass goes by column tiles, on `pool` when given;
/// each entry is the same expression either way.
#include <type_traits>

#include "ngvi/expfam/gaussian_params.hpp"
#include "ngvi/kernels/tiles.hpp"
#include "ngvi/linalg/validate.hpp"

namespace ngvi::kernels {

/// @pre all four pairs of one dimension d, matrix parts d × d and symmetric (not checked here:
///      the callers in optim/ check shapes once).
template <class Scalar>
void gaussian_natural_update(GaussianPair<Scalar>& out, const GaussianPair<Scalar>& eta, const GaussianPair<Scalar>& prior,
                             const GaussianPair<Scalar>& ghat, const Scalar& gamma, parallel::TilePool* pool) {
  const Scalar keep = Scalar(1) - gamma;
  out.first = keep * eta.first + gamma * (prior.first + ghat.first);
  const Index d = eta.dim();
  if constexpr (std::is_floating_point_v<Scalar>) {
    if (d < kTiledOrder) {
      out.second = keep * eta.second + gamma * (prior.second + ghat.second);
      return;
    }
    for_each_column_tile(pool, d, [&](Index j0, Index w) {
      out.second.middleCols(j0, w) = keep * eta.second.middleCols(j0, w) + gamma * (prior.second.middleCols(j0, w) + ghat.second.middleCols(j0, w));
    });
  } else {
    for_each_column_tile(pool, d, [&](Index j0, Index w) {
      for (Index j = j0; j < j0 + w; ++j)
        out.second.col(j).tail(d - j) = keep * eta.second.col(j).tail(d - j) + gamma * (prior.second.col(j).tail(d - j) + ghat.second.col(j).tail(d - j));
    });
    copy_lower_to_upper(out.second);
  }
}

/// gaussian_natural_update on the threads of a handle.
template <class Scalar>
void gaussian_natural_update(GaussianPair<Scalar>& out, const GaussianPair<Scalar>& eta, const GaussianPair<Scalar>& prior,
                             const GaussianPair<Scalar>& ghat, const Scalar& gamma, TileThreads threads) {
  gaussian_natural_update(out, eta, prior, ghat, gamma, threads.pool());
}

#ifdef NGVI_EXTERN_TEMPLATES
// In-tree targets take these instantiations from lib/src/hot_loop_instantiations_*.cpp.
extern template void gaussian_natural_update<double>(GaussianPair<double>&, const GaussianPair<double>&, const GaussianPair<double>&,
                                                     const GaussianPair<double>&, const double&, parallel::TilePool*);
extern template void gaussian_natural_update<mp50>(GaussianPair<mp50>&, const GaussianPair<mp50>&, const GaussianPair<mp50>&,
                                                   const GaussianPair<mp50>&, const mp50&, parallel::TilePool*);
#endif

}  // namespace ngvi::kernels
