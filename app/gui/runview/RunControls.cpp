#include "app/gui/runview/RunControls.h"

#include "app/bridge/BridgeTypes.h"

#include "app/bridge/RunController.h"

#include <QAction>
#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QToolButton>
#include <cmath>
#include <optional>

#include "widgets/Palette.h"

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
  connect(rate_, &QLineEdit::textEdited, this, &RunControls::onEdited);
  setRunActive(false);
}

bool RunControls::saveFinalCheckpoint() const { return saveFinal_->isChecked(); }

void RunControls::setRunActive(bool active) {
  active_ = active;
  rate_->setEnabled(active);
  updateRateState();
}

void RunControls::beginRun(double value) {
  edited_ = false;
  if (std::isfinite(value)) {
    rate_->setText(QLocale::c().toString(value, 'g', 6));
  } else {
    rate_->clear();
  }
  updateRateState();
}

void RunControls::showLearningRate(double value) {
  if (edited_) return;  // the user's edit stays until it is applied or a new run begins
  rate_->setText(QLocale::c().toString(value, 'g', 6));
  updateRateState();
}

void RunControls::clearLearningRate() {
  edited_ = false;
  rate_->clear();
  updateRateState();
}

std::optional<double> RunControls::typedLearningRate() const {
  double value = 0;
  if (!bridge::RunController::liveValueProblem(bridge::kLearningRate, rate_->text(), &value)
           .isEmpty())
    return std::nullopt;
  return value;
}

QString RunControls::learningRateProblem() const {
  const QString text = rate_->text().trimmed();
  if (text.isEmpty()) return QString();
  return bridge::RunController::liveValueProblem(bridge::kLearningRate, text);
}

void RunControls::onEdited() {
  edited_ = true;
  updateRateState();
}

void RunControls::updateRateState() {
  const QString problem = learningRateProblem();
  rate_->setProperty("invalid", !problem.isEmpty());
  rate_->setStyleSheet(problem.isEmpty() ? QString()
                                         : QStringLiteral("QLineEdit { border: 1px solid %1; }")
                                               .arg(ui::Palette::hex(ui::Palette::error())));
  rate_->setToolTip(problem.isEmpty()
                        ? tr("Sets the optimizer's learning rate at the next step of the running "
                             "training. A schedule in the project sets it again at its next point.")
                        : tr("Learning rate %1").arg(problem));
  setRate_->setEnabled(active_ && edited_ && typedLearningRate().has_value());
}

void RunControls::applyLearningRate() {
  if (!active_ || !edited_) return;
  const auto value = typedLearningRate();
  if (!value) return;  // flagged at the field; nothing is sent
  edited_ = false;
  updateRateState();
  emit learningRateRequested(*value);
}

}  // namespace tbench::gui
