# A plugin built as its author builds it: `cmake --install` Towerbench into PREFIX, build
# examples/plugin on its own with find_package(Towerbench) (CMAKE_PREFIX_PATH=PREFIX), and load
# it with the installed towerbench-cli (Note [Plugins]).
# Usage: cmake -DBUILD=<build dir> -DSOURCE=<source dir> -DWORK=<dir> [-DCXX=<compiler>]
#        -P CheckPluginInstall.cmake
# WORK is kept between runs: the same paths let ccache reuse the plugin's object file.
set(prefix "${WORK}/prefix")
set(pluginBuild "${WORK}/plugin-build")
include(${CMAKE_CURRENT_LIST_DIR}/InstallTree.cmake)
install_tree("${BUILD}" "${prefix}"
             include/towerbench/engine/project/Plugin.h
             include/towerbench/engine/project/registry/ComponentFactories.h
             lib/cmake/Towerbench/TowerbenchConfig.cmake
             lib/cmake/Towerbench/TowerbenchConfigVersion.cmake
             lib/cmake/Towerbench/TowerbenchTargets.cmake
             lib/cmake/Towerbench/TowerbenchPlugin.cmake)

set(launcher "")
find_program(CCACHE ccache)
if(CCACHE)
  set(launcher -DCMAKE_CXX_COMPILER_LAUNCHER=${CCACHE})
  # The headers are copied afresh each run: hash their contents, not their times.
  set(ENV{CCACHE_SLOPPINESS} "include_file_mtime,include_file_ctime,time_macros")
endif()
# With the program's compiler, as its author would (and clang's LibTorch header is built in a
# quarter of g++'s time).
set(compiler "")
if(CXX)
  set(compiler "-DCMAKE_CXX_COMPILER=${CXX}")
endif()
execute_process(
  COMMAND "${CMAKE_COMMAND}" -S "${SOURCE}/examples/plugin" -B "${pluginBuild}" -G Ninja
          -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=${prefix}" ${launcher} ${compiler}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring the example plugin against ${prefix} failed:\n${out}")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${pluginBuild}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building the example plugin failed:\n${out}")
endif()

set(plugin "${pluginBuild}/libexample_plugin.so")
execute_process(COMMAND "${prefix}/bin/towerbench-cli" --no-plugin-folders --plugin "${plugin}"
                        types model
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "linear: A linear classifier"
   OR err MATCHES "towerbench-cli: plugin")
  message(FATAL_ERROR "the installed CLI did not load ${plugin} (${rc}):\n${out}\n${err}")
endif()
message(STATUS "the example plugin built against ${prefix} loads")
file(REMOVE_RECURSE "${prefix}")
