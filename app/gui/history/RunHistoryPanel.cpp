#include "app/gui/history/RunHistoryPanel.h"

#include <QAction>
#include <QApplication>
#include <QBrush>
#include <QComboBox>
#include <QDesktopServices>
#include <QDir>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPalette>
#include <QPushButton>
#include <QRegularExpression>
#include <QSet>
#include <QStyle>
#include <QTableWidget>
#include <QTimer>
#include <QUrl>
#include <QVBoxLayout>
#include <algorithm>

#include "app/gui/rundir/RunAnnotations.h"
#include "app/gui/rundir/RunComparison.h"
#include "app/gui/history/RunHistoryRows.h"
#include "app/gui/rundir/RunLog.h"
#include "app/gui/rundir/RunStats.h"
#include "widgets/Palette.h"

namespace tbench::gui {
namespace {

// The differing hyper-parameters beyond this many are named in the Run cell's tooltip.
constexpr int kMaxParameterColumns = 8;

QString cleanPath(const QString& path) { return QDir::cleanPath(QDir(path).absolutePath()); }

}  // namespace

RunHistoryPanel::RunHistoryPanel(QWidget* parent) : QWidget(parent) {
  auto* refreshButton = new QPushButton(tr("Refresh"), this);
  refreshButton->setObjectName("refreshButton");
  refreshButton->setToolTip(tr("Read the run folder again"));
  rootLabel_ = new QLabel(this);
  rootLabel_->setObjectName("runRootLabel");
  rootLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  filter_ = new QLineEdit(this);
  filter_->setObjectName("runFilter");
  filter_->setPlaceholderText(tr("Filter runs"));
  filter_->setClearButtonEnabled(true);
  filter_->setToolTip(
      tr("Keeps the runs that contain every word typed, in any column: a label, a #tag, a "
         "status, a hyper-parameter's value"));
  metricBox_ = new QComboBox(this);
  metricBox_->setObjectName("watchedMetric");
  metricBox_->setToolTip(tr("The metric the Best column compares runs by"));
  metricBox_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  auto* top = new QHBoxLayout;
  top->addWidget(rootLabel_, 1);
  top->addWidget(filter_);
  top->addWidget(new QLabel(tr("Best of"), this));
  top->addWidget(metricBox_);
  top->addWidget(refreshButton);

  table_ = new QTableWidget(this);
  table_->setObjectName("runTable");
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  table_->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed |
                          QAbstractItemView::SelectedClicked);
  table_->horizontalHeader()->setSectionsClickable(true);
  table_->horizontalHeader()->setSortIndicatorShown(false);
  table_->setContextMenuPolicy(Qt::CustomContextMenu);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setAlternatingRowColors(true);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(top);
  layout->addWidget(table_);

  watcher_ = new QFileSystemWatcher(this);
  refreshTimer_ = new QTimer(this);
  refreshTimer_->setSingleShot(true);
  refreshTimer_->setInterval(kRefreshDelayMs);
  liveTimer_ = new QTimer(this);
  liveTimer_->setInterval(kLiveRefreshMs);

  connect(refreshButton, &QPushButton::clicked, this, &RunHistoryPanel::refresh);
  connect(watcher_, &QFileSystemWatcher::directoryChanged, this, &RunHistoryPanel::scheduleRefresh);
  connect(watcher_, &QFileSystemWatcher::fileChanged, this, &RunHistoryPanel::scheduleRefresh);
  connect(refreshTimer_, &QTimer::timeout, this, &RunHistoryPanel::refresh);
  connect(liveTimer_, &QTimer::timeout, this, &RunHistoryPanel::refresh);
  connect(table_, &QTableWidget::itemChanged, this, &RunHistoryPanel::onItemChanged);
  connect(table_, &QWidget::customContextMenuRequested, this, &RunHistoryPanel::showContextMenu);
  connect(table_->horizontalHeader(), &QHeaderView::sectionClicked, this,
          &RunHistoryPanel::onHeaderClicked);
  connect(filter_, &QLineEdit::textChanged, this, &RunHistoryPanel::applyFilter);
  connect(metricBox_, &QComboBox::activated, this, [this](int index) {
    setWatchedMetric(index == 0 ? QString() : metricBox_->itemData(index).toString());
  });
  rebuildTable();
}

