#pragma once
// ProjectSchema: what the editor knows of the project format (docs/PROJECT-FORMAT.md) without
// including the engine: which keys belong to which type of a variant object, the order keys
// are written in, the defaults the form shows for absent keys, and one line of help per key.
//
// The variant tables repeat those of engine/project/ProjectJson.cpp (Note [Variant keys]):
// keys every type has are not listed. When the engine's tables change, change these too; the
// engine's validation (ProjectServices::validate) still reports any key the editor got wrong.

#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

namespace tbench::gui {

/// The types of one kind of variant object (model, data source, optimizer, callback) and the
/// keys of each.
struct VariantKeys {
  QString typeKey = QStringLiteral("type");
  QString defaultType;  ///< the type when `typeKey` is absent; empty when it is required
  QList<QPair<QString, QStringList>> keysByType;

  QStringList types() const;
  /// The keys of `type` (empty for an unknown type).
  QStringList keysOf(const QString& type) const;
  /// Every key some type has.
  QStringList allKeys() const;
  /// The keys of the other types that `type` does not have.
  QStringList foreignKeys(const QString& type) const;
};

namespace schema {

const VariantKeys& modelTypes();
const VariantKeys& sourceTypes();
const VariantKeys& optimizerTypes();
const VariantKeys& callbackTypes();

/// The order keys are written in for the object at `pattern`, a path without "$" whose
/// indices are written "[]": "" (top level), "model", "data.train", "callbacks[]", ...
QStringList keyOrder(const QString& pattern);

/// One line saying what the setting at `path` ("data.train.noise", "callbacks[2].stat") means
/// and its default, for tooltips. Empty for unknown paths.
QString help(const QString& path);

/// The callbacks of a project without a "callbacks" key.
QJsonArray defaultCallbacks();

/// The callback a user adds from the type menu: its type and the settings it needs to be
/// valid (a progress bar shows "cost", a min saver watches "validation_error").
QJsonObject newCallback(const QString& type);

/// Scalar names the engine puts, offered when a callback names one.
QStringList knownScalars();

}  // namespace schema
}  // namespace tbench::gui
