#pragma once
// Loading plugins: shared libraries that register component types at start-up (Plugin.h).
// Torch-free; the CLI and the bridge call it before any project is read.
//
// Note [Plugins]
// - Entry points (Plugin.h, TOWERBENCH_PLUGIN): `towerbench_plugin_abi()` must return this
//   build's TOWERBENCH_PLUGIN_ABI and `towerbench_plugin_torch()` a LibTorch of the same
//   major.minor version; then `towerbench_plugin_register(PluginContext&)` runs.
// - Transactional: the plugin registers into an empty copy of the registry (its kinds, no
//   types). Its types are then checked against the registry and added all together
//   (ComponentRegistry::addAll), marked with origin "plugin <path>"; if one name is taken,
//   nothing is added, the library is closed and the error names the plugin and every clash.
// - Symbols: a plugin links LibTorch only. The engine's symbols (the registry, Callback,
//   registerModel, ...) come from the program that loads it, which links the whole engine and
//   exports it (tb_plugin_host in cmake/TowerbenchTargets.cmake). So there is one registry, and
//   exceptions and RTTI cross between the plugin and the program.
// - Order (the CLI and the window): the paths given (--plugin, then the window's settings),
//   then every *.so of each folder of pluginFolders(), by name. A path already loaded is
//   skipped (also when reached through another name for the same file). A plugin cannot be
//   unloaded: its types may be in use.
// - A failure never stops the program: loadPlugins returns (and keeps) every failure with its
//   path; the CLI prints them on stderr, the window in its log and its Plugins dialog.

#include <string>
#include <vector>

namespace tbench {

/// A plugin loaded into this process.
struct LoadedPlugin {
  std::string path;                ///< absolute and canonical
  std::vector<std::string> types;  ///< what it registered: "callback scalar_note", ...
};

/// A plugin that could not be loaded, and why ("plugin <path>: ...").
struct PluginFailure {
  std::string path;
  std::string message;
};

/// Loads one plugin into ComponentRegistry::global(). Returns it (as first loaded when the file
/// is loaded already). Throws InputError "plugin <path>: ..." when the file is missing, is not a
/// shared library or not a plugin, was built for another ABI or LibTorch, its registration
/// throws, or a name it registers is taken; nothing of it is registered then.
LoadedPlugin loadPlugin(const std::string& path);

/// Loads each of `paths`, then (with `searchFolders`) every plugin in pluginFolders(). Returns
/// the failures of this call (each also kept for pluginFailures()); never throws for a plugin.
std::vector<PluginFailure> loadPlugins(const std::vector<std::string>& paths,
                                       bool searchFolders = true);

/// Where plugins are looked for: each directory of $TOWERBENCH_PLUGIN_PATH (colon-separated),
/// then the user's, $XDG_DATA_HOME/towerbench/plugins (default ~/.local/share/...).
std::vector<std::string> pluginFolders();
/// The user's plugin folder (also when it does not exist).
std::string userPluginFolder();
/// The plugins of one folder: its *.so files, by name. Empty when it does not exist.
std::vector<std::string> pluginsIn(const std::string& folder);

/// The plugins loaded so far, in loading order.
std::vector<LoadedPlugin> loadedPlugins();
/// Every failure of loadPlugin so far, in order.
std::vector<PluginFailure> pluginFailures();

}  // namespace tbench
