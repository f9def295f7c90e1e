// libFuzzer target: the IDX loader (data::read_idx, plain and gzip: the first byte chooses).
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <new>

#include "fuzz_input.hpp"
#include "ngvi/data/loaders.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const auto bytes = ngvi::fuzz::view(data + 1, size - 1);
  const std::string path = data[0] & 1 ? ngvi::fuzz::write_input("images.idx.gz", ngvi::fuzz::gzip(bytes))
                                       : ngvi::fuzz::write_input("images.idx", bytes);
  try {
    (void)ngvi::data::read_idx(path);
  } catch (const std::bad_alloc&) {
    std::abort();  // an allocation the input drove past memory: a finding, not an error for the user
  } catch (const std::exception&) {
  }
  return 0;
}
