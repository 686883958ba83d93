// The "csv" data source (CsvTable, CsvData and its registration) on scikit-learn's real tables,
// copies written by Python's csv module (quotes, CRLF, a BOM, text labels, TSV) and corrupted
// copies; golden values come from NumPy (/usr/bin/python3) at test time. Ends with a project
// that validates on the held-out part of iris and trains through the real builder.

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <fstream>
#include <set>

#include "engine/core/Check.h"
#include "engine/data/datasets/CsvData.h"
#include "engine/monitors/ScalarHistory.h"
#include "engine/project/ProjectBuilder.h"
#include "engine/project/ProjectJson.h"
#include "engine/train/TrainConfig.h"
#include "tests/support/ExpectError.h"
#include "tests/support/FileBytes.h"
#include "tests/support/Python.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_Csv {

using namespace tbench;
using nlohmann::json;
using tbench::testing::expectError;

namespace {

const std::string kSklearn = "/usr/lib/python3/dist-packages/sklearn/datasets/data";

// Prints NumPy's view of the tables as JSON and writes the derived files into argv[2].
const char* kPython = R"(
import sys, json, csv, numpy as np
src, d = sys.argv[1], sys.argv[2]
out = {}
for name in ['iris', 'wine_data', 'breast_cancer']:
    a = np.loadtxt(f'{src}/{name}.csv', delimiter=',', skiprows=1)
    X, y = a[:, :-1], a[:, -1].astype(int)
    out[name] = {'rows': len(a), 'features': X.shape[1], 'counts': np.bincount(y).tolist(),
                 'mean': X.mean(0).tolist(), 'std': X.std(0).tolist()}
iris = np.loadtxt(f'{src}/iris.csv', delimiter=',', skiprows=1)
X = iris[:, :4]
out['iris']['X'] = X.tolist()
out['iris']['row17_col2'] = float((X[17, 2] - X[:, 2].mean()) / X[:, 2].std())
b = np.loadtxt(f'{src}/boston_house_prices.csv', delimiter=',', skiprows=2)
out['boston'] = {'rows': len(b), 'target_sum': float(b[:, 13].sum()),
                 'mean': b[:, :13].mean(0).tolist(), 'std': b[:, :13].std(0).tolist()}
# Iris with text labels in the middle column, as a spreadsheet would export it: a BOM, CRLF,
# every text field quoted, a name holding the delimiter and a quote, a blank line.
names = ['setosa', 'versicolor, "big"', 'virginica']
def write_named(path, unseen_row=None):
    lines = {}
    with open(path, 'w', newline='', encoding='utf-8-sig') as f:
        w = csv.writer(f, quoting=csv.QUOTE_NONNUMERIC, lineterminator='\r\n')
        w.writerow(['sepal length', 'sepal width', 'species', 'petal length', 'petal width'])
        line = 2
        for i, r in enumerate(iris):
            if i == 10:
                f.write('\r\n'); line += 1
            label = 'daisy' if i == unseen_row else names[int(r[4])]
            w.writerow([r[0], r[1], label, r[2], r[3]])
            lines[i] = line; line += 1
    return lines
write_named(d + '/iris_named.csv')
out['unseen_line'] = write_named(d + '/iris_unseen.csv', unseen_row=40)[40]
out['sorted_names'] = sorted(names)
with open(d + '/iris.tsv', 'w', newline='') as f:
    csv.writer(f, delimiter='\t', lineterminator='\n').writerows(iris.tolist())
print(json.dumps(out))
)";

/// `count` values of a double tensor or vector as a std::vector.
std::vector<double> values(const torch::Tensor& t) {
  const torch::Tensor c = t.to(torch::kFloat64).contiguous().reshape({-1});
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

bool near(const std::vector<double>& a, const json& b, double tolerance) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const double expected = b[i].get<double>();
    if (std::abs(a[i] - expected) > tolerance * std::max(1.0, std::abs(expected))) return false;
  }
  return true;
}

}  // namespace

