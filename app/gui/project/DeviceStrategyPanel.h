#pragma once
// DeviceStrategyPanel: where the towers run and how they are combined — the project's
// "trainer" section (docs/PROJECT-FORMAT.md). Lists the devices found at run time (the CPU with
// its cores, every CUDA device; a note when there is none), the number of CPU towers and the
// CUDA devices to use, the strategy with one line on what it does, its options, and the total
// batch that results as the engine counts it (setSummary: batch_size × towers × a GAN's d_steps
// × processes samples per step; steps_per_epoch counts steps).
//
// The panel reads and writes the trainer object only (setTrainer / trainerChanged); the window
// passes it to and from the project editor. A device the project names that this machine does
// not have is listed as missing and kept, so opening a project never changes it silently.
//
// Object names: "deviceList", "cpuTowers", "strategyCombo", "strategyHelp", "queueSize",
// "psDevice", "averageGradients", "checkReplicas", "localProcesses", "totalBatchLabel",
// "deviceNote". A strategy of several processes (trait processes: many, `distributed`) reads
// "distributed: N local processes" in the picker, N its local_processes. GUI thread only.

#include <QJsonObject>
#include <QWidget>

#include "app/bridge/BridgeTypes.h"
#include "app/bridge/ProjectViews.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QListWidget;
class QSpinBox;

namespace tbench::gui {

class DeviceStrategyPanel : public QWidget {
  Q_OBJECT

 public:
  /// `devices` as found by the bridge; `note` explains a missing GPU (may be empty);
  /// `strategies` the registry's strategy kind (its types fill the strategy picker, their
  /// keys say which settings apply, their "towers" trait which take several devices).
  DeviceStrategyPanel(bridge::DeviceEntries devices, const QString& note,
                      bridge::ComponentKindView strategies, QWidget* parent = nullptr);

  /// Shows `trainer` (the project's "trainer" object; empty: the defaults). Emits nothing.
  void setTrainer(const QJsonObject& trainer);
  /// The engine's analysis of the project (ProjectEditor::summary()): the total batch shown is
  /// its samples per step, never computed here. Emits nothing.
  void setSummary(const bridge::ProjectSummaryView& summary);
  /// The trainer object as the panel shows it.
  QJsonObject trainer() const;
  /// The devices of the towers, in order ("cpu" repeated for several CPU towers).
  QStringList towerDevices() const;
  QString totalBatchText() const;
  /// One line on what `strategy` does (its registered summary).
  QString describe(const QString& strategy) const;

 signals:
  /// The user changed something; `trainer` is trainer().
  void trainerChanged(const QJsonObject& trainer);

 private:
  void userEdited();
  void updateDerived();
  /// Whether strategy `s` has the setting `key` (the registry's keys of its type).
  bool hasKey(const QString& s, const QString& key) const;
  /// The registered default of a strategy setting (the first type that has `key`).
  QJsonValue defaultOf(const QString& key) const;

  bridge::DeviceEntries devices_;
  bridge::ComponentKindView strategies_;
  QJsonObject trainer_;                 // as last set, to keep keys the panel does not edit
  QStringList missing_;                 // devices of the project this machine lacks
  bridge::ProjectSummaryView summary_;  // as last set
  bool loading_ = false;

  QListWidget* deviceList_;
  QSpinBox* cpuTowers_;
  QComboBox* strategy_;
  QLabel* strategyHelp_;
  QSpinBox* queueSize_;
  QComboBox* psDevice_;
  QCheckBox* average_;
  QCheckBox* checkReplicas_;
  QSpinBox* localProcesses_;
  QLabel* totalBatch_;
};

}  // namespace tbench::gui
