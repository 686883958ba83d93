#pragma once
// CsvTable: a delimited text table (CSV, TSV) read row by row, with the position of every row
// for error messages. Torch-free; CsvData (CsvData.h) turns its rows into datapoints.
//
// Format, as spreadsheets and pandas write it (RFC 4180):
//  - Fields are separated by one delimiter character (',' by default; '\t' for TSV). A field
//    may be quoted ("..."): it may then hold the delimiter, line breaks and doubled quotes ("")
//    that stand for one quote. Spaces around a field are trimmed.
//  - Lines end with LF or CRLF; a UTF-8 byte order mark at the start is ignored.
//  - The first `skipRows` lines are skipped as they are (scikit-learn's tables start with a
//    line of counts and class names); then, with `header`, one row names the columns.
//  - Empty (or blank) lines are skipped. Every row must have as many fields as the header, or
//    as the first row when there is none.
//
// Positions in messages: lines are 1-based and count every line of the file (skipped ones
// too); columns are 0-based, the index a project's "target" uses, with the header's name when
// there is one: `wine.csv:12, column 3 ("alcohol")`. Errors are InputError.

#include <cstdint>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

namespace tbench {

struct CsvFormat {
  char delimiter = ',';
  /// Lines skipped before the header or the first row.
  int64_t skipRows = 0;
  /// The first row after the skipped lines names the columns.
  bool header = false;
};

class CsvTable {
 public:
  /// Opens `path`, skips `format.skipRows` lines and reads the header. Throws InputError when
  /// the file cannot be read or ends before its header.
  CsvTable(std::string path, CsvFormat format);

  const std::string& path() const { return path_; }
  /// The header's names; empty without a header.
  const std::vector<std::string>& columnNames() const { return names_; }
  /// The number of fields every row has: the header's, else the first row's; 0 before the
  /// first row of a table without header.
  int64_t columnCount() const { return columns_; }

  /// Reads the next row into `fields` (trimmed, quotes removed); false at the end of the file.
  /// Throws InputError for a row with another number of fields or an unterminated quote.
  bool nextRow(std::vector<std::string>& fields);
  /// The line the last row read starts on (1-based).
  int64_t line() const { return rowLine_; }

  /// "iris.csv:17" for line `line`.
  std::string where(int64_t line) const;
  /// "iris.csv:17, column 3 (\"petal width\")" for `column` of line `line`.
  std::string where(int64_t line, int64_t column) const;

  /// The column `spec` names: a header name, else a 0-based index (negative counts from the
  /// end: "-1" is the last column). Needs columnCount() > 0. Throws InputError naming the file
  /// and listing the header's names, or saying the index is out of range.
  /// `role` names the column in messages ("target").
  int64_t columnIndex(const std::string& spec, const std::string& role = "column") const;

 private:
  /// Reads one record (which may span lines inside quotes); false at the end of the file.
  /// Blank records come back with no fields.
  bool readRecord(std::vector<std::string>& fields);
  bool readChar(char& c);
  void skipLine();

  std::string path_;
  CsvFormat format_;
  std::ifstream in_;
  std::vector<char> buffer_;
  size_t bufferPos_ = 0;
  size_t bufferEnd_ = 0;
  std::vector<std::string> names_;
  int64_t columns_ = 0;
  int64_t nextLine_ = 1;  // the line the next character is on
  int64_t rowLine_ = 0;
};

/// `text` as a double, whatever the locale (surrounding spaces and a leading '+' allowed), or
/// nullopt when it is not a number (the empty string, words, values out of double's range).
/// "nan" and "inf" parse: callers that need finite values check.
std::optional<double> parseCsvNumber(const std::string& text);

}  // namespace tbench
