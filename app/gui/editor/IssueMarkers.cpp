#include "app/bridge/ProjectViews.h"
#include "app/gui/editor/IssueMarkers.h"

#include <QLabel>
#include <QMap>
#include <QWidget>
#include <algorithm>

#include "app/gui/editor/JsonPath.h"
#include "widgets/Palette.h"

namespace tbench::gui {

namespace {

const char* const kIssueProperty = "tbIssue";

// A word-wrapping label that does not ask its layout for height-for-width: in Qt 6.4 a
// QFormLayout with hidden rows writes past its row arrays while it lays out a height-for-width
// field (seen with valgrind when a message appeared under a field of a row just shown).
class IssueLabel : public QLabel {
 public:
  using QLabel::QLabel;
  bool hasHeightForWidth() const override { return false; }
  QSize minimumSizeHint() const override { return sizeHint(); }
};

bool encloses(const QString& fieldPath, bool enclosing, const QString& issuePath) {
  if (fieldPath.isEmpty()) return false;
  if (issuePath == fieldPath) return true;
  if (!enclosing || !issuePath.startsWith(fieldPath)) return false;
  const QChar next = issuePath.at(fieldPath.size());
  return next == QLatin1Char('.') || next == QLatin1Char('[');
}

}  // namespace

IssueMarkers::IssueMarkers(QWidget* scope, QObject* parent) : QObject(parent), scope_(scope) {}

QLabel* IssueMarkers::makeLabel(const QString& fieldName, QWidget* parent) {
  auto* label = new IssueLabel(parent);
  label->setObjectName(fieldName + QStringLiteral(".issue"));
  label->setWordWrap(true);
  label->setStyleSheet(ui::Palette::errorText());
  label->setTextFormat(Qt::PlainText);
  label->hide();
  return label;
}

void IssueMarkers::setField(QWidget* field, const QString& path, QLabel* label, bool enclosing,
                            const QString& itemName) {
  if (!fields_.contains(field)) {
    connect(field, &QObject::destroyed, this,
            [this](QObject* gone) { fields_.remove(static_cast<QWidget*>(gone)); });
    fields_.insert(field, {withoutRoot(path), label, enclosing, itemName, field->toolTip()});
    return;
  }
  Field& entry = fields_[field];
  clear(field, entry);
  entry.path = withoutRoot(path);
  entry.label = label;
  entry.enclosing = enclosing;
  entry.itemName = itemName;
}

QString IssueMarkers::where(const Field& entry, const QString& issuePath) {
  QString rest = withoutRoot(issuePath).mid(entry.path.size());
  if (rest.startsWith(QLatin1Char('.'))) return rest.mid(1);
  if (entry.itemName.isEmpty() || !rest.startsWith(QLatin1Char('['))) return rest;
  const int close = rest.indexOf(QLatin1Char(']'));
  const QString item =
      entry.itemName + QLatin1Char(' ') + QString::number(rest.mid(1, close - 1).toInt() + 1);
  rest = rest.mid(close + 1);
  if (rest.startsWith(QLatin1Char('.'))) rest = rest.mid(1);
  return rest.isEmpty() ? item : item + QStringLiteral(", ") + rest;
}

QWidget* IssueMarkers::fieldFor(const QString& path) const {
  const QString issuePath = withoutRoot(path);
  QWidget* best = nullptr;
  int bestLength = -1;
  for (auto it = fields_.cbegin(); it != fields_.cend(); ++it) {
    QWidget* field = it.key();
    if (!encloses(it->path, it->enclosing, issuePath) || it->path.size() <= bestLength) continue;
    if (!field->isVisibleTo(scope_) || !field->isEnabledTo(scope_)) continue;
    best = field;
    bestLength = it->path.size();
  }
  return best;
}

bridge::ProjectIssueViews IssueMarkers::show(const bridge::ProjectIssueViews& issues) {
  issues_ = issues;
  for (auto it = fields_.cbegin(); it != fields_.cend(); ++it) clear(it.key(), it.value());
  QMap<QWidget*, QStringList> messages;  // per field, in the order of `issues`
  bridge::ProjectIssueViews unclaimed;
  for (const bridge::ProjectIssueView& issue : issues) {
    QWidget* field = fieldFor(issue.path);
    if (field == nullptr) {
      unclaimed.append(issue);
      continue;
    }
    // A message about a part of the field's value says which part ("[1]: must be >= 1").
    const QString part = where(fields_.value(field), issue.path);
    messages[field].append(part.isEmpty() ? issue.message
                                          : part + QStringLiteral(": ") + issue.message);
  }
  for (auto it = fields_.cbegin(); it != fields_.cend(); ++it) {
    // Like issues, only on fields that can be fixed now (a hidden row's field stays unmarked:
    // showing its label would show part of a row the form layout hides).
    if (it->inputProblem.isEmpty()) continue;
    if (!it.key()->isVisibleTo(scope_) || !it.key()->isEnabledTo(scope_)) continue;
    messages[it.key()].prepend(it->inputProblem);
  }
  for (auto it = messages.cbegin(); it != messages.cend(); ++it) {
    mark(it.key(), fields_.value(it.key()), it.value());
  }
  return unclaimed;
}

void IssueMarkers::setInputProblem(QWidget* field, const QString& message, bool remark) {
  auto it = fields_.find(field);
  if (it == fields_.end() || it->inputProblem == message) return;
  it->inputProblem = message;
  if (remark) show(issues_);  // the field's other messages stay; what no field takes is unchanged
}

QString IssueMarkers::inputProblem(QWidget* field) const {
  return fields_.value(field).inputProblem;
}

bridge::ProjectIssueViews IssueMarkers::inputProblems() const {
  bridge::ProjectIssueViews problems;
  for (auto it = fields_.cbegin(); it != fields_.cend(); ++it) {
    if (it->inputProblem.isEmpty()) continue;
    if (!it.key()->isVisibleTo(scope_) || !it.key()->isEnabledTo(scope_)) continue;
    problems.append({QStringLiteral("$.") + it->path, it->inputProblem});
  }
  std::sort(problems.begin(), problems.end(),
            [](const auto& a, const auto& b) { return a.path < b.path; });
  return problems;
}

void IssueMarkers::setPathBase(const QString& dir) {
  if (pathBase_ == dir) return;
  pathBase_ = dir;
  emit pathBaseChanged();
}

void IssueMarkers::clear(QWidget* field, const Field& entry) {
  if (!field->property(kIssueProperty).toBool()) return;
  field->setProperty(kIssueProperty, false);
  field->setStyleSheet(QString());
  field->setToolTip(entry.help);
  if (entry.label) {
    entry.label->clear();
    entry.label->hide();
  }
}

void IssueMarkers::mark(QWidget* field, const Field& entry, const QStringList& messages) {
  field->setProperty(kIssueProperty, true);
  // The class name as selector: the rule must not reach the field's children (the line edit
  // inside a spin box, the header of a table).
  field->setStyleSheet(QStringLiteral("%1 { border: 1px solid %2; border-radius: 2px; }")
                           .arg(QLatin1String(field->metaObject()->className()),
                                ui::Palette::hex(ui::Palette::error())));
  const QString text = messages.join(QLatin1Char('\n'));
  field->setToolTip(entry.help.isEmpty() ? text : text + QStringLiteral("\n\n") + entry.help);
  if (entry.label) {
    entry.label->setText(text);
    entry.label->show();
  }
}

}  // namespace tbench::gui
