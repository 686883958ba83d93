#include "app/bridge/LearnedTypes.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <algorithm>

namespace tbench::bridge {

namespace {

double ratioOf(const QJsonValue& value) { return value.isDouble() ? value.toDouble() : -1.0; }

}  // namespace

ConfusionView readConfusionFile(const QString& path) {
  ConfusionView view;
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) {
    view.error = QString("%1: %2").arg(path, file.errorString());
    return view;
  }
  QJsonParseError parseError;
  const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &parseError);
  if (!doc.isObject()) {
    view.error = QString("%1: not a confusion matrix (%2)").arg(path, parseError.errorString());
    return view;
  }
  const QJsonObject o = doc.object();
  for (const QJsonValue& name : o["class_names"].toArray()) view.classNames << name.toString();
  const QJsonArray rows = o["counts"].toArray();
  for (const QJsonValue& row : rows) {
    QVector<qint64> counts;
    for (const QJsonValue& c : row.toArray()) counts << c.toInteger();
    if (counts.size() != view.classNames.size()) {
      view = ConfusionView();
      view.error = QString("%1: a row of \"counts\" does not have one count per class").arg(path);
      return view;
    }
    view.counts << counts;
  }
  if (view.counts.size() != view.classNames.size() || view.classNames.isEmpty()) {
    view = ConfusionView();
    view.error = QString("%1: \"counts\" is not one row per class").arg(path);
    return view;
  }
  view.path = path;
  view.epoch = o["epoch"].toInteger();
  view.globalStep = o["global_step"].toInteger();
  view.accuracy = ratioOf(o["accuracy"]);
  for (const QJsonValue& c : o["per_class"].toArray()) {
    const QJsonObject k = c.toObject();
    view.perClass.push_back({k["name"].toString(), k["samples"].toInteger(),
                             ratioOf(k["precision"]), ratioOf(k["recall"])});
  }
  const qint64 classes = view.classNames.size();
  for (const QJsonValue& m : o["misclassified"].toArray()) {
    const QJsonObject w = m.toObject();
    const MisclassifiedView sample{w["index"].toInteger(-1), w["true"].toInteger(-1),
                                   w["predicted"].toInteger(-1)};
    if (sample.index < 0 || sample.trueClass < 0 || sample.trueClass >= classes ||
        sample.predicted < 0 || sample.predicted >= classes) {
      continue;  // not a sample of this matrix: no tile is named by it
    }
    view.misclassified.push_back(sample);
  }
  view.misclassifiedCount = view.misclassified.size();
  view.misclassifiedColumns = std::max(1, o["misclassified_columns"].toInt(8));
  view.misclassifiedFrom = o["misclassified_from"].toString();
  // epoch-<E>.json -> epoch-<E>-misclassified.png, written before the JSON.
  const QFileInfo json(path);
  const QString grid = json.dir().filePath(json.completeBaseName() + "-misclassified.png");
  if (QFileInfo::exists(grid)) view.misclassifiedImage = grid;
  return view;
}

QStringList confusionFiles(const QString& runDir) {
  const QDir dir(QDir(runDir).filePath("confusion"));
  static const QRegularExpression pattern("^epoch-(\\d+)\\.json$");
  QVector<QPair<qint64, QString>> found;
  for (const QString& name : dir.entryList({"epoch-*.json"}, QDir::Files)) {
    const auto match = pattern.match(name);
    if (match.hasMatch()) found.push_back({match.captured(1).toLongLong(), dir.filePath(name)});
  }
  std::sort(found.begin(), found.end());
  QStringList out;
  for (const auto& entry : found) out << entry.second;
  return out;
}

}  // namespace tbench::bridge
