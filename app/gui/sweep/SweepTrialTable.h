#pragma once
// SweepTrialTable: a sweep's trials as a table ("sweep.table", the Sweeps tab's:
// app/gui/sweep/SweepPanel.h). One row per trial: its index, its state (pruned with the band
// that stopped it; failed and process-gone ones red, running ones highlighted, the reason in
// the tooltip), the metric's last value, the values it has and one column per parameter.
// Sortable by any column (by trial at first, then as the user sorts; numbers as numbers); one
// row selected at a time, and the selection follows its trial through fill(). GUI thread.

#include <QTableWidget>
#include <functional>

#include "app/bridge/RunDirectoryViews.h"

namespace tbench::gui {

class SweepTrialTable : public QTableWidget {
  Q_OBJECT

 public:
  explicit SweepTrialTable(QWidget* parent = nullptr);

  /// Shows `state`'s trials, keeping the selected trial selected.
  void fill(const bridge::SweepStateView& state);
  /// The index (SweepTrialView::index) of the trial in `row`, or -1.
  qint64 trialAt(int row) const;
  /// The index of the selected trial, or -1.
  qint64 selectedTrial() const;
  /// Hides the rows of the trials `keep` refuses (by index). `filtered`: the tooltip says how
  /// many rows are shown, in the chart's brushed ranges.
  void showOnly(const std::function<bool(qint64 trial)>& keep, bool filtered);

  /// A cell showing `text` that cannot be edited (also the importance table's).
  static QTableWidgetItem* readOnlyItem(const QString& text);

 private:
  bool sortedOnce_ = false;
};

}  // namespace tbench::gui