class TestCsv : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    const testing::PythonRun python =
        testing::runPython({"-c", kPython, QString::fromStdString(kSklearn), dir_.path()});
    QVERIFY2(python.ok, python.err.constData());
    golden_ = json::parse(python.out.toStdString());
  }

  void readsScikitLearnTables_data() {
    QTest::addColumn<QString>("name");
    QTest::newRow("iris") << "iris";
    QTest::newRow("wine") << "wine_data";
    QTest::newRow("breast cancer") << "breast_cancer";
  }
  void readsScikitLearnTables() {
    QFETCH(QString, name);
    const json& g = golden_[name.toStdString()];
    const OpenedSource opened = open({{"path", sklearn(name + ".csv")}, {"skip_rows", 1}});
    const auto data = std::dynamic_pointer_cast<CsvData>(opened.flow);
    QVERIFY(data);
    QCOMPARE(data->size().value(), g["rows"].get<int64_t>());
    QCOMPARE(opened.image.width, g["features"].get<int64_t>());
    QCOMPARE(opened.image.channels * opened.image.height, int64_t{1});
    QCOMPARE(opened.numClasses, static_cast<int64_t>(g["counts"].size()));
    QCOMPARE(opened.numTargets, int64_t{0});
    QVERIFY(opened.facts.classNames.empty());  // class ids without names
    QVERIFY(near(values(torch::bincount(data->targets())), g["counts"], 0));
    QVERIFY(near(opened.facts.statistics.at("feature_mean"), g["mean"], 1e-12));
    QVERIFY(near(opened.facts.statistics.at("feature_std"), g["std"], 1e-12));
    // Standardised: every column has mean 0 and population std 1.
    const torch::Tensor f = data->features().reshape({data->size().value(), -1});
    QVERIFY(f.mean(0).abs().max().item<float>() < 1e-5f);
    QVERIFY((f.std(0, false) - 1).abs().max().item<float>() < 1e-5f);
    if (name == "iris") {
      QVERIFY(std::abs(f[17][2].item<double>() - g["row17_col2"].get<double>()) < 1e-6);
    }
    data->resetState();
    auto pass = data->pass();
    Datapoint point;
    QVERIFY(pass.next(point));
    QCOMPARE(point[0].sizes().vec(), (std::vector<int64_t>{1, 1, opened.image.width}));
    QCOMPARE(point[0].scalar_type(), torch::kFloat32);
    QCOMPARE(point[1].dim(), int64_t{0});
    QCOMPARE(point[1].scalar_type(), torch::kInt64);
  }

  void regressionTargetByHeaderName() {
    const json& g = golden_["boston"];
    const OpenedSource opened = open({{"path", sklearn("boston_house_prices.csv")},
                                      {"skip_rows", 1},
                                      {"header", true},
                                      {"target", "MEDV"},
                                      {"task", "regression"}});
    const auto data = std::dynamic_pointer_cast<CsvData>(opened.flow);
    QCOMPARE(data->size().value(), g["rows"].get<int64_t>());
    QCOMPARE(opened.numTargets, int64_t{1});
    QCOMPARE(opened.numClasses, int64_t{0});
    QCOMPARE(opened.image.width, int64_t{13});
    QCOMPARE(data->featureNames().at(5), std::string("RM"));
    QCOMPARE(data->targets().sizes().vec(), (std::vector<int64_t>{506, 1}));
    QVERIFY(std::abs(data->targets().to(torch::kFloat64).sum().item<double>() -
                     g["target_sum"].get<double>()) < 1e-3);
    QVERIFY(near(data->featureMean(), g["mean"], 1e-12));
    QVERIFY(near(data->featureStd(), g["std"], 1e-12));
    const torch::Tensor f = data->features().reshape({506, 13});
    QVERIFY(f.mean(0).abs().max().item<float>() < 1e-5f);
    data->resetState();
    auto pass = data->pass();
    Datapoint point;
    QVERIFY(pass.next(point));
    QCOMPARE(point[1].sizes().vec(), (std::vector<int64_t>{1}));
    QCOMPARE(point[1].scalar_type(), torch::kFloat32);
    QCOMPARE(point[1].item<float>(), 24.0f);  // the first row's MEDV
  }

  void textLabelsQuotesLineEndsAndTabs() {
    const json& iris = golden_["iris"];
    const json named = {{"path", path("iris_named.csv")}, {"header", true}, {"target", "species"}};
    OpenedSource opened = open(named);
    auto data = std::dynamic_pointer_cast<CsvData>(opened.flow);
    QCOMPARE(data->size().value(), int64_t{150});
    QCOMPARE(opened.facts.classNames, golden_["sorted_names"].get<std::vector<std::string>>());
    QCOMPARE(opened.numClasses, int64_t{3});
    QVERIFY(near(values(torch::bincount(data->targets())), json{50, 50, 50}, 0));
    QCOMPARE(data->featureNames(), (std::vector<std::string>{"sepal length", "sepal width",
                                                             "petal length", "petal width"}));
    QVERIFY(near(data->featureMean(), iris["mean"], 1e-12));
    // Given names number the text labels: "setosa" (row 0) is class 1 here.
    json renamed = named;
    renamed["class_names"] = {"virginica", "setosa", "versicolor, \"big\""};
    opened = open(renamed);
    data = std::dynamic_pointer_cast<CsvData>(opened.flow);
    QCOMPARE(data->targets()[0].item<int64_t>(), int64_t{1});
    QCOMPARE(opened.facts.classNames.at(2), std::string("versicolor, \"big\""));
    // Tab-separated, without skipped lines; the last column is the label.
    opened = open({{"path", path("iris.tsv")}, {"delimiter", "\\t"}});
    QCOMPARE(opened.flow->size().value(), int64_t{150});
    QVERIFY(near(opened.facts.statistics.at("feature_mean"), iris["mean"], 1e-12));
  }

  void holdOutSplitIsDisjointAndReproducible() {
    const json train = {{"path", sklearn("iris.csv")}, {"skip_rows", 1}, {"test_fraction", 0.2}};
    json test = train;
    test["split"] = "test";
    const auto trainData = std::dynamic_pointer_cast<CsvData>(open(train).flow);
    const auto testData = std::dynamic_pointer_cast<CsvData>(open(test).flow);
    QCOMPARE(trainData->size().value(), int64_t{120});
    QCOMPARE(testData->size().value(), int64_t{30});
    std::set<int64_t> all(trainData->rows().begin(), trainData->rows().end());
    all.insert(testData->rows().begin(), testData->rows().end());
    QCOMPARE(all.size(), size_t{150});  // disjoint, and together the whole table
    QCOMPARE(std::dynamic_pointer_cast<CsvData>(open(test).flow)->rows(), testData->rows());
    json otherSeed = test;
    otherSeed["split_seed"] = 2;
    QVERIFY(std::dynamic_pointer_cast<CsvData>(open(otherSeed).flow)->rows() != testData->rows());
    // The training part's statistics are those of its own rows (NumPy's parse of them).
    const json& X = golden_["iris"]["X"];
    for (int64_t column = 0; column < 4; ++column) {
      double sum = 0;
      for (int64_t r : trainData->rows()) sum += X[r][column].get<double>();
      QVERIFY(std::abs(trainData->featureMean()[column] - sum / 120) < 1e-12);
    }
    json limited = train;
    limited["limit"] = 10;
    const auto first = std::dynamic_pointer_cast<CsvData>(open(limited).flow);
    QCOMPARE(first->rows(),
             std::vector<int64_t>(trainData->rows().begin(), trainData->rows().begin() + 10));
  }

  void validationUsesTheTrainingSourcesFacts() {
    const json train = {{"path", sklearn("iris.csv")}, {"skip_rows", 1}, {"test_fraction", 0.2}};
    json test = train;
    test["split"] = "test";
    const OpenedSource training = open(train);
    OpenRequest request;
    request.training = &training.facts;
    const OpenedSource validation = open(test, request);
    const auto data = std::dynamic_pointer_cast<CsvData>(validation.flow);
    QCOMPARE(data->featureMean(), training.facts.statistics.at("feature_mean"));
    QCOMPARE(data->featureStd(), training.facts.statistics.at("feature_std"));
    QVERIFY(data->featureMean() !=
            std::dynamic_pointer_cast<CsvData>(open(test).flow)->featureMean());
    const json& X = golden_["iris"]["X"];
    const int64_t row = data->rows().at(3);
    for (int64_t column = 0; column < 4; ++column) {
      const double expected =
          (X[row][column].get<double>() - data->featureMean()[column]) / data->featureStd()[column];
      QVERIFY(std::abs(data->features()[3][0][0][column].item<double>() - expected) < 1e-5);
    }
    // Statistics of another width, and a class the training data did not have.
    const OpenedSource wine = open({{"path", sklearn("wine_data.csv")}, {"skip_rows", 1}});
    request.training = &wine.facts;
    expectError([&] { open(test, request); }, "iris.csv",
                "4 feature columns, but the training data's statistics");
    const json named = {{"path", path("iris_named.csv")}, {"header", true}, {"target", "species"}};
    const OpenedSource namedTraining = open(named);
    request.training = &namedTraining.facts;
    json unseen = named;
    unseen["path"] = path("iris_unseen.csv");
    expectError([&] { open(unseen, request); },
                QString("iris_unseen.csv:%1, column 2 (\"species\")")
                    .arg(golden_["unseen_line"].get<int>()),
                "the class \"daisy\" is not one of the 3 known classes");
  }

  void corruptedCopiesNameFileLineAndColumn() {
    const json iris = {{"path", corrupt("iris.csv", "iris_missing.csv", 17, "5.0,3.4,1.5,0.2")},
                       {"skip_rows", 1}};
    expectError([&] { open(iris); }, "iris_missing.csv:17", ": 4 fields, expected 5");
    const std::string wine = corrupt("wine_data.csv", "wine_text.csv", 12, "", 3, "abc");
    expectError(
        [&] {
          open({{"path", wine}, {"skip_rows", 1}});
        },
        "wine_text.csv:12, column 3", ": \"abc\" is not a number");
    const std::string boston =
        corrupt("boston_house_prices.csv", "boston_text.csv", 12, "", 5, "x6");
    expectError(
        [&] {
          open({{"path", boston}, {"skip_rows", 1}, {"header", true}});
        },
        "boston_text.csv:12, column 5 (\"RM\")", ": \"x6\" is not a number");
    const std::string empty = corrupt("iris.csv", "iris_empty.csv", 7, "", 1, "");
    expectError(
        [&] {
          open({{"path", empty}, {"skip_rows", 1}});
        },
        "iris_empty.csv:7, column 1", ": an empty field is not a number");
    const std::string nan = corrupt("iris.csv", "iris_nan.csv", 5, "", 0, "nan");
    expectError(
        [&] {
          open({{"path", nan}, {"skip_rows", 1}});
        },
        "iris_nan.csv:5, column 0", "\"nan\" is not a finite number");
    const std::string fraction = corrupt("iris.csv", "iris_label.csv", 30, "", 4, "1.5");
    expectError(
        [&] {
          open({{"path", fraction}, {"skip_rows", 1}});
        },
        "iris_label.csv:30, column 4", "the label \"1.5\" is not a class id");
    const std::string seven = corrupt("iris.csv", "iris_seven.csv", 30, "", 4, "7");
    expectError(
        [&] {
          open({{"path", seven}, {"skip_rows", 1}, {"class_names", {"a", "b", "c"}}});
        },
        "iris_seven.csv:30, column 4", "the label 7 is out of range: there are 3 class names");
    const std::string quote = corrupt("iris.csv", "iris_quote.csv", 8, "\"5.0,3.4,1.5,0.2,0");
    expectError(
        [&] {
          open({{"path", quote}, {"skip_rows", 1}});
        },
        "iris_quote.csv:8",
        "the quoted field in column 0 is not closed before the end of the file");
    testing::writeBytes(path("only_header.csv"),
                        testing::readBytes(sklearn("iris.csv")).substr(0, 34));
    expectError(
        [&] {
          open({{"path", path("only_header.csv")}, {"skip_rows", 1}});
        },
        "only_header.csv", "the table has no data rows");
    expectError([&] { open({{"path", path("missing.csv")}}); }, "missing.csv", "cannot be read");
    expectError(
        [&] {
          open({{"path", sklearn("boston_house_prices.csv")},
                {"skip_rows", 1},
                {"header", true},
                {"target", "PRICE"}});
        },
        "boston_house_prices.csv",
        "no column is named \"PRICE\" (the target); the header names \"CRIM\", \"ZN\"");
    expectError(
        [&] {
          open({{"path", sklearn("iris.csv")}, {"skip_rows", 1}, {"target", "9"}});
        },
        "iris.csv",
        "the target column 9 is out of range: the table has 5 columns (0 to 4, or -5 to "
        "-1 from the end)");
  }

  void projectChecksCatchLeaksAndMistakes() {
    json doc = irisProject();
    QCOMPARE(int(validateProjectJson(doc).size()), 0);
    const auto issues = [](const json& d) {
      std::string text;
      for (const auto& issue : validateProjectJson(d)) text += issue.toString() + "\n";
      return QString::fromStdString(text);
    };
    json noFraction = doc;
    noFraction["data"]["validation"].erase("test_fraction");
    noFraction["data"]["train"].erase("test_fraction");
    QVERIFY2(issues(noFraction)
                 .contains("$.data.validation.test_fraction: is 0, so split \"test\" "
                           "has no rows: set test_fraction"),
             qPrintable(issues(noFraction)));
    json seed = doc;
    seed["data"]["validation"]["split_seed"] = 5;
    QVERIFY2(issues(seed).contains("$.data.validation.split_seed: must be the training "
                                   "source's (1) on the same file"),
             qPrintable(issues(seed)));
    json fraction = doc;
    fraction["data"]["validation"]["test_fraction"] = 0.3;
    QVERIFY(
        issues(fraction).contains("$.data.validation.test_fraction: must be the training "
                                  "source's (0.2)"));
    json same = doc;
    same["data"]["validation"]["split"] = "train";
    QVERIFY2(issues(same).contains("$.data.validation.split: is \"train\" like the training "
                                   "source's, on the same file"),
             qPrintable(issues(same)));
    json named = doc;
    named["data"]["train"]["target"] = "species";
    QVERIFY(
        issues(named).contains("$.data.train.target: \"species\" names a column, but header "
                               "is false"));
    json delimiter = doc;
    delimiter["data"]["train"]["delimiter"] = ";;";
    QVERIFY(issues(delimiter).contains("$.data.train.delimiter: \";;\" is not one character"));
  }

  void trainsIrisAndValidatesOnTheHeldOutRows() {
    const Project project = projectFromJson(irisProject());
    BuiltRun run = buildRun(project, "");
    auto history = std::make_shared<ScalarHistory>();
    run.config.monitors->push_back(history);
    launchTrainWithConfig(run.config, *run.trainer);
    QCOMPARE(run.trainer->globalStep(), int64_t{7 * 20});  // 120 rows / 16 per step x 20 epochs
    QCOMPARE(run.dataFacts.statistics.at("feature_mean").size(), size_t{4});
    const auto errors = history->get("validation_error");
    QCOMPARE(int(errors.size()), 20);
    // Chance is 2/3 on three balanced classes; measured here: 0.10 (3 of 30 wrong).
    qInfo("validation_error after 1 and 20 epochs: %.4f, %.4f", errors.front().value,
          errors.back().value);
    QVERIFY2(errors.back().value < 0.2, qPrintable(QString::number(errors.back().value)));
  }

 private:
  static std::string sklearn(const QString& name) { return kSklearn + "/" + name.toStdString(); }
  std::string path(const QString& name) const { return dir_.filePath(name).toStdString(); }

  json irisProject() const {
    const json source = {
        {"type", "csv"}, {"path", sklearn("iris.csv")}, {"skip_rows", 1}, {"test_fraction", 0.2}};
    json validation = source;
    validation["split"] = "test";
    return {{"format", 1},
            {"name", "iris"},
            {"model", {{"type", "mlp"}, {"hidden", {16}}}},
            {"data", {{"train", source}, {"validation", validation}, {"batch_size", 16}}},
            {"optimizer", {{"type", "adam"}, {"learning_rate", 0.01}}},
            {"max_epoch", 20},
            {"callbacks", {{{"type", "inference"}}}},
            {"trainer", {{"strategy", "simple"}}}};
  }

  static OpenedSource open(const json& settings, const OpenRequest& request = {}) {
    ComponentSpec spec = ComponentSpec::of("data", "csv");
    for (const auto& item : settings.items()) spec.set(item.key(), item.value());
    return openDataSource(spec, request);
  }

  /// A copy of scikit-learn's `source` as `name` with line `line` (1-based) replaced by
  /// `replacement`, or, when `column` >= 0, with that field of the line replaced by `field`.
  std::string corrupt(const QString& source, const QString& name, int line,
                      const std::string& replacement, int column = -1,
                      const std::string& field = "") const {
    std::istringstream in(testing::readBytes(sklearn(source)));
    std::string text, current;
    for (int n = 1; std::getline(in, current); ++n) {
      if (n == line) {
        if (column < 0) {
          current = replacement;
        } else {
          std::vector<std::string> fields;
          std::stringstream parts(current);
          for (std::string f; std::getline(parts, f, ',');) fields.push_back(f);
          fields.at(column) = field;
          current.clear();
          for (size_t i = 0; i < fields.size(); ++i) current += (i ? "," : "") + fields[i];
        }
      }
      text += current + "\n";
    }
    testing::writeBytes(path(name), text);
    return path(name);
  }

  QTemporaryDir dir_;
  json golden_;
};

}  // namespace test_Csv

TB_TEST_MAIN(test_Csv::TestCsv)
#include "test_Csv.moc"
