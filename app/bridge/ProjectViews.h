#pragma once
// The project file as the window sees it, in Qt types (no engine header: the window includes
// this): the problems of a document, the component registry's description of the format (the
// form's fields), the engine's analysis of a document, the data preview, and the services that
// fill them (app/bridge/ProjectServices.h makes them from the engine; tests may pass fakes).

#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QPointF>
#include <QString>
#include <QStringList>
#include <QVector>
#include <functional>
#include <limits>

namespace tbench::bridge {

/// A problem found in a project document, at a JSON path such as "$.data.batch_size".
struct ProjectIssueView {
  QString path;
  QString message;
};
using ProjectIssueViews = QList<ProjectIssueView>;

/// One key of a component type or of a fixed object of the project file, as the engine's
/// component registry describes it (engine/project/registry/ComponentRegistry.h).
struct KeyView {
  QString name;
  /// "integer", "seed", "number", "boolean", "string", "file", "directory", "choice",
  /// "integer list", "number list", "string list", "device", "device list", "point list"
  QString type;
  QJsonValue fallback;  ///< the default (what an absent key means)
  QString label;        ///< the form's label
  QString help;         ///< one line with constraints and default, for tooltips
  double minimum = 0;   ///< bounds of numbers and integers (infinite when open)
  bool minimumInclusive = true;
  double maximum = 0;
  bool maximumInclusive = true;
  bool required = false;
  bool notEmpty = false;
  QStringList choices;
  QString zeroText;  ///< what 0 means ("all cores"), for spin boxes
  QString fileFilter;
  /// "file" and "directory": an output made when missing (run_root); otherwise the path must
  /// exist, and the form says so while it is typed.
  bool createdIfMissing = false;
  QString placeholder;
  QStringList suggestions;
};

/// A registered component type.
struct ComponentTypeView {
  QString name;
  QString summary;
  QList<KeyView> keys;      ///< its own keys only
  QJsonObject starter;      ///< the settings a new instance starts with
  bool onByDefault = true;  ///< monitors
  QString origin;           ///< "built-in", or who registered it
  QJsonObject traits;       ///< e.g. a strategy's "towers": "one" or "many"
};

/// A kind of component ("model", "data", "optimizer", "callback", "monitor", "strategy").
struct ComponentKindView {
  QString name;
  QString noun;
  QString typeKey;              ///< "type" or "strategy"
  QString defaultType;          ///< empty: the type key is required
  QList<KeyView> leadingKeys;   ///< keys every type has, before its own
  QList<KeyView> trailingKeys;  ///< keys every type has, after its own
  QList<ComponentTypeView> types;

  QStringList typeNames() const;
  const ComponentTypeView* type(const QString& name) const;
  /// Leading, own (of `type`; none for an unknown type) and trailing keys.
  QList<KeyView> keysOf(const QString& type) const;
  /// Every key some type has, in writing order, the type key first.
  QStringList allKeys() const;
};

/// A place that holds a component ("data.validation", "callbacks[]").
struct ComponentSlotView {
  QString path;
  QString kind;
  QJsonObject defaultOverrides;
};

/// A fixed object of the file ("" for the top level, "data", "init", ...).
struct ObjectView {
  QString path;
  QString title;
  QList<KeyView> keys;
};

/// Everything the window knows about the project format, read from the engine's registry
/// once (ProjectServices::catalog): the form's fields, tooltips, type pickers and key order.
struct ComponentCatalog {
  QList<ComponentKindView> kinds;
  QList<ComponentSlotView> slotList;  // not "slots": a Qt keyword
  QList<ObjectView> objects;
  QJsonArray defaultCallbacks;  ///< the callbacks of a project without a "callbacks" key
  QStringList knownScalars;

