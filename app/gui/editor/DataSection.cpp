#include "app/bridge/ProjectViews.h"
#include "app/gui/editor/DataSection.h"

#include <QCheckBox>
#include <QJsonArray>
#include <QLabel>
#include <QVBoxLayout>

#include "app/gui/editor/FormSection.h"
#include "app/gui/editor/IssueMarkers.h"
#include "app/gui/editor/ProjectSections.h"

namespace tbench::gui {

DataSection::DataSection(IssueMarkers* markers, QWidget* parent)
    : ProjectSection(tr("Data"), parent) {
  auto* layout = new QVBoxLayout(this);
  train_ = makeSourceSection(tr("Training data"), "data.train", markers, this);
  layout->addWidget(train_);

  validateOn_ = new QCheckBox(tr("Validate on"), this);
  validateOn_->setObjectName("data.validation");
  validateOn_->setToolTip(schema::help("data.validation"));
  layout->addWidget(validateOn_);
  QLabel* validateIssue = IssueMarkers::makeLabel(validateOn_->objectName(), this);
  layout->addWidget(validateIssue);
  markers->setField(validateOn_, "data.validation", validateIssue, false);

  // The validation slot's own defaults ("split": "test") come with the catalog.
  validation_ = makeSourceSection(tr("Validation data"), "data.validation", markers, this);
  layout->addWidget(validation_);

  batching_ = makeBatchingSection(markers, this);
  layout->addWidget(batching_);

  for (FormSection* part : {train_, validation_, batching_}) {
    connect(part, &ProjectSection::edited, this, &ProjectSection::edited);
  }
  connect(validateOn_, &QCheckBox::toggled, this, &DataSection::toggleValidation);
}

void DataSection::load(const QJsonObject& root) {
  data_ = root.value("data").toObject();
  const bool on = data_.contains("validation");
  {
    const QSignalBlocker block(validateOn_);
    validateOn_->setChecked(on);
  }
  validation_->setVisible(on);
  train_->load(root);
  validation_->load(root);
  batching_->load(root);
}

QJsonObject DataSection::validationFromTraining(QJsonObject source) {
  // A copy of the training source with what the registry says differs for validation: the
  // validation slot's own defaults (a split: "test") and, for a source whose type names a
  // "held_out_by" seed, another value of that seed (the same task, other samples).
  const bridge::ComponentCatalog& catalog = schema::catalog();
  const bridge::ComponentKindView* kind = catalog.kind(QStringLiteral("data"));
  if (kind == nullptr) return source;
  const QString typeName = source.value(kind->typeKey).toString(kind->defaultType);
  const QStringList keys = [&] {
    QStringList names;
    for (const bridge::KeyView& k : kind->keysOf(typeName)) names.append(k.name);
    return names;
  }();
  if (const bridge::ComponentSlotView* slot = catalog.slotAt(QStringLiteral("data.validation"))) {
    for (auto it = slot->defaultOverrides.begin(); it != slot->defaultOverrides.end(); ++it) {
      if (keys.contains(it.key())) source.insert(it.key(), it.value());
    }
  }
  const bridge::ComponentTypeView* type = kind->type(typeName);
  const QString seedKey =
      type != nullptr ? type->traits.value("held_out_by").toString() : QString();
  if (!seedKey.isEmpty() && keys.contains(seedKey)) {
    source.insert(seedKey, qMax<qint64>(source.value(seedKey).toInteger() + 1, 2));
  }
  return source;
}

void DataSection::toggleValidation(bool on) {
  if (!on) {
    removedValidation_ = data_.value("validation").toObject();
    emit edited({removal("data.validation")});
    return;
  }
  QJsonObject source = removedValidation_;
  if (source.isEmpty()) source = validationFromTraining(data_.value("train").toObject());
  emit edited({{"data.validation", source}});
}

}  // namespace tbench::gui
