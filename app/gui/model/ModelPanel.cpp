#include "app/gui/model/ModelPanel.h"

#include "app/bridge/BridgeTypes.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QHash>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSet>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "app/gui/run/CliProcess.h"
#include "widgets/Palette.h"

namespace tbench::gui {
namespace {

enum Column { kName, kShape, kCount, kTraining, kGroup, kRate, kInit, kColumns };

QString shapeText(const QJsonArray& shape) {
  QStringList dims;
  for (const QJsonValue& d : shape) dims << QString::number(d.toInteger());
  return "[" + dims.join(", ") + "]";
}

QString countText(qint64 n) { return QLocale(QLocale::English).toString(n); }

/// The set of names in `array` (an init report's list; a mismatch is "name: ...").
QSet<QString> namesOf(const QJsonArray& array) {
  QSet<QString> names;
  for (const QJsonValue& v : array) names.insert(v.toString().section(':', 0, 0).trimmed());
  return names;
}

}  // namespace

ModelPanel::ModelPanel(QWidget* parent) : QWidget(parent), cli_(CliProcess::defaultCli()) {
  auto* layout = new QVBoxLayout(this);
  auto* top = new QHBoxLayout;
  totals_ = new QLabel(tr("No model yet: save the project, then Refresh."), this);
  totals_->setObjectName("modelPanel.totals");
  totals_->setWordWrap(true);
  refresh_ = new QPushButton(tr("Refresh"), this);
  refresh_->setObjectName("modelPanel.refresh");
  refresh_->setToolTip(tr("Build the saved project's model again (towerbench-cli summary)"));
  top->addWidget(totals_, 1);
  top->addWidget(refresh_);
  layout->addLayout(top);
  note_ = new QLabel(this);
  note_->setObjectName("modelPanel.note");
  note_->setWordWrap(true);
  note_->setStyleSheet(ui::Palette::mutedText());
  note_->hide();
  layout->addWidget(note_);
  tree_ = new QTreeWidget(this);
  tree_->setObjectName("modelPanel.tree");
  tree_->setColumnCount(kColumns);
  tree_->setHeaderLabels(
      {tr("Name"), tr("Shape"), tr("Count"), tr("Training"), tr("Group"), tr("Rate"), tr("Init")});
  tree_->setUniformRowHeights(true);
  tree_->header()->setStretchLastSection(true);
  tree_->header()->setSectionResizeMode(kName, QHeaderView::Interactive);
  layout->addWidget(tree_, 1);
  connect(refresh_, &QPushButton::clicked, this, [this] { refresh(); });
}

ModelPanel::~ModelPanel() = default;

bool ModelPanel::isBusy() const { return process_ != nullptr && process_->isRunning(); }

void ModelPanel::setProject(const QString& path, bool modified) {
  // Another file, or this one just saved: the summary shown is stale.
  const bool saved = modified_ && !modified && path == project_;
  stale_ = stale_ || path != project_ || saved;
  project_ = path;
  modified_ = modified;
  note_->setVisible(modified_ && !project_.isEmpty());
  note_->setText(tr("The document has unsaved edits: this is the saved file's model."));
  if (stale_ && isVisible() && !project_.isEmpty()) refresh();
}

void ModelPanel::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (stale_ && !project_.isEmpty() && !isBusy()) refresh();
}

bool ModelPanel::refresh() {
  if (project_.isEmpty()) {
    totals_->setText(tr("No model yet: save the project, then Refresh."));
    return false;
  }
  if (isBusy()) return false;
  const QString problem = CliProcess::cliProblem(cli_);
  if (!problem.isEmpty()) {
    totals_->setText(problem);
    return false;
  }
  delete process_;
  process_ = new CliProcess(CliProcess::Lifetime::StopsWithWindow, this);
  output_.clear();
  connect(process_, &CliProcess::lines, this, [this](const QStringList& lines) {
    for (const QString& line : lines) output_ += line.toUtf8() + '\n';
  });
  connect(process_, &CliProcess::finished, this, &ModelPanel::finished);
  QString error;
  if (!process_->start(cli_, {"summary", project_, "--json"}, &error)) {
    totals_->setText(error);
    return false;
  }
  refresh_->setEnabled(false);
  totals_->setText(tr("Building the model of %1…").arg(QFileInfo(project_).fileName()));
  stale_ = false;
  return true;
}

void ModelPanel::finished(int exitStatus) {
  refresh_->setEnabled(true);
  // stdout and stderr arrive merged: the JSON document is the text from its first '{'.
  const int at = output_.indexOf("\n{");
  const QByteArray json = output_.startsWith('{') ? output_ : at >= 0 ? output_.mid(at + 1) : "";
  QJsonParseError error{};
  const QJsonDocument doc = QJsonDocument::fromJson(json, &error);
  if (exitStatus != 0 || !doc.isObject()) {
    tree_->clear();
    totals_->setText(tr("The model could not be built: %1")
                         .arg(QString::fromUtf8(output_).trimmed().section('\n', -3)));
    emit refreshed(false);
    return;
  }
  showSummary(doc.object());
  emit refreshed(true);
}

