#include "widgets/RunSelector.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPixmap>
#include <QToolButton>

namespace tbench::ui {
namespace {

QIcon chipIcon(const QColor& colour, bool shown) {
  QPixmap pixmap(14, 14);
  pixmap.fill(Qt::transparent);
  QPainter painter(&pixmap);
  painter.setRenderHint(QPainter::Antialiasing);
  painter.setPen(QPen(colour, 2));
  painter.setBrush(shown ? QBrush(colour) : QBrush(Qt::NoBrush));
  painter.drawRoundedRect(QRectF(1.5, 1.5, 11, 11), 3, 3);
  return QIcon(pixmap);
}

}  // namespace

RunSelector::RunSelector(QWidget* parent) : QWidget(parent) {
  setObjectName("runSelector");
  layout_ = new QHBoxLayout(this);
  layout_->setContentsMargins(6, 2, 6, 2);
  layout_->setSpacing(4);
  auto* title = new QLabel(tr("Runs:"), this);
  layout_->addWidget(title);
  layout_->addStretch(1);
  setVisible(false);
}

void RunSelector::setRuns(const QVector<RunChip>& runs) {
  runs_ = runs;
  qDeleteAll(chips_);
  chips_.clear();
  for (const RunChip& run : runs_) {
    auto* chip = new QToolButton(this);
    chip->setObjectName(QStringLiteral("runChip:") + run.run);
    chip->setCheckable(true);
    chip->setChecked(run.shown);
    chip->setAutoRaise(true);
    chip->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    chip->setIcon(chipIcon(run.colour, run.shown));
    chip->setText(run.live ? tr("%1 (live)").arg(run.name) : run.name);
    chip->setToolTip(tr("%1\nClick to %2 its curves")
                         .arg(run.name == run.run ? run.run : run.name + " \u2014 " + run.run,
                              run.shown ? tr("hide") : tr("show")));
    const QString key = run.run;
    const QColor colour = run.colour;
    connect(chip, &QToolButton::toggled, this, [this, chip, key, colour](bool shown) {
      chip->setIcon(chipIcon(colour, shown));
      for (RunChip& r : runs_)
        if (r.run == key) r.shown = shown;
      emit runToggled(key, shown);
    });
    layout_->insertWidget(layout_->count() - 1, chip);
    chips_.append(chip);
  }
  setVisible(runs_.size() > 1);
}

QToolButton* RunSelector::chip(const QString& run) const {
  for (int i = 0; i < runs_.size(); ++i)
    if (runs_.at(i).run == run) return chips_.at(i);
  return nullptr;
}

}  // namespace tbench::ui
