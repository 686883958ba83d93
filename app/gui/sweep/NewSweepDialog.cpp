#include "app/gui/sweep/NewSweepDialog.h"

#include <algorithm>

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSpinBox>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <cmath>

#include "app/bridge/SweepServices.h"
#include "app/gui/rundir/RunDirectoryInfo.h"

namespace tbench::gui {
namespace {

enum Column { kKey = 0, kCurrent = 1, kSweep = 2 };

/// Every value a sweep may vary, by key path: numbers, text, true/false and lists of numbers;
/// lists of objects (callbacks) by index.
void collectKeys(const QJsonValue& value, const QString& path,
                 QList<QPair<QString, QJsonValue>>& out) {
  if (value.isObject()) {
    const QJsonObject object = value.toObject();
    for (auto it = object.begin(); it != object.end(); ++it) {
      if (path.isEmpty() && (it.key() == "format" || it.key() == "name")) continue;
      collectKeys(it.value(), path.isEmpty() ? it.key() : path + "." + it.key(), out);
    }
  } else if (value.isArray()) {
    const QJsonArray array = value.toArray();
    const bool numbers =
        std::all_of(array.begin(), array.end(), [](const QJsonValue& v) { return v.isDouble(); });
    if (numbers) {
      out.append({path, value});
      return;
    }
    for (int i = 0; i < array.size(); ++i) {
      if (array[i].isObject())
        collectKeys(array[i], QStringLiteral("%1[%2]").arg(path).arg(i), out);
    }
  } else if (value.isDouble() || value.isString() || value.isBool()) {
    out.append({path, value});
  }
}

QString compact(const QJsonValue& v) {
  return QString::fromUtf8(
      QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact).mid(1).chopped(1));
}

QString duration(double seconds) {
  if (seconds < 90) return QObject::tr("%1 s").arg(std::lround(seconds));
  if (seconds < 5400) return QObject::tr("%1 min").arg(std::lround(seconds / 60));
  return QObject::tr("%1 h").arg(seconds / 3600, 0, 'f', 1);
}

}  // namespace

QJsonObject NewSweepDialog::parameterFromText(const QString& text, QString* error) {
  const QString t = text.trimmed();
  if (t.isEmpty()) {
    if (error) *error = tr("no values");
    return {};
  }
  // "MIN .. MAX [log]": a range.
  static const QRegularExpression range(R"(^\s*([-+0-9.eE]+)\s*\.\.\s*([-+0-9.eE]+)\s*(log)?\s*$)");
  const QRegularExpressionMatch m = range.match(t);
  if (m.hasMatch()) {
    bool okLow = false, okHigh = false;
    const double low = m.captured(1).toDouble(&okLow), high = m.captured(2).toDouble(&okHigh);
    if (!okLow || !okHigh || !(low < high)) {
      if (error) *error = tr("a range is MIN .. MAX with MIN < MAX");
      return {};
    }
    const QRegularExpression fraction("[.eE]");
    const bool whole = std::floor(low) == low && std::floor(high) == high &&
                       !m.captured(1).contains(fraction) && !m.captured(2).contains(fraction);
    const bool log = !m.captured(3).isEmpty() || (low > 0 && high / low >= 100);
    // Whole numbers on a log range stay whole (W&B's q_log_uniform_values with q 1).
    const QString distribution = log && whole ? "q_log_uniform_values"
                                 : log        ? "log_uniform_values"
                                 : whole      ? "int_uniform"
                                              : "uniform";
    if (log && low <= 0) {
      if (error) *error = tr("a log range needs MIN > 0");
      return {};
    }
    QJsonObject parameter{{"min", low}, {"max", high}, {"distribution", distribution}};
    if (distribution == "q_log_uniform_values") parameter["q"] = 1;
    return parameter;
  }
  // Values: JSON, comma-separated; words that are not JSON are text.
  QJsonParseError parse;
  const QJsonDocument doc = QJsonDocument::fromJson(("[" + t + "]").toUtf8(), &parse);
  QJsonArray values;
  if (parse.error == QJsonParseError::NoError && doc.isArray()) {
    values = doc.array();
  } else {
    for (const QString& word : t.split(',')) {
      if (word.trimmed().isEmpty() || word.contains('[') || word.contains('{')) {
        if (error) *error = tr("values are comma-separated JSON (%1)").arg(parse.errorString());
        return {};
      }
      values.append(word.trimmed());
    }
  }
  if (values.isEmpty()) {
    if (error) *error = tr("no values");
    return {};
  }
  return {{"values", values}};
}

