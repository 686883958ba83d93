#include "engine/callbacks/Callback.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

#include "engine/core/Check.h"

namespace tbench {

void Callback::setupGraph(TrainerContext& context) {
  context_ = &context;
  onSetupGraph();
}

TrainerContext& Callback::context() const {
  TB_CHECK(context_ != nullptr, name(), " used before setupGraph()");
  return *context_;
}

std::string Callback::name() const {
  const char* mangled = typeid(*this).name();
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(
      abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
  std::string text = status == 0 ? demangled.get() : mangled;
  const std::string ns = "tbench::";
  if (text.compare(0, ns.size(), ns) == 0) text = text.substr(ns.size());
  return text;
}

}  // namespace tbench