void RunHistoryPanel::setRunRoot(const QString& runRoot, const QString& projectName) {
  runRoot_ = runRoot;
  projectName_ = projectName;
  signatures_.clear();
  runs_.clear();
  refresh();
}

void RunHistoryPanel::setLiveRun(const QString& runDir) {
  const QString clean = runDir.isEmpty() ? QString() : cleanPath(runDir);
  if (clean == liveRun_) return;
  liveRun_ = clean;
  refresh();
}

QStringList RunHistoryPanel::selectedRuns() const {
  QStringList dirs;
  for (int row = 0; row < table_->rowCount(); ++row) {
    const QTableWidgetItem* item = table_->item(row, kOverlayColumn);
    if (item && item->checkState() == Qt::Checked) dirs << runDirAt(row);
  }
  return dirs;
}

void RunHistoryPanel::setSelectedRuns(const QStringList& runDirs) {
  QSet<QString> wanted;
  for (const QString& dir : runDirs) wanted.insert(cleanPath(dir));
  rebuilding_ = true;
  for (int row = 0; row < table_->rowCount(); ++row) {
    if (QTableWidgetItem* item = table_->item(row, kOverlayColumn)) {
      item->setCheckState(wanted.contains(runDirAt(row)) ? Qt::Checked : Qt::Unchecked);
    }
  }
  rebuilding_ = false;
  onItemChanged(nullptr);
}

QString RunHistoryPanel::runDirAt(int row) const {
  const QTableWidgetItem* item =
      row >= 0 && row < table_->rowCount() ? table_->item(row, kRunColumn) : nullptr;
  return item ? item->data(Qt::UserRole).toString() : QString();
}

int RunHistoryPanel::rowOf(const QString& runDir) const {
  const QString clean = cleanPath(runDir);
  for (int row = 0; row < table_->rowCount(); ++row) {
    if (runDirAt(row) == clean) return row;
  }
  return -1;
}

const RunDirectoryInfo* RunHistoryPanel::runOf(const QString& runDir) const {
  const QString clean = cleanPath(runDir);
  for (const RunDirectoryInfo& run : runs_) {
    if (run.dir == clean) return &run;
  }
  return nullptr;
}

QColor RunHistoryPanel::runColour(const QString& runDir) const {
  const QString clean = cleanPath(runDir);
  for (int i = 0; i < runs_.size(); ++i) {
    if (runs_.at(i).dir == clean) return ui::Palette::categorical(int(runs_.size()) - 1 - i);
  }
  return ui::Palette::categorical(0);
}

QString RunHistoryPanel::runName(const QString& runDir) const {
  const RunDirectoryInfo* run = runOf(runDir);
  return run ? run->displayName() : QFileInfo(runDir).fileName();
}

void RunHistoryPanel::scheduleRefresh() {
  // Not restarted by later events: a run writing continuously still refreshes at this rate.
  if (!refreshTimer_->isActive()) refreshTimer_->start();
}

QString RunHistoryPanel::fileSignature(const QString& runDir) const {
  const QDir dir(runDir);
  QString signature = QString::number(QFileInfo(runDir).lastModified().toMSecsSinceEpoch());
  for (const char* name : {kLogFileName, kStatsFileName, RunCheckpoints::kIndexFileName,
                           "project.json", kRunStatusFileName, kAnnotationsFileName}) {
    const QFileInfo info(dir.filePath(QLatin1String(name)));
    signature += QStringLiteral("|%1:%2").arg(
        QString::number(info.size()), QString::number(info.lastModified().toMSecsSinceEpoch()));
  }
  return signature;
}

