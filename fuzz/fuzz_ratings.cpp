// libFuzzer target: the ratings loader (data::read_ratings_csv), centred or not (the first byte).
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <new>

#include "fuzz_input.hpp"
#include "ngvi/data/ratings.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string path = ngvi::fuzz::write_input("ratings.csv", ngvi::fuzz::view(data + 1, size - 1));
  try {
    (void)ngvi::data::read_ratings_csv(path, (data[0] & 1) != 0);
  } catch (const std::bad_alloc&) {
    std::abort();  // an allocation the input drove past memory: a finding, not an error for the user
  } catch (const std::exception&) {
  }
  return 0;
}
