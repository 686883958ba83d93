#pragma once
// What the window shows of what a model learned (Qt only): a validation pass's confusion matrix
// as the engine writes it (<run>/confusion/epoch-<E>.json, engine/inference/ConfusionMatrix.h)
// and a checkpoint's answer for one input ("Try it", engine/predict/TryIt.h).

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <QVector>
#include <functional>

namespace tbench::bridge {

/// One class of a confusion matrix; negative ratios: undefined (no sample, no prediction).
struct ClassRates {
  QString name;
  qint64 samples = 0;
  double precision = -1;
  double recall = -1;
};

/// A wrong sample of a validation pass: its index in the validation data and its classes.
struct MisclassifiedView {
  qint64 index = -1;
  qint64 trueClass = -1;
  qint64 predicted = -1;
};

/// One confusion/epoch-<E>.json.
struct ConfusionView {
  QString error;  ///< why the file could not be read (the rest is empty)
  QString path;
  qint64 epoch = 0;
  qint64 globalStep = 0;
  QStringList classNames;
  QVector<QVector<qint64>> counts;  ///< [true][predicted]
  double accuracy = -1;
  QVector<ClassRates> perClass;
  qint64 misclassifiedCount = 0;  ///< how many wrong samples the "misclassified" grid shows
  QVector<MisclassifiedView> misclassified;  ///< the grid's tiles, row by row
  int misclassifiedColumns = 8;              ///< tiles per row of the grid
  QString misclassifiedImage;  ///< confusion/epoch-<E>-misclassified.png; empty when absent
  /// In a sharded pass, which batches the misclassified list comes from; empty: all of them.
  QString misclassifiedFrom;
};

/// Reads one confusion file (Qt's JSON reader; no engine). Never throws.
ConfusionView readConfusionFile(const QString& path);
/// The confusion files of `runDir` by epoch, oldest first (empty when there is none).
QStringList confusionFiles(const QString& runDir);

/// What to classify and with which checkpoint.
struct TryItQuery {
  enum class Kind { ImageFile, DatasetSample, CsvRow };
  QString checkpoint;  ///< a model-<step>.pt file
  Kind kind = Kind::ImageFile;
  QString path;                  ///< ImageFile, CsvRow
  QString split = "validation";  ///< DatasetSample: "validation" or "train"
  qint64 index = 0;              ///< DatasetSample: the sample; CsvRow: the row (0-based)
  int topN = 5;
};

struct TryItClassView {
  int index = 0;
  QString name;
  double probability = 0;
};

struct TryItView {
  QString error;  ///< why there is no answer ("this model predicts targets, not classes")
  QVector<TryItClassView> top;  ///< most probable first
  QStringList classNames;
  QVector<double> probabilities;  ///< one per class
  int width = 0, height = 0, channels = 0;
  QByteArray pixels;         ///< the input as the model saw it, HWC bytes; empty for a row
  QVector<double> features;  ///< a table row's features
  int trueClass = -1;        ///< a dataset sample's or row's label; -1 when unknown
  QString note;              ///< "resized from 64x64 to 28x28"
};

/// Runs a query; the window's dialog calls it off the GUI thread. Must not throw.
using TryItRunner = std::function<TryItView(const TryItQuery&)>;

}  // namespace tbench::bridge
