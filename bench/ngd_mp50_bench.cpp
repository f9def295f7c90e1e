// The full eq. (15) NGD step (as BM_NgdStep: draw, gather, rank-M update, natural update, conversion to
// μ and the running average) in mp50 at d = 10, M = 32, to set next to BM_NgdStep/d:10/M:32 (double).
// In its own translation unit, as every multiprecision instantiation.
#include <benchmark/benchmark.h>

#include "ngvi/scalar/types.hpp"
#include "ngd_step_loop.hpp"

namespace ngvi {
namespace {

void BM_NgdStepMp50(benchmark::State& state) { bench::full_step_in<mp50>(state); }

BENCHMARK(BM_NgdStepMp50)->ArgNames({"d", "M"})->Args({10, 32})->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace ngvi
