#include "app/gui/history/RunHistoryPanel.h"

#include <QAction>
#include <QBrush>
#include <QDesktopServices>
#include <QDir>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QPalette>
#include <QPushButton>
#include <QSet>
#include <QStyle>
#include <QTableWidget>
#include <QTimer>
#include <QUrl>
#include <QVBoxLayout>
#include <algorithm>

#include "app/gui/history/RunLog.h"
#include "app/gui/history/RunStats.h"
#include "widgets/Palette.h"

namespace tbench::gui {
namespace {

enum Column {
  kOverlayColumn = 0,
  kRunColumn,
  kStatusColumn,
  kEpochColumn,
  kStepColumn,
  kFirstMetric
};

// Metrics worth a column when any run has them, in this order; other scalars follow
// alphabetically up to kMaxMetricColumns (names with a '/', such as QueueInput/queue_size, and
// the learning rate are diagnostics and stay in the tooltip).
const QStringList kPreferredMetrics = {"cost", "validation_error", "train_error",
                                       "validation_cost"};
constexpr int kMaxMetricColumns = 6;

QString cleanPath(const QString& path) { return QDir::cleanPath(QDir(path).absolutePath()); }

QString numberText(double value) { return QString::number(value, 'g', 4); }

QColor statusColor(RunStatus status, const QPalette& palette) {
  switch (status) {
    case RunStatus::Running:
      return ui::Palette::active();
    case RunStatus::Failed:
      return ui::Palette::error();
    case RunStatus::Stopped:
      return ui::Palette::warning();
    case RunStatus::Unknown:
      return palette.color(QPalette::Disabled, QPalette::Text);
    case RunStatus::Finished:
      break;
  }
  return palette.color(QPalette::Text);
}

QString runTooltip(const RunDirectoryInfo& run) {
  QStringList lines;
  lines << QDir::toNativeSeparators(run.dir);
  if (!run.command.isEmpty()) lines << run.command;
  for (auto it = run.lastScalars.begin(); it != run.lastScalars.end(); ++it) {
    lines << QStringLiteral("%1 = %2").arg(it.key(), numberText(it.value()));
  }
  for (const QString& problem : run.problems()) lines << QStringLiteral("\u26a0 ") + problem;
  return lines.join('\n');
}

QString checkpointsTooltip(const RunCheckpoints& checkpoints) {
  QStringList lines;
  if (!checkpoints.latest.file.isEmpty()) lines << "latest: " + checkpoints.latest.file;
  for (const auto& best : checkpoints.best) {
    lines << QStringLiteral("best %1 = %2: %3")
                 .arg(best.stat, numberText(best.value), best.checkpoint.file);
  }
  for (const auto& file : checkpoints.all) {
    if (!file.exists) {
      lines << file.file + (file.manual ? " (manual, missing)" : " (missing)");
    } else if (file.manual) {
      lines << file.file + " (manual)";
    }
  }
  if (!checkpoints.fromIndex && !checkpoints.all.isEmpty()) lines << "(no checkpoint index)";
  return lines.join('\n');
}

QTableWidgetItem* textItem(const QString& text, Qt::Alignment align = Qt::AlignLeft) {
  auto* item = new QTableWidgetItem(text);
  item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
  item->setTextAlignment(align | Qt::AlignVCenter);
  return item;
}

}  // namespace

RunHistoryPanel::RunHistoryPanel(QWidget* parent) : QWidget(parent) {
  auto* refreshButton = new QPushButton(tr("Refresh"), this);
  refreshButton->setObjectName("refreshButton");
  refreshButton->setToolTip(tr("Read the run folder again"));
  rootLabel_ = new QLabel(this);
  rootLabel_->setObjectName("runRootLabel");
  rootLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* top = new QHBoxLayout;
  top->addWidget(rootLabel_, 1);
  top->addWidget(refreshButton);

  table_ = new QTableWidget(this);
  table_->setObjectName("runTable");
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
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
  return row >= 0 && row < runs_.size() ? runs_.at(row).dir : QString();
}

void RunHistoryPanel::scheduleRefresh() {
  // Not restarted by later events: a run writing continuously still refreshes at this rate.
  if (!refreshTimer_->isActive()) refreshTimer_->start();
}

QString RunHistoryPanel::fileSignature(const QString& runDir) const {
  const QDir dir(runDir);
  QString signature = QString::number(QFileInfo(runDir).lastModified().toMSecsSinceEpoch());
  for (const char* name :
       {kLogFileName, kStatsFileName, RunCheckpoints::kIndexFileName, "project.json"}) {
    const QFileInfo info(dir.filePath(QLatin1String(name)));
    signature += QStringLiteral("|%1:%2").arg(
        QString::number(info.size()), QString::number(info.lastModified().toMSecsSinceEpoch()));
  }
  return signature;
}

void RunHistoryPanel::refresh() {
  refreshTimer_->stop();
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
        old->status != RunStatus::Running) {
      fresh.push_back(*old);
    } else {
      fresh.push_back(readRunDirectory(dir, now));
    }
    signatures.insert(dir, signature);
    if (dir == liveRun_) fresh.back().status = RunStatus::Running;
  }
  signatures_ = std::move(signatures);
  sortNewestFirst(fresh);
  runs_ = std::move(fresh);

  rebuildTable();
  updateWatchedPaths();
  const bool anyLive = std::any_of(runs_.begin(), runs_.end(), [](const RunDirectoryInfo& r) {
    return r.status == RunStatus::Running;
  });
  if (anyLive && !liveTimer_->isActive()) liveTimer_->start();
  if (!anyLive) liveTimer_->stop();
  onItemChanged(nullptr);  // a run that vanished leaves the overlay
}