NewSweepDialog* NewSweepDialog::forProject(
    const QJsonObject& document, const QString& projectPath,
    const std::function<QString(const QString& jsonText, QString* error)>& canonicalize,
    const QString& runRoot, const QString& projectName, QWidget* parent) {
  const EpochTime epochTime = newestEpochTime(runRoot, projectName);
  QJsonObject keys = document;
  if (canonicalize) {
    QString why;
    const QString canonical =
        canonicalize(QString::fromUtf8(QJsonDocument(document).toJson()), &why);
    const QJsonDocument doc = QJsonDocument::fromJson(canonical.toUtf8());
    if (doc.isObject()) keys = doc.object();
  }
  auto* dialog = new NewSweepDialog(keys, projectPath, bridge::checkSweep, epochTime.seconds,
                                    epochTime.runId, parent);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  return dialog;
}

NewSweepDialog::NewSweepDialog(const QJsonObject& project, const QString& projectPath,
                               Checker checker, double secondsPerEpoch,
                               const QString& estimateSource, QWidget* parent)
    : QDialog(parent),
      project_(project),
      projectPath_(QFileInfo(projectPath).absoluteFilePath()),
      checker_(std::move(checker)),
      secondsPerEpoch_(secondsPerEpoch),
      estimateSource_(estimateSource) {
  setObjectName("newSweepDialog");
  setWindowTitle(tr("New Sweep of %1").arg(QFileInfo(projectPath).fileName()));
  resize(860, 620);
  auto* layout = new QVBoxLayout(this);
  auto* intro = new QLabel(
      tr("Check the keys to sweep and give each one's values (<i>0.001, 0.01, 0.1</i> or "
         "<i>[64], [128]</i>) or, for random search, a range (<i>1e-4 .. 1e-1</i>, "
         "<i>16 .. 256</i>). Every trial is the project with its values, checked as the project "
         "is."),
      this);
  intro->setWordWrap(true);
  layout->addWidget(intro);

  filter_ = new QLineEdit(this);
  filter_->setObjectName("newSweep.filter");
  filter_->setPlaceholderText(tr("Filter keys (checked keys always show)"));
  filter_->setClearButtonEnabled(true);
  layout->addWidget(filter_);
  keys_ = new QTableWidget(0, 3, this);
  keys_->setObjectName("newSweep.keys");
  keys_->setHorizontalHeaderLabels({tr("key"), tr("now"), tr("sweep")});
  keys_->verticalHeader()->hide();
  keys_->horizontalHeader()->setStretchLastSection(true);
  keys_->setSelectionMode(QAbstractItemView::SingleSelection);
  layout->addWidget(keys_, 1);

  auto* form = new QFormLayout;
  auto* methodRow = new QHBoxLayout;
  method_ = new QComboBox(this);
  method_->setObjectName("newSweep.method");
  method_->addItems({"grid", "random", "bayes", "tpe"});
  runCap_ = new QSpinBox(this);
  runCap_->setObjectName("newSweep.runCap");
  runCap_->setRange(0, 100000);
  runCap_->setSpecialValueText(tr("all"));
  runCap_->setToolTip(tr("run_cap: the most trials (grid: all of the product when 'all')"));
  seed_ = new QSpinBox(this);
  seed_->setObjectName("newSweep.seed");
  seed_->setRange(0, 1 << 30);
  seed_->setValue(1);
  methodRow->addWidget(method_);
  methodRow->addWidget(new QLabel(tr("trials:"), this));
  methodRow->addWidget(runCap_);
  methodRow->addWidget(new QLabel(tr("seed:"), this));
  methodRow->addWidget(seed_);
  methodRow->addStretch(1);
  form->addRow(tr("Search"), methodRow);

  auto* metricRow = new QHBoxLayout;
  metric_ = new QComboBox(this);
  metric_->setObjectName("newSweep.metric");
  metric_->setEditable(true);
  metric_->addItems({"validation_error", "validation_cost", "cost", "train_error"});
  goal_ = new QComboBox(this);
  goal_->setObjectName("newSweep.goal");
  goal_->addItems({"minimize", "maximize"});
  metricRow->addWidget(metric_, 1);
  metricRow->addWidget(goal_);
  form->addRow(tr("Metric"), metricRow);

  auto* stopRow = new QHBoxLayout;
  hyperband_ = new QCheckBox(tr("stop bad trials early (hyperband)"), this);
  hyperband_->setObjectName("newSweep.hyperband");
  minIter_ = new QSpinBox(this);
  minIter_->setObjectName("newSweep.minIter");
  minIter_->setRange(1, 100000);
  eta_ = new QDoubleSpinBox(this);
  eta_->setObjectName("newSweep.eta");
  eta_->setRange(1.5, 100);
  eta_->setValue(3);
  stopRow->addWidget(hyperband_);
  // Bands count the metric's values, not epochs (Note [A sweep's metric by occurrence]).
  stopRow->addWidget(new QLabel(tr("first judged at the metric's value #"), this));
  stopRow->addWidget(minIter_);
  stopRow->addWidget(new QLabel(tr("eta"), this));
  stopRow->addWidget(eta_);
  stopRow->addStretch(1);
  form->addRow(tr("Early termination"), stopRow);

  file_ = new QLineEdit(this);
  file_->setObjectName("newSweep.file");
  const QFileInfo info(projectPath_);
  QString file = info.absoluteDir().filePath(info.completeBaseName() + "-sweep.json");
  for (int n = 2; QFileInfo::exists(file); ++n) {
    file = info.absoluteDir().filePath(
        QStringLiteral("%1-sweep-%2.json").arg(info.completeBaseName()).arg(n));
  }
  file_->setText(file);
  form->addRow(tr("Sweep file"), file_);
  layout->addLayout(form);

  summary_ = new QLabel(this);
  summary_->setObjectName("newSweep.summary");
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(summary_);

  auto* buttons = new QDialogButtonBox(this);
  save_ = buttons->addButton(tr("Save"), QDialogButtonBox::ApplyRole);
  save_->setObjectName("newSweep.save");
  run_ = buttons->addButton(tr("Save and Run"), QDialogButtonBox::AcceptRole);
  run_->setObjectName("newSweep.run");
  buttons->addButton(QDialogButtonBox::Cancel);
  layout->addWidget(buttons);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(save_, &QPushButton::clicked, this, [this] { save(); });
  connect(run_, &QPushButton::clicked, this, [this] {
    if (!save()) return;
    emit runRequested(sweepPath());
    accept();
  });

  fillKeys();
  // Checked as the user edits, a moment after the last change.
  auto* later = new QTimer(this);
  later->setSingleShot(true);
  later->setInterval(150);
  connect(later, &QTimer::timeout, this, &NewSweepDialog::recheck);
  const auto changed = [this, later] {
    if (!filling_) later->start();
  };
  connect(keys_, &QTableWidget::itemChanged, this, changed);
  connect(filter_, &QLineEdit::textChanged, this, &NewSweepDialog::applyFilter);
  connect(method_, &QComboBox::currentTextChanged, this, [this, changed](const QString& m) {
    // A finite default (0 runs until stopped, or until a trial reaches the target).
    if (m != "grid" && runCap_->value() == 0) runCap_->setValue(m == "random" ? 10 : 20);
    changed();
  });
  connect(runCap_, &QSpinBox::valueChanged, this, changed);
  connect(seed_, &QSpinBox::valueChanged, this, changed);
  connect(metric_, &QComboBox::currentTextChanged, this, changed);
  connect(goal_, &QComboBox::currentTextChanged, this, changed);
  connect(hyperband_, &QCheckBox::toggled, this, changed);
  connect(minIter_, &QSpinBox::valueChanged, this, changed);
  connect(eta_, &QDoubleSpinBox::valueChanged, this, changed);
  connect(file_, &QLineEdit::textChanged, this, changed);
  recheck();
}