void RunHistoryPanel::refresh() {
  refreshTimer_->stop();
  // A rebuild would replace the cell being edited (and could move its editor to another run):
  // later, once the edit is over.
  // (A cell's editor is a child of the viewport that has the focus.)
  const QWidget* focus = QApplication::focusWidget();
  if (focus != nullptr && table_->viewport()->isAncestorOf(focus)) {
    refreshTimer_->start();
    return;
  }
  QHash<QString, RunDirectoryInfo> previous;
  for (const auto& run : runs_) previous.insert(run.dir, run);

  const QDateTime now = QDateTime::currentDateTime();
  QVector<RunDirectoryInfo> fresh;
  QHash<QString, QString> signatures;
  for (const QString& listed : listRunDirectories(runRoot_, projectName_)) {
    const QString dir = cleanPath(listed);
    const QString signature = fileSignature(dir);
    const auto old = previous.constFind(dir);
    // A run that looks live is re-read anyway: without a change it turns "unknown" in time.
    if (old != previous.constEnd() && signatures_.value(dir) == signature &&
        old->status != RunState::Running) {
      fresh.push_back(*old);
    } else {
      fresh.push_back(readRunDirectory(dir, now));
    }
    signatures.insert(dir, signature);
    if (dir == liveRun_) fresh.back().status = RunState::Running;
  }
  signatures_ = std::move(signatures);
  sortNewestFirst(fresh);
  runs_ = std::move(fresh);

  rebuildTable();
  updateWatchedPaths();
  const bool anyLive = std::any_of(runs_.begin(), runs_.end(), [](const RunDirectoryInfo& r) {
    return r.status == RunState::Running;
  });
  if (anyLive && !liveTimer_->isActive()) liveTimer_->start();
  if (!anyLive) liveTimer_->stop();
  onItemChanged(nullptr);  // a run that vanished leaves the overlay
}

void RunHistoryPanel::rebuildTable() {
  updateMetricChoices();
  const QString metric = watched_.isEmpty() ? defaultWatchedMetric(runs_) : watched_;
  const bool higher = higherIsBetter(metric, runs_);
  QVector<QMap<QString, QString>> projects;
  for (const auto& run : runs_) projects.append(flattenProject(run.project));
  QStringList parameters = differingParameters(projects);
  // The Strategy column says these (strategy × towers, the devices in its tooltip).
  parameters.removeAll(QStringLiteral("trainer.strategy"));
  parameters.removeAll(QStringLiteral("trainer.devices"));
  const QStringList moreParameters = parameters.mid(kMaxParameterColumns);
  parameters = parameters.mid(0, kMaxParameterColumns);

  QStringList headers = {tr("Overlay"), tr("Run"),   tr("Notes"),
                         tr("Status"),  tr("Epoch"), tr("Step")};
  headers << parameterHeaders(parameters);
  headers << (metric.isEmpty()
                  ? tr("Best")
                  : tr("Best %1 %2")
                        .arg(metric, higher ? QStringLiteral("\u2191") : QStringLiteral("\u2193")))
          << tr("Duration") << tr("Strategy") << tr("Checkpoints") << tr("Started");
  // Fit the columns when they change, not on every refresh (that would undo the user's sizes).
  const bool columnsChanged = columnHeaders() != headers || runs_.size() != table_->rowCount();

  QSet<QString> selectedRows;
  for (const QModelIndex& index : table_->selectionModel()->selectedRows()) {
    selectedRows.insert(runDirAt(index.row()));
  }

  rebuilding_ = true;
  const QSet<QString> overlay(overlay_.begin(), overlay_.end());
  table_->clearSelection();
  table_->setColumnCount(headers.size());
  table_->setHorizontalHeaderLabels(headers);
  for (int p = 0; p < parameters.size(); ++p) {
    table_->horizontalHeaderItem(kFirstParameter + p)->setToolTip(parameters.at(p));
  }
  table_->setRowCount(runs_.size());
  const QIcon warning = style()->standardIcon(QStyle::SP_MessageBoxWarning);
  for (int row = 0; row < runs_.size(); ++row) {
    RowContext context{parameters,
                       moreParameters,
                       metric,
                       higher,
                       runColour(runs_.at(row).dir),
                       overlay.contains(runs_.at(row).dir),
                       warning,
                       palette()};
    fillRunRow(*table_, row, runs_.at(row), projects.at(row), context);
  }
  applySort();
  for (int row = 0; row < table_->rowCount(); ++row) {
    if (selectedRows.contains(runDirAt(row))) table_->selectRow(row);
  }
  rebuilding_ = false;
  if (columnsChanged) table_->resizeColumnsToContents();
  applyFilter();

  QString appearance;
  for (const auto& run : runs_) {
    appearance += run.dir + '\t' + run.displayName() + '\t' + runColour(run.dir).name() + '\n';
  }
  if (appearance != appearance_) {
    appearance_ = appearance;
    emit runAppearanceChanged();
  }
}

