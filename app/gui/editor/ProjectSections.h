#pragma once
// The sections of the project form that are plain FormSections, built from the tables of
// docs/PROJECT-FORMAT.md. Each field is named like its JSON path ("model.hidden",
// "data.train.num_samples"). The data, schedule and callback sections have classes of their
// own (DataSection, ScheduleEditor, CallbackListEditor).

#include <QString>

class QWidget;

namespace tbench::gui {

class FormSection;
class IssueMarkers;

/// name, description, seed, num_threads, run_root.
FormSection* makeGeneralSection(IssueMarkers* markers, QWidget* parent);
/// model: type, hidden (mlp), conv1_channels, conv2_channels, kernel_size, fc_width (convnet),
/// dropout; the fields of the other type are hidden.
FormSection* makeModelSection(IssueMarkers* markers, QWidget* parent);
/// One data source at `base` ("data.train" or "data.validation"): type and the keys of that
/// type (split, dir; images, labels; num_samples, ..., sample_seed), limit.
FormSection* makeSourceSection(const QString& title, const QString& base, IssueMarkers* markers,
                               QWidget* parent);
/// optimizer: type, learning_rate, momentum, nesterov, weight_decay, beta1, beta2, eps; the
/// fields the type lacks are disabled.
FormSection* makeOptimizerSection(IssueMarkers* markers, QWidget* parent);
/// max_epoch, starting_epoch, steps_per_epoch.
FormSection* makeLengthSection(IssueMarkers* markers, QWidget* parent);
/// monitors: json, scalar_printer, tensorboard.
FormSection* makeMonitorsSection(IssueMarkers* markers, QWidget* parent);
/// init: checkpoint, ignore. Clearing the checkpoint removes "init".
FormSection* makeInitSection(IssueMarkers* markers, QWidget* parent);

}  // namespace tbench::gui
