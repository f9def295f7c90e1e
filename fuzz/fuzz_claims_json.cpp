// libFuzzer target: the files `ngvi diff`, `ngvi merge`, `--baseline` and `ngvi report` read: a
// claims.json (report::read_claims_json, its provenance), a kill matrix's mutants.json
// (report::read_kill_matrix_json); a claims.json that reads is then compared with itself as a
// baseline (report::compare_runs, report::meta_differences), as `ngvi diff` does.
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <new>

#include "fuzz_input.hpp"
#include "ngvi/report/compare.hpp"
#include "ngvi/report/kill_matrix.hpp"
#include "ngvi/report/provenance.hpp"
#include "ngvi/report/record.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = ngvi::fuzz::write_input("claims.json", ngvi::fuzz::view(data, size));
  try {
    ngvi::report::RunMeta meta;
    const auto records = ngvi::report::read_claims_json(path, &meta);
    (void)ngvi::report::meta_differences(meta, meta);
    (void)ngvi::report::compare_runs(records, records, meta, {});
    (void)ngvi::report::read_claims_provenance(path);
  } catch (const std::bad_alloc&) {
    std::abort();  // an allocation the input drove past memory: a finding, not an error for the user
  } catch (const std::exception&) {
  }
  try {
    const auto m = ngvi::report::read_kill_matrix_json(path);
    (void)m.pass();
  } catch (const std::bad_alloc&) {
    std::abort();  // an allocation the input drove past memory: a finding, not an error for the user
  } catch (const std::exception&) {
  }
  return 0;
}
