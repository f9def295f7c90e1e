// Heap allocations of the NGD step in mpfr50. MPFR takes its memory through GMP's allocation
// functions inside libmpfr, where the link-time malloc wrap does not reach, so this file also routes
// GMP's functions through the counter (mp_set_memory_functions) while a test runs. With
// `allocate_stack` an mpfr50 keeps its digits inside the object; one value with its digits on the
// heap (`mpfr_float_backend<50>`, the default) is seen by the counter, so a step that made one would
// fail the test. In its own translation unit, as every mpfr type.
#include <gmp.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "malloc_count.hpp"
#include "ngvi/scalar/mpfr_types.hpp"

namespace ngvi {
namespace {

void* counted_allocate(std::size_t n) {
  alloc_test::count_allocation();
  return std::malloc(n);
}
void* counted_reallocate(void* p, std::size_t, std::size_t n) {
  alloc_test::count_allocation();
  return std::realloc(p, n);
}
void counted_free(void* p, std::size_t) { std::free(p); }

/// Routes GMP's (and so MPFR's) allocations through the counter while in scope.
class GmpAllocationsCounted {
 public:
  GmpAllocationsCounted() {
    mp_get_memory_functions(&alloc_, &realloc_, &free_);
    mp_set_memory_functions(counted_allocate, counted_reallocate, counted_free);
  }
  ~GmpAllocationsCounted() { mp_set_memory_functions(alloc_, realloc_, free_); }
  GmpAllocationsCounted(const GmpAllocationsCounted&) = delete;
  GmpAllocationsCounted& operator=(const GmpAllocationsCounted&) = delete;

 private:
  void* (*alloc_)(std::size_t) = nullptr;
  void* (*realloc_)(void*, std::size_t, std::size_t) = nullptr;
  void (*free_)(void*, std::size_t) = nullptr;
};

using mpfr50_on_heap = boost::multiprecision::number<boost::multiprecision::mpfr_float_backend<50>,
                                                     boost::multiprecision::et_off>;

TEST(StepAllocation, TheCounterSeesAnMpfrAllocation) {
  GmpAllocationsCounted gmp;
  alloc_test::MallocCount count;
  mpfr50_on_heap x(1);
  x /= 3;
  EXPECT_GT(x, 0);
  EXPECT_GE(count.value(), 1);
}

TEST(StepAllocation, TheMpfr50StepMakesNoHeapAllocation) {
  GmpAllocationsCounted gmp;
  // The unblocked route (d ≤ 32) and the block sweep with unblocked leaves (d = 40), with the batch
  // summed exactly (data that are doubles) and from stored row products (data that are not).
  for (const bool thirds : {false, true})
    for (Index d : {3, 10, 40})
      EXPECT_EQ(alloc_test::allocations_in_driver_loop<mpfr50>(d, 8, 5, nullptr, thirds), 0)
          << "d " << d << (thirds ? " row products" : " exact sums");
}

}  // namespace
}  // namespace ngvi
