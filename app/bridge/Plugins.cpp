#include "app/bridge/Plugins.h"

#include "app/bridge/ToQt.h"
#include "engine/project/registry/PluginLoader.h"

namespace tbench::bridge {
namespace {

QList<PluginFailureView> views(const std::vector<PluginFailure>& failures) {
  QList<PluginFailureView> out;
  for (const PluginFailure& f : failures) out.append({q(f.path), q(f.message)});
  return out;
}

}  // namespace

QList<PluginFailureView> loadPlugins(const QStringList& paths, bool searchFolders) {
  std::vector<std::string> files;
  for (const QString& path : paths) files.push_back(path.toStdString());
  return views(tbench::loadPlugins(files, searchFolders));
}

PluginStatus pluginStatus() {
  PluginStatus status;
  for (const LoadedPlugin& plugin : loadedPlugins()) {
    PluginView view{q(plugin.path), {}};
    for (const std::string& type : plugin.types) view.types << q(type);
    status.loaded.append(view);
  }
  status.failures = views(pluginFailures());
  for (const std::string& folder : pluginFolders()) status.folders << q(folder);
  return status;
}

}  // namespace tbench::bridge
