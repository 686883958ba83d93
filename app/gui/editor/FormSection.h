#pragma once
// FormSection: a ProjectSection made of simple fields, each bound to one key of the object at
// `base` in the document ("data.train" + "num_samples"). It covers every section but the
// schedule and the callback list, and the settings of the selected callback.
//
// A field shows `fallback` (the engine's default) while its key is absent, and writes its key
// only when the user changes it, so a loaded document keeps the keys it had. A variant section
// (setVariant) hides or disables the fields of the other types, and switching its type removes
// their keys from the document (the engine rejects them) and puts back the ones the new type
// had when the user left it.
//
// Typed text is read by FieldInput and never coerced: text that is not a value of the key
// (unparsable, out of the key's bounds, a list with a bad element) is flagged at the field
// (IssueMarkers::setInputProblem) and not written; the field keeps the text until the user
// fixes it or the document's value changes from elsewhere. Paths are checked against the file
// system as they are typed (written all the same: the file may appear before the run).
// GUI thread only.

#include <QHash>
#include <QJsonArray>
#include <QJsonValue>
#include <QList>
#include <functional>

#include "app/bridge/ProjectViews.h"
#include "app/gui/editor/FieldInput.h"
#include "app/gui/editor/ProjectSchema.h"
#include "app/gui/editor/ProjectSection.h"

class QCheckBox;
class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QSpinBox;
class QValidator;

namespace tbench::gui {

class IssueMarkers;

class FormSection : public ProjectSection {
  Q_OBJECT
 public:
  /// Fields edit the keys of the object at `base` ("" for the top level). Their objectNames
  /// are "<namePrefix>.<key>" (the key alone for an empty prefix); a null prefix means
  /// `base`. An empty `title` gives a flat box, for a section inside another.
  FormSection(const QString& title, const QString& base, IssueMarkers* markers,
              QWidget* parent = nullptr, const QString& namePrefix = QString());

  enum class PathKind { File, Directory };

  // Each adds a row: label, field, and the field's issue label under it (IssueMarkers). The
  // field's tooltip is schema::help of its path.

  /// An integer in a spin box limited to [minimum, maximum] (widened to show a loaded value
  /// outside it, which the validation then marks).
  QSpinBox* addInteger(const QString& key, const QString& label, int minimum, int maximum,
                       int fallback);
  /// A number typed as text: "0.001", "1e-4" and "3E-5" all work; within `bounds`.
  QLineEdit* addNumber(const QString& key, const QString& label, double fallback,
                       const input::Bounds& bounds = nonNegative());
  /// An integer >= 0 up to 2^63-1, typed as text (seeds).
  QLineEdit* addSeed(const QString& key, const QString& label, qint64 fallback);
  /// A string; `suggestions` are offered as the user types.
  QLineEdit* addText(const QString& key, const QString& label, const QString& fallback,
                     QValidator* validator = nullptr, const QStringList& suggestions = {});
  /// A string with a browse button; the path is checked as it is typed (an input must exist;
  /// with `createdIfMissing` a missing directory is fine).
  QLineEdit* addPath(const QString& key, const QString& label, PathKind kind,
                     const QString& filter = QString(), bool createdIfMissing = false);
  QCheckBox* addBoolean(const QString& key, const QString& label, bool fallback);
  QComboBox* addChoice(const QString& key, const QString& label, const QStringList& choices,
                       const QString& fallback);
  /// An array of integers typed as "256, 128" (empty text: []), each within `bounds`.
  QLineEdit* addIntegerList(const QString& key, const QString& label, const QJsonArray& fallback,
                            const input::Bounds& bounds = nonNegative());
  /// An array of numbers typed as "0.5, 0.25" (empty text: []), each within `bounds`.
  QLineEdit* addNumberList(const QString& key, const QString& label, const QJsonArray& fallback,
                           const input::Bounds& bounds = input::Bounds());
  /// An array of strings typed as "cost, train_error".
  QLineEdit* addStringList(const QString& key, const QString& label, const QJsonArray& fallback);
  /// A grey line of explanation under the last row.
  QLabel* addNote(const QString& text);

