// Plugins that must be refused (test_Plugins, test_PluginsDialog), one per TB_BROKEN_* define:
//   TB_BROKEN_CLASH     registers a new callback and one named like a built-in: refused whole
//   TB_BROKEN_NO_ENTRY  a shared library without the entry points
//   TB_BROKEN_ABI       built for another plugin ABI
//   TB_BROKEN_THROWS    its registration throws tbench::InputError (after registering a type)
//   TB_BROKEN_TWICE     registers one name twice
// They use the Torch-free registry header only (quick to build); their types never reach a
// registry that builds anything, so their factories are placeholders.

#include "engine/core/Check.h"
#include "engine/project/registry/ComponentRegistry.h"
#include "engine/project/Plugin.h"

namespace {

tbench::ComponentType callback(const std::string& name) {
  tbench::ComponentType type;
  type.kind = "callback";
  type.name = name;
  type.summary = "A type of a plugin that must be refused";
  type.factory = 0;  // never built
  return type;
}

}  // namespace

#if defined(TB_BROKEN_CLASH)
TOWERBENCH_PLUGIN(context) {
  context.registry.add(callback("clash_probe"));  // new: must not be added either
  context.registry.add(callback("model_saver"));  // built-in
}
#elif defined(TB_BROKEN_NO_ENTRY)
extern "C" int not_a_towerbench_plugin() { return 42; }
#elif defined(TB_BROKEN_ABI)
extern "C" int towerbench_plugin_abi() { return TOWERBENCH_PLUGIN_ABI + 1000; }
extern "C" const char* towerbench_plugin_torch() { return TORCH_VERSION; }
extern "C" void towerbench_plugin_register(tbench::PluginContext& context) {
  context.registry.add(callback("abi_probe"));
}
#elif defined(TB_BROKEN_THROWS)
TOWERBENCH_PLUGIN(context) {
  context.registry.add(callback("throws_probe"));
  throw tbench::InputError("its licence file " + context.path + ".licence is missing");
}
#elif defined(TB_BROKEN_TWICE)
TOWERBENCH_PLUGIN(context) {
  context.registry.add(callback("twice_probe"));
  context.registry.add(callback("twice_probe"));
}
#else
#error "define one of the TB_BROKEN_* variants listed above"
#endif