void NewSweepDialog::fillKeys() {
  filling_ = true;
  QList<QPair<QString, QJsonValue>> keys;
  collectKeys(project_, QString(), keys);
  keys_->setRowCount(keys.size());
  for (int row = 0; row < keys.size(); ++row) {
    auto* key = new QTableWidgetItem(keys[row].first);
    key->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable | Qt::ItemIsSelectable);
    key->setCheckState(Qt::Unchecked);
    auto* now = new QTableWidgetItem(compact(keys[row].second));
    now->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    // The current value as the start of its values.
    auto* sweep = new QTableWidgetItem(compact(keys[row].second));
    keys_->setItem(row, kKey, key);
    keys_->setItem(row, kCurrent, now);
    keys_->setItem(row, kSweep, sweep);
  }
  keys_->resizeColumnsToContents();
  keys_->setColumnWidth(kCurrent, std::min(keys_->columnWidth(kCurrent), 220));
  filling_ = false;
}

void NewSweepDialog::applyFilter() {
  const QString text = filter_->text().trimmed();
  for (int row = 0; row < keys_->rowCount(); ++row) {
    const QTableWidgetItem* key = keys_->item(row, kKey);
    keys_->setRowHidden(row, !text.isEmpty() && key->checkState() != Qt::Checked &&
                                 !key->text().contains(text, Qt::CaseInsensitive));
  }
}

