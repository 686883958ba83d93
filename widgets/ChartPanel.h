#pragma once
// ChartPanel: one MetricChart under a header that names it for people and holds its controls:
// a toggle that collapses the chart to its header, a button (or a double click on the header)
// that asks to enlarge it within the plot area and, when enlarged, to restore it, and a badge
// for a verdict about the data (e.g. "data-bound" on the input queue's chart).
//
// The panel only reports the wish to enlarge (enlargeToggled); LivePlotWidget does the layout
// and tells the panel with setEnlarged(). GUI thread only.

#include <QFrame>

class QLabel;
class QToolButton;

namespace tbench::ui {

class MetricChart;

class ChartPanel : public QFrame {
  Q_OBJECT
 public:
  /// Takes ownership of `chart` (its title is the header's text).
  explicit ChartPanel(MetricChart* chart, QWidget* parent = nullptr);

  MetricChart* chart() const { return chart_; }
  QString title() const;

  /// Shows only the header (the chart is hidden: it costs nothing to replot) or the whole panel.
  void setCollapsed(bool collapsed);
  bool isCollapsed() const { return collapsed_; }
  /// Tells the panel it fills the plot area; an enlarged panel is never collapsed.
  void setEnlarged(bool enlarged);
  bool isEnlarged() const { return enlarged_; }
  /// A short verdict beside the title (empty hides it), its colour says how much it matters.
  void setBadge(const QString& text, const QString& toolTip, bool warning);
  QString badge() const;
  /// The header's height: the panel's height while collapsed.
  int headerHeight() const;

  /// The controls, for tests that drive them like a user.
  QToolButton* collapseButton() const { return collapse_; }
  QToolButton* enlargeButton() const { return enlarge_; }
  QWidget* header() const { return header_; }
  QLabel* titleLabel() const { return title_; }

 signals:
  /// The user asked to enlarge the panel, or to restore it if enlarged.
  void enlargeToggled(tbench::ui::ChartPanel* panel);
  void collapsedChanged(bool collapsed);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void updateButtons();

  MetricChart* chart_;
  QWidget* header_ = nullptr;
  QToolButton* collapse_ = nullptr;
  QLabel* title_ = nullptr;
  QLabel* badge_ = nullptr;
  QToolButton* enlarge_ = nullptr;
  bool collapsed_ = false;
  bool enlarged_ = false;
};

}  // namespace tbench::ui
