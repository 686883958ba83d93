#include "app/gui/model/LrFinderDialog.h"

#include <qcustomplot.h>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "app/gui/run/CliProcess.h"
#include "widgets/LogAxisTicker.h"
#include "widgets/Palette.h"

namespace tbench::gui {

LrFinderDialog::LrFinderDialog(const QString& projectPath, const QString& cli, QWidget* parent)
    : QDialog(parent), project_(projectPath), cli_(cli.isEmpty() ? CliProcess::defaultCli() : cli) {
  setWindowTitle(tr("Find Learning Rate — %1").arg(QFileInfo(projectPath).fileName()));
  setObjectName("lrFinder");
  auto* layout = new QVBoxLayout(this);
  auto* intro = new QLabel(
      tr("The range test (PyTorch Lightning's lr_find, fastai's): trains a few hundred steps "
         "from the project's initial weights while the learning rate grows exponentially, and "
         "suggests the rate where the smoothed cost falls fastest. Nothing is saved; the "
         "project's own runs are not touched."),
      this);
  intro->setWordWrap(true);
  intro->setStyleSheet(ui::Palette::mutedText());
  layout->addWidget(intro);

  auto* range = new QHBoxLayout;
  auto* form = new QFormLayout;
  from_ = new QLineEdit("1e-07", this);
  from_->setObjectName("lrFinder.from");
  to_ = new QLineEdit("10", this);
  to_->setObjectName("lrFinder.to");
  steps_ = new QSpinBox(this);
  steps_->setObjectName("lrFinder.steps");
  steps_->setRange(20, 100000);
  steps_->setValue(100);
  form->addRow(tr("From rate"), from_);
  form->addRow(tr("To rate"), to_);
  form->addRow(tr("Steps"), steps_);
  range->addLayout(form);
  range->addStretch();
  layout->addLayout(range);

  plot_ = new QCustomPlot(this);
  plot_->setObjectName("lrFinder.plot");
  plot_->setMinimumSize(560, 320);
  plot_->addGraph();  // cost
  plot_->addGraph();  // smoothed
  plot_->graph(0)->setPen(QPen(QColor(160, 160, 160), 1));
  plot_->graph(0)->setName(tr("cost"));
  plot_->graph(1)->setPen(QPen(ui::Palette::categorical(0), 2));
  plot_->graph(1)->setName(tr("smoothed cost"));
  plot_->xAxis->setLabel(tr("learning rate"));
  plot_->yAxis->setLabel(tr("cost"));
  ui::setValueScale(*plot_->xAxis, true);
  plot_->legend->setVisible(true);
  layout->addWidget(plot_, 1);

  status_ = new QLabel(
      tr("Start runs %1 find-lr on the saved project.").arg(QFileInfo(cli_).fileName()), this);
  status_->setObjectName("lrFinder.status");
  status_->setWordWrap(true);
  layout->addWidget(status_);

  auto* buttons = new QDialogButtonBox(this);
  start_ = buttons->addButton(tr("Start"), QDialogButtonBox::ActionRole);
  start_->setObjectName("lrFinder.start");
  use_ = buttons->addButton(tr("Use This Rate"), QDialogButtonBox::AcceptRole);
  use_->setObjectName("lrFinder.use");
  use_->setEnabled(false);
  buttons->addButton(QDialogButtonBox::Close);
  layout->addWidget(buttons);
  connect(start_, &QPushButton::clicked, this, [this] { start(); });
  connect(use_, &QPushButton::clicked, this, [this] {
    if (suggested_ > 0) emit rateChosen(suggested_);
    accept();
  });
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  resize(720, 560);
}

LrFinderDialog::~LrFinderDialog() = default;  // process_ (a child) stops its process

bool LrFinderDialog::isRunning() const { return process_ != nullptr && process_->isRunning(); }

bool LrFinderDialog::start() {
  if (isRunning()) return false;
  bool okFrom = false, okTo = false;
  const double from = QLocale::c().toDouble(from_->text().trimmed(), &okFrom);
  const double to = QLocale::c().toDouble(to_->text().trimmed(), &okTo);
  if (!okFrom || !okTo || !(from > 0) || !(to > from)) {
    status_->setText(tr("The range needs two numbers, 0 < from < to (e.g. 1e-7 and 10)."));
    return false;
  }
  const QString problem = CliProcess::cliProblem(cli_);
  if (!problem.isEmpty()) {
    status_->setText(problem);
    return false;
  }
  rates_.clear();
  losses_.clear();
  smoothed_.clear();
  suggested_ = 0;
  lastError_.clear();
  use_->setEnabled(false);
  plot_->clearItems();
  redraw();
  delete process_;
  process_ = new CliProcess(CliProcess::Lifetime::StopsWithWindow, this);
  connect(process_, &CliProcess::lines, this, &LrFinderDialog::readLines);
  connect(process_, &CliProcess::finished, this, &LrFinderDialog::finish);
  QString error;
  const QStringList args{"find-lr", project_,
                         "--start", QLocale::c().toString(from, 'g', 10),
                         "--end",   QLocale::c().toString(to, 'g', 10),
                         "--steps", QString::number(steps_->value())};
  if (!process_->start(cli_, args, &error)) {
    status_->setText(error);
    return false;
  }
  start_->setEnabled(false);
  status_->setText(tr("Running the range test…"));
  return true;
}

void LrFinderDialog::readLines(const QStringList& lines) {
  static const QRegularExpression step(R"(^step (\d+)  rate (\S+)  cost (\S+)  smoothed (\S+)$)");
  static const QRegularExpression suggestion(R"(^suggested learning rate: (\S+))");
  bool changed = false;
  for (const QString& line : lines) {
    const QRegularExpressionMatch m = step.match(line);
    if (m.hasMatch()) {
      rates_.append(QLocale::c().toDouble(m.captured(2)));
      losses_.append(QLocale::c().toDouble(m.captured(3)));  // "nan" gives 0: filtered below
      smoothed_.append(QLocale::c().toDouble(m.captured(4)));
      changed = true;
      continue;
    }
    const QRegularExpressionMatch s = suggestion.match(line);
    if (s.hasMatch()) {
      suggested_ = QLocale::c().toDouble(s.captured(1));
    } else if (!line.trimmed().isEmpty() && !line.startsWith("stopped") &&
               !line.contains("learning-rate range test")) {
      lastError_ = line;  // the CLI's messages (a bad project, a missing file)
    }
  }
  if (changed) {
    status_->setText(tr("Step %1 of %2: rate %3, smoothed cost %4")
                         .arg(rates_.size())
                         .arg(steps_->value())
                         .arg(rates_.last(), 0, 'g', 3)
                         .arg(smoothed_.last(), 0, 'g', 4));
    redraw();
  }
}

void LrFinderDialog::finish(int exitStatus) {
  start_->setEnabled(true);
  if (exitStatus != 0) {
    status_->setText(tr("The range test failed (exit status %1): %2")
                         .arg(exitStatus)
                         .arg(lastError_.isEmpty() ? tr("see the output") : lastError_));
    return;
  }
  if (suggested_ <= 0) {
    status_->setText(
        tr("No suggestion: too few steps before the cost diverged. Widen the range "
           "or run more steps."));
    return;
  }
  auto* line = new QCPItemStraightLine(plot_);
  line->setObjectName("lrFinder.suggestion");
  line->setPen(QPen(ui::Palette::categorical(1), 1.5, Qt::DashLine));
  line->point1->setCoords(suggested_, 0);
  line->point2->setCoords(suggested_, 1);
  use_->setEnabled(true);
  status_->setText(tr("Suggested learning rate: %1 (the steepest descent of the smoothed cost, "
                      "dashed). Use This Rate sets optimizer.learning_rate.")
                       .arg(suggested_, 0, 'g', 3));
  plot_->replot();
}

void LrFinderDialog::redraw() {
  // A diverged cost (inf, nan) is left out of the curves; the axis follows the finite ones.
  QVector<double> x, raw, smooth;
  double low = INFINITY, high = -INFINITY;
  for (int i = 0; i < rates_.size(); ++i) {
    if (!std::isfinite(losses_[i]) || !std::isfinite(smoothed_[i])) continue;
    x.append(rates_[i]);
    raw.append(losses_[i]);
    smooth.append(smoothed_[i]);
    low = std::min({low, smoothed_[i], losses_[i]});  // the raw cost dips below the smoothed
    high = std::max(high, smoothed_[i]);
  }
  plot_->graph(0)->setData(x, raw, true);
  plot_->graph(1)->setData(x, smooth, true);
  if (!x.isEmpty()) {
    const double from = QLocale::c().toDouble(from_->text());
    const double to = QLocale::c().toDouble(to_->text());
    plot_->xAxis->setRange(from > 0 ? from : x.first(), to > from ? to : x.last());
    // The smoothed curve decides the top: the raw cost's last, diverging steps would squash it.
    const double margin = std::max(1e-6, (high - low) * 0.1);
    plot_->yAxis->setRange(low - margin, std::min(high, 4 * low) + margin);
  }
  plot_->replot();
}

}  // namespace tbench::gui
