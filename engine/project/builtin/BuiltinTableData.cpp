// The built-in table sources ("csv"): description, checks and factory.

#include <filesystem>
#include <optional>

#include "engine/data/datasets/CsvData.h"
#include "engine/project/builtin/Builtin.h"
#include "engine/project/registry/ComponentFactories.h"

namespace tbench {

namespace {

/// The delimiter a "delimiter" key means: one character, or "\t" (backslash, t) for a tab.
std::optional<char> delimiterOf(const std::string& text) {
  if (text == "\\t") return '\t';
  if (text.size() != 1 || text[0] == '"' || text[0] == '\n' || text[0] == '\r') {
    return std::nullopt;
  }
  return text[0];
}

bool isInteger(const std::string& text) {
  size_t i = text.find_first_not_of(' ');
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
  const size_t digits = text.find_first_not_of("0123456789", i);
  return i < text.size() && digits != i && text.find_first_not_of(' ', digits) == std::string::npos;
}

bool samePath(const std::string& a, const std::string& b) {
  std::error_code error;
  const auto canonicalA = std::filesystem::weakly_canonical(a, error);
  if (error) return a == b;
  const auto canonicalB = std::filesystem::weakly_canonical(b, error);
  return error ? a == b : canonicalA == canonicalB;
}

/// Validation reads data.train before data.validation, so the validation source's check sees
/// the training source; `s` is the validation source when it is data.validation's settings.
void checkAgainstTraining(const Settings& s, CheckContext& context) {
  const DataSpec& data = context.project.data;
  if (!data.hasValidation || &s != &data.validation.settings || data.train.type != "csv") return;
  const ComponentSpec& train = data.train;
  if (!context.invalid("task") && s.string("task") != train.string("task")) {
    context.report("task", str("is \"", s.string("task"), "\" but the training source's is \"",
                               train.string("task"), "\""));
  }
  if (!context.invalid("standardize") && s.boolean("standardize") != train.boolean("standardize")) {
    context.report("standardize",
                   "must be the training source's (the model would see features on another "
                   "scale)");
  }
  if (context.invalid("path") || !samePath(s.string("path"), train.string("path"))) return;
  // Both halves of one file: the same split, the other part.
  if (!context.invalid("split") && s.string("split") == train.string("split")) {
    context.report("split", str("is \"", s.string("split"),
                                "\" like the training source's, on the same file: validation "
                                "would see the training rows (use \"test\" here, \"train\" "
                                "there)"));
  }
  if (!context.invalid("test_fraction") &&
      s.number("test_fraction") != train.number("test_fraction")) {
    context.report("test_fraction",
                   str("must be the training source's (", train.number("test_fraction"),
                       ") on the same file, or the training and validation rows overlap"));
  }
  if (!context.invalid("split_seed") && s.seed("split_seed") != train.seed("split_seed")) {
    context.report("split_seed",
                   str("must be the training source's (", train.seed("split_seed"),
                       ") on the same file, or the training and validation rows overlap"));
  }
}

void checkCsv(const Settings& s, CheckContext& context) {
  if (!context.invalid("delimiter") && !delimiterOf(s.string("delimiter"))) {
    context.report("delimiter", str("\"", s.string("delimiter"),
                                    "\" is not one character (write \"\\\\t\" for a tab)"));
  }
  if (!context.invalid("header") && !context.invalid("target") && !s.boolean("header") &&
      !isInteger(s.string("target"))) {
    context.report("target", str("\"", s.string("target"),
                                 "\" names a column, but header is false: set header to true, "
                                 "or give the column's 0-based index"));
  }
  if (!context.invalid("split") && !context.invalid("test_fraction") &&
      s.string("split") == "test" && s.number("test_fraction") == 0) {
    context.report("test_fraction",
                   "is 0, so split \"test\" has no rows: set test_fraction (e.g. 0.2) here and "
                   "on the training source, or use split \"train\" for every row (a separate "
                   "test file)");
  }
  checkAgainstTraining(s, context);
}

OpenedSource openCsv(const Settings& s, const OpenRequest& request) {
  CsvFormat format;
  format.delimiter = delimiterOf(s.string("delimiter")).value_or(',');
  format.skipRows = s.integer("skip_rows");
  format.header = s.boolean("header");
  CsvData::Options options;
  options.format(format)
      .target(s.string("target"))
      .regression(s.string("task") == "regression")
      .standardize(s.boolean("standardize"))
      .classNames(s.strings("class_names"))
      .testPart(s.string("split") == "test")
      .testFraction(s.number("test_fraction"))
      .splitSeed(s.seed("split_seed"))
      .limit(s.integer("limit"))
      .shuffle(request.shuffle)
      .seed(request.seed);
  if (request.training != nullptr) {
    // Validation data follows what the model learned: its class numbering and scaling.
    const DataFacts& training = *request.training;
    if (!training.classNames.empty()) options.classNames(training.classNames);
    const auto mean = training.statistics.find("feature_mean");
    const auto deviation = training.statistics.find("feature_std");
    if (mean != training.statistics.end() && deviation != training.statistics.end()) {
      options.featureMean(mean->second).featureStd(deviation->second);
    }
  }
  auto flow = std::make_shared<CsvData>(s.string("path"), options);
  OpenedSource opened;
  opened.flow = flow;
  opened.image = ImageShape{1, 1, flow->featureCount()};
  opened.numClasses = flow->numClasses();
  opened.numTargets = flow->numTargets();
  opened.facts.classNames = flow->classNames();
  opened.featureNames = flow->featureNames();
  if (opened.numClasses > 0) {
    opened.facts.classCounts = classCountsOf(flow->targets(), opened.numClasses);
  }
  if (!flow->featureMean().empty()) {
    opened.facts.statistics = {{"feature_mean", flow->featureMean()},
                               {"feature_std", flow->featureStd()}};
  }
  return opened;
}

}  // namespace

void registerBuiltinTableData(ComponentRegistry& registry) {
  ComponentType csv = describe(
      "csv", "A CSV/TSV table: numeric feature columns and one label or target column",
      {key::file("path")
           .label("Table")
           .help("A delimited text file, one sample per row")
           .required()
           .notEmpty()
           .filter("CSV tables (*.csv *.tsv *.txt);;All files (*)"),
       key::string("delimiter", ",")
           .label("Delimiter")
           .help("The field separator, one character; \"\\t\" for a tab (TSV)")
           .notEmpty()
           .suggestions({",", ";", "\\t", "|"}),
       key::integer("skip_rows", 0)
           .label("Skip lines")
           .help("Lines skipped before the header or the first row (1 for scikit-learn's "
                 "tables, whose first line holds counts and class names)")
           .atLeast(0),
       key::boolean("header", false)
           .label("Header row")
           .help("The first row after the skipped lines names the columns"),
       key::string("target", "-1")
           .label("Target column")
           .help("The label or target column: its header name, or a 0-based index (negative "
                 "from the end: -1 is the last column); every other column is a feature")
           .notEmpty(),
       key::choice("task", "classification", {"classification", "regression"})
           .label("Task")
           .help("classification: labels are class ids (integers >= 0) or class names "
                 "(text); regression: the target is a number"),
       key::boolean("standardize", true)
           .label("Standardize")
           .help("Scale each feature to mean 0 and standard deviation 1 by the training rows' "
                 "statistics (validation data uses the training source's)"),
       key::strings("class_names", {})
           .label("Class names")
           .help("Names of classes 0, 1, ...; with text labels also their numbering. Empty: "
                 "text labels are numbered in sorted order"),
       key::choice("split", "train", {"train", "test"})
           .label("Split")
           .help("Which rows: the training part, or the part held out by test_fraction"),
       key::number("test_fraction", 0.0)
           .label("Test fraction")
           .help("The part of the table held out as split \"test\"; the same on the training "
                 "and validation source")
           .atLeast(0)
           .below(1)
           .zeroMeans("nothing held out"),
       key::seed("split_seed", 1)
           .label("Split seed")
           .help("Which rows are held out; the same on the training and validation source")});
  csv.check = checkCsv;
  registerDataSource(registry, csv, {openCsv, nullptr});
}

}  // namespace tbench