QStringList RunHistoryPanel::columnHeaders() const {
  QStringList headers;
  for (int c = 0; c < table_->columnCount(); ++c) {
    const QTableWidgetItem* header = table_->horizontalHeaderItem(c);
    headers << (header ? header->text() : QString());
  }
  return headers;
}

void RunHistoryPanel::updateMetricChoices() {
  const QStringList metrics = comparableMetrics(runs_);
  const QString fallback = defaultWatchedMetric(runs_);
  const QSignalBlocker block(metricBox_);
  metricBox_->clear();
  metricBox_->addItem(fallback.isEmpty() ? tr("(no metric)") : fallback, QString());
  metricBox_->setItemData(0, tr("The default: a min/max saver's stat, else the validation error"),
                          Qt::ToolTipRole);
  for (const QString& metric : metrics) metricBox_->addItem(metric, metric);
  const int index = watched_.isEmpty() ? 0 : metricBox_->findData(watched_);
  if (index < 0) metricBox_->addItem(watched_, watched_);  // kept until a run has it again
  metricBox_->setCurrentIndex(index < 0 ? metricBox_->count() - 1 : index);
}

void RunHistoryPanel::setWatchedMetric(const QString& metric) {
  if (metric == watched_) return;
  watched_ = metric;
  rebuildTable();
}

void RunHistoryPanel::onHeaderClicked(int column) {
  if (column == kOverlayColumn) return;
  const QString header = table_->horizontalHeaderItem(column)->text();
  const Qt::SortOrder order = header == sortHeader_ && sortOrder_ == Qt::AscendingOrder
                                  ? Qt::DescendingOrder
                                  : Qt::AscendingOrder;
  sortByColumn(header, order);
}

void RunHistoryPanel::sortByColumn(const QString& header, Qt::SortOrder order) {
  const bool unsort = !columnHeaders().contains(header) && !header.startsWith(tr("Best"));
  sortHeader_ = unsort ? QString() : header;
  sortOrder_ = order;
  if (unsort) {  // back to newest first: the order rows are built in
    rebuildTable();
    return;
  }
  const bool wasRebuilding = rebuilding_;
  rebuilding_ = true;
  applySort();
  rebuilding_ = wasRebuilding;
  applyFilter();
}

void RunHistoryPanel::applySort() {
  // The Best column's title names its metric: it is found again after the metric changes.
  const QStringList headers = columnHeaders();
  int column = int(headers.indexOf(sortHeader_));
  for (int c = 0; column < 0 && sortHeader_.startsWith(tr("Best")) && c < headers.size(); ++c) {
    if (headers.at(c).startsWith(tr("Best"))) column = c;
  }
  QHeaderView* header = table_->horizontalHeader();
  if (column < 0) {  // rebuildTable fills the rows newest first
    header->setSortIndicatorShown(false);
    return;
  }
  header->setSortIndicatorShown(true);
  header->setSortIndicator(column, sortOrder_);
  table_->sortItems(column, sortOrder_);
}

void RunHistoryPanel::setFilterText(const QString& text) {
  filter_->setText(text);  // applies through textChanged
  applyFilter();
}

void RunHistoryPanel::applyFilter() {
  const QStringList words =
      filter_->text().split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts);
  for (int row = 0; row < table_->rowCount(); ++row) {
    QString haystack = QFileInfo(runDirAt(row)).fileName();
    for (int c = 0; c < table_->columnCount(); ++c) {
      if (const QTableWidgetItem* item = table_->item(row, c)) haystack += '\n' + item->text();
    }
    const bool keep = std::all_of(words.begin(), words.end(), [&](const QString& word) {
      return haystack.contains(word, Qt::CaseInsensitive);
    });
    table_->setRowHidden(row, !keep);
  }
  updateRootLabel();
}

