#pragma once
// The engine's plugin loader (engine/project/registry/PluginLoader.h, Note [Plugins]) for the
// window, in Qt types. Qt-only header; implemented with the engine.

#include <QList>
#include <QString>
#include <QStringList>

namespace tbench::bridge {

/// A plugin loaded into this process and the types it registered ("callback weight_norm").
struct PluginView {
  QString path;
  QStringList types;
};

/// A plugin that could not be loaded: its path and the whole message ("plugin <path>: ...").
struct PluginFailureView {
  QString path;
  QString message;
};

/// What the Plugins dialog shows.
struct PluginStatus {
  QList<PluginView> loaded;
  QList<PluginFailureView> failures;  ///< every failure since start, in order
  QStringList folders;                ///< where plugins are looked for, in order
};

/// Loads each of `paths`, then (with `searchFolders`) every plugin of the plugin folders.
/// Returns this call's failures; the window goes on without those plugins. Call it before the
/// window builds its form (the form reads the registry once).
QList<PluginFailureView> loadPlugins(const QStringList& paths, bool searchFolders = true);

/// The plugins loaded, the failures so far and the folders searched.
PluginStatus pluginStatus();

}  // namespace tbench::bridge
