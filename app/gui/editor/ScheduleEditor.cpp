#include "app/gui/editor/ScheduleEditor.h"

#include "app/bridge/BridgeTypes.h"

#include <qcustomplot.h>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleValidator>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpressionValidator>
#include <QScopedValueRollback>
#include <QStyledItemDelegate>
#include <QTableWidget>
#include <QVBoxLayout>
#include <set>

#include "app/gui/editor/FormSection.h"
#include "app/gui/editor/IssueMarkers.h"
#include "app/gui/editor/JsonText.h"
#include "widgets/LogAxisTicker.h"
#include "widgets/Palette.h"

namespace tbench::gui {

namespace {

const QString kPointsPath = QStringLiteral("schedule.learning_rate.points");

/// A schedule of one point [0, rate]. Built with append: `QJsonArray{QJsonArray{0, rate}}` is
/// [[0, rate]] with g++ and [0, rate] with clang (a braced list of one element of the class's
/// own type: copied, or an initializer list).
QJsonArray onePoint(double rate) {
  QJsonArray points;
  points.append(QJsonArray{0, rate});
  return points;
}

const QString kShapePath = QStringLiteral("schedule.learning_rate.shape");

// Cells take what a point may hold: a whole step in column 0, a number in column 1.
class PointDelegate : public QStyledItemDelegate {
 public:
  using QStyledItemDelegate::QStyledItemDelegate;
  QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem&,
                        const QModelIndex& index) const override {
    auto* edit = new QLineEdit(parent);
    if (index.column() == 0) {
      edit->setValidator(
          new QRegularExpressionValidator(QRegularExpression(QStringLiteral("\\d{1,18}")), edit));
    } else {
      auto* validator = new QDoubleValidator(edit);
      validator->setBottom(0.0);
      validator->setNotation(QDoubleValidator::ScientificNotation);
      validator->setLocale(QLocale::c());
      edit->setValidator(validator);
    }
    return edit;
  }
};

QString cellText(const QJsonValue& value) {
  if (value.toVariant().typeId() == QMetaType::LongLong) return QString::number(value.toInteger());
  if (value.isDouble()) return formatNumber(value.toDouble());
  return value.isString() ? value.toString() : value.toVariant().toString();
}

QJsonValue cellValue(const QTableWidgetItem* item, bool integer) {
  const QString text = item != nullptr ? item->text().trimmed() : QString();
  bool ok = false;
  if (integer) {
    const qint64 at = text.toLongLong(&ok);
    if (ok) return at;
  } else {
    const double value = QLocale::c().toDouble(text, &ok);
    if (ok) return value;
  }
  return text;  // kept as typed: the validation says what is wrong with it
}

}  // namespace