int RunHistoryPanel::visibleRunCount() const {
  int count = 0;
  for (int row = 0; row < table_->rowCount(); ++row) count += table_->isRowHidden(row) ? 0 : 1;
  return count;
}

void RunHistoryPanel::updateRootLabel() {
  const QString folder = QDir::toNativeSeparators(QDir(runRoot_).filePath(projectName_));
  if (runRoot_.isEmpty() || projectName_.isEmpty()) {
    rootLabel_->setText(tr("No project"));
  } else if (runs_.isEmpty()) {
    rootLabel_->setText(tr("No runs yet in %1").arg(folder));
  } else {
    QString count = runs_.size() == 1 ? tr("1 run") : tr("%1 runs").arg(runs_.size());
    const int shown = visibleRunCount();
    if (shown < runs_.size()) count = tr("%1 of %2 runs shown").arg(shown).arg(runs_.size());
    rootLabel_->setText(tr("%1 in %2").arg(count, folder));
  }
}

bool RunHistoryPanel::annotate(const QString& runDir, const QString& label, const QString& notes,
                               QString* error) {
  QString why;
  const bool ok = writeRunAnnotations(runDir, label, notes, &why);
  if (!ok && error) *error = why;
  refresh();
  return ok;
}

void RunHistoryPanel::updateWatchedPaths() {
  QStringList wanted;
  const QString projectDir = QDir(runRoot_).filePath(projectName_);
  if (!runRoot_.isEmpty() && !projectName_.isEmpty()) {
    // Until the project has a run folder, watch the root to see it appear.
    if (QFileInfo(projectDir).isDir()) {
      wanted << cleanPath(projectDir);
    } else if (QFileInfo(runRoot_).isDir()) {
      wanted << cleanPath(runRoot_);
    }
  }
  QStringList files;
  for (const auto& run : runs_) {
    wanted << run.dir;
    // The stop or failure line is appended to log.log without any change to the directory.
    const QString log = QDir(run.dir).filePath(QLatin1String(kLogFileName));
    if (run.status == RunState::Running && QFileInfo::exists(log)) files << log;
  }
  const QStringList watchedDirs = watcher_->directories();
  const QStringList watchedFiles = watcher_->files();
  QStringList stale;
  for (const QString& path : watchedDirs) {
    if (!wanted.contains(path)) stale << path;
  }
  for (const QString& path : watchedFiles) {
    if (!files.contains(path)) stale << path;
  }
  if (!stale.isEmpty()) watcher_->removePaths(stale);
  QStringList added;
  for (const QString& path : wanted) {
    if (!watchedDirs.contains(path)) added << path;
  }
  for (const QString& path : files) {
    if (!watchedFiles.contains(path)) added << path;
  }
  if (!added.isEmpty()) watcher_->addPaths(added);
}

void RunHistoryPanel::onItemChanged(QTableWidgetItem* item) {
  if (rebuilding_) return;
  if (item && (item->column() == kRunColumn || item->column() == kNotesColumn)) {
    const QString dir = runDirAt(item->row());
    const RunDirectoryInfo* run = runOf(dir);
    if (!run) return;
    QString label = run->label, notes = run->notes;
    if (item->column() == kRunColumn) {
      // Typing the id back (or nothing) removes the label.
      label = item->text().trimmed() == run->runId ? QString() : item->text().trimmed();
    } else {
      notes = item->text();
    }
    if (label == run->label && notes == run->notes) return;
    // Deferred: the edit's item must outlive this slot, and refresh() rebuilds every item.
    QTimer::singleShot(0, this, [this, dir, label, notes] {
      QString error;
      if (!annotate(dir, label, notes, &error)) {
        QMessageBox::warning(this, tr("Run History"), tr("Cannot save the note: %1").arg(error));
      }
    });
    return;
  }
  if (item && item->column() != kOverlayColumn) return;
  const QStringList now = selectedRuns();
  if (now == overlay_) return;
  overlay_ = now;
  emit overlayChanged(overlay_);
}

