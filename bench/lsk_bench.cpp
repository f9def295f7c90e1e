// One LSK-NGVI iteration (optim/lsk_ngvi.hpp) with one sample, d ∈ {10, 100, 300}, on a Gaussian
// target: Hessian path and gradient-only (Stein/Price) path. Every timed iteration is one step from the
// same initial state (work per step does not depend on the state; carrying the state over would let a
// one-sample Stein estimate in d = 100 drive the precision to overflow within ~100 steps, which the
// algorithm reports as an error).
#include <benchmark/benchmark.h>

#include "ngvi/data/synthetic.hpp"
#include "ngvi/optim/lsk_ngvi.hpp"
#include "ngvi/targets/gaussian_target.hpp"

namespace ngvi {
namespace {

template <class T>
struct GradientOnlyView {
  using Scalar = typename T::Scalar;
  const T* t;
  Index dim() const { return t->dim(); }
  Scalar log_density(const Vec<Scalar>& z) const { return t->log_density(z); }
  Vec<Scalar> gradient(const Vec<Scalar>& z) const { return t->gradient(z); }
};

// Per iteration: Cholesky of S' (d³/3), the inverse (2d³/3), the triangular solve W = L⁻¹B (d³) and
// WᵀW (d³, symmetric product counted in full): ≈ 3d³; lower-order terms omitted.
double lsk_flops(double d) { return 3 * d * d * d; }

template <bool kHessian>
void BM_LskIteration(benchmark::State& state) {
  const Index d = state.range(0);
  data::Rng rng(4321 + static_cast<std::uint64_t>(d));
  const auto g = data::random_gaussian(d, 1e2, rng);
  const GaussianTarget<double> target(g.mean, g.cov);
  const GradientOnlyView<GaussianTarget<double>> grad_only{&target};
  LskOptions<double> opt;
  opt.step_size = 1.0 / 16;
  opt.n_samples = 1;
  opt.n_iterations = 1;
  const LskState<double> st0 = lsk_init_state(GaussianMoments<double>{Vec<double>::Zero(d), Mat<double>::Identity(d, d)});
  for (auto _ : state) {
    LskRun<double> r = kHessian ? lsk_ngvi(target, st0, opt) : lsk_ngvi(grad_only, st0, opt);
    benchmark::DoNotOptimize(r.last.mean.data());
  }
  state.SetComplexityN(d);
  state.counters["GFLOPS"] = benchmark::Counter(lsk_flops(double(d)) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

BENCHMARK(BM_LskIteration<true>)->Name("BM_LskIteration/hessian")->Arg(10)->Arg(100)->Arg(300)->ArgName("d")->Complexity(benchmark::oNCubed)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LskIteration<false>)->Name("BM_LskIteration/gradient_only")->Arg(10)->Arg(100)->Arg(300)->ArgName("d")->Complexity(benchmark::oNCubed)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace ngvi