void ModelPanel::showSummary(const QJsonObject& summary) {
  tree_->clear();
  const QJsonObject init = summary.value("init").toObject();
  const QSet<QString> loaded = namesOf(init.value("loaded").toArray());
  const QSet<QString> mismatched = namesOf(init.value("shape_mismatch").toArray());
  const QSet<QString> missing = namesOf(init.value("missing").toArray());
  const QSet<QString> ignored = namesOf(init.value("ignored").toArray());
  const bool hasInit = !init.isEmpty();
  // "fc.weight: file [10, 1568] vs model [3, 1568]", by name: the tooltip of a kept tensor.
  QHash<QString, QString> mismatchText;
  for (const QJsonValue& v : init.value("shape_mismatch").toArray()) {
    mismatchText.insert(v.toString().section(':', 0, 0).trimmed(), v.toString());
  }
  // Modules as inner nodes ("layer1.0.conv1"), tensors as leaves, in the model's order.
  QHash<QString, QTreeWidgetItem*> modules;
  auto parentOf = [&](const QString& name) -> QTreeWidgetItem* {
    const int dot = name.lastIndexOf('.');
    if (dot < 0) return nullptr;
    QTreeWidgetItem* last = nullptr;
    QString prefix;
    for (const QString& part : name.left(dot).split('.')) {
      prefix = prefix.isEmpty() ? part : prefix + '.' + part;
      QTreeWidgetItem*& node = modules[prefix];
      if (node == nullptr) {
        node = last ? new QTreeWidgetItem(last, {part}) : new QTreeWidgetItem(tree_, {part});
      }
      last = node;
    }
    return last;
  };
  auto addRow = [&](const QJsonObject& row, bool buffer) {
    const QString name = row.value("name").toString();
    QTreeWidgetItem* parent = parentOf(name);
    const QString leaf = name.section('.', -1);
    auto* item = parent ? new QTreeWidgetItem(parent) : new QTreeWidgetItem(tree_);
    item->setText(kName, leaf);
    item->setToolTip(kName, name);
    item->setData(kName, Qt::UserRole, name);
    item->setText(kShape, shapeText(row.value("shape").toArray()));
    item->setText(kCount, countText(row.value("count").toInteger()));
    item->setTextAlignment(kCount, Qt::AlignRight | Qt::AlignVCenter);
    if (buffer) {
      item->setText(kTraining, tr("buffer"));
    } else {
      const bool trains = row.value("trainable").toBool();
      item->setText(kTraining, trains ? tr("trainable") : tr("frozen"));
      if (!trains) {
        QFont bold = item->font(kTraining);
        bold.setBold(true);
        item->setFont(kTraining, bold);
      }
      if (row.contains("group")) {
        item->setText(kGroup, QString::number(row.value("group").toInt()));
        item->setText(kRate,
                      QLocale::c().toString(row.value(bridge::kLearningRate).toDouble(), 'g', 4));
      }
    }
    if (hasInit) {
      QString what = loaded.contains(name)       ? tr("loaded")
                     : mismatched.contains(name) ? tr("kept: shape differs")
                     : ignored.contains(name)    ? tr("ignored")
                     : missing.contains(name)    ? tr("not in the file")
                                                 : QString();
      item->setText(kInit, what);
      if (mismatched.contains(name) || missing.contains(name)) {
        item->setForeground(kInit, ui::Palette::warning());
        item->setToolTip(kInit, mismatchText.value(name, what));
      }
    }
  };
  for (const QJsonValue& v : summary.value("parameters").toArray()) addRow(v.toObject(), false);
  for (const QJsonValue& v : summary.value("buffers").toArray()) addRow(v.toObject(), true);
  tree_->expandAll();
  for (int c = 0; c < kColumns - 1; ++c) tree_->resizeColumnToContents(c);

  const QJsonObject totals = summary.value("totals").toObject();
  QString text =
      tr("%1: %2 parameters (%3 trainable, %4 frozen) in %5 tensors, %6 buffers, %7 "
         "optimizer group(s)")
          .arg(summary.value("model").toString(), countText(totals.value("parameters").toInteger()),
               countText(totals.value("trainable").toInteger()),
               countText(totals.value("frozen").toInteger()))
          .arg(totals.value("tensors").toInt())
          .arg(totals.value("buffers").toInt())
          .arg(totals.value("groups").toInt());
  if (hasInit) {
    text += tr("; init %1: %2 loaded, %3 kept (shape differs), %4 not in the file, %5 unused")
                .arg(QFileInfo(init.value("path").toString()).fileName())
                .arg(loaded.size())
                .arg(mismatched.size())
                .arg(missing.size())
                .arg(init.value("unexpected").toArray().size());
  }
  totals_->setText(text);
}

}  // namespace tbench::gui
