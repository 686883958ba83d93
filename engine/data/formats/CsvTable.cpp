#include "engine/data/formats/CsvTable.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>

#include "engine/core/Check.h"

namespace tbench {

namespace {

constexpr size_t kBufferBytes = size_t{1} << 16;

std::string trimmed(const std::string& text) {
  const size_t begin = text.find_first_not_of(" \t\r");
  if (begin == std::string::npos) return "";
  const size_t end = text.find_last_not_of(" \t\r");
  return text.substr(begin, end - begin + 1);
}

std::optional<int64_t> parseInteger(const std::string& text) {
  const std::string t = trimmed(text);
  int64_t value = 0;
  const char* begin = t.data();
  if (!t.empty() && t[0] == '+') ++begin;
  const auto [end, error] = std::from_chars(begin, t.data() + t.size(), value);
  if (error != std::errc() || end != t.data() + t.size() || begin == end) return std::nullopt;
  return value;
}

}  // namespace

std::optional<double> parseCsvNumber(const std::string& text) {
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  while (begin != end && (*begin == ' ' || *begin == '\t')) ++begin;
  while (end != begin && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r')) --end;
  if (begin != end && *begin == '+') ++begin;
  if (begin == end) return std::nullopt;
  double value = 0;
  // from_chars ignores the locale: a German desktop does not turn "5.1" into 5.
  const auto [stop, error] = std::from_chars(begin, end, value);
  if (error != std::errc() || stop != end) return std::nullopt;
  return value;
}

CsvTable::CsvTable(std::string path, CsvFormat format)
    : path_(std::move(path)), format_(format), buffer_(kBufferBytes) {
  std::error_code ignored;
  if (std::filesystem::is_directory(path_, ignored)) {
    throw InputError(str(path_, ": is a directory, not a table"));
  }
  in_.open(path_, std::ios::binary);
  if (!in_) throw InputError(str(path_, ": cannot be read (", std::strerror(errno), ")"));
  // A UTF-8 byte order mark (Excel writes one) is not part of the first field.
  char c = 0;
  if (readChar(c)) {
    if (static_cast<unsigned char>(c) == 0xEF && bufferEnd_ - bufferPos_ >= 2 &&
        static_cast<unsigned char>(buffer_[bufferPos_]) == 0xBB &&
        static_cast<unsigned char>(buffer_[bufferPos_ + 1]) == 0xBF) {
      bufferPos_ += 2;
    } else {
      --bufferPos_;
      if (c == '\n') --nextLine_;
    }
  }
  for (int64_t i = 0; i < format_.skipRows; ++i) skipLine();
  if (format_.header) {
    if (!readRecord(names_)) {
      throw InputError(str(path_, ": the file ends before its header (after ", nextLine_ - 1,
                           " line(s)", format_.skipRows > 0 ? ", with skip_rows " : "",
                           format_.skipRows > 0 ? std::to_string(format_.skipRows) : "", ")"));
    }
    columns_ = static_cast<int64_t>(names_.size());
  }
}

bool CsvTable::readChar(char& c) {
  if (bufferPos_ == bufferEnd_) {
    in_.read(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    bufferEnd_ = static_cast<size_t>(in_.gcount());
    bufferPos_ = 0;
    if (bufferEnd_ == 0) {
      if (in_.bad()) throw InputError(str(path_, ": read error at line ", nextLine_));
      return false;
    }
  }
  c = buffer_[bufferPos_++];
  if (c == '\n') ++nextLine_;
  return true;
}

void CsvTable::skipLine() {
  char c = 0;
  while (readChar(c) && c != '\n') {
  }
}

bool CsvTable::readRecord(std::vector<std::string>& fields) {
  enum class State { FieldStart, Plain, Quoted, QuoteInQuoted, AfterQuoted };
  fields.clear();
  std::string field;
  bool quoted = false;
  bool started = false;  // the record has a character other than blanks and line ends
  State state = State::FieldStart;
  const char delimiter = format_.delimiter;
  const auto finishField = [&] {
    // Leading blanks were skipped; an unquoted field loses its trailing ones.
    while (!quoted && !field.empty() && (field.back() == ' ' || field.back() == '\t')) {
      field.pop_back();
    }
    fields.push_back(std::move(field));
    field.clear();
    quoted = false;
    state = State::FieldStart;
  };
  const auto start = [&] {
    if (!started) rowLine_ = nextLine_;
    started = true;
  };
  char c = 0;
  while (readChar(c)) {
    switch (state) {
      case State::Quoted:
        if (c == '"') {
          state = State::QuoteInQuoted;
        } else {
          field += c;
        }
        continue;
      case State::QuoteInQuoted:
        if (c == '"') {  // "" inside quotes is one quote
          field += c;
          state = State::Quoted;
          continue;
        }
        state = State::AfterQuoted;
        break;  // `c` follows the closing quote: handled below
      default:
        break;
    }
    if (c == '\n') {
      if (!started) continue;  // a blank line
      finishField();
      return true;
    }
    if (c == '\r') continue;
    if (c == delimiter) {
      start();
      finishField();
      continue;
    }
    switch (state) {
      case State::FieldStart:
        if (c == ' ' || c == '\t') continue;
        start();
        if (c == '"') {
          quoted = true;
          state = State::Quoted;
        } else {
          field += c;
          state = State::Plain;
        }
        break;
      case State::Plain:
        field += c;
        break;
      case State::AfterQuoted:
        if (c == ' ' || c == '\t') continue;
        throw InputError(str(where(nextLine_), ": text after the closing quote in column ",
                             fields.size(), " (a quote inside a quoted field is written \"\")"));
      default:
        break;
    }
  }
  if (state == State::Quoted) {
    throw InputError(str(where(rowLine_), ": the quoted field in column ", fields.size(),
                         " is not closed before the end of the file"));
  }
  if (!started) return false;
  finishField();
  return true;
}

bool CsvTable::nextRow(std::vector<std::string>& fields) {
  if (!readRecord(fields)) return false;
  const auto count = static_cast<int64_t>(fields.size());
  if (columns_ == 0) {
    columns_ = count;
  } else if (count != columns_) {
    throw InputError(str(where(rowLine_), ": ", count, " field", count == 1 ? "" : "s",
                         ", expected ", columns_,
                         format_.header ? " (as in the header)" : " (as in the first row)"));
  }
  return true;
}

std::string CsvTable::where(int64_t line) const { return str(path_, ":", line); }

std::string CsvTable::where(int64_t line, int64_t column) const {
  std::string text = str(path_, ":", line, ", column ", column);
  if (column >= 0 && column < static_cast<int64_t>(names_.size())) {
    text += str(" (\"", names_[static_cast<size_t>(column)], "\")");
  }
  return text;
}

int64_t CsvTable::columnIndex(const std::string& spec, const std::string& role) const {
  TB_CHECK(columns_ > 0, "columnIndex before the table's first row");
  const std::string name = trimmed(spec);
  for (size_t i = 0; i < names_.size(); ++i) {
    if (names_[i] == name) return static_cast<int64_t>(i);
  }
  const std::optional<int64_t> index = parseInteger(name);
  if (!index) {
    if (names_.empty()) {
      throw InputError(str(path_, ": the ", role, " \"", name,
                           "\" is not a column index, and the table has no header to name "
                           "columns (set header: true, or give a 0-based index)"));
    }
    std::string known;
    for (const std::string& n : names_) known += (known.empty() ? "\"" : ", \"") + n + "\"";
    throw InputError(str(path_, ": no column is named \"", name, "\" (the ", role,
                         "); the header names ", known));
  }
  const int64_t resolved = *index < 0 ? columns_ + *index : *index;
  if (resolved < 0 || resolved >= columns_) {
    throw InputError(str(path_, ": the ", role, " column ", *index,
                         " is out of range: the table has ", columns_, " columns (0 to ",
                         columns_ - 1, ", or -", columns_, " to -1 from the end)"));
  }
  return resolved;
}

}  // namespace tbench
