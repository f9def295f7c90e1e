// libFuzzer target: the CSV loader (data::read_csv, plain and gzip) and the table's split into a data
// set (data::table_to_dataset). The first byte chooses: the file plain (.csv), the bytes as a gzip
// file as they are (a corrupt or truncated stream), or the bytes gzip-compressed (the parser beneath
// zlib); the header and delimiter options (detected, or given); the target column.
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <new>

#include "fuzz_input.hpp"
#include "ngvi/data/loaders.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t mode = data[0];
  const auto bytes = ngvi::fuzz::view(data + 1, size - 1);
  std::string path;
  switch (mode % 3) {
    case 0: path = ngvi::fuzz::write_input("input.csv", bytes); break;
    case 1: path = ngvi::fuzz::write_input("input.csv.gz", bytes); break;
    default: path = ngvi::fuzz::write_input("input.csv.gz", ngvi::fuzz::gzip(bytes)); break;
  }
  ngvi::data::CsvOptions o;
  o.header = static_cast<int>((mode / 3) % 3) - 1;
  constexpr char kDelimiters[] = {0, ',', '\t', ';', ' '};
  o.delimiter = kDelimiters[(mode / 9) % 5];
  try {
    const auto table = ngvi::data::read_csv(path, o);
    if (!table.columns.empty()) (void)ngvi::data::table_to_dataset(table, mode & 0x80 ? table.columns.back() : "y");
  } catch (const std::bad_alloc&) {
    std::abort();  // an allocation the input drove past memory: a finding, not an error for the user
  } catch (const std::exception&) {
  }
  return 0;
}
