#include "app/gui/PluginsDialog.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "app/bridge/Plugins.h"

namespace tbench::gui {

namespace {

const char* const kSettingsKey = "plugins";

QLabel* title(const QString& text, QWidget* parent) {
  auto* label = new QLabel(QStringLiteral("<b>%1</b>").arg(text), parent);
  return label;
}

}  // namespace

PluginsDialog::PluginsDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Plugins"));
  loaded_ = new QTreeWidget(this);
  loaded_->setObjectName("loadedTree");
  loaded_->setHeaderLabels({tr("Plugin"), tr("Types")});
  loaded_->header()->setSectionResizeMode(0, QHeaderView::Stretch);
  loaded_->setRootIsDecorated(true);

  failuresTitle_ = title(tr("Failed to load"), this);
  failures_ = new QPlainTextEdit(this);
  failures_->setObjectName("failuresView");
  failures_->setReadOnly(true);
  failures_->setMaximumHeight(110);

  paths_ = new QListWidget(this);
  paths_->setObjectName("pathList");
  paths_->setMaximumHeight(110);
  auto* add = new QPushButton(tr("Add…"), this);
  add->setObjectName("addButton");
  remove_ = new QPushButton(tr("Remove"), this);
  remove_->setObjectName("removeButton");
  connect(add, &QPushButton::clicked, this, &PluginsDialog::browse);
  connect(remove_, &QPushButton::clicked, this, [this] {
    if (QListWidgetItem* item = paths_->currentItem()) removePlugin(item->text());
  });
  connect(paths_, &QListWidget::currentRowChanged, this,
          [this](int row) { remove_->setEnabled(row >= 0); });
  auto* pathButtons = new QVBoxLayout;
  pathButtons->addWidget(add);
  pathButtons->addWidget(remove_);
  pathButtons->addStretch();
  auto* pathRow = new QHBoxLayout;
  pathRow->addWidget(paths_, 1);
  pathRow->addLayout(pathButtons);

  folders_ = new QLabel(this);
  folders_->setObjectName("foldersLabel");
  folders_->setWordWrap(true);
  folders_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  note_ = new QLabel(this);
  note_->setObjectName("noteLabel");
  note_->setWordWrap(true);
  note_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(title(tr("Loaded"), this));
  layout->addWidget(loaded_, 1);
  layout->addWidget(failuresTitle_);
  layout->addWidget(failures_);
  layout->addWidget(title(tr("Loaded at start"), this));
  layout->addLayout(pathRow);
  layout->addWidget(folders_);
  layout->addWidget(note_);
  layout->addWidget(buttons);
  resize(720, 520);
  refresh();
}

QStringList PluginsDialog::configuredPaths() {
  return QSettings().value(kSettingsKey).toStringList();
}

void PluginsDialog::refresh() {
  const bridge::PluginStatus status = bridge::pluginStatus();
  loaded_->clear();
  for (const bridge::PluginView& plugin : status.loaded) {
    auto* item = new QTreeWidgetItem(
        loaded_, {QDir::toNativeSeparators(plugin.path), QString::number(plugin.types.size())});
    for (const QString& type : plugin.types) new QTreeWidgetItem(item, {type});
    item->setExpanded(true);
  }
  if (status.loaded.isEmpty()) {
    new QTreeWidgetItem(loaded_, {tr("(no plugin loaded)")});
  }
  QStringList failures;
  for (const bridge::PluginFailureView& f : status.failures) failures << f.message;
  failures_->setPlainText(failures.join('\n'));
  failures_->setVisible(!failures.isEmpty());
  failuresTitle_->setVisible(!failures.isEmpty());

  paths_->clear();
  paths_->addItems(configuredPaths());
  remove_->setEnabled(paths_->currentRow() >= 0);
  QStringList folders;
  for (const QString& folder : status.folders) folders << QDir::toNativeSeparators(folder);
  folders_->setText(tr("Also loaded at start: every *.so in %1 ($TOWERBENCH_PLUGIN_PATH, then "
                       "your plugin folder), and the files given with --plugin.")
                        .arg(folders.join(", ")));
}

bool PluginsDialog::addPlugin(const QString& given) {
  const QString path = QFileInfo(given).absoluteFilePath();
  const QList<bridge::PluginFailureView> failures = bridge::loadPlugins({path}, false);
  QString message;
  if (!failures.isEmpty()) {
    message = failures.front().message;
    setNote(tr("Not added: %1").arg(message));
  } else {
    QStringList paths = configuredPaths();
    if (!paths.contains(path)) paths << path;
    QSettings().setValue(kSettingsKey, paths);
    QStringList types;
    for (const bridge::PluginView& plugin : bridge::pluginStatus().loaded) {
      if (QFileInfo(plugin.path) == QFileInfo(path)) types = plugin.types;
    }
    message = tr("plugin %1 loaded: %2").arg(path, types.join(", "));
    setNote(tr("Loaded %1 (%2); it loads at every start. The project form offers its types "
               "after a restart.")
                .arg(QDir::toNativeSeparators(path), types.join(", ")));
  }
  refresh();
  emit pluginsChanged(message);
  return failures.isEmpty();
}

void PluginsDialog::removePlugin(const QString& path) {
  QStringList paths = configuredPaths();
  paths.removeAll(path);
  QSettings().setValue(kSettingsKey, paths);
  setNote(tr("Removed %1: it is no longer loaded at start. Its types stay registered until "
             "Towerbench restarts.")
              .arg(QDir::toNativeSeparators(path)));
  refresh();
  emit pluginsChanged(tr("plugin %1 removed (takes effect at the next start)").arg(path));
}

void PluginsDialog::browse() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Add Plugin"), QDir::homePath(),
                                                    tr("Towerbench plugins (*.so);;All files (*)"));
  if (!path.isEmpty()) addPlugin(path);
}

QString PluginsDialog::note() const { return note_->text(); }

void PluginsDialog::setNote(const QString& text) { note_->setText(text); }

}  // namespace tbench::gui
