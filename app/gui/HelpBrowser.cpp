#include "app/gui/HelpBrowser.h"

#include <QFile>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace tbench::gui {

HelpBrowser::HelpBrowser(const QString& resource, const QString& title, QWidget* parent)
    : QDialog(parent), browser_(new QTextBrowser(this)) {
  setObjectName("helpBrowser");
  setWindowTitle(title);
  setAttribute(Qt::WA_DeleteOnClose);
  browser_->setObjectName("helpBrowser.text");
  browser_->setOpenExternalLinks(true);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(browser_);
  QFile file(resource);
  if (file.open(QIODevice::ReadOnly)) {
    markdown_ = QString::fromUtf8(file.readAll());
    browser_->setMarkdown(markdown_);
  } else {
    browser_->setPlainText(tr("%1 is not part of this build.").arg(resource));
  }
  setProperty("resource", resource);
  resize(900, 700);
}

HelpBrowser* HelpBrowser::show(const QString& resource, const QString& title, QWidget* parent) {
  for (auto* open : parent->findChildren<HelpBrowser*>()) {
    if (open->property("resource").toString() == resource) {
      open->raise();
      open->activateWindow();
      return open;
    }
  }
  auto* browser = new HelpBrowser(resource, title, parent);
  browser->QDialog::show();
  return browser;
}

}  // namespace tbench::gui
