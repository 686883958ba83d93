# towerbench_add_plugin(NAME SOURCES...): a Towerbench plugin, a MODULE library that
# `towerbench-cli --plugin`, the plugin folders and the window load (Note [Plugins],
# engine/project/registry/PluginLoader.h). It links LibTorch only (through Towerbench::plugin): the
# engine's symbols come from the program that loads it. Installed beside TowerbenchConfig.cmake
# and used in-tree by examples/plugin.
function(towerbench_add_plugin name)
  if(NOT ARGN)
    message(FATAL_ERROR "towerbench_add_plugin(${name}): no source files")
  endif()
  add_library(${name} MODULE ${ARGN})
  target_link_libraries(${name} PRIVATE Towerbench::plugin)
  # Inside Towerbench's own build, reuse its precompiled LibTorch header (~25 s a file less).
  if(COMMAND tb_use_torch_pch AND TARGET tb_torch_pch)
    tb_use_torch_pch(${name})
  endif()
endfunction()
