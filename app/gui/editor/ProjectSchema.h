#pragma once
// ProjectSchema: what the editor knows of the project format, read from the engine's component
// registry through the bridge (bridge::ComponentCatalog; Note [One description per component]
// in engine/project/registry/ComponentRegistry.h): which keys belong to which type of a variant object,
// the order keys are written in, the defaults the form shows for absent keys, one line of help
// per key. Nothing here lists a type or a key: a type registered in the engine (by a test or a
// plugin) appears in the form like a built-in one.
//
// ProjectEditor installs the catalog of its services (setCatalog) before it builds its form.

#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

#include "app/bridge/BridgeTypes.h"
#include "app/bridge/ProjectViews.h"

namespace tbench::gui {

/// The types of one kind of variant object (model, data source, optimizer, callback) and the
/// keys of each. Keys every type has are not listed.
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

/// Installs the catalog every function below reads.
void setCatalog(const bridge::ComponentCatalog& catalog);
const bridge::ComponentCatalog& catalog();

/// The variant keys of a kind ("model", "data", "optimizer", "callback", "strategy").
const VariantKeys& variantOf(const QString& kind);

/// The description of the key at `path` ("data.train.noise", "callbacks[2].stat"), or nullptr.
/// A component key is looked up in the type `type` when given, else in the first type that
/// has it.
const bridge::KeyView* keyAt(const QString& path, const QString& type = QString());

/// The order keys are written in for the object at `pattern`, a path without "$" whose
/// indices are written "[]": "" (top level), "model", "data.train", "callbacks[]", ...
QStringList keyOrder(const QString& pattern);

/// One line saying what the setting at `path` means, with its constraints and default, for
/// tooltips. Empty for unknown paths.
QString help(const QString& path);

/// The callbacks of a project without a "callbacks" key.
QJsonArray defaultCallbacks();

/// The callback a user adds from the type menu: its type and the settings it starts with (a
/// progress bar shows "cost", a min saver watches "validation_error").
QJsonObject newCallback(const QString& type);

/// Scalar names the engine puts, offered when a callback names one.
QStringList knownScalars();

}  // namespace schema
}  // namespace tbench::gui
