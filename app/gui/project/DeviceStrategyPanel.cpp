#include "app/gui/project/DeviceStrategyPanel.h"
#include "app/bridge/ProjectViews.h"
#include "widgets/Palette.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QJsonArray>
#include <QLabel>
#include <QListWidget>
#include <QSpinBox>
#include <QVBoxLayout>

namespace tbench::gui {
QString DeviceStrategyPanel::describe(const QString& s) const {
  const bridge::ComponentTypeView* type = strategies_.type(s);
  return type != nullptr ? type->summary + QLatin1Char('.') : tr("Unknown strategy.");
}

QJsonValue DeviceStrategyPanel::defaultOf(const QString& key) const {
  for (const bridge::ComponentTypeView& type : strategies_.types) {
    for (const bridge::KeyView& k : strategies_.keysOf(type.name)) {
      if (k.name == key) return k.fallback;
    }
  }
  return {};
}

bool DeviceStrategyPanel::hasKey(const QString& s, const QString& key) const {
  for (const bridge::KeyView& k : strategies_.keysOf(s)) {
    if (k.name == key) return true;
  }
  return false;
}

DeviceStrategyPanel::DeviceStrategyPanel(bridge::DeviceEntries devices, const QString& note,
                                         bridge::ComponentKindView strategies, QWidget* parent)
    : QWidget(parent), devices_(std::move(devices)), strategies_(std::move(strategies)) {
  setObjectName("deviceStrategyPanel");
  auto* layout = new QVBoxLayout(this);

  deviceList_ = new QListWidget(this);
  deviceList_->setObjectName("deviceList");
  deviceList_->setMaximumHeight(90);
  layout->addWidget(new QLabel(tr("<b>Devices found</b>"), this));
  layout->addWidget(deviceList_);
  auto* noteLabel = new QLabel(note, this);
  noteLabel->setObjectName("deviceNote");
  noteLabel->setWordWrap(true);
  noteLabel->setVisible(!note.isEmpty());
  layout->addWidget(noteLabel);

  auto* form = new QFormLayout;
  cpuTowers_ = new QSpinBox(this);
  cpuTowers_->setObjectName("cpuTowers");
  cpuTowers_->setRange(0, 64);
  cpuTowers_->setToolTip(
      tr("Towers on the CPU (\"cpu\" listed this many times). Several CPU "
         "towers share the cores."));
  form->addRow(tr("CPU towers:"), cpuTowers_);

  strategy_ = new QComboBox(this);
  strategy_->setObjectName("strategyCombo");
  for (const bridge::ComponentTypeView& type : strategies_.types) {
    strategy_->addItem(type.name, type.name);
    strategy_->setItemData(strategy_->count() - 1, type.summary, Qt::ToolTipRole);
  }
  form->addRow(tr("Strategy:"), strategy_);
  strategyHelp_ = new QLabel(this);
  strategyHelp_->setObjectName("strategyHelp");
  strategyHelp_->setWordWrap(true);
  form->addRow(QString(), strategyHelp_);

  queueSize_ = new QSpinBox(this);
  queueSize_->setObjectName("queueSize");
  queueSize_->setRange(1, 10000);
  queueSize_->setToolTip(tr("Capacity of the batch queue (all strategies but Simple)."));
  form->addRow(tr("Queue size:"), queueSize_);
  psDevice_ = new QComboBox(this);
  psDevice_->setObjectName("psDevice");
  for (const auto& d : devices_) psDevice_->addItem(d.id, d.id);
  psDevice_->setToolTip(tr("Where the master copy of the parameters lives."));
  form->addRow(tr("Parameter server:"), psDevice_);
  average_ = new QCheckBox(tr("Average gradients (else sum)"), this);
  average_->setObjectName("averageGradients");
  form->addRow(QString(), average_);
  localProcesses_ = new QSpinBox(this);
  localProcesses_->setObjectName("localProcesses");
  localProcesses_->setRange(1, 256);
  localProcesses_->setToolTip(
      tr("Processes Start launches on this machine, one rank each (towerbench-cli launch "
         "--nproc-per-node N). On a cluster, start the project with torchrun or SLURM."));
  form->addRow(tr("Processes:"), localProcesses_);
  checkReplicas_ = new QCheckBox(tr("Verify replicas are equal every epoch"), this);
  checkReplicas_->setObjectName("checkReplicas");
  form->addRow(QString(), checkReplicas_);
  layout->addLayout(form);

  totalBatch_ = new QLabel(this);
  totalBatch_->setObjectName("totalBatchLabel");
  totalBatch_->setWordWrap(true);
  layout->addWidget(totalBatch_);
  layout->addStretch(1);

  connect(cpuTowers_, &QSpinBox::valueChanged, this, &DeviceStrategyPanel::userEdited);
  connect(strategy_, &QComboBox::currentIndexChanged, this, &DeviceStrategyPanel::userEdited);
  connect(queueSize_, &QSpinBox::valueChanged, this, &DeviceStrategyPanel::userEdited);
  connect(psDevice_, &QComboBox::currentIndexChanged, this, &DeviceStrategyPanel::userEdited);
  connect(average_, &QCheckBox::toggled, this, &DeviceStrategyPanel::userEdited);
  connect(checkReplicas_, &QCheckBox::toggled, this, &DeviceStrategyPanel::userEdited);
  connect(localProcesses_, &QSpinBox::valueChanged, this, &DeviceStrategyPanel::userEdited);
  connect(deviceList_, &QListWidget::itemChanged, this, &DeviceStrategyPanel::userEdited);
  setTrainer({});  // the window sets the project's trainer and its analysis
}

void DeviceStrategyPanel::setSummary(const bridge::ProjectSummaryView& summary) {
  summary_ = summary;
  updateDerived();
}

void DeviceStrategyPanel::setTrainer(const QJsonObject& trainer) {
  loading_ = true;
  trainer_ = trainer;
  QStringList wanted;
  for (const auto& v : trainer.value("devices").toArray({QString("cpu")})) wanted << v.toString();

  deviceList_->clear();
  missing_.clear();
  for (const auto& d : devices_) {
    auto* item =
        new QListWidgetItem(d.name + (d.detail.isEmpty() ? "" : " — " + d.detail), deviceList_);
    item->setData(Qt::UserRole, d.id);
    item->setToolTip(d.id);
    if (d.id == "cpu") {
      item->setFlags(item->flags() & ~Qt::ItemIsUserCheckable);
    } else {
      item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
      item->setCheckState(wanted.contains(d.id) ? Qt::Checked : Qt::Unchecked);
    }
  }
  for (const QString& id : wanted) {
    if (id == "cpu") continue;
    bool found = false;
    for (const auto& d : devices_) found = found || d.id == id;
    if (found || missing_.contains(id)) continue;
    missing_ << id;
    auto* item = new QListWidgetItem(tr("%1 — not on this machine (kept in the project)").arg(id),
                                     deviceList_);
    item->setData(Qt::UserRole, id);
    item->setForeground(ui::Palette::error());
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(Qt::Checked);
  }
  cpuTowers_->setValue(int(wanted.count("cpu")));
  const QString strategy = trainer.value("strategy").toString(strategies_.defaultType);
  int index = strategy_->findData(strategy);
  if (index < 0) {
    strategy_->addItem(strategy, strategy);
    index = strategy_->count() - 1;
  }
  strategy_->setCurrentIndex(index);
  queueSize_->setValue(trainer.value("queue_size").toInt(defaultOf("queue_size").toInt(1)));
  const QString ps = trainer.value("ps_device").toString(defaultOf("ps_device").toString("cpu"));
  if (psDevice_->findData(ps) < 0) psDevice_->addItem(ps, ps);
  psDevice_->setCurrentIndex(psDevice_->findData(ps));
  average_->setChecked(trainer.value("average").toBool(defaultOf("average").toBool()));
  checkReplicas_->setChecked(
      trainer.value("check_replicas").toBool(defaultOf("check_replicas").toBool()));
  localProcesses_->setValue(
      trainer.value("local_processes").toInt(defaultOf("local_processes").toInt()));
  loading_ = false;
  updateDerived();
}

QStringList DeviceStrategyPanel::towerDevices() const {
  QStringList devices;
  for (int i = 0; i < cpuTowers_->value(); ++i) devices << "cpu";
  for (int row = 0; row < deviceList_->count(); ++row) {
    const QListWidgetItem* item = deviceList_->item(row);
    const QString id = item->data(Qt::UserRole).toString();
    if (id != "cpu" && item->checkState() == Qt::Checked) devices << id;
  }
  return devices;
}

QJsonObject DeviceStrategyPanel::trainer() const {
  QJsonObject t = trainer_;
  t["strategy"] = strategy_->currentData().toString();
  t["devices"] = QJsonArray::fromStringList(towerDevices());
  const QString s = strategy_->currentData().toString();
  auto setOrKeep = [&](const char* key, const QJsonValue& value, bool relevant) {
    if (relevant || t.contains(key)) t[key] = value;
  };
  setOrKeep("queue_size", queueSize_->value(), hasKey(s, "queue_size"));
  setOrKeep("ps_device", psDevice_->currentData().toString(), hasKey(s, "ps_device"));
  setOrKeep("average", average_->isChecked(), hasKey(s, "average"));
  setOrKeep("check_replicas", checkReplicas_->isChecked(), hasKey(s, "check_replicas"));
  setOrKeep("local_processes", localProcesses_->value(), hasKey(s, "local_processes"));
  return t;
}

QString DeviceStrategyPanel::totalBatchText() const { return totalBatch_->text(); }

void DeviceStrategyPanel::userEdited() {
  if (loading_) return;
  updateDerived();
  trainer_ = trainer();
  emit trainerChanged(trainer_);
}

void DeviceStrategyPanel::updateDerived() {
  const QString s = strategy_->currentData().toString();
  strategyHelp_->setText(describe(s));
  queueSize_->setEnabled(hasKey(s, "queue_size"));
  psDevice_->setEnabled(hasKey(s, "ps_device"));
  average_->setEnabled(hasKey(s, "average"));
  checkReplicas_->setEnabled(hasKey(s, "check_replicas"));
  localProcesses_->setEnabled(hasKey(s, "local_processes"));
  // A strategy of several processes reads "distributed: 2 local processes" in the picker.
  for (int i = 0; i < strategy_->count(); ++i) {
    const QString name = strategy_->itemData(i).toString();
    const bridge::ComponentTypeView* t = strategies_.type(name);
    const bool processes =
        t != nullptr && t->traits.value("processes").toString() == QLatin1String("many");
    strategy_->setItemText(
        i, processes ? tr("%1: %2 local processes").arg(name).arg(localProcesses_->value()) : name);
  }
  // The engine's count (ProjectAnalysis): the panel shows it, it does not multiply.
  const qint64 towers = towerDevices().size();
  const bridge::ProjectSummaryView& p = summary_;
  QString text;
  if (towers == 0) {
    text = tr("<b>No tower:</b> choose at least one device.");
  } else if (!p.valid() || p.samplesPerStep <= 0) {
    text =
        tr("<b>Total batch:</b> shown when the project is valid (its problems are listed in "
           "the Project tab).");
  } else {
    QString factors = tr("%1 per tower × %2 tower(s)").arg(p.batchSize).arg(p.towers);
    if (p.towers > 0 && p.batchesPerStep != p.towers) {
      factors += tr(" × %1 discriminator steps").arg(p.batchesPerStep / p.towers);
    }
    if (p.manyProcesses) factors += tr(" × %1 processes").arg(p.processes);
    text = tr("<b>Total batch:</b> %1 = <b>%2 samples per step</b>.")
               .arg(factors)
               .arg(p.samplesPerStep);
    if (p.manyProcesses) {
      text += tr(" Start launches %1 processes on this machine (towerbench-cli launch; the "
                 "project must be saved, they read its file); on a cluster, start the same "
                 "project with torchrun or SLURM and follow it with File ▸ Follow Run "
                 "Directory.")
                  .arg(p.processes);
    } else if (p.towers > 1) {
      text += tr(" steps_per_epoch counts steps, so an epoch sees %1× the samples it would "
                 "with one tower.")
                  .arg(p.towers);
    }
  }
  const bridge::ComponentTypeView* type = strategies_.type(s);
  const bool oneTower =
      type != nullptr && type->traits.value("towers").toString() == QLatin1String("one");
  if (towers > 1 && oneTower) {
    text += tr("<br><span style='color:%2'>%1 trains one tower: choose a multi-tower "
               "strategy or one device.</span>")
                .arg(s, ui::Palette::hex(ui::Palette::error()));
  }
  totalBatch_->setText(text);
}

}  // namespace tbench::gui
