#include "app/gui/editor/FormSection.h"
#include "app/bridge/ProjectViews.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCompleter>
#include <QCoreApplication>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QScopedValueRollback>
#include <QSpinBox>

#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>
#include "app/gui/editor/CheckedSpinBox.h"

#include "app/gui/editor/IssueMarkers.h"
#include "app/gui/editor/JsonText.h"
#include "widgets/Palette.h"

namespace tbench::gui {

namespace {

// Numbers are read in the C locale whatever the user's: JSON writes "0.5", never "0,5".
double parseNumber(const QString& text, bool* ok) { return QLocale::c().toDouble(text, ok); }

input::Bounds boundsOf(const bridge::KeyView& key) {
  input::Bounds b;
  b.minimum = key.minimum;
  b.minimumInclusive = key.minimumInclusive;
  b.maximum = key.maximum;
  b.maximumInclusive = key.maximumInclusive;
  return b;
}

QStringList splitList(const QString& text) {
  QStringList parts;
  for (const QString& part : text.split(QLatin1Char(','))) {
    if (!part.trimmed().isEmpty()) parts.append(part.trimmed());
  }
  return parts;
}

// What a field shows of a value of the wrong type (the validation says what is wrong with it).
QString textOf(const QJsonValue& value) {
  return value.isString() ? value.toString() : value.toVariant().toString();
}

QString joinList(const QJsonArray& array) {
  QStringList parts;
  for (const QJsonValue& element : array) parts.append(textOf(element));
  return parts.join(QStringLiteral(", "));
}

QJsonArray stringArray(const QString& text) {
  QJsonArray array;
  for (const QString& part : splitList(text)) array.append(part);
  return array;
}

// In a scrolling form the wheel scrolls the form: a spin box or combo box under the pointer
// changes only once the user has clicked into it.
class WheelGuard : public QObject {
 public:
  using QObject::QObject;
  bool eventFilter(QObject* watched, QEvent* event) override {
    auto* widget = static_cast<QWidget*>(watched);
    if (event->type() != QEvent::Wheel || widget->hasFocus()) return false;
    if (widget->parentWidget() != nullptr)
      QCoreApplication::sendEvent(widget->parentWidget(), event);
    return true;
  }
};

}  // namespace

FormSection::FormSection(const QString& title, const QString& base, IssueMarkers* markers,
                         QWidget* parent, const QString& namePrefix)
    : ProjectSection(title, parent),
      base_(base),
      namePrefix_(namePrefix.isNull() ? base : namePrefix),
      markers_(markers),
      form_(new QFormLayout(this)),
      wheelGuard_(new WheelGuard(this)) {
  if (title.isEmpty()) {
    setFlat(true);
    form_->setContentsMargins(0, 0, 0, 0);
  }
  form_->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
}

QString FormSection::nameOf(const QString& key) const { return joinPath(namePrefix_, key); }

int FormSection::addField(const QString& key, const QString& label, Kind kind, QWidget* widget,
                          const QJsonValue& fallback, QWidget* extra) {
  widget->setObjectName(nameOf(key));
  widget->setToolTip(schema::help(pathOf(key)));
  if (kind == Kind::Integer || kind == Kind::Choice) {
    widget->setFocusPolicy(Qt::StrongFocus);
    widget->installEventFilter(wheelGuard_);
  }
  auto* row = new QWidget(this);
  auto* column = new QVBoxLayout(row);
  column->setContentsMargins(0, 0, 0, 0);
  column->setSpacing(2);
  if (extra != nullptr) {
    auto* line = new QHBoxLayout;
    line->addWidget(widget, 1);
    line->addWidget(extra);
    column->addLayout(line);
  } else {
    column->addWidget(widget);
  }
  QLabel* issueLabel = IssueMarkers::makeLabel(widget->objectName(), row);
  column->addWidget(issueLabel);
  form_->addRow(label, row);
  if (QWidget* rowLabel = form_->labelForField(row)) rowLabel->setToolTip(widget->toolTip());
  markers_->setField(widget, pathOf(key), issueLabel);
  fields_.append({key, kind, widget, row, issueLabel, fallback});
  return fields_.size() - 1;
}

QSpinBox* FormSection::addInteger(const QString& key, const QString& label, int minimum,
                                  int maximum, int fallback) {
  auto* spin = new CheckedSpinBox(this);
  spin->setRange(minimum, maximum);
  spin->setValue(fallback);
  const int index = addField(key, label, Kind::Integer, spin, fallback);
  fields_[index].minimum = minimum;
  fields_[index].maximum = maximum;
  connect(spin, &QSpinBox::valueChanged, this, [this, index] { userChanged(index); });
  // Out of range as typed: flagged where it is, never put back (CheckedSpinBox.h).
  connect(spin, &CheckedSpinBox::typedProblemChanged, this, [this, index](const QString& problem) {
    if (loading_ && !problem.isEmpty()) return;  // a value the document set clears a flag
    markers_->setInputProblem(fields_[index].widget, problem);
  });
  return spin;
}

QLineEdit* FormSection::addNumber(const QString& key, const QString& label, double fallback,
                                  const input::Bounds& bounds) {
  auto* edit = new QLineEdit(formatNumber(fallback), this);
  const int index = addField(key, label, Kind::Number, edit, fallback);
  fields_[index].bounds = bounds;
  bindLineEdit(index);
  return edit;
}

QLineEdit* FormSection::addSeed(const QString& key, const QString& label, qint64 fallback) {
  auto* edit = new QLineEdit(QString::number(fallback), this);
  bindLineEdit(addField(key, label, Kind::Seed, edit, fallback));
  return edit;
}

QLineEdit* FormSection::addText(const QString& key, const QString& label, const QString& fallback,
                                QValidator* validator, const QStringList& suggestions) {
  auto* edit = new QLineEdit(fallback, this);
  if (validator != nullptr) {
    validator->setParent(edit);
    edit->setValidator(validator);
  }
  if (!suggestions.isEmpty()) {
    auto* completer = new QCompleter(suggestions, edit);
    completer->setCaseSensitivity(Qt::CaseInsensitive);
    edit->setCompleter(completer);
  }
  bindLineEdit(addField(key, label, Kind::Text, edit, fallback));
  return edit;
}

QLineEdit* FormSection::addPath(const QString& key, const QString& label, PathKind kind,
                                const QString& filter, bool createdIfMissing) {
  auto* edit = new QLineEdit(this);
  auto* browse = new QToolButton(this);
  browse->setText(tr("Browse…"));
  browse->setObjectName(nameOf(key) + QStringLiteral(".browse"));
  const int index = addField(key, label, Kind::Text, edit, QString(), browse);
  fields_[index].pathKind = int(kind);
  fields_[index].createdIfMissing = createdIfMissing;
  bindLineEdit(index);
  connect(markers_, &IssueMarkers::pathBaseChanged, this,
          [this, index] { checkPath(fields_[index]); });
  connect(browse, &QToolButton::clicked, this, [this, edit, index, kind, filter, label] {
    // Issue 37: the dialog had opened in the home folder: it starts at the field's path (a
    // relative one is the project's folder's) or in the project's folder.
    const QString base = markers_->pathBase();
    const QString start = edit->text().isEmpty() ? base : QDir(base).absoluteFilePath(edit->text());
    const QString chosen = kind == PathKind::Directory
                               ? QFileDialog::getExistingDirectory(this, label, start)
                               : QFileDialog::getOpenFileName(this, label, start, filter);
    if (chosen.isEmpty()) return;
    edit->setText(chosen);
    userChanged(index);
  });
  return edit;
}

QCheckBox* FormSection::addBoolean(const QString& key, const QString& label, bool fallback) {
  auto* box = new QCheckBox(label, this);
  box->setChecked(fallback);
  const int index = addField(key, QString(), Kind::Boolean, box, fallback);
  connect(box, &QCheckBox::toggled, this, [this, index] { userChanged(index); });
  return box;
}

QComboBox* FormSection::addChoice(const QString& key, const QString& label,
                                  const QStringList& choices, const QString& fallback) {
  auto* combo = new QComboBox(this);
  combo->addItems(choices);
  combo->setCurrentText(fallback);
  const int index = addField(key, label, Kind::Choice, combo, fallback);
  connect(combo, &QComboBox::currentIndexChanged, this, [this, index] { userChanged(index); });
  return combo;
}

QLineEdit* FormSection::addIntegerList(const QString& key, const QString& label,
                                       const QJsonArray& fallback, const input::Bounds& bounds) {
  auto* edit = new QLineEdit(joinList(fallback), this);
  edit->setPlaceholderText(tr("none"));
  const int index = addField(key, label, Kind::IntegerList, edit, fallback);
  fields_[index].bounds = bounds;
  bindLineEdit(index);
  return edit;
}

QLineEdit* FormSection::addNumberList(const QString& key, const QString& label,
                                      const QJsonArray& fallback, const input::Bounds& bounds) {
  auto* edit = new QLineEdit(joinList(fallback), this);
  edit->setPlaceholderText(tr("none"));
  const int index = addField(key, label, Kind::NumberList, edit, fallback);
  fields_[index].bounds = bounds;
  bindLineEdit(index);
  return edit;
}

QLineEdit* FormSection::addStringList(const QString& key, const QString& label,
                                      const QJsonArray& fallback) {
  auto* edit = new QLineEdit(joinList(fallback), this);
  edit->setPlaceholderText(tr("none"));
  bindLineEdit(addField(key, label, Kind::StringList, edit, fallback));
  return edit;
}

QLabel* FormSection::addNote(const QString& text) {
  auto* note = new QLabel(text, this);
  note->setWordWrap(true);
  note->setStyleSheet(ui::Palette::mutedText());
  form_->addRow(QString(), note);
  return note;
}

void FormSection::bindLineEdit(int index) {
  auto* edit = static_cast<QLineEdit*>(fields_[index].widget);
  connect(edit, &QLineEdit::textEdited, this, [this, index] { userChanged(index); });
  // Leaving a field shows the document's value in its own words ("1e-4" for "0.0001"), unless
  // the text was refused: then it stays, flagged, for the user to fix.
  connect(edit, &QLineEdit::editingFinished, this, [this, index] {
    const Field& field = fields_[index];
    if (!markers_->inputProblem(field.widget).isEmpty() && field.pathKind < 0) return;
    const QScopedValueRollback<bool> guard(loading_, true);
    showValue(field, current_.value(field.key));
  });
}

QWidget* FormSection::addKey(const bridge::KeyView& key) {
  const QString& type = key.type;
  const QString& label = key.label;
  QWidget* widget = nullptr;
  if (type == QLatin1String("integer")) {
    // QSpinBox holds an int: wider bounds are clamped (the engine checks the real ones).
    // The engine's integer bounds (ProjectJson.cpp): an exclusive end moves to the next
    // integer inside.
    auto clampInt = [](double v) {
      return int(
          qBound<double>(std::numeric_limits<int>::min(), v, std::numeric_limits<int>::max()));
    };
    auto lower = [&](double v, bool inclusive) {
      if (!std::isfinite(v)) return std::numeric_limits<int>::min();
      return clampInt(inclusive ? std::ceil(v) : std::floor(v) + 1);
    };
    auto upper = [&](double v, bool inclusive) {
      if (!std::isfinite(v)) return std::numeric_limits<int>::max();
      return clampInt(inclusive ? std::floor(v) : std::ceil(v) - 1);
    };
    const int minimum = lower(key.minimum, key.minimumInclusive);
    const int maximum = upper(key.maximum, key.maximumInclusive);
    auto* spin = addInteger(key.name, label, minimum, maximum, int(key.fallback.toInteger()));
    // A spin box shows its special text at its minimum: only right when that is 0.
    if (!key.zeroText.isEmpty() && minimum == 0) spin->setSpecialValueText(key.zeroText);
    widget = spin;
  } else if (type == QLatin1String("number")) {
    widget = addNumber(key.name, label, key.fallback.toDouble(), boundsOf(key));
  } else if (type == QLatin1String("seed")) {
    widget = addSeed(key.name, label, key.fallback.toInteger());
  } else if (type == QLatin1String("boolean")) {
    widget = addBoolean(key.name, label, key.fallback.toBool());
  } else if (type == QLatin1String("choice")) {
    widget = addChoice(key.name, label, key.choices, key.fallback.toString());
  } else if (type == QLatin1String("file") || type == QLatin1String("directory")) {
    QLineEdit* edit = addPath(
        key.name, label, type == QLatin1String("file") ? PathKind::File : PathKind::Directory,
        key.fileFilter.isEmpty() ? tr("All files (*)") : key.fileFilter, key.createdIfMissing);
    edit->setPlaceholderText(key.placeholder);
    fields_.last().fallback = key.fallback;
    widget = edit;
  } else if (type == QLatin1String("integer list")) {
    widget = addIntegerList(key.name, label, key.fallback.toArray(), boundsOf(key));
  } else if (type == QLatin1String("number list")) {
    widget = addNumberList(key.name, label, key.fallback.toArray(), boundsOf(key));
  } else if (type == QLatin1String("string list") || type == QLatin1String("device list")) {
    widget = addStringList(key.name, label, key.fallback.toArray());
  } else {  // string, device
    QLineEdit* edit = addText(key.name, label, key.fallback.toString(), nullptr, key.suggestions);
    edit->setPlaceholderText(key.placeholder);
    widget = edit;
  }
  widget->setToolTip(key.help);
  if (QWidget* rowLabel = form_->labelForField(fields_.last().row)) rowLabel->setToolTip(key.help);
  return widget;
}

void FormSection::addKeys(const QList<bridge::KeyView>& keys) {
  for (const bridge::KeyView& key : keys) {
    const bool present = std::any_of(fields_.begin(), fields_.end(),
                                     [&](const Field& f) { return f.key == key.name; });
    if (!present) addKey(key);
  }
}

void FormSection::setComponentKind(const QString& kind, bool hideForeign) {
  kind_ = kind;
  setVariant(schema::variantOf(kind), hideForeign);
}

void FormSection::setVariant(const VariantKeys& keys, bool hideForeign) {
  variant_ = &keys;
  hideForeign_ = hideForeign;
}

void FormSection::setFallback(const QString& key, const QJsonValue& value) {
  fallbackOverrides_.insert(key, value);
  for (Field& field : fields_) {
    if (field.key == key) field.fallback = value;
  }
}

void FormSection::applyTypeDefaults() {
  if (kind_.isEmpty() || variant_ == nullptr) return;
  const QString type = current_.value(variant_->typeKey).toString(variant_->defaultType);
  for (Field& field : fields_) {
    const bridge::KeyView* key = schema::keyAt(joinPath(base_, field.key), type);
    if (key == nullptr) continue;
    const bool overridden = fallbackOverrides_.contains(field.key);
    field.fallback = overridden ? fallbackOverrides_.value(field.key) : key->fallback;
    QString help = key->help;
    if (overridden) {
      // The slot's own default (a validation source's split) over the type's.
      const QJsonValue here = field.fallback;
      help += tr("; here the default is %1")
                  .arg(here.isString() ? here.toString() : here.toVariant().toString());
    }
    field.widget->setToolTip(help);
  }
}

void FormSection::setBase(const QString& base) {
  base_ = base;
  for (const Field& field : fields_) {
    markers_->setField(field.widget, pathOf(field.key), field.issueLabel);
  }
}

void FormSection::load(const QJsonObject& root) {
  const QScopedValueRollback<bool> guard(loading_, true);
  current_ = valueAt(root, base_).toObject();
  applyTypeDefaults();
  for (Field& field : fields_) {
    const QJsonValue stored = current_.value(field.key);
    if (field.pathKind < 0 && !markers_->inputProblem(field.widget).isEmpty()) {
      // Refused text stays until the document's value changes from elsewhere.
      if (stored == field.heldBack) continue;
      markers_->setInputProblem(field.widget, QString(), /*remark=*/false);
    }
    showValue(field, stored);
    if (field.pathKind >= 0) checkPath(field, /*remark=*/false);
  }
  showVariantRows();
}

void FormSection::showVariantRows() {
  if (variant_ == nullptr) return;
  const QString type = current_.value(variant_->typeKey).toString(variant_->defaultType);
  const QStringList own = variant_->keysOf(type);
  const QStringList all = variant_->allKeys();
  for (const Field& field : fields_) {
    if (!all.contains(field.key)) continue;
    if (hideForeign_) {
      // Not QFormLayout::setRowVisible: in Qt 6.4 a row shown that way and then resized (an
      // issue label appearing in it) makes the layout write past its row arrays. A form layout
      // skips rows whose widgets are hidden.
      const bool visible = own.contains(field.key);
      field.row->setVisible(visible);
      if (QWidget* label = form_->labelForField(field.row)) label->setVisible(visible);
    } else {
      field.row->setEnabled(own.contains(field.key));
    }
  }
}

void FormSection::showValue(const Field& field, const QJsonValue& stored) {
  // A value of the wrong type shows as well as it can; the validation marks it.
  const QJsonValue value = stored.isUndefined() ? field.fallback : stored;
  switch (field.kind) {
    case Kind::Integer: {
      if (!value.isDouble()) return;
      auto* spin = static_cast<QSpinBox*>(field.widget);
      const int shown = int(qBound<double>(std::numeric_limits<int>::min(), value.toDouble(),
                                           std::numeric_limits<int>::max()));
      spin->setRange(qMin(field.minimum, shown), qMax(field.maximum, shown));
      if (spin->value() != shown) spin->setValue(shown);
      // The document's value replaces a flagged text even when it equals the last valid one.
      if (auto* checked = qobject_cast<CheckedSpinBox*>(spin)) checked->showValueText();
      return;
    }
    case Kind::Number: {
      auto* edit = static_cast<QLineEdit*>(field.widget);
      bool ok = false;
      const double typed = parseNumber(edit->text(), &ok);
      if (value.isDouble() && ok && typed == value.toDouble()) return;
      edit->setText(value.isDouble() ? formatNumber(value.toDouble()) : textOf(value));
      return;
    }
    case Kind::Seed: {
      auto* edit = static_cast<QLineEdit*>(field.widget);
      bool ok = false;
      const qint64 typed = edit->text().toLongLong(&ok);
      const bool integral = value.toVariant().typeId() == QMetaType::LongLong;
      if (integral && ok && typed == value.toInteger()) return;
      // Above 2^63-1 Qt holds the number as a double: shown in full, marked by the validation
      // if it lost digits.
      edit->setText(value.isDouble() && !integral ? QString::number(value.toDouble(), 'f', 0)
                                                  : textOf(value));
      return;
    }
    case Kind::Text: {
      auto* edit = static_cast<QLineEdit*>(field.widget);
      const QString text = textOf(value);
      if (edit->text() == text) return;
      edit->setText(text);
      // A text longer than the field (a description) shows its beginning, not its end, until
      // it is edited.
      if (!edit->hasFocus()) edit->setCursorPosition(0);
      return;
    }
    case Kind::Boolean:
      if (value.isBool()) static_cast<QCheckBox*>(field.widget)->setChecked(value.toBool());
      return;
    case Kind::Choice: {
      auto* combo = static_cast<QComboBox*>(field.widget);
      combo->setCurrentIndex(combo->findText(value.toString()));  // -1 (blank) when unknown
      return;
    }
    case Kind::IntegerList:
    case Kind::NumberList:
    case Kind::StringList: {
      auto* edit = static_cast<QLineEdit*>(field.widget);
      const QJsonValue shown = valueOf(field);
      if (value.isArray() && shown.isArray() && shown.toArray() == value.toArray()) return;
      edit->setText(value.isArray() ? joinList(value.toArray()) : textOf(value));
      return;
    }
  }
}

QJsonValue FormSection::valueOf(const Field& field, QString* problem) const {
  const QJsonValue nothing(QJsonValue::Undefined);
  QString why;
  QJsonValue value = nothing;
  const auto text = [&] { return static_cast<QLineEdit*>(field.widget)->text(); };
  switch (field.kind) {
    case Kind::Integer:
      return qint64(static_cast<QSpinBox*>(field.widget)->value());
    case Kind::Number: {
      double number = 0;
      why = input::readNumber(text(), field.bounds, &number);
      if (why.isEmpty()) value = number;
      break;
    }
    case Kind::Seed: {
      qint64 seed = 0;
      why = input::readSeed(text(), &seed);
      if (why.isEmpty()) value = seed;
      break;
    }
    case Kind::Text:
      return static_cast<QLineEdit*>(field.widget)->text();
    case Kind::Boolean:
      return static_cast<QCheckBox*>(field.widget)->isChecked();
    case Kind::Choice: {
      const auto* combo = static_cast<QComboBox*>(field.widget);
      return combo->currentIndex() < 0 ? nothing : QJsonValue(combo->currentText());
    }
    case Kind::IntegerList:
    case Kind::NumberList: {
      QJsonArray array;
      why = field.kind == Kind::IntegerList ? input::readIntegerList(text(), field.bounds, &array)
                                            : input::readNumberList(text(), field.bounds, &array);
      if (why.isEmpty()) value = array;
      break;
    }
    case Kind::StringList:
      return stringArray(static_cast<QLineEdit*>(field.widget)->text());
  }
  if (problem) *problem = why;
  return value;
}

void FormSection::checkPath(const Field& field, bool remark) {
  if (field.pathKind < 0) return;
  markers_->setInputProblem(field.widget,
                            input::checkPath(static_cast<QLineEdit*>(field.widget)->text(),
                                             field.pathKind == int(PathKind::Directory),
                                             field.createdIfMissing, markers_->pathBase()),
                            remark);
}

void FormSection::userChanged(int index) {
  if (loading_) return;
  Field& field = fields_[index];
  QString problem;
  const QJsonValue value = valueOf(field, &problem);
  if (field.pathKind >= 0) checkPath(field);
  if (field.pathKind < 0) markers_->setInputProblem(field.widget, problem);
  if (value.isUndefined()) {
    field.heldBack = current_.value(field.key);  // refused: the document keeps its value
    return;
  }
  JsonEdits edits = variant_ != nullptr && field.key == variant_->typeKey
                        ? switchType(value.toString())
                        : JsonEdits{{pathOf(field.key), value}};
  emit edited(editFilter_ ? editFilter_(edits) : edits);
}

JsonEdits FormSection::switchType(const QString& type) {
  const QString previous = current_.value(variant_->typeKey).toString(variant_->defaultType);
  JsonEdits edits{{pathOf(variant_->typeKey), type}};
  QJsonObject left;
  for (const QString& key : variant_->foreignKeys(type)) {
    if (!current_.contains(key)) continue;
    left.insert(key, current_.value(key));
    edits.append(removal(pathOf(key)));
  }
  if (!left.isEmpty()) keptByType_.insert(previous, left);
  const QJsonObject kept = keptByType_.value(type);
  for (auto it = kept.begin(); it != kept.end(); ++it) {
    if (!current_.contains(it.key())) edits.append({pathOf(it.key()), it.value()});
  }
  return edits;
}

}  // namespace tbench::gui
