#include "widgets/PlotControls.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QMenu>
#include <QSignalBlocker>
#include <QSlider>
#include <QToolButton>

#include "widgets/EmaSmoother.h"

namespace tbench::ui {

namespace {
constexpr int kSliderSteps = 1000;  // weight = position / 1000, up to EmaSmoother::kMaxWeight
}

PlotControls::PlotControls(QWidget* parent) : QToolBar(tr("Plot"), parent) {
  setMovable(false);

  addWidget(new QLabel(tr("Smoothing "), this));
  smoothing_ = new QSlider(Qt::Horizontal, this);
  smoothing_->setRange(0, int(EmaSmoother::kMaxWeight * kSliderSteps));
  smoothing_->setFixedWidth(160);
  smoothing_->setToolTip(tr("Weight of the exponential moving average (0 = raw values)"));
  addWidget(smoothing_);
  smoothingValue_ = new QLabel(this);
  smoothingValue_->setMinimumWidth(40);
  addWidget(smoothingValue_);
  connect(smoothing_, &QSlider::valueChanged, this, [this](int position) {
    const double weight = double(position) / kSliderSteps;
    showWeight(weight);
    emit smoothingWeightChanged(weight);
  });
  addSeparator();

  addWidget(new QLabel(tr("X axis "), this));
  xAxis_ = new QComboBox(this);
  xAxis_->addItem(tr("Step"), int(XAxisMode::Step));
  xAxis_->addItem(tr("Epoch"), int(XAxisMode::Epoch));
  xAxis_->addItem(tr("Wall time"), int(XAxisMode::WallTime));
  addWidget(xAxis_);
  connect(xAxis_, &QComboBox::currentIndexChanged, this,
          [this](int) { emit xAxisModeChanged(xAxisMode()); });

  logY_ = new QCheckBox(tr("Log y"), this);
  addWidget(logY_);
  connect(logY_, &QCheckBox::toggled, this, &PlotControls::logYToggled);
  addSeparator();

  addAction(tr("Fit"), this, &PlotControls::fitRequested)
      ->setToolTip(tr("Fit every chart to its data and follow new points (or double-click a "
                      "chart)"));
  auto* exportButton = new QToolButton(this);
  exportButton->setText(tr("Export"));
  exportButton->setPopupMode(QToolButton::InstantPopup);
  auto* menu = new QMenu(exportButton);
  menu->addAction(tr("All charts as PNG…"), this, &PlotControls::exportPngRequested);
  menu->addAction(tr("All charts as PDF…"), this, &PlotControls::exportPdfRequested);
  menu->addAction(tr("All series as CSV…"), this, &PlotControls::exportCsvRequested);
  exportButton->setMenu(menu);
  addWidget(exportButton);

  showWeight(0.0);
}

void PlotControls::showWeight(double weight) {
  smoothingValue_->setText(QString::number(weight, 'f', 3));
}

void PlotControls::setSmoothingWeight(double weight) {
  const QSignalBlocker block(smoothing_);
  smoothing_->setValue(qRound(EmaSmoother::clampWeight(weight) * kSliderSteps));
  showWeight(double(smoothing_->value()) / kSliderSteps);
}

double PlotControls::smoothingWeight() const { return double(smoothing_->value()) / kSliderSteps; }

void PlotControls::setXAxisMode(XAxisMode mode) {
  const QSignalBlocker block(xAxis_);
  xAxis_->setCurrentIndex(xAxis_->findData(int(mode)));
}

XAxisMode PlotControls::xAxisMode() const { return XAxisMode(xAxis_->currentData().toInt()); }

void PlotControls::setLogY(bool on) {
  const QSignalBlocker block(logY_);
  logY_->setChecked(on);
}

bool PlotControls::logY() const { return logY_->isChecked(); }

}  // namespace tbench::ui
