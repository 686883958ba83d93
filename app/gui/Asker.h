#pragma once
// Asker: how the window asks the user a question (unsaved changes, stopping a run, keeping a
// sweep); returns the button chosen. QMessageBox::question by default; tests replace it.

#include <QMessageBox>
#include <functional>

namespace tbench::gui {

using Asker = std::function<QMessageBox::StandardButton(const QString& title, const QString& text,
                                                        QMessageBox::StandardButtons buttons)>;

}  // namespace tbench::gui
