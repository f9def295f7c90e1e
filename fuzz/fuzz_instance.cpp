// libFuzzer target: the instance files of the worst-case search (`ngvi verify --instance FILE`),
// read as the command reads them (claims::search::read_instance_file: every field validated, the
// instance checked against its claim's hypotheses). Evaluating the claim on an instance that reads
// is the claims' own business, not the parser's, and is left out (thm1's enumeration may be long).
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <new>

#include "fuzz_input.hpp"
#include "search_claims.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = ngvi::fuzz::write_input("search.instance.json", ngvi::fuzz::view(data, size));
  try {
    double expected = 0;
    (void)ngvi::claims::search::read_instance_file(path, &expected);
  } catch (const std::bad_alloc&) {
    std::abort();  // an allocation the input drove past memory: a finding, not an error for the user
  } catch (const std::exception&) {
  }
  return 0;
}
