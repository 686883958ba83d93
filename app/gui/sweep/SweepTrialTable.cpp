#include "app/gui/sweep/SweepTrialTable.h"

#include <QHeaderView>
#include <cmath>

#include "app/gui/sweep/TrialValues.h"
#include "widgets/Palette.h"

namespace tbench::gui {
namespace {

/// A cell that sorts by its number (a missing one after every number), showing `text` when
/// there is no number.
class NumberItem : public QTableWidgetItem {
 public:
  NumberItem(double value, const QString& text) : value_(value) {
    setData(Qt::DisplayRole, std::isfinite(value) ? QVariant(value) : QVariant(text));
    if (!text.isEmpty() && std::isfinite(value)) setData(Qt::ToolTipRole, text);
    setFlags(flags() & ~Qt::ItemIsEditable);
  }
  bool operator<(const QTableWidgetItem& other) const override {
    const auto* o = dynamic_cast<const NumberItem*>(&other);
    if (o == nullptr) return QTableWidgetItem::operator<(other);
    const double a = std::isfinite(value_) ? value_ : HUGE_VAL;
    const double b = std::isfinite(o->value_) ? o->value_ : HUGE_VAL;
    return a < b;
  }

 private:
  double value_;
};

QTableWidgetItem* numberItem(double value, const QString& text) {
  return new NumberItem(value, text);
}

}  // namespace

SweepTrialTable::SweepTrialTable(QWidget* parent) : QTableWidget(parent) {
  setObjectName("sweep.table");
  setSelectionBehavior(QAbstractItemView::SelectRows);
  setSelectionMode(QAbstractItemView::SingleSelection);  // Run Next acts on one trial
  verticalHeader()->hide();
}

QTableWidgetItem* SweepTrialTable::readOnlyItem(const QString& text) {
  auto* item = new QTableWidgetItem(text);
  item->setFlags(item->flags() & ~Qt::ItemIsEditable);
  return item;
}

qint64 SweepTrialTable::trialAt(int row) const {
  const QTableWidgetItem* first = item(row, 0);
  return first ? first->data(Qt::DisplayRole).toLongLong() : -1;
}

qint64 SweepTrialTable::selectedTrial() const {
  const QList<QTableWidgetItem*> selected = selectedItems();
  return selected.isEmpty() ? -1 : trialAt(selected.front()->row());
}

void SweepTrialTable::fill(const bridge::SweepStateView& state) {
  // The selection follows its trial, wherever the refreshed values sort it.
  const qint64 selectedIndex = selectedTrial();
  setSortingEnabled(false);
  QStringList header = {tr("trial"), tr("state"),
                        state.metric.isEmpty() ? tr("(no metric)") : state.metric, tr("values")};
  header << state.parameters;
  setColumnCount(header.size());
  setHorizontalHeaderLabels(header);
  setRowCount(state.trials.size());
  for (int row = 0; row < state.trials.size(); ++row) {
    const auto& t = state.trials[row];
    setItem(row, 0, numberItem(static_cast<double>(t.index), {}));
    QString text = bridge::toString(t.state);
    // prunedAt counts the metric's values (a trial validated every 2 epochs and pruned at
    // its 3rd value stopped after epoch 6).
    if (t.state == bridge::TrialPhase::Pruned) text += tr(" at value %1").arg(t.prunedAt);
    if (t.processGone) text = tr("running? process gone");
    auto* stateItem = readOnlyItem(text);
    if (!t.detail.isEmpty()) stateItem->setToolTip(t.detail);
    if (t.processGone) {
      stateItem->setToolTip(
          tr("Recorded running, but its process has ended without the queue "
             "recording how: running the sweep again records its end and "
             "goes on with the pending trials."));
    }
    if (t.state == bridge::TrialPhase::Failed || t.processGone) {
      stateItem->setForeground(ui::Palette::error());
    } else if (t.state == bridge::TrialPhase::Running) {
      stateItem->setForeground(ui::Palette::active());
    }
    setItem(row, 1, stateItem);
    const double metric = lastMetric(t);
    setItem(row, 2, numberItem(metric, std::isfinite(metric) ? QString() : "-"));
    setItem(row, 3, numberItem(static_cast<double>(t.metric.size()), {}));
    for (int p = 0; p < state.parameters.size(); ++p) {
      const QJsonValue v = t.values.value(state.parameters[p]);
      setItem(row, 4 + p,
              v.isDouble() ? numberItem(v.toDouble(), trialValueText(v))
                           : readOnlyItem(trialValueText(v)));
    }
  }
  setSortingEnabled(true);
  if (!sortedOnce_) {  // by trial at first; then as the user sorts
    sortByColumn(0, Qt::AscendingOrder);
    sortedOnce_ = true;
  }
  resizeColumnsToContents();
  if (selectedIndex >= 0) {
    const QSignalBlocker quiet(this);
    for (int row = 0; row < rowCount(); ++row) {
      if (trialAt(row) == selectedIndex) selectRow(row);
    }
  }
}

void SweepTrialTable::showOnly(const std::function<bool(qint64 trial)>& keep, bool filtered) {
  int shown = 0;
  for (int row = 0; row < rowCount(); ++row) {
    const bool kept = keep(trialAt(row));
    setRowHidden(row, !kept);
    shown += kept ? 1 : 0;
  }
  setToolTip(!filtered ? QString()
                       : tr("%1 of %2 trials in the chart's brushed ranges (double-click the "
                            "chart to show all)")
                             .arg(shown)
                             .arg(rowCount()));
}

}  // namespace tbench::gui