  const ComponentKindView* kind(const QString& name) const;
  /// The slot at `path` ("data.train", "callbacks[2]"; "$." allowed), or nullptr.
  const ComponentSlotView* slotAt(const QString& path) const;
  const ObjectView* objectAt(const QString& path) const;
};

/// What a project document will do, as the engine analyses it on every edit
/// (engine/project/ProjectAnalysis.h, Note [One analysis of a project]): the window shows these
/// values and never re-derives them.
struct ProjectSummaryView {
  ProjectIssueViews issues;  ///< empty when the project is valid
  bool valid() const { return issues.isEmpty(); }
  // Read even from an invalid document, with the engine's defaults:
  QString name;
  QString runRoot;  ///< as written (relative to the working directory when relative)
  QString strategy;
  qint64 batchSize = 0;  ///< per tower
  // Valid projects only:
  qint64 towers = 0;
  qint64 batchesPerStep = 0;   ///< towers × a GAN's d_steps
  qint64 processes = 1;        ///< local_processes of a strategy of many processes, else 1
  bool manyProcesses = false;  ///< the strategy runs one process per rank (Start launches them)
  qint64 samplesPerStep = 0;   ///< batchSize × batchesPerStep × processes
  qint64 stepsPerEpoch = 0;    ///< 0 when the data's size is unknown before reading it
  qint64 maxEpoch = 0;
  /// The rate of the first step (NaN when the optimizer has none).
  double startingLearningRate = std::numeric_limits<double>::quiet_NaN();
  /// The learning rate over the run as (global step, value) points.
  QVector<QPointF> learningRateCurve;
};

/// The project services of the engine, as the GUI panels use them. The window fills these in
/// from app/bridge (ProjectServices.h); tests may pass fakes.
/// A sweep document checked by the engine (sweepFromJson, then planSweep over its base
/// project's file), as New Sweep… shows it.
struct SweepCheckView {
  QStringList problems;       ///< every problem, with its JSON path and trial; empty: valid
  qint64 trials = 0;          ///< the trials it runs; -1: until stopped or metric.target
  qint64 maxEpoch = 0;        ///< epochs of the longest listed trial (max_epoch may be swept)
  QList<qint64> trialEpochs;  ///< epochs of each listed trial
  /// Each listed trial's epoch as a share of the base project's (samples per epoch); NaN when
  /// not known ahead (SweepPlan::epochWork).
  QList<double> trialWork;
  QList<qint64> bands;  ///< the epochs hyperband judges at (empty: no early termination)
  QStringList notes;    ///< the engine's notes (SweepPlan::notes)
};

struct ProjectServices {
  /// The engine's analysis of a project document: its problems and what it will do. Never
  /// throws; a document that does not parse has one issue at "$".
  std::function<ProjectSummaryView(const QString& jsonText)> analyze;
  /// The document with every default written out (the engine's parse + serialize), or an empty
  /// string with `*error` set when it does not parse or validate.
  std::function<QString(const QString& jsonText, QString* error)> canonicalize;
  /// The component registry as it was when the services were made.
  ComponentCatalog catalog;
};

/// What the model will see first: the first samples of the project's training source as the
/// engine produces them (after augmentation and normalisation), and its classes.
struct DataPreviewView {
  QString error;    ///< why there is no preview (names the file or field); the rest is empty
  QString summary;  ///< "60000 samples of 1x28x28, 10 classes (data.train: fashion-mnist)"
  /// Images: each sample's pixels, uint8 rows of width x channels (grey or RGB), each sample
  /// scaled from its own minimum and maximum (normalised inputs are not in [0, 1]).
  int channels = 0;
  int height = 0;
  int width = 0;
  QList<QByteArray> pixels;
  /// Tables ([1, 1, D] samples): the features as the model sees them (standardised).
  QList<QList<double>> rows;
  QStringList columns;  ///< the rows' feature names (a CSV header); empty: x0, x1, ...
  QStringList labels;   ///< per sample: the class name (or number), or the target value(s)
  QStringList classNames;
  QList<qint64> classCounts;  ///< samples per class in the source; empty when unknown
};
/// Reads the first `count` samples of a project document's training source (`projectPath`,
/// when not empty, is where relative paths start). Never throws.
using DataPreviewer = std::function<DataPreviewView(const QString& projectText,
                                                    const QString& projectPath, int count)>;

}  // namespace tbench::bridge
