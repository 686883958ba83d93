#pragma once
// PlotControls: the tool bar above the live plots: smoothing slider, x axis mode, log y, fit
// and export. It only reports what the user asks for; LivePlotWidget applies it. Setters do
// not emit. GUI thread only.

#include <QToolBar>

#include "widgets/XAxisMode.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QSlider;

namespace tbench::ui {

class PlotControls : public QToolBar {
  Q_OBJECT
 public:
  explicit PlotControls(QWidget* parent = nullptr);

  void setSmoothingWeight(double weight);
  double smoothingWeight() const;
  void setXAxisMode(XAxisMode mode);
  XAxisMode xAxisMode() const;
  void setLogY(bool on);
  bool logY() const;

  /// The widgets, for tests that drive them like a user.
  QSlider* smoothingSlider() const { return smoothing_; }
  QComboBox* xAxisCombo() const { return xAxis_; }
  QCheckBox* logYBox() const { return logY_; }

 signals:
  void smoothingWeightChanged(double weight);
  void xAxisModeChanged(tbench::ui::XAxisMode mode);
  void logYToggled(bool on);
  void fitRequested();
  void exportPngRequested();
  void exportPdfRequested();
  void exportCsvRequested();

 private:
  void showWeight(double weight);

  QSlider* smoothing_ = nullptr;
  QLabel* smoothingValue_ = nullptr;
  QComboBox* xAxis_ = nullptr;
  QCheckBox* logY_ = nullptr;
};

}  // namespace tbench::ui