QStringList NewSweepDialog::keyPaths() const {
  QStringList paths;
  for (int row = 0; row < keys_->rowCount(); ++row) paths << keys_->item(row, kKey)->text();
  return paths;
}

void NewSweepDialog::setSwept(const QString& path, const QString& spec) {
  for (int row = 0; row < keys_->rowCount(); ++row) {
    if (keys_->item(row, kKey)->text() != path) continue;
    keys_->item(row, kSweep)->setText(spec);
    keys_->item(row, kKey)->setCheckState(Qt::Checked);
  }
}

QString NewSweepDialog::sweepPath() const {
  return QFileInfo(file_->text().trimmed()).absoluteFilePath();
}

QJsonObject NewSweepDialog::sweepDocument(QStringList* problems) const {
  QJsonObject parameters;
  for (int row = 0; row < keys_->rowCount(); ++row) {
    if (keys_->item(row, kKey)->checkState() != Qt::Checked) continue;
    const QString path = keys_->item(row, kKey)->text();
    QString error;
    const QJsonObject parameter = parameterFromText(keys_->item(row, kSweep)->text(), &error);
    if (parameter.isEmpty()) {
      if (problems) *problems << QStringLiteral("%1: %2").arg(path, error);
      continue;
    }
    parameters[path] = parameter;
  }
  const QFileInfo sweepFile(sweepPath());
  QJsonObject doc{{"format", 1},
                  {"name", sweepFile.completeBaseName()},
                  {"project", sweepFile.absoluteDir().relativeFilePath(projectPath_)},
                  {"method", method_->currentText()},
                  {"metric", QJsonObject{{"name", metric_->currentText().trimmed()},
                                         {"goal", goal_->currentText()}}},
                  {"parameters", parameters}};
  if (runCap_->value() > 0) doc["run_cap"] = runCap_->value();
  if (method_->currentText() != "grid") doc["seed"] = seed_->value();
  if (hyperband_->isChecked()) {
    doc["early_terminate"] =
        QJsonObject{{"type", "hyperband"}, {"min_iter", minIter_->value()}, {"eta", eta_->value()}};
  }
  return doc;
}

