#include "app/gui/editor/CheckedSpinBox.h"

#include <QCoreApplication>
#include <QKeyEvent>
#include <QLineEdit>

namespace tbench::gui {

CheckedSpinBox::CheckedSpinBox(QWidget* parent) : QSpinBox(parent) {
  connect(lineEdit(), &QLineEdit::textEdited, this, &CheckedSpinBox::onTextEdited);
  // A value set by the program (or the arrows) is always valid.
  connect(this, &QSpinBox::valueChanged, this, [this] {
    if (!problem_.isEmpty() && typedProblem().isEmpty()) onTextEdited();
  });
}

QString CheckedSpinBox::typedText() const { return lineEdit()->text(); }

QString CheckedSpinBox::typedProblem() const {
  QString text = cleanText().trimmed();
  if (!specialValueText().isEmpty() && lineEdit()->text() == specialValueText()) return {};
  if (text.isEmpty()) return tr("an integer is needed");
  bool ok = false;
  const qlonglong value = locale().toLongLong(text, &ok);
  if (!ok) return tr("\"%1\" is not an integer").arg(text);
  if (value < minimum()) return tr("must be >= %1").arg(minimum());
  if (value > maximum()) return tr("must be <= %1").arg(maximum());
  return {};
}

void CheckedSpinBox::showValueText() {
  if (problem_.isEmpty()) return;
  lineEdit()->setText(textFromValue(value()));
  onTextEdited();
}

void CheckedSpinBox::onTextEdited() {
  const QString problem = typedProblem();
  if (problem == problem_) return;
  problem_ = problem;
  emit typedProblemChanged(problem_);
}

void CheckedSpinBox::focusOutEvent(QFocusEvent* event) {
  // Qt's spin box would put the last valid value back: keep the text, flagged.
  if (!problem_.isEmpty()) {
    // Skips QAbstractSpinBox's correction on purpose; the line edit still learns it lost the
    // focus (its caret stops).
    QCoreApplication::sendEvent(lineEdit(), event);
    QWidget::focusOutEvent(event);
    return;
  }
  QSpinBox::focusOutEvent(event);
}

void CheckedSpinBox::keyPressEvent(QKeyEvent* event) {
  if ((event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter) && !problem_.isEmpty()) {
    event->ignore();  // Enter must not correct a flagged text either (a dialog may take it)
    return;
  }
  QSpinBox::keyPressEvent(event);
}

}  // namespace tbench::gui
