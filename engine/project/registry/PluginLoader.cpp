// Note [Plugins] (PluginLoader.h): dlopen, the ABI check, registration into a staging registry
// and the all-or-nothing move into the global one.

#include "engine/project/registry/PluginLoader.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <system_error>

#include "engine/core/Check.h"
#include "engine/core/Logging.h"
#include "engine/project/Plugin.h"

namespace fs = std::filesystem;

namespace tbench {

namespace {

using AbiFunction = int (*)();
using TorchFunction = const char* (*)();
using RegisterFunction = void (*)(PluginContext&);

/// What this process has loaded and refused. `mutex` guards the lists and serialises loading.
struct PluginState {
  std::mutex mutex;
  std::vector<LoadedPlugin> loaded;
  std::vector<PluginFailure> failures;
};

PluginState& state() {
  static PluginState* s = new PluginState;  // never destroyed: plugins stay loaded
  return *s;
}

/// Closes a library unless released (a plugin that registered stays loaded for good).
struct LibraryHandle {
  void* handle = nullptr;
  ~LibraryHandle() {
    if (handle != nullptr) dlclose(handle);
  }
};

std::string dlerrorText() {
  const char* text = dlerror();
  return text != nullptr ? text : "unknown error";
}

/// "1.13" of "1.13.0".
std::string majorMinor(const std::string& version) {
  const size_t first = version.find('.');
  if (first == std::string::npos) return version;
  return version.substr(0, version.find('.', first + 1));
}

/// The types `staging` holds, marked as coming from the plugin at `path`.
std::vector<ComponentType> stagedTypes(const ComponentRegistry& staging, const std::string& path) {
  std::vector<ComponentType> types;
  for (const std::string& kind : staging.kindNames()) {
    for (const ComponentType* t : staging.types(kind)) {
      types.push_back(*t);
      types.back().origin = "plugin " + path;
    }
  }
  return types;
}

/// The staging registry holds no built-in type: a name "taken by a built-in type" there is one
/// the plugin registers twice (its types carry the default origin, "built-in").
std::string registrationProblem(std::string message) {
  const std::string taken = " (built-in): the name is taken by a built-in type";
  if (const size_t at = message.find(taken); at != std::string::npos) {
    message.replace(at, taken.size(), ": the plugin registers it twice");
  }
  return message;
}

/// Every name of `types` the registry has already, as "kind \"name\" (origin)".
std::vector<std::string> clashesOf(const std::vector<ComponentType>& types,
                                   const ComponentRegistry& registry) {
  std::vector<std::string> clashes;
  for (const ComponentType& t : types) {
    if (const ComponentType* other = registry.find(t.kind, t.name)) {
      clashes.push_back(
          str(t.kind, " \"", t.name, "\", which is already registered (", other->origin, ")"));
    }
  }
  return clashes;
}

/// Runs the plugin's registration into a staging registry and returns its types. The staging
/// registry (holding factories whose code is in the library) is gone when this returns or
/// throws, before the caller may close the library.
std::vector<ComponentType> registerStaged(RegisterFunction registerFunction,
                                          const std::string& path) {
  std::unique_ptr<ComponentRegistry> staging = ComponentRegistry::global().emptyCopy();
  PluginContext context{*staging, path};
  try {
    registerFunction(context);
  } catch (const std::exception& e) {
    throw InputError(
        str("plugin ", path, ": its registration failed: ", registrationProblem(e.what())));
  } catch (...) {
    throw InputError(str("plugin ", path, ": its registration threw a non-standard exception"));
  }
  std::vector<ComponentType> types = stagedTypes(*staging, path);
  if (types.empty()) throw InputError(str("plugin ", path, ": registers no component type"));
  return types;
}

LoadedPlugin load(const std::string& path) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (!fs::exists(status)) throw InputError(str("plugin ", path, ": no such file"));
  if (!fs::is_regular_file(status)) throw InputError(str("plugin ", path, ": not a file"));

