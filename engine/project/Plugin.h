#pragma once
// What a plugin includes: the entry point Towerbench looks for in a plugin's shared library, and
// what it hands the plugin (Note [Plugins], PluginLoader.h).
//
// A plugin is a shared library (a CMake MODULE made by towerbench_add_plugin) that registers
// component types through ComponentFactories.h, exactly as the built-in types do:
//
//   #include "engine/project/registry/ComponentFactories.h"
//   #include "engine/project/Plugin.h"
//
//   TOWERBENCH_PLUGIN(context) {
//     tbench::registerCallback(context.registry, myCallbackType(), myCallbackFactory);
//   }
//
// Register into `context.registry` only: it is a staging registry whose types Towerbench adds
// to its own all together, or none of them when one name is taken. Throwing (an InputError with
// a message that says what is wrong) refuses the whole plugin. The plugin's code stays loaded
// while the process runs; it links LibTorch only and takes the engine's symbols from the
// program that loads it, so it shares the program's registry, types and exceptions.

#include <string>

#include <torch/version.h>

#include "engine/project/registry/ComponentRegistry.h"

/// The plugin ABI: bumped whenever a Towerbench release changes what a plugin compiled against
/// its headers relies on (engine classes, the factories' signatures, PluginContext). A plugin
/// built for another ABI is refused with both numbers; rebuild it against the installed headers.
#define TOWERBENCH_PLUGIN_ABI 1

namespace tbench {

/// What a plugin's registration function receives.
struct PluginContext {
  /// Where the plugin registers its types (a staging registry with Towerbench's kinds).
  ComponentRegistry& registry;
  /// The plugin's own file, absolute: to find files shipped beside it, or for messages.
  std::string path;
};

}  // namespace tbench

/// Defines a plugin's entry points; the block that follows is its registration function. Use it
/// once per plugin, outside any namespace.
#define TOWERBENCH_PLUGIN(context)                                                          \
  extern "C" __attribute__((visibility("default"))) int towerbench_plugin_abi() {           \
    return TOWERBENCH_PLUGIN_ABI;                                                           \
  }                                                                                         \
  extern "C" __attribute__((visibility("default"))) const char* towerbench_plugin_torch() { \
    return TORCH_VERSION;                                                                   \
  }                                                                                         \
  extern "C" __attribute__((visibility("default"))) void towerbench_plugin_register(        \
      tbench::PluginContext& context)
