#pragma once
// The cells of one Run History row (RunHistoryPanel.h lists the columns). Internal to the
// panel; split out of it to keep both files readable.

#include <QColor>
#include <QIcon>
#include <QMap>
#include <QPalette>
#include <QString>
#include <QStringList>

#include "app/gui/rundir/RunDirectoryInfo.h"

class QTableWidget;

namespace tbench::gui {

enum RunHistoryColumn {
  kOverlayColumn = 0,
  kRunColumn,
  kNotesColumn,
  kStatusColumn,
  kEpochColumn,
  kStepColumn,
  kFirstParameter  ///< then the parameters, Best, Duration, Strategy, Checkpoints, Started
};

/// Sort key of a cell (a number, a time); cells without one sort by their text.
inline constexpr int kSortRole = Qt::UserRole + 1;

/// What every row shares.
struct RowContext {
  QStringList parameters;      ///< the differing parameters with a column
  QStringList moreParameters;  ///< those without one (named in the Run cell's tooltip)
  QString metric;              ///< the watched metric
  bool higher = false;         ///< larger is better for it
  QColor colour;               ///< the run's colour
  bool overlaid = false;       ///< its overlay box is checked
  QIcon warning;               ///< marks a run with problems
  QPalette palette;
};

/// A parameter's column title: the path without its section ("learning_rate",
/// "lr_on_plateau.factor"), or the whole path when two would read the same.
QStringList parameterHeaders(const QStringList& paths);

/// Fills row `row` of `table` (its columns already set) with `run`; `values` is its flattened
/// project (RunComparison.h: flattenProject).
void fillRunRow(QTableWidget& table, int row, const RunDirectoryInfo& run,
                const QMap<QString, QString>& values, const RowContext& context);

}  // namespace tbench::gui
