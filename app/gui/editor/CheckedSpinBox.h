#pragma once
// CheckedSpinBox: a QSpinBox that never changes what the user typed. Qt's spin box puts the
// previous value back when the field is left (or Enter pressed) holding a number below its
// minimum ("0" where >= 1 is needed): the input would be silently changed. This one keeps the
// text and says so through typedProblem ("must be >= 1"), which the form shows under the field
// (and Start refuses); the document keeps its last valid value meanwhile. A number above the
// maximum cannot be typed at all (Qt refuses the keystroke), which changes nothing silently.
// GUI thread only.

#include <QSpinBox>

namespace tbench::gui {

class CheckedSpinBox : public QSpinBox {
  Q_OBJECT
 public:
  explicit CheckedSpinBox(QWidget* parent = nullptr);

  /// Why the typed text is not a value of the field ("must be >= 1"); empty when it is one.
  QString typedProblem() const;
  /// The text as typed.
  QString typedText() const;
  /// Shows value() as text again, dropping a flagged text (the document set the value).
  void showValueText();

 signals:
  /// The typed text's problem changed (empty: fine again).
  void typedProblemChanged(const QString& problem);

 protected:
  void focusOutEvent(QFocusEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;

 private:
  void onTextEdited();
  QString problem_;
};

}  // namespace tbench::gui
