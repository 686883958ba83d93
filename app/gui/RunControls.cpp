#include "app/gui/RunControls.h"

#include <QAction>
#include <QCheckBox>
#include <QDoubleValidator>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QToolButton>
#include <optional>

namespace tbench::gui {

RunControls::RunControls(QAction* start, QAction* stop, QAction* pause, QAction* saveNow,
                         QWidget* parent)
    : QWidget(parent) {
  setObjectName("runControls");
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(4, 2, 4, 2);
  for (QAction* action : {start, stop, pause, saveNow}) {
    auto* button = new QToolButton(this);
    button->setDefaultAction(action);
    button->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    button->setObjectName(action->objectName() + "Button");
    layout->addWidget(button);
  }
  saveFinal_ = new QCheckBox(tr("Final checkpoint on stop"), this);
  saveFinal_->setObjectName("saveFinalCheckpoint");
  saveFinal_->setChecked(true);
  saveFinal_->setToolTip(
      tr("Stop saves the state at the step it stops at (a project with a "
         "model_saver saves it in any case)."));
  layout->addWidget(saveFinal_);
  layout->addSpacing(16);
  layout->addWidget(new QLabel(tr("Learning rate:"), this));
  rate_ = new QLineEdit(this);
  rate_->setObjectName("learningRateEdit");
  rate_->setPlaceholderText(tr("e.g. 3e-4"));
  rate_->setMaximumWidth(110);
  auto* validator = new QDoubleValidator(0.0, 1e6, 12, rate_);
  validator->setNotation(QDoubleValidator::ScientificNotation);
  validator->setLocale(QLocale::c());
  rate_->setValidator(validator);
  rate_->setToolTip(
      tr("Sets the optimizer's learning rate at the next step of the running "
         "training. A schedule in the project sets it again at its next point."));
  layout->addWidget(rate_);
  setRate_ = new QPushButton(tr("Set"), this);
  setRate_->setObjectName("setLearningRateButton");
  layout->addWidget(setRate_);
  layout->addStretch(1);
  connect(setRate_, &QPushButton::clicked, this, &RunControls::applyLearningRate);
  connect(rate_, &QLineEdit::returnPressed, this, &RunControls::applyLearningRate);
  setRunActive(false);
}

bool RunControls::saveFinalCheckpoint() const { return saveFinal_->isChecked(); }

void RunControls::setRunActive(bool active) {
  rate_->setEnabled(active);
  setRate_->setEnabled(active);
}

void RunControls::showLearningRate(double value) {
  if (!rate_->hasFocus()) rate_->setText(QLocale::c().toString(value, 'g', 6));
}

std::optional<double> RunControls::typedLearningRate() const {
  bool ok = false;
  const double value = QLocale::c().toDouble(rate_->text().trimmed(), &ok);
  if (!ok || !(value > 0)) return std::nullopt;
  return value;
}

void RunControls::applyLearningRate() {
  if (const auto value = typedLearningRate()) emit learningRateRequested(*value);
}

}  // namespace tbench::gui
