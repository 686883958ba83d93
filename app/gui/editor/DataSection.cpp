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

void DataSection::toggleValidation(bool on) {
  if (!on) {
    removedValidation_ = data_.value("validation").toObject();
    emit edited({removal("data.validation")});
    return;
  }
  QJsonObject source = removedValidation_;
  if (source.isEmpty()) {
    source = data_.value("train").toObject();
    const QString type = source.value("type").toString("fashion-mnist");
    if (type == QLatin1String("fashion-mnist")) source.insert("split", "test");
    if (type == QLatin1String("synthetic")) {
      source.insert("sample_seed", qMax<qint64>(source.value("sample_seed").toInteger() + 1, 2));
    }
  }
  emit edited({{"data.validation", source}});
}

}  // namespace tbench::gui
