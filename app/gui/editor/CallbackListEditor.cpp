#include "app/bridge/ProjectViews.h"
#include "app/gui/editor/CallbackListEditor.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QScopedValueRollback>
#include <QSpinBox>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>
#include <limits>

#include "app/gui/editor/FormSection.h"
#include "app/gui/editor/IssueMarkers.h"
#include "app/gui/editor/JsonText.h"
#include "app/gui/editor/ProjectSections.h"
#include "widgets/Palette.h"

namespace tbench::gui {

namespace {

QString rowText(int row, const QJsonValue& value) {
  const QJsonObject callback = value.toObject();
  QStringList settings;
  for (const QString& key : schema::keyOrder("callbacks[]")) {
    if (key == QLatin1String("type") || !callback.contains(key)) continue;
    const QJsonValue setting = callback.value(key);
    QString text = setting.isString() ? setting.toString() : setting.toVariant().toString();
    if (setting.isArray()) text = setting.toVariant().toStringList().join(QStringLiteral(", "));
    if (setting.isDouble()) text = formatNumber(setting.toDouble());
    settings.append(key + QStringLiteral(": ") + text);
  }
  const QString type = value.isObject() ? callback.value("type").toString(QObject::tr("(no type)"))
                                        : QObject::tr("(not an object)");
  return QStringLiteral("%1. %2").arg(row + 1).arg(type) +
         (settings.isEmpty() ? QString() : QStringLiteral("  —  ") + settings.join("; "));
}

QToolButton* toolButton(const QString& text, const QString& name, QWidget* parent) {
  auto* button = new QToolButton(parent);
  button->setText(text);
  button->setObjectName(name);
  button->setToolButtonStyle(Qt::ToolButtonTextOnly);
  button->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
  return button;
}

}  // namespace

CallbackListEditor::CallbackListEditor(IssueMarkers* markers, QWidget* parent)
    : ProjectSection(tr("Callbacks"), parent) {
  auto* layout = new QVBoxLayout(this);
  defaultNote_ = new QLabel(
      tr("The project has no \"callbacks\" key and runs these defaults; a change writes the "
         "list."),
      this);
  defaultNote_->setObjectName("callbacks.default");
  defaultNote_->setWordWrap(true);
  defaultNote_->setStyleSheet(ui::Palette::mutedText());
  layout->addWidget(defaultNote_);

  auto* row = new QHBoxLayout;
  list_ = new QListWidget(this);
  list_->setObjectName("callbacks");
  list_->setToolTip(schema::help("callbacks"));
  list_->setIconSize(QSize(16, 16));
  list_->setMinimumHeight(120);
  list_->setMaximumHeight(200);
  row->addWidget(list_, 1);
  auto* buttons = new QVBoxLayout;
  add_ = toolButton(tr("Add"), "callbacks.add", this);
  add_->setPopupMode(QToolButton::InstantPopup);
  auto* menu = new QMenu(add_);
  if (const bridge::ComponentKindView* kind = schema::catalog().kind(QStringLiteral("callback"))) {
    for (const bridge::ComponentTypeView& t : kind->types) {
      const QString type = t.name;
      QAction* action = menu->addAction(type, this, [this, type] { addCallback(type); });
      action->setObjectName("callbacks.add." + type);
      action->setToolTip(t.summary);
      action->setStatusTip(t.summary);
    }
    menu->setToolTipsVisible(true);
  }
  add_->setMenu(menu);
  remove_ = toolButton(tr("Remove"), "callbacks.remove", this);
  up_ = toolButton(tr("Up"), "callbacks.up", this);
  down_ = toolButton(tr("Down"), "callbacks.down", this);
  for (QToolButton* button : {add_, remove_, up_, down_}) buttons->addWidget(button);
  buttons->addStretch();
  row->addLayout(buttons);
  layout->addLayout(row);
  QLabel* listIssue = IssueMarkers::makeLabel(list_->objectName(), this);
  layout->addWidget(listIssue);
  markers->setField(list_, "callbacks", listIssue, true, tr("callback"));

  settingsTitle_ = new QLabel(this);
  settingsTitle_->setObjectName("callback.title");
  layout->addWidget(settingsTitle_);
  settings_ =
      makeComponentSection(QString(), "callbacks[0]", markers, this, false, true, "callback");
  layout->addWidget(settings_);

  connect(list_, &QListWidget::currentRowChanged, this, [this](int current) {
    if (loading_) return;
    selected_ = current;
    showSettings();
    emit currentChanged(current);
  });
  connect(settings_, &ProjectSection::edited, this, [this](JsonEdits edits) {
    // Without the key, "callbacks[1].scalars" has no array to go into: write the list first.
    if (isDefault_) edits.prepend({"callbacks", callbacks_});
    emit edited(edits);
  });
  connect(remove_, &QToolButton::clicked, this, &CallbackListEditor::removeCurrent);
  connect(up_, &QToolButton::clicked, this, [this] { moveCurrent(-1); });
  connect(down_, &QToolButton::clicked, this, [this] { moveCurrent(+1); });
}

void CallbackListEditor::load(const QJsonObject& root) {
  root_ = root;
  const QJsonValue value = root.value("callbacks");
  isDefault_ = value.isUndefined();
  callbacks_ = isDefault_ ? schema::defaultCallbacks() : value.toArray();
  defaultNote_->setVisible(isDefault_);
  showList();
  showSettings();
}

void CallbackListEditor::showList() {
  const QScopedValueRollback<bool> guard(loading_, true);
  while (list_->count() > callbacks_.size()) delete list_->takeItem(list_->count() - 1);
  while (list_->count() < callbacks_.size()) list_->addItem(QString());
  for (int row = 0; row < callbacks_.size(); ++row) {
    QListWidgetItem* item = list_->item(row);
    item->setText(rowText(row, callbacks_.at(row)));
    QFont font = item->font();
    font.setItalic(isDefault_);
    item->setFont(font);
  }
  selected_ = qMin(selected_, int(callbacks_.size()) - 1);
  if (selected_ < 0 && !callbacks_.isEmpty()) selected_ = 0;
  list_->setCurrentRow(selected_);
}

void CallbackListEditor::showSettings() {
  const bool any = selected_ >= 0 && selected_ < callbacks_.size();
  settings_->setBase(QStringLiteral("callbacks[%1]").arg(any ? selected_ : 0));
  QJsonObject shown = root_;
  shown.insert("callbacks", callbacks_);
  settings_->load(shown);
  settings_->setVisible(any);
  const QString type = any ? callbacks_.at(selected_).toObject().value("type").toString() : "";
  if (!any) {
    settingsTitle_->setText(tr("No callbacks: the run shows no progress and saves nothing."));
  } else if (schema::variantOf(QStringLiteral("callback")).keysOf(type).isEmpty()) {
    settingsTitle_->setText(tr("Callback %1 (%2) has no settings.").arg(selected_ + 1).arg(type));
  } else {
    settingsTitle_->setText(tr("Settings of callback %1 (%2):").arg(selected_ + 1).arg(type));
  }
  remove_->setEnabled(any);
  up_->setEnabled(any && selected_ > 0);
  down_->setEnabled(any && selected_ + 1 < callbacks_.size());
}

void CallbackListEditor::setIssues(const bridge::ProjectIssueViews& issues) {
  for (int row = 0; row < list_->count(); ++row) {
    const QString path = QStringLiteral("callbacks[%1]").arg(row);
    QStringList messages;
    for (const bridge::ProjectIssueView& issue : issues) {
      const QString at = withoutRoot(issue.path);
      if (at == path || at.startsWith(path + '.') || at.startsWith(path + '[')) {
        const QString where = at.mid(path.size());
        messages.append(where.isEmpty() ? issue.message
                                        : where.mid(1) + QStringLiteral(": ") + issue.message);
      }
    }
    QListWidgetItem* item = list_->item(row);
    item->setIcon(messages.isEmpty() ? QIcon()
                                     : style()->standardIcon(QStyle::SP_MessageBoxWarning));
    item->setToolTip(messages.join('\n'));
  }
}

int CallbackListEditor::currentRow() const { return selected_; }

void CallbackListEditor::setCurrentRow(int row) { list_->setCurrentRow(row); }

void CallbackListEditor::emitList(const QJsonArray& callbacks, int selectRow) {
  selected_ = selectRow;
  emit edited({{"callbacks", callbacks}});
  emit currentChanged(selected_);
}

void CallbackListEditor::addCallback(const QString& type) {
  QJsonArray callbacks = callbacks_;
  const int at = selected_ >= 0 ? selected_ + 1 : callbacks.size();
  callbacks.insert(at, schema::newCallback(type));
  emitList(callbacks, at);
}

void CallbackListEditor::removeCurrent() {
  if (selected_ < 0 || selected_ >= callbacks_.size()) return;
  QJsonArray callbacks = callbacks_;
  callbacks.removeAt(selected_);
  emitList(callbacks, qMin(selected_, int(callbacks.size()) - 1));
}

void CallbackListEditor::moveCurrent(int delta) {
  const int target = selected_ + delta;
  if (selected_ < 0 || target < 0 || target >= callbacks_.size()) return;
  QJsonArray callbacks = callbacks_;
  const QJsonValue moved = callbacks.at(selected_);
  callbacks.removeAt(selected_);
  callbacks.insert(target, moved);
  emitList(callbacks, target);
}

}  // namespace tbench::gui