  LibraryHandle library;
  dlerror();
  library.handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library.handle == nullptr) {
    throw InputError(str("plugin ", path, ": cannot load it as a shared library: ", dlerrorText()));
  }
  auto abi = reinterpret_cast<AbiFunction>(dlsym(library.handle, "towerbench_plugin_abi"));
  auto torch = reinterpret_cast<TorchFunction>(dlsym(library.handle, "towerbench_plugin_torch"));
  auto registerFunction =
      reinterpret_cast<RegisterFunction>(dlsym(library.handle, "towerbench_plugin_register"));
  if (abi == nullptr || torch == nullptr || registerFunction == nullptr) {
    throw InputError(str("plugin ", path,
                         ": not a Towerbench plugin (it lacks the entry points "
                         "towerbench_plugin_abi/_torch/_register that TOWERBENCH_PLUGIN defines, "
                         "engine/project/Plugin.h)"));
  }
  if (abi() != TOWERBENCH_PLUGIN_ABI) {
    throw InputError(str("plugin ", path, ": built for plugin ABI ", abi(),
                         ", but this Towerbench loads plugin ABI ", TOWERBENCH_PLUGIN_ABI,
                         "; rebuild it against this Towerbench's headers"));
  }
  const std::string pluginTorch = torch() != nullptr ? torch() : "";
  if (majorMinor(pluginTorch) != majorMinor(TORCH_VERSION)) {
    throw InputError(str("plugin ", path, ": built with LibTorch ", pluginTorch,
                         ", but this Towerbench uses LibTorch ", TORCH_VERSION,
                         "; rebuild it against this Towerbench's headers"));
  }

  std::vector<ComponentType> types = registerStaged(registerFunction, path);
  ComponentRegistry& registry = ComponentRegistry::global();
  if (const std::vector<std::string> clashes = clashesOf(types, registry); !clashes.empty()) {
    throw InputError(str("plugin ", path, ": registers ", joinedText(clashes, "; "),
                         "; nothing of it was registered"));
  }
  LoadedPlugin loaded{path, {}};
  for (const ComponentType& t : types) loaded.types.push_back(t.kind + " " + t.name);
  try {
    registry.addAll(std::move(types));  // checks again, under the registry's lock
  } catch (const InputError& e) {
    throw InputError(str("plugin ", path, ": ", e.what(), "; nothing of it was registered"));
  }
  library.handle = nullptr;  // stays loaded: its factories are in the registry now
  return loaded;
}

/// The path as the plugin is known by: absolute, symbolic links resolved when it exists.
std::string canonicalPath(const std::string& path) {
  std::error_code error;
  fs::path canonical = fs::weakly_canonical(fs::absolute(path, error), error);
  return error ? path : canonical.string();
}

}  // namespace

LoadedPlugin loadPlugin(const std::string& givenPath) {
  const std::string path = canonicalPath(givenPath);
  PluginState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  for (const LoadedPlugin& p : s.loaded) {
    if (p.path == path) return p;
  }
  try {
    LoadedPlugin plugin = load(path);
    s.loaded.push_back(plugin);
    TB_LOG(Info) << "plugin " << path << ": registered " << joinedText(plugin.types, ", ");
    return plugin;
  } catch (const InputError& e) {
    s.failures.push_back({path, e.what()});
    throw;
  }
}

std::vector<PluginFailure> loadPlugins(const std::vector<std::string>& paths, bool searchFolders) {
  std::vector<std::string> all = paths;
  if (searchFolders) {
    for (const std::string& folder : pluginFolders()) {
      for (const std::string& file : pluginsIn(folder)) all.push_back(file);
    }
  }
  std::vector<PluginFailure> failures;
  for (const std::string& path : all) {
    try {
      loadPlugin(path);
    } catch (const InputError& e) {
      failures.push_back({canonicalPath(path), e.what()});
    }
  }
  return failures;
}

std::string userPluginFolder() {
  const char* xdg = std::getenv("XDG_DATA_HOME");
  const char* home = std::getenv("HOME");
  fs::path data;
  if (xdg != nullptr && *xdg != '\0' && fs::path(xdg).is_absolute()) {
    data = xdg;
  } else if (home != nullptr && *home != '\0') {
    data = fs::path(home) / ".local" / "share";
  } else {
    return {};
  }
  return (data / "towerbench" / "plugins").string();
}

std::vector<std::string> pluginFolders() {
  std::vector<std::string> folders;
  if (const char* list = std::getenv("TOWERBENCH_PLUGIN_PATH")) {
    std::string text = list;
    size_t start = 0;
    while (start <= text.size()) {
      const size_t end = std::min(text.find(':', start), text.size());
      if (end > start) folders.push_back(text.substr(start, end - start));
      start = end + 1;
    }
  }
  if (const std::string user = userPluginFolder(); !user.empty()) folders.push_back(user);
  return folders;
}

std::vector<std::string> pluginsIn(const std::string& folder) {
  std::vector<std::string> files;
  std::error_code error;
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    if (it->path().extension() == ".so" && it->is_regular_file(error)) {
      files.push_back(it->path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<LoadedPlugin> loadedPlugins() {
  PluginState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.loaded;
}

std::vector<PluginFailure> pluginFailures() {
  PluginState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.failures;
}

}  // namespace tbench