ScheduleEditor::ScheduleEditor(IssueMarkers* markers, QWidget* parent)
    : ProjectSection(tr("Learning-rate schedule"), parent) {
  auto* layout = new QVBoxLayout(this);
  enabled_ = new QCheckBox(tr("Follow a schedule"), this);
  enabled_->setObjectName("schedule");
  enabled_->setToolTip(schema::help("schedule"));
  layout->addWidget(enabled_);
  QLabel* enabledIssue = IssueMarkers::makeLabel(enabled_->objectName(), this);
  layout->addWidget(enabledIssue);
  markers->setField(enabled_, "schedule", enabledIssue, false);

  auto* shapeRow = new QFormLayout;
  shape_ = new QComboBox(this);
  shape_->setObjectName(kShapePath);
  shape_->addItem(tr("Points (a list)"), "points");
  shape_->addItem(tr("Cosine annealing"), "cosine");
  shape_->addItem(tr("Linear warm-up, then cosine"), "warmup_cosine");
  shape_->addItem(tr("One cycle"), "one_cycle");
  shape_->setToolTip(schema::help(kShapePath));
  shapeRow->addRow(tr("Shape"), shape_);
  layout->addLayout(shapeRow);
  connect(shape_, QOverload<int>::of(&QComboBox::activated), this,
          [this](int index) { chooseShape(shape_->itemData(index).toString()); });

  options_ = new FormSection(QString(), "schedule.learning_rate", markers, this);
  options_->addChoice("unit", tr("Unit"), {"epoch", "step"}, "epoch");
  layout->addWidget(options_);
  connect(options_, &ProjectSection::edited, this, &ProjectSection::edited);
  interpolation_ = new FormSection(QString(), "schedule.learning_rate", markers, this);
  interpolation_->addChoice("interpolation", tr("Interpolation"), {"piecewise", "linear"},
                            "piecewise");
  layout->addWidget(interpolation_);
  connect(interpolation_, &ProjectSection::edited, this, &ProjectSection::edited);

  named_ = new FormSection(QString(), "schedule.learning_rate", markers, this);
  named_->setObjectName("schedule.learning_rate.named");
  named_->addInteger("length", tr("Length (0: the whole run)"), 0, 1 << 30, 0);
  named_->addInteger("warmup", tr("Warm-up"), 0, 1 << 30, 0);
  named_->addNumber("min_learning_rate", tr("Final learning rate"), 0.0);
  input::Bounds fraction;
  fraction.minimum = 0;
  fraction.minimumInclusive = false;
  fraction.maximum = 1;
  fraction.maximumInclusive = false;
  named_->addNumber("pct_start", tr("Rising part (one cycle)"), 0.3, fraction);
  input::Bounds positive;
  positive.minimum = 0;
  positive.minimumInclusive = false;
  named_->addNumber("div_factor", tr("Start divisor (one cycle)"), 25, positive);
  named_->addNumber("final_div_factor", tr("Final divisor (one cycle)"), 1e4, positive);
  layout->addWidget(named_);
  connect(named_, &ProjectSection::edited, this, &ProjectSection::edited);

  points_ = new QTableWidget(0, 2, this);
  points_->setObjectName(kPointsPath);
  points_->setToolTip(schema::help(kPointsPath));
  points_->setItemDelegate(new PointDelegate(points_));
  points_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  points_->verticalHeader()->hide();
  points_->setSelectionBehavior(QAbstractItemView::SelectRows);
  points_->setMinimumHeight(110);
  points_->setMaximumHeight(160);
  layout->addWidget(points_);
  QLabel* pointsIssue = IssueMarkers::makeLabel(kPointsPath, this);
  layout->addWidget(pointsIssue);
  markers->setField(points_, kPointsPath, pointsIssue, true, tr("point"));
  connect(points_, &QTableWidget::itemChanged, this, [this] {
    if (!loading_) emitPoints(tablePoints());
  });

  auto* buttons = new QHBoxLayout;
  add_ = new QPushButton(tr("Add point"), this);
  add_->setObjectName(kPointsPath + ".add");
  remove_ = new QPushButton(tr("Remove point"), this);
  remove_->setObjectName(kPointsPath + ".remove");
  buttons->addWidget(add_);
  buttons->addWidget(remove_);
  buttons->addStretch();
  layout->addLayout(buttons);
  connect(add_, &QPushButton::clicked, this, &ScheduleEditor::addPoint);
  connect(remove_, &QPushButton::clicked, this, &ScheduleEditor::removeSelectedPoints);

  preview_ = new QCustomPlot(this);
  preview_->setObjectName("schedule.preview");
  preview_->setMinimumHeight(180);
  preview_->addGraph();
  preview_->graph(0)->setPen(QPen(ui::Palette::categorical(0), 2));
  preview_->graph(0)->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 5));
  preview_->xAxis->setLabel(tr("global step"));
  preview_->yAxis->setLabel(tr("learning rate"));
  ui::setValueScale(*preview_->yAxis, true);
  layout->addWidget(preview_);
  previewNote_ = new QLabel(this);
  previewNote_->setObjectName("schedule.preview.note");
  previewNote_->setStyleSheet(ui::Palette::mutedText());
  layout->addWidget(previewNote_);
  // Note [One rule for a hyper-parameter] (engine/callbacks/HyperParamSetter.h), in words.
  auto* rule = new QLabel(
      tr("A point (E, rate) at an epoch applies after epoch E, from epoch E+1 (E = 0: from the "
         "start), as in tensorpack; a point at a step applies from that global step. A named "
         "shape scales the optimizer's learning rate over its length, as PyTorch's "
         "CosineAnnealingLR and OneCycleLR stepped once per epoch or step. The schedule sets "
         "the rate only where its value changes: a plateau reduction or a live edit (F8) holds "
         "until its next change, also after a resume."),
      this);
  rule->setObjectName("schedule.rule");
  rule->setWordWrap(true);
  rule->setStyleSheet(ui::Palette::mutedText());
  layout->addWidget(rule);
  setCurve({});

  connect(enabled_, &QCheckBox::toggled, this, &ScheduleEditor::toggle);
}

void ScheduleEditor::load(const QJsonObject& root) {
  root_ = root;
  const bool on = root.contains("schedule");
  {
    const QSignalBlocker block(enabled_);
    enabled_->setChecked(on);
  }
  options_->load(root);
  interpolation_->load(root);
  named_->load(root);
  const QJsonObject learningRate = valueAt(root, "schedule.learning_rate").toObject();
  const QString shape = learningRate.value("shape").toString("points");
  {
    const QSignalBlocker block(shape_);
    const int index = shape_->findData(shape);
    shape_->setCurrentIndex(index >= 0 ? index : 0);
  }
  const bool points = shape == QLatin1String("points");
  for (QWidget* part : std::initializer_list<QWidget*>{shape_, options_, interpolation_, named_,
                                                       points_, add_, remove_}) {
    part->setEnabled(on);
  }
  for (QWidget* part : std::initializer_list<QWidget*>{interpolation_, points_, add_, remove_}) {
    part->setVisible(points);
  }
  named_->setVisible(!points);
  const bool steps = learningRate.value("unit").toString() == QLatin1String("step");
  points_->setHorizontalHeaderLabels({steps ? tr("Step") : tr("Epoch"), tr("Learning rate")});
  showPoints(learningRate.value("points").toArray());
  const bool linear =
      !points || learningRate.value("interpolation").toString() == QLatin1String("linear");
  preview_->graph(0)->setLineStyle(linear ? QCPGraph::lsLine : QCPGraph::lsStepLeft);
}