QStringList RunHistoryPanel::metricColumns() const {
  QSet<QString> present;
  for (const auto& run : runs_) {
    for (auto it = run.lastScalars.keyBegin(); it != run.lastScalars.keyEnd(); ++it) {
      present.insert(*it);
    }
  }
  QStringList columns = kPreferredMetrics.mid(0, 2);  // always: cost, validation_error
  for (const QString& name : kPreferredMetrics.mid(2)) {
    if (present.contains(name)) columns << name;
  }
  QStringList others;
  for (const QString& name : present) {
    if (!columns.contains(name) && !name.contains('/') && name != "learning_rate") others << name;
  }
  others.sort();
  for (const QString& name : others) {
    if (columns.size() >= kMaxMetricColumns) break;
    columns << name;
  }
  return columns;
}

void RunHistoryPanel::rebuildTable() {
  const QStringList metrics = metricColumns();
  QStringList headers = {tr("Overlay"), tr("Run"), tr("Status"), tr("Epoch"), tr("Step")};
  headers << metrics << tr("Checkpoints") << tr("Started");
  QStringList shownHeaders;
  for (int c = 0; c < table_->columnCount(); ++c) {
    const QTableWidgetItem* header = table_->horizontalHeaderItem(c);
    shownHeaders << (header ? header->text() : QString());
  }
  // Fit the columns when they change, not on every refresh (that would undo the user's sizes).
  const bool columnsChanged = shownHeaders != headers || runs_.size() != table_->rowCount();

  QSet<QString> selectedRows;
  for (const QModelIndex& index : table_->selectionModel()->selectedRows()) {
    const QTableWidgetItem* item = table_->item(index.row(), kRunColumn);
    if (item) selectedRows.insert(item->data(Qt::UserRole).toString());
  }

  rebuilding_ = true;
  const QSet<QString> overlay(overlay_.begin(), overlay_.end());
  table_->clearSelection();
  table_->setColumnCount(headers.size());
  table_->setHorizontalHeaderLabels(headers);
  table_->setRowCount(runs_.size());
  const QIcon warning = style()->standardIcon(QStyle::SP_MessageBoxWarning);
  for (int row = 0; row < runs_.size(); ++row) {
    const RunDirectoryInfo& run = runs_.at(row);
    auto* check = new QTableWidgetItem;
    check->setFlags(Qt::ItemIsUserCheckable | Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    check->setCheckState(overlay.contains(run.dir) ? Qt::Checked : Qt::Unchecked);
    check->setToolTip(tr("Overlay this run's curves on the charts"));
    table_->setItem(row, kOverlayColumn, check);

    auto* id = textItem(run.runId);
    id->setData(Qt::UserRole, run.dir);
    id->setToolTip(runTooltip(run));
    if (!run.problems().isEmpty()) id->setIcon(warning);
    table_->setItem(row, kRunColumn, id);

    auto* status = textItem(toString(run.status));
    status->setForeground(statusColor(run.status, palette()));
    status->setToolTip(run.statusDetail);
    table_->setItem(row, kStatusColumn, status);

    QString epoch = run.lastEpoch >= 0 ? QString::number(run.lastEpoch) : QStringLiteral("\u2013");
    if (run.maxEpoch > 0) epoch += QStringLiteral(" / %1").arg(run.maxEpoch);
    table_->setItem(row, kEpochColumn, textItem(epoch, Qt::AlignRight));
    table_->setItem(row, kStepColumn,
                    textItem(run.lastGlobalStep >= 0 ? QString::number(run.lastGlobalStep)
                                                     : QStringLiteral("\u2013"),
                             Qt::AlignRight));
    for (int m = 0; m < metrics.size(); ++m) {
      const auto value = run.lastScalars.constFind(metrics.at(m));
      table_->setItem(row, kFirstMetric + m,
                      textItem(value != run.lastScalars.constEnd() ? numberText(*value) : QString(),
                               Qt::AlignRight));
    }
    const auto manual = std::count_if(run.checkpoints.all.begin(), run.checkpoints.all.end(),
                                      [](const CheckpointFile& f) { return f.manual && f.exists; });
    QString count = QString::number(run.checkpoints.existingCount());
    if (manual > 0) count += tr(" (%1 manual)").arg(manual);
    auto* checkpoints = textItem(count, Qt::AlignRight);
    checkpoints->setToolTip(checkpointsTooltip(run.checkpoints));
    table_->setItem(row, kFirstMetric + metrics.size(), checkpoints);
    table_->setItem(
        row, kFirstMetric + metrics.size() + 1,
        textItem(run.startTime.isValid() ? run.startTime.toString("yyyy-MM-dd HH:mm") : QString()));
    if (selectedRows.contains(run.dir)) table_->selectRow(row);
  }
  rebuilding_ = false;
  if (columnsChanged) table_->resizeColumnsToContents();

  const QString folder = QDir::toNativeSeparators(QDir(runRoot_).filePath(projectName_));
  if (runRoot_.isEmpty() || projectName_.isEmpty()) {
    rootLabel_->setText(tr("No project"));
  } else if (runs_.isEmpty()) {
    rootLabel_->setText(tr("No runs yet in %1").arg(folder));
  } else {
    const QString count = runs_.size() == 1 ? tr("1 run") : tr("%1 runs").arg(runs_.size());
    rootLabel_->setText(tr("%1 in %2").arg(count, folder));
  }
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
    if (run.status == RunStatus::Running && QFileInfo::exists(log)) files << log;
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
  if (rebuilding_ || (item && item->column() != kOverlayColumn)) return;
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
