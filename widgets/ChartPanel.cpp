#include "widgets/ChartPanel.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>

#include "widgets/MetricChart.h"
#include "widgets/Palette.h"

namespace tbench::ui {

ChartPanel::ChartPanel(MetricChart* chart, QWidget* parent) : QFrame(parent), chart_(chart) {
  setObjectName(QStringLiteral("chartPanel"));
  setFrameShape(QFrame::StyledPanel);
  header_ = new QWidget(this);
  header_->setObjectName(QStringLiteral("chartHeader"));
  collapse_ = new QToolButton(header_);
  collapse_->setAutoRaise(true);
  collapse_->setCheckable(true);
  title_ = new QLabel(chart->title(), header_);
  QFont bold = title_->font();
  bold.setBold(true);
  title_->setFont(bold);
  title_->setMinimumWidth(1);  // a narrow panel clips its title instead of widening the strip
  badge_ = new QLabel(header_);
  badge_->setObjectName(QStringLiteral("chartBadge"));
  badge_->hide();
  enlarge_ = new QToolButton(header_);
  enlarge_->setAutoRaise(true);
  enlarge_->setToolButtonStyle(Qt::ToolButtonIconOnly);  // the text names it for accessibility
  auto* row = new QHBoxLayout(header_);
  row->setContentsMargins(2, 0, 2, 0);
  row->setSpacing(4);
  row->addWidget(collapse_);
  row->addWidget(title_);
  row->addWidget(badge_);
  row->addStretch(1);
  row->addWidget(enlarge_);

  auto* column = new QVBoxLayout(this);
  column->setContentsMargins(1, 1, 1, 1);
  column->setSpacing(0);
  column->addWidget(header_);
  chart_->setParent(this);
  column->addWidget(chart_, 1);

  connect(collapse_, &QToolButton::toggled, this, [this](bool on) { setCollapsed(on); });
  connect(enlarge_, &QToolButton::clicked, this, [this] { emit enlargeToggled(this); });
  header_->installEventFilter(this);
  title_->installEventFilter(this);
  updateButtons();
}

QString ChartPanel::title() const { return chart_->title(); }

void ChartPanel::setCollapsed(bool collapsed) {
  if (collapsed == collapsed_) return;
  collapsed_ = collapsed;
  chart_->setVisible(!collapsed);
  updateButtons();
  emit collapsedChanged(collapsed);
}

void ChartPanel::setEnlarged(bool enlarged) {
  enlarged_ = enlarged;
  if (enlarged) setCollapsed(false);
  updateButtons();
}

void ChartPanel::setBadge(const QString& text, const QString& toolTip, bool warning) {
  badge_->setText(text);
  badge_->setToolTip(toolTip);
  badge_->setStyleSheet(warning ? Palette::errorText() + QStringLiteral(" font-weight: bold;")
                                : Palette::mutedText());
  badge_->setVisible(!text.isEmpty());
}

QString ChartPanel::badge() const { return badge_->isVisible() ? badge_->text() : QString(); }

int ChartPanel::headerHeight() const {
  const QMargins m = layout()->contentsMargins();
  return header_->sizeHint().height() + m.top() + m.bottom() + 2 * frameWidth();
}

void ChartPanel::updateButtons() {
  collapse_->blockSignals(true);
  collapse_->setChecked(collapsed_);
  collapse_->blockSignals(false);
  collapse_->setArrowType(collapsed_ ? Qt::RightArrow : Qt::DownArrow);
  collapse_->setToolTip(collapsed_ ? tr("Show the chart") : tr("Collapse the chart"));
  collapse_->setEnabled(!enlarged_);
  enlarge_->setText(enlarged_ ? tr("Restore") : tr("Enlarge"));
  enlarge_->setIcon(style()->standardIcon(enlarged_ ? QStyle::SP_TitleBarNormalButton
                                                    : QStyle::SP_TitleBarMaxButton));
  enlarge_->setToolTip(enlarged_ ? tr("Back to every chart (or double-click the title)")
                                 : tr("Fill the plot area with this chart (or double-click the "
                                      "title)"));
}

bool ChartPanel::eventFilter(QObject* watched, QEvent* event) {
  if ((watched == header_ || watched == title_) && event->type() == QEvent::MouseButtonDblClick) {
    emit enlargeToggled(this);
    return true;
  }
  return QFrame::eventFilter(watched, event);
}

}  // namespace tbench::ui