void ScheduleEditor::showPoints(const QJsonArray& points) {
  if (tablePoints() == points) return;  // leave the cell the user is in alone
  const QScopedValueRollback<bool> guard(loading_, true);
  points_->setRowCount(points.size());
  for (int row = 0; row < points.size(); ++row) {
    const QJsonArray point = points.at(row).toArray();
    for (int column = 0; column < 2; ++column) {
      const QJsonValue value = points.at(row).isArray() ? point.at(column) : points.at(row);
      points_->setItem(
          row, column,
          new QTableWidgetItem(column == 0 || point.size() > column ? cellText(value) : QString()));
    }
  }
}

QJsonArray ScheduleEditor::tablePoints() const {
  QJsonArray points;
  for (int row = 0; row < points_->rowCount(); ++row) {
    points.append(QJsonArray{cellValue(points_->item(row, 0), true),
                             cellValue(points_->item(row, 1), false)});
  }
  return points;
}

void ScheduleEditor::emitPoints(const QJsonArray& points) { emit edited({{kPointsPath, points}}); }

void ScheduleEditor::addPoint() {
  QJsonArray points = tablePoints();
  const QJsonArray last = points.isEmpty() ? QJsonArray() : points.last().toArray();
  if (last.isEmpty()) {
    points.append(QJsonArray{0, firstPointRate()});
  } else {
    points.append(QJsonArray{last.at(0).toInteger() + 1, last.at(1).toDouble() / 10});
  }
  emitPoints(points);
}

void ScheduleEditor::removeSelectedPoints() {
  QJsonArray points = tablePoints();
  if (points.isEmpty()) return;
  std::set<int> rows;
  for (const QModelIndex& index : points_->selectionModel()->selectedIndexes()) {
    rows.insert(index.row());
  }
  if (rows.empty()) rows.insert(points.size() - 1);
  for (auto row = rows.rbegin(); row != rows.rend(); ++row) points.removeAt(*row);
  points_->clearSelection();
  emitPoints(points);
}

void ScheduleEditor::toggle(bool on) {
  if (!on) {
    removedSchedule_ = root_.value("schedule").toObject();
    emit edited({removal("schedule")});
    return;
  }
  QJsonObject schedule = removedSchedule_;
  if (schedule.isEmpty()) {
    schedule.insert(bridge::kLearningRate, QJsonObject{{"points", onePoint(firstPointRate())}});
  }
  emit edited({{"schedule", schedule}});
}

void ScheduleEditor::chooseShape(const QString& shape) {
  const QString base = QStringLiteral("schedule.learning_rate.");
  if (shape == QLatin1String("points")) {
    JsonEdits edits{removal(kShapePath)};
    if (valueAt(root_, kPointsPath).toArray().isEmpty()) {
      edits.append({kPointsPath, onePoint(firstPointRate())});
    }
    emit edited(edits);
    return;
  }
  // A named shape is computed from optimizer.learning_rate: points would be refused.
  emit edited({{kShapePath, shape}, removal(kPointsPath), removal(base + "interpolation")});
}

double ScheduleEditor::firstPointRate() const {
  if (startingRate_ > 0) return startingRate_;
  return valueAt(root_, "optimizer.learning_rate").toDouble(0);
}

void ScheduleEditor::setCurve(const QVector<QPointF>& points) {
  if (!points.isEmpty()) startingRate_ = points.first().y();
  QVector<double> steps, rates;
  for (const QPointF& point : points) {
    steps.append(point.x());
    rates.append(point.y());
  }
  preview_->graph(0)->setData(steps, rates, true);
  previewNote_->setText(points.isEmpty() ? tr("No preview: the project is not valid yet.")
                                         : QString());
  previewNote_->setVisible(points.isEmpty());
  if (!points.isEmpty()) {
    preview_->rescaleAxes();
    // A constant rate or a single point gives an empty range: widen it around the value.
    const QCPRange y = preview_->yAxis->range();
    preview_->yAxis->setRange(y.lower / 2, y.upper * 2);
    const QCPRange x = preview_->xAxis->range();
    const double margin = x.size() > 0 ? x.size() * 0.03 : 1.0;  // the last point off the edge
    preview_->xAxis->setRange(x.lower - margin, x.upper + margin);
  }
  preview_->replot();
}

}  // namespace tbench::gui