QMenu* RunHistoryPanel::createContextMenu(int row, QWidget* parent) {
  const QString dir = runDirAt(row);
  if (dir.isEmpty()) return nullptr;
  auto* menu = new QMenu(parent);
  QAction* open = menu->addAction(tr("Open folder"));
  open->setObjectName("openFolderAction");
  connect(open, &QAction::triggered, this,
          [dir] { QDesktopServices::openUrl(QUrl::fromLocalFile(dir)); });
  const RunDirectoryInfo* run = runOf(dir);
  QAction* resume = menu->addAction(tr("Resume"));
  resume->setObjectName("resumeAction");
  const bool hasCheckpoint = run && !run->checkpoints.latest.file.isEmpty();
  const bool ended = run && run->status != RunState::Running;
  resume->setEnabled(hasCheckpoint && ended && run->status != RunState::Finished);
  resume->setToolTip(!hasCheckpoint ? tr("The run has no checkpoint to resume from")
                     : !ended       ? tr("The run is still running")
                     : run->status == RunState::Finished
                         ? tr("The run finished; clone it into a new project to train further")
                         : tr("Continue this run from %1").arg(run->checkpoints.latest.file));
  connect(resume, &QAction::triggered, this, [this, dir] { emit resumeRequested(dir); });
  QAction* clone = menu->addAction(tr("Clone into a new project"));
  clone->setObjectName("cloneAction");
  clone->setEnabled(run && !run->project.isEmpty());
  connect(clone, &QAction::triggered, this, [this, dir] { emit cloneRequested(dir); });
  menu->setToolTipsVisible(true);
  menu->addSeparator();
  QAction* exportAction = menu->addAction(tr("Export checkpoint\u2026"));
  exportAction->setObjectName("exportCheckpointAction");
  connect(exportAction, &QAction::triggered, this, [this, dir] { emit exportRequested(dir); });
  QAction* images = menu->addAction(tr("Show images"));
  images->setObjectName("showImagesAction");
  images->setEnabled(QFileInfo(QDir(dir).filePath("images")).isDir());
  connect(images, &QAction::triggered, this, [this, dir] { emit imagesRequested(dir); });
  QAction* confusion = menu->addAction(tr("Show confusion matrix"));
  confusion->setObjectName("showConfusionAction");
  confusion->setEnabled(QFileInfo(QDir(dir).filePath("confusion")).isDir());
  connect(confusion, &QAction::triggered, this, [this, dir] { emit confusionRequested(dir); });
  QAction* tryIt = menu->addAction(tr("Try it\u2026"));
  tryIt->setObjectName("tryItAction");
  connect(tryIt, &QAction::triggered, this, [this, dir] { emit tryItRequested(dir); });
  menu->addSeparator();

  // The overlay toggle applies to every selected row when the clicked row is one of them. Runs
  // are named by directory: a refresh may reorder the rows while the menu is open.
  QStringList dirs = {dir};
  const QModelIndexList selected = table_->selectionModel()->selectedRows();
  if (std::any_of(selected.begin(), selected.end(),
                  [row](const QModelIndex& index) { return index.row() == row; })) {
    dirs.clear();
    for (const QModelIndex& index : selected) dirs << runDirAt(index.row());
  }
  QAction* overlay = menu->addAction(dirs.size() > 1 ? tr("Overlay %1 runs").arg(dirs.size())
                                                     : tr("Overlay on the charts"));
  overlay->setObjectName("overlayAction");
  overlay->setCheckable(true);
  overlay->setChecked(selectedRuns().contains(dir));
  connect(overlay, &QAction::toggled, this, [this, dirs](bool on) {
    QStringList overlay = selectedRuns();
    for (const QString& d : dirs) {
      overlay.removeAll(d);
      if (on) overlay << d;
    }
    setSelectedRuns(overlay);
  });
  return menu;
}

void RunHistoryPanel::showContextMenu(const QPoint& pos) {
  const int row = table_->rowAt(pos.y());
  QMenu* menu = createContextMenu(row, this);
  if (!menu) return;
  menu->setAttribute(Qt::WA_DeleteOnClose);
  menu->popup(table_->viewport()->mapToGlobal(pos));
}

}  // namespace tbench::gui
