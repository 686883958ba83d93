# The plugin interface, in-tree and installed (Note [Plugins], engine/project/registry/PluginLoader.h):
# Towerbench::plugin (an INTERFACE target: the engine's headers, LibTorch, nlohmann_json,
# C++17), towerbench_add_plugin() (cmake/TowerbenchPlugin.cmake), and their installation as a
# CMake package: include/towerbench/engine/**.h and lib/cmake/Towerbench/.
include(CMakePackageConfigHelpers)
include(GNUInstallDirs)

add_library(tb_plugin_api INTERFACE)
target_include_directories(tb_plugin_api INTERFACE
  $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/towerbench>)
target_link_libraries(tb_plugin_api INTERFACE ${TORCH_LIBRARIES} nlohmann_json::nlohmann_json)
target_compile_features(tb_plugin_api INTERFACE cxx_std_17)
set_target_properties(tb_plugin_api PROPERTIES EXPORT_NAME plugin)
add_library(Towerbench::plugin ALIAS tb_plugin_api)
include(${CMAKE_CURRENT_LIST_DIR}/TowerbenchPlugin.cmake)

# The ABI a plugin must be built for, read from the header that defines it.
file(STRINGS ${CMAKE_SOURCE_DIR}/engine/project/Plugin.h abiLine
     REGEX "^#define TOWERBENCH_PLUGIN_ABI [0-9]+")
string(REGEX REPLACE ".* ([0-9]+)$" "\\1" TOWERBENCH_PLUGIN_ABI "${abiLine}")

set(packageDir ${CMAKE_INSTALL_LIBDIR}/cmake/Towerbench)
install(TARGETS tb_plugin_api EXPORT TowerbenchTargets)
install(EXPORT TowerbenchTargets NAMESPACE Towerbench:: DESTINATION ${packageDir})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/engine/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/towerbench/engine
        FILES_MATCHING PATTERN "*.h")
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/TowerbenchConfig.cmake.in
  ${CMAKE_BINARY_DIR}/TowerbenchConfig.cmake INSTALL_DESTINATION ${packageDir})
# A plugin is built against one release's headers (the loader checks the plugin ABI too).
write_basic_package_version_file(${CMAKE_BINARY_DIR}/TowerbenchConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/TowerbenchConfig.cmake
              ${CMAKE_BINARY_DIR}/TowerbenchConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/TowerbenchPlugin.cmake
        DESTINATION ${packageDir})
