#pragma once
// DataSection: the "data" object. The training source, an optional validation source behind
// the "Validate on" check box (objectName "data.validation"), and batch_size, shuffle and
// remainder.
//
// Unticking "Validate on" removes data.validation; ticking it again puts back what was there,
// or, the first time, a source like the training one that validates on other samples (the
// test split, or another sample seed for synthetic data). GUI thread only.

#include "app/gui/editor/ProjectSection.h"

class QCheckBox;

namespace tbench::gui {

class FormSection;
class IssueMarkers;

class DataSection : public ProjectSection {
  Q_OBJECT
 public:
  explicit DataSection(IssueMarkers* markers, QWidget* parent = nullptr);

  void load(const QJsonObject& root) override;

  QCheckBox* validateOn() const { return validateOn_; }

 private:
  void toggleValidation(bool on);
  /// The validation source a user gets from "Validate on": the training source adapted by the
  /// registry (the validation slot's defaults, the type's "held_out_by" seed).
  static QJsonObject validationFromTraining(QJsonObject source);

  FormSection* train_;
  QCheckBox* validateOn_;
  FormSection* validation_;
  FormSection* batching_;
  QJsonObject data_;               // "data" as of the last load
  QJsonObject removedValidation_;  // what unticking "Validate on" removed
};

}  // namespace tbench::gui