void NewSweepDialog::recheck() {
  QStringList problems;
  const QJsonObject doc = sweepDocument(&problems);
  if (doc.value("parameters").toObject().isEmpty() && problems.isEmpty()) {
    problems << tr("check at least one key to sweep");
  }
  check_ = {};
  if (problems.isEmpty() && checker_) {
    check_ = checker_(QJsonDocument(doc).toJson(QJsonDocument::Compact), sweepPath());
    problems = check_.problems;
  } else {
    check_.problems = problems;
  }
  run_->setEnabled(problems.isEmpty());
  save_->setEnabled(problems.isEmpty());
  if (!problems.isEmpty()) {
    QStringList lines;
    for (const QString& p : problems) lines << p.toHtmlEscaped();
    summary_->setText(
        QStringLiteral("<span style='color:#c0392b'>%1</span>").arg(lines.join("<br>")));
    return;
  }
  // The epochs of every trial (max_epoch may be swept); a sweep that makes its trials as it runs
  // without run_cap has no total. Each epoch weighs its samples against the base project's
  // (issue 35: a swept batch size or step count had been ignored).
  qint64 epochs = 0;
  double work = 0;  // in epochs of the base project
  bool workKnown = true;
  for (qsizetype i = 0; i < check_.trialEpochs.size(); ++i) {
    const double w = check_.trialWork.value(i, 1.0);
    workKnown = workKnown && std::isfinite(w);
    epochs += check_.trialEpochs[i];
    work += double(check_.trialEpochs[i]) * (std::isfinite(w) ? w : 1.0);
  }
  const bool everyTrialListed = check_.trials == qint64(check_.trialEpochs.size());
  if (!everyTrialListed && check_.trials > 0) {
    // Trials made as the sweep runs: as many more like the listed ones on average.
    const double perTrial = check_.trialEpochs.isEmpty() ? double(check_.maxEpoch)
                                                         : work / double(check_.trialEpochs.size());
    epochs = check_.trials * check_.maxEpoch;
    work = perTrial * double(check_.trials);
  }
  estimatedSeconds_ = secondsPerEpoch_ > 0 && check_.trials > 0 ? secondsPerEpoch_ * work : 0;
  QString text =
      check_.trials < 0 ? tr("<b>trials until stopped</b> (or until one reaches the target), up "
                             "to %1 epochs each")
                              .arg(check_.maxEpoch)
      : everyTrialListed && check_.trialEpochs.size() > 1 &&
              *std::min_element(check_.trialEpochs.begin(), check_.trialEpochs.end()) !=
                  check_.maxEpoch
          ? tr("<b>%1 trials</b>, %2 epochs in all (max_epoch is swept)")
                .arg(check_.trials)
                .arg(epochs)
          : tr("<b>%1 trials</b> of %2 epochs each").arg(check_.trials).arg(check_.maxEpoch);
  if (estimatedSeconds_ > 0) {
    text += tr(": about %1 one trial at a time (%2 s per epoch in %3")
                .arg(duration(estimatedSeconds_))
                .arg(secondsPerEpoch_, 0, 'g', 3)
                .arg(estimateSource_.toHtmlEscaped());
    if (std::abs(work - double(epochs)) > 1e-9 * double(epochs)) {
      text += tr(", scaled by each trial's samples per epoch");
    }
    text += QStringLiteral(")");
    // What the samples per epoch do not tell: the cost of a sample.
    QStringList changesAnEpoch;
    for (const QString& key : doc.value("parameters").toObject().keys()) {
      if (key.startsWith("model.") || key == "precision" || key.startsWith("trainer.")) {
        changesAnEpoch << key;
      }
    }
    if (!workKnown) {
      text +=
          tr("; some trials' samples per epoch are not known ahead (one pass over the data "
             "against a step count), counted as one of the project's epochs");
    }
    if (!changesAnEpoch.isEmpty()) {
      text += tr("; %1 change(s) the time a sample takes, so trials may take longer or shorter")
                  .arg(changesAnEpoch.join(", ").toHtmlEscaped());
    }
  } else if (check_.trials > 0) {
    text += tr(" (no finished run of the project to estimate the time from)");
  }
  if (!check_.bands.isEmpty()) {
    QStringList bands;
    for (qint64 b : check_.bands) bands << QString::number(b);
    text += tr("; hyperband judges at value(s) %1 of %2 (the metric's values in the order a "
               "trial logs them: epochs when it is validated every epoch) and may stop trials "
               "there, so it may take less")
                .arg(bands.join(", "), metric_->currentText().trimmed().toHtmlEscaped());
  }
  for (const QString& note : check_.notes)
    text += "<br>" + tr("Note: %1").arg(note.toHtmlEscaped());
  summary_->setText(text + ".");
}

bool NewSweepDialog::save() {
  recheck();
  if (!check_.problems.isEmpty()) return false;
  const QByteArray text = QJsonDocument(sweepDocument()).toJson(QJsonDocument::Indented);
  const QString path = sweepPath();
  QFile existing(path);
  if (existing.exists() && (!existing.open(QIODevice::ReadOnly) || existing.readAll() != text)) {
    summary_->setText(
        tr("<span style='color:#c0392b'>%1 exists with another sweep: give another file name"
           "</span>")
            .arg(QDir::toNativeSeparators(path).toHtmlEscaped()));
    return false;
  }
  QDir().mkpath(QFileInfo(path).absolutePath());
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size() || !file.commit()) {
    summary_->setText(tr("<span style='color:#c0392b'>cannot write %1: %2</span>")
                          .arg(QDir::toNativeSeparators(path).toHtmlEscaped(),
                               file.errorString().toHtmlEscaped()));
    return false;
  }
  return true;
}

}  // namespace tbench::gui
