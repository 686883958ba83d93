#include "widgets/ChartMenu.h"

#include <QFileDialog>
#include <QMenu>
#include <QMessageBox>
#include <QRegularExpression>

#include "widgets/MetricChart.h"

namespace tbench::ui {

namespace {

/// Asks for a path and runs `exporter` on it; says so if writing failed.
template <typename Exporter>
void exportWith(MetricChart& chart, const QString& caption, const QString& suffix,
                const QString& filter, Exporter exporter) {
  QString stem = chart.title();
  stem.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9_.-]+")), QStringLiteral("_"));
  const QString path = QFileDialog::getSaveFileName(&chart, caption, stem + suffix, filter);
  if (!path.isEmpty() && !exporter(path))
    QMessageBox::warning(&chart, caption, QObject::tr("Could not write %1.").arg(path));
}

}  // namespace

void ChartMenu::exec(MetricChart& chart, const QPoint& globalPos) {
  QMenu menu(&chart);
  QObject::connect(menu.addAction(QObject::tr("Fit")), &QAction::triggered, &chart,
                   &MetricChart::fit);
  QAction* log = menu.addAction(QObject::tr("Log scale y"));
  log->setCheckable(true);
  log->setChecked(chart.logY());
  QObject::connect(log, &QAction::toggled, &chart, [&chart](bool on) {
    chart.setLogY(on);
    chart.replot();
  });
  menu.addSeparator();
  QObject::connect(menu.addAction(QObject::tr("Export PNG…")), &QAction::triggered, &chart, [&] {
    exportWith(chart, QObject::tr("Export chart as PNG"), ".png", QObject::tr("PNG image (*.png)"),
               [&](const QString& path) { return chart.exportPng(path); });
  });
  QObject::connect(menu.addAction(QObject::tr("Export PDF…")), &QAction::triggered, &chart, [&] {
    exportWith(chart, QObject::tr("Export chart as PDF"), ".pdf",
               QObject::tr("PDF document (*.pdf)"),
               [&](const QString& path) { return chart.exportPdf(path); });
  });
  QObject::connect(menu.addAction(QObject::tr("Export CSV…")), &QAction::triggered, &chart, [&] {
    exportWith(chart, QObject::tr("Export chart data as CSV"), ".csv",
               QObject::tr("CSV file (*.csv)"),
               [&](const QString& path) { return chart.exportCsv(path); });
  });
  menu.exec(globalPos);
}

}  // namespace tbench::ui
