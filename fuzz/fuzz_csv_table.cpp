// Fuzz target: engine/data/formats/CsvTable (fuzz/README.md). The first two bytes choose the
// CsvFormat (delimiter; skip_rows and header), the rest is the file. Any outcome other than rows or
// a std::exception (InputError) with a message is a bug.

#include <cstdint>
#include <cstdlib>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "engine/data/formats/CsvTable.h"
#include "fuzz/FuzzScratch.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  tbench::CsvFormat format;
  // Every delimiter a project accepts (BuiltinTableData's delimiterOf): one character other
  // than a quote or a line end.
  const char delimiter = static_cast<char>(data[0]);
  format.delimiter = delimiter == '"' || delimiter == '\n' || delimiter == '\r' ? ',' : delimiter;
  format.skipRows = data[1] & 0x3;
  format.header = (data[1] & 0x4) != 0;
  const std::string path = tbench::fuzz::writeScratch("table.csv", data + 2, size - 2);
  try {
    tbench::CsvTable table(path, format);
    std::vector<std::string> fields;
    std::vector<std::string> first;
    while (table.nextRow(fields)) {
      if (first.empty()) first = fields;
    }
    if (table.columnCount() > 0) {
      std::vector<std::string> specs = {
          "0", "-1", " 1 ", "+2", "-9223372036854775808", "99999999999999999999", ""};
      for (const std::string& name : table.columnNames()) specs.push_back(name);
      for (const std::string& field : first) specs.push_back(field);
      for (const std::string& spec : specs) {
        try {
          const int64_t index = table.columnIndex(spec, "label");
          if (index < 0 || index >= table.columnCount()) std::abort();
        } catch (const std::bad_alloc&) {
          std::abort();  // memory a reader must not ask for (replay_main.cpp limits it)
        } catch (const std::exception& e) {
          if (std::string(e.what()).empty()) std::abort();
        }
      }
    }
  } catch (const std::bad_alloc&) {
    std::abort();  // memory a reader must not ask for (replay_main.cpp limits it)
  } catch (const std::exception& e) {
    if (std::string(e.what()).empty()) std::abort();  // an error must say what is wrong
  }
  return 0;
}
