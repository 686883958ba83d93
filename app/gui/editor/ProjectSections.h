#pragma once
// The sections of the project form that are plain FormSections, built from the component
// registry's catalog (schema::catalog()): one field per key, with its default, tooltip and
// choices. Each field is named like its JSON path ("model.hidden", "data.train.num_samples").
// The data, schedule and callback sections have classes of their own (DataSection,
// ScheduleEditor, CallbackListEditor).

#include <QString>

class QWidget;

namespace tbench::gui {

class FormSection;
class IssueMarkers;

/// The component at `slotPath` ("model", "data.train", "callbacks[0]"): a type choice (when
/// `typeChoice`), the keys every type has and the keys of every type, those the current type
/// lacks hidden (`hideForeign`) or disabled. Fields are named "<namePrefix>.<key>" (null:
/// `slotPath`).
FormSection* makeComponentSection(const QString& title, const QString& slotPath,
                                  IssueMarkers* markers, QWidget* parent, bool typeChoice,
                                  bool hideForeign, const QString& namePrefix = QString());
/// name, description, seed, num_threads, precision, run_root.
FormSection* makeGeneralSection(IssueMarkers* markers, QWidget* parent);
/// model: the model types and their keys; the fields of the other types are hidden.
FormSection* makeModelSection(IssueMarkers* markers, QWidget* parent);
/// One data source at `base` ("data.train" or "data.validation"): type and its keys.
FormSection* makeSourceSection(const QString& title, const QString& base, IssueMarkers* markers,
                               QWidget* parent);
/// optimizer: type and the keys of every type; the fields the type lacks are disabled.
FormSection* makeOptimizerSection(IssueMarkers* markers, QWidget* parent);
/// max_epoch, starting_epoch, steps_per_epoch.
FormSection* makeLengthSection(IssueMarkers* markers, QWidget* parent);
/// data: batch_size, shuffle, remainder (the keys of "data" itself), untitled.
FormSection* makeBatchingSection(IssueMarkers* markers, QWidget* parent);
/// monitors: one check box per registered monitor.
FormSection* makeMonitorsSection(IssueMarkers* markers, QWidget* parent);
/// init: checkpoint, ignore. Clearing the checkpoint removes "init".
FormSection* makeInitSection(IssueMarkers* markers, QWidget* parent);
/// speed: TF32, cuDNN autotuning, channels-last, how often step scalars are read.
FormSection* makeSpeedSection(IssueMarkers* markers, QWidget* parent);

}  // namespace tbench::gui