  /// The field of a key as the registry describes it (bridge::KeyView): a spin box for an
  /// integer (its bounds; `zeroText` shown for 0), a text field for a number or seed, a check
  /// box, a combo box of the choices, a path with a browse button, a list typed with commas.
  /// Returns the field's widget.
  QWidget* addKey(const bridge::KeyView& key);
  /// addKey for each of `keys` not already in the section.
  void addKeys(const QList<bridge::KeyView>& keys);

  /// Makes this the section of a component of `kind` (registry): a variant section
  /// (setVariant) whose fields take the defaults and tooltips of the current type's keys.
  void setComponentKind(const QString& kind, bool hideForeign);

  /// Makes this the section of a variant object of kind `keys`: the choice field of
  /// `keys.typeKey` (if any) switches types; fields of keys the current type lacks are hidden
  /// (`hideForeign`) or disabled.
  void setVariant(const VariantKeys& keys, bool hideForeign);
  /// What the field of `key` shows while the key is absent.
  void setFallback(const QString& key, const QJsonValue& value);

  /// Rewrites the section's edits before they are emitted (an empty checkpoint path removes
  /// the whole "init" object).
  void setEditFilter(std::function<JsonEdits(const JsonEdits&)> filter) {
    editFilter_ = std::move(filter);
  }

  /// Moves the section to another object (the selected callback); takes effect at load().
  void setBase(const QString& base);
  const QString& base() const { return base_; }

  /// The object at base() as of the last load() (empty when absent).
  const QJsonObject& current() const { return current_; }

  void load(const QJsonObject& root) override;

  /// [0, inf): what numbers and integer lists accept unless told otherwise.
  static input::Bounds nonNegative() {
    input::Bounds b;
    b.minimum = 0;
    return b;
  }

 private:
  enum class Kind {
    Integer,
    Number,
    Seed,
    Text,
    Boolean,
    Choice,
    IntegerList,
    NumberList,
    StringList
  };
  struct Field {
    QString key;
    Kind kind;
    QWidget* widget = nullptr;
    QWidget* row = nullptr;  // the field with its issue label, as placed in the form
    QLabel* issueLabel = nullptr;
    QJsonValue fallback;
    int minimum = 0;  // Kind::Integer
    int maximum = 0;
    input::Bounds bounds;  // Kind::Number and the lists
    int pathKind = -1;     // a PathKind for paths, -1 otherwise
    bool createdIfMissing = false;
    QJsonValue heldBack = QJsonValue(QJsonValue::Undefined);  // the document's value when the
                                                              // field's text was refused
  };

  QString pathOf(const QString& key) const { return joinPath(base_, key); }
  QString nameOf(const QString& key) const;
  int addField(const QString& key, const QString& label, Kind kind, QWidget* widget,
               const QJsonValue& fallback, QWidget* extra = nullptr);
  void bindLineEdit(int index);
  void showValue(const Field& field, const QJsonValue& stored);
  /// The value the field's text means (undefined: none), with why not in `*problem`.
  QJsonValue valueOf(const Field& field, QString* problem = nullptr) const;
  /// Checks a path field's text and shows the result at the field (with `remark`; load()
  /// leaves marking to the editor).
  void checkPath(const Field& field, bool remark = true);
  void userChanged(int index);
  JsonEdits switchType(const QString& type);
  void showVariantRows();
  void applyTypeDefaults();  // the current type's defaults and tooltips (setComponentKind)

  QString base_;
  QString namePrefix_;
  IssueMarkers* markers_;
  QFormLayout* form_;
  QObject* wheelGuard_;  // on spin and combo boxes
  QList<Field> fields_;
  QJsonObject current_;
  const VariantKeys* variant_ = nullptr;
  QString kind_;                   // setComponentKind
  QJsonObject fallbackOverrides_;  // setFallback, over the type's defaults
  bool hideForeign_ = true;
  QHash<QString, QJsonObject> keptByType_;  // the keys a type had when the user switched away
  std::function<JsonEdits(const JsonEdits&)> editFilter_;
  bool loading_ = false;
};

}  // namespace tbench::gui
