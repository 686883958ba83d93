# Helpers shared by every target.
#
# Compiling a translation unit that includes <torch/torch.h> costs ~25 s on the 2-core build
# machines. One precompiled header, built once by `tb_torch_pch`, is reused by every engine
# layer and every test that includes LibTorch.

# The warnings of every target. Aggregates are initialised in part on purpose (the members left
# out have default initialisers), which -Wextra reports (clang always; g++ in the unity batches
# too).
set(TB_WARNINGS -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers)

set(TB_PCH_HEADERS
  <torch/torch.h> <nlohmann/json.hpp> <string> <vector> <memory> <functional> <optional>
  <mutex> <atomic> <thread> <chrono> <map> <unordered_map> <sstream>)
# tb_pch_library(NAME): the library a precompiled header is built in, with an empty source. (That
# source compiles with the header, 1-8 s a header; with SKIP_PRECOMPILE_HEADERS a fresh configure
# cannot resolve the header's path for REUSE_FROM.)
function(tb_pch_library name)
  add_library(${name} STATIC ${CMAKE_SOURCE_DIR}/cmake/pch.cpp)
endfunction()

# tb_pch_target(NAME options...): a target whose only job is to build the precompiled header
# with these compile options; others take it with REUSE_FROM.
function(tb_pch_target name)
  tb_pch_library(${name})
  target_link_libraries(${name} PUBLIC ${TORCH_LIBRARIES} nlohmann_json::nlohmann_json)
  target_compile_options(${name} PUBLIC ${TB_WARNINGS} ${ARGN})
  target_precompile_headers(${name} PUBLIC ${TB_PCH_HEADERS})
  # Nothing in it needs moc: AUTOMOC's empty mocs_compilation.cpp cost 12 s to moc and 12 s
  # to compile against the header where a directory turns AUTOMOC on.
  set_target_properties(${name} PROPERTIES AUTOMOC OFF)
endfunction()
tb_pch_target(tb_torch_pch)

# Tests are compiled at -O0 in optimised configurations: their code only drives the engine
# (compiled -O3 like the product) and LibTorch. With clang on the 2-core machines -O0 cut a test
# file's compile by a third against -O1 (test_Csv.cpp 7.9 to 5.4 s, test_MixedPrecision.cpp 8.2
# to 5.2 s); -O1 had cut g++'s by 40% against -O3.
# A precompiled header is valid only for the -O it was built with, so tests get their own.
set(TOWERBENCH_TEST_OPTIMIZATION "-O0" CACHE STRING
    "Optimisation flag for test executables in non-Debug builds (empty: the build type's)")
set(TB_TEST_OPT "$<$<NOT:$<CONFIG:Debug>>:${TOWERBENCH_TEST_OPTIMIZATION}>")

# tb_pch_takes_qt_test(PCH_TARGET): Qt Test in a tests' precompiled header, with clang. Its
# include path and QT_TESTLIB_LIB only: linking Qt6::Test would define QT_TESTCASE_BUILDDIR,
# which names each test's own directory, and clang refuses a header built with another value.
# g++ refuses a header that mentions a macro the test defines and the header's build did not
# (QT_TESTCASE_BUILDDIR, in Qt Test's headers): with g++ the tests parse Qt Test themselves.
function(tb_pch_takes_qt_test pch)
  target_link_libraries(${pch} PUBLIC Qt6::Core)
  target_include_directories(${pch} SYSTEM PUBLIC
                             $<TARGET_PROPERTY:Qt6::Test,INTERFACE_INCLUDE_DIRECTORIES>)
  target_compile_definitions(${pch} PUBLIC QT_TESTLIB_LIB)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    target_precompile_headers(${pch} PUBLIC <QtTest/QtTest>)
  endif()
endfunction()

# tb_pch_takes_widgets(PCH_TARGET): Qt Widgets and QCustomPlot in a precompiled header, with
# their QT_WIDGETS_LIB, which Qt Test's QTEST_MAIN reads to make a QApplication.
function(tb_pch_takes_widgets pch)
  target_link_libraries(${pch} PUBLIC Qt6::Widgets Qt6::PrintSupport
                                      QCustomPlotQt6::QCustomPlotQt6)
  target_precompile_headers(${pch} PUBLIC <QtWidgets/QtWidgets> <qcustomplot.h>)
endfunction()

# tb_use_torch_pch(TARGET [TESTS]): reuse the shared precompiled header in an executable (TESTS:
# the tests' header, built at TOWERBENCH_TEST_OPTIMIZATION, with Qt Test). A window's test that
# includes LibTorch takes the same header and parses Qt Widgets itself (~4 s): a third header with
# Qt Widgets cost 31 s to build for three tests. Its Qt Test is then without Qt Widgets' overloads
# (QTest::mouseClick on a QWidget does not compile there) and without QT_WIDGETS_LIB, so such a
# test's main is TB_TEST_MAIN (tests/support/TestMain.h), never QTEST_MAIN.
# Executables get -fPIE, which would invalidate the -fPIC header (gcc then silently compiles
# without it, 25 s a file); -fPIC after it makes the flags match, as Qt's targets already do.
# AUTOMOC's mocs_compilation.cpp is empty when the sources include their .moc; loading the
# 600 MB header for it cost ~4.7 s a target, so it is compiled without.
function(tb_use_torch_pch target)
  cmake_parse_arguments(ARG "TESTS" "" "" ${ARGN})
  target_compile_options(${target} PRIVATE -fPIC ${TB_WARNINGS})
  if(ARG_TESTS)
    if(NOT TARGET tb_torch_pch_tests)
      tb_pch_target(tb_torch_pch_tests ${TB_TEST_OPT})
      # Every test includes Qt Test: 2.5 s a file when parsed (test_Csv.cpp 10.3 to 7.9 s).
      tb_pch_takes_qt_test(tb_torch_pch_tests)
    endif()
    target_compile_options(${target} PRIVATE ${TB_TEST_OPT})
    target_precompile_headers(${target} REUSE_FROM tb_torch_pch_tests)
  else()
    target_precompile_headers(${target} REUSE_FROM tb_torch_pch)
  endif()
  set_source_files_properties(${CMAKE_CURRENT_BINARY_DIR}/${target}_autogen/mocs_compilation.cpp
                              PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
endfunction()

# The window's libraries (widgets/, app/gui/) include Qt Widgets and QCustomPlot in nearly every
# file: 4 to 6 s a file with clang here, most of it those headers. `tb_use_gui_pch(TARGET)` gives
# a library their precompiled header (built once by tb_gui_pch). Called where Qt Widgets and
# QCustomPlot are found.
function(tb_use_gui_pch target)
  if(NOT TARGET tb_gui_pch)
    tb_pch_library(tb_gui_pch)
    target_compile_options(tb_gui_pch PUBLIC ${TB_WARNINGS})
    tb_pch_takes_widgets(tb_gui_pch)
    set_target_properties(tb_gui_pch PROPERTIES AUTOMOC OFF)
  endif()
  target_precompile_headers(${target} REUSE_FROM tb_gui_pch)
endfunction()

# Every file that takes the LibTorch header pays ~2 s before its first line (clang performs the
# header's pending template instantiations again in each file; measured on an empty file), a
# third of an engine file's compile. Libraries are therefore built as unity batches: CMake
# compiles TOWERBENCH_UNITY_BATCH of a target's files as one translation unit. A file-local name
# must then be unique within its library. TOWERBENCH_UNITY=OFF compiles file by file (an edit
# then recompiles one file instead of its batch).
option(TOWERBENCH_UNITY "Compile libraries in unity batches" ON)
set(TOWERBENCH_UNITY_BATCH 8 CACHE STRING "Files of a library compiled as one translation unit")
# tb_unity(TARGET): a library built in batches when TOWERBENCH_UNITY is on.
function(tb_unity target)
  if(TOWERBENCH_UNITY)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON
                          UNITY_BUILD_BATCH_SIZE ${TOWERBENCH_UNITY_BATCH})
  endif()
endfunction()

# tb_use_qt_test_pch(TARGET): the precompiled header of a test without LibTorch: Qt Test, and
# Qt Widgets with QCustomPlot where it links the window's libraries (WIDGETS).
function(tb_use_qt_test_pch target)
  cmake_parse_arguments(ARG "WIDGETS" "" "" ${ARGN})
  if(ARG_WIDGETS)
    set(pch tb_gui_pch_tests)
  else()
    set(pch tb_qt_pch_tests)
  endif()
  if(NOT TARGET ${pch})
    tb_pch_library(${pch})
    target_compile_options(${pch} PUBLIC ${TB_WARNINGS} ${TB_TEST_OPT})
    tb_pch_takes_qt_test(${pch})
    target_precompile_headers(${pch} PUBLIC <string> <vector> <memory> <functional> <map>)
    if(ARG_WIDGETS)
      tb_pch_takes_widgets(${pch})
    endif()
    set_target_properties(${pch} PROPERTIES AUTOMOC OFF)
  endif()
  target_compile_options(${target} PRIVATE ${TB_TEST_OPT})
  target_precompile_headers(${target} REUSE_FROM ${pch})
endfunction()

# moc without Qt's include path. AUTOMOC hands moc the target's include path, and moc then reads
# every header a file includes: 0.5 s for MainWindow.h, 0.01 s with the source root only;
# AUTOMOC's steps for the window's libraries took 44 s of a 2-core build. The source root lets
# moc see the project's own types, whose signal arguments it then registers for queued
# connections (RunController's bridge::RunState) as AUTOMOC does; the output differs from
# AUTOMOC's only by the includes Qt's own headers ask for their classes (Q_MOC_INCLUDE), which
# the generated code for ours does not use. tb_moc_file(TARGET FILE OUTPUT [INCLUDE DIR]) runs
# moc on FILE into OUTPUT and adds it to TARGET: a header's moc_*.cpp compiles with the target's
# sources (in its unity batches), a source's <stem>.moc is included by that source.
function(tb_moc_file target file output)
  cmake_parse_arguments(ARG "" "INCLUDE" "" ${ARGN})
  set(include "")
  if(ARG_INCLUDE)
    set(include -I${ARG_INCLUDE})
  endif()
  get_filename_component(outDir ${output} DIRECTORY)
  add_custom_command(OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${outDir}
    COMMAND $<TARGET_FILE:Qt6::moc> ${include} ${file} -o ${output}
    DEPENDS ${file} VERBATIM)
  target_sources(${target} PRIVATE ${output})
  set_target_properties(${target} PROPERTIES AUTOMOC OFF)
endfunction()

# tb_moc(TARGET): moc for a Qt library's QObject headers (a source's header beside it, and the
# headers it lists), instead of AUTOMOC.
function(tb_moc target)
  get_target_property(sources ${target} SOURCES)
  get_target_property(sourceDir ${target} SOURCE_DIR)
  foreach(source ${sources})
    get_filename_component(path ${source} ABSOLUTE BASE_DIR ${sourceDir})
    string(REGEX REPLACE "\\.cpp$" ".h" header ${path})
    if(NOT header MATCHES "\\.h$" OR NOT EXISTS ${header})
      continue()
    endif()
    file(STRINGS ${header} qobject REGEX "Q_OBJECT|Q_GADGET|Q_NAMESPACE")
    if(qobject)
      get_filename_component(stem ${header} NAME_WE)
      tb_moc_file(${target} ${header} ${CMAKE_CURRENT_BINARY_DIR}/${target}_moc/moc_${stem}.cpp
                  INCLUDE ${CMAKE_SOURCE_DIR})
    endif()
  endforeach()
endfunction()

# tb_engine_library(NAME SOURCES... LINK deps...)
function(tb_engine_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LINK" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${CMAKE_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC ${ARG_LINK} ${TORCH_LIBRARIES} Threads::Threads)
  target_compile_options(${name} PRIVATE ${TB_WARNINGS})
  target_precompile_headers(${name} REUSE_FROM tb_torch_pch)
  tb_unity(${name})
endfunction()

# Seconds a test may run; scripts/sanitize.sh raises it for its slower trees (ctest --timeout
# does not override a test's own TIMEOUT).
set(TOWERBENCH_TEST_TIMEOUT 300 CACHE STRING "Seconds each tb_test may run")

# The environment of every test (each add_test names it), measured on the 2-core machines
# (AMD EPYC Zen 5, issue 38); speed only, the results are the same:
# - glibc's malloc on transparent huge pages. A process that loads LibTorch spends most of its
#   start in LibTorch's operator registration (malloc, page faults) and the dynamic loader, and
#   the suite starts some 400 (tests, CLI commands, ranks, trials): a start takes ~0.58 s
#   instead of ~0.73 s, the six longest tests 167 s instead of 206 s. Users can set it too
#   (README, "Speed").
# - OpenMP's idle workers sleep instead of spinning: ctest runs as many tests at once as there
#   are cores, so one test's spinning workers take the core another needs (test_Projects
#   beside a busy core: 31 s spinning, 20 s passive, 11 s alone). The suite: 296 s -> 262 s.
set(TB_TEST_ENVIRONMENT "TB_QUIET=1;GLIBC_TUNABLES=glibc.malloc.hugetlb=1;OMP_WAIT_POLICY=PASSIVE")

# tb_test(NAME SOURCE [NO_PCH] [GROUP EXE] [LINK deps...] [DEFINITIONS defs...]
#         [DEPENDS targets...] [LABELS labels...]): one Qt Test class registered with CTest as NAME.
# Alone, it is its own executable. With GROUP, the tests of a directory that name the same EXE
# are one executable (tests/support/TestMain.h): their sources compile as unity batches (a test
# file with LibTorch pays ~2 s of the header's pending instantiations before its first line,
# and each executable its link), CTest runs `EXE NAME`, and NAME is a link to EXE beside it, so
# that `tests/engine/data/test_Csv -o out.xml,junitxml` still runs that test alone. A group's
# tests take one precompiled header (the same NO_PCH and LINK kind) and share DEFINITIONS; a
# file-local name must be unique within the group.
function(tb_test name source)
  cmake_parse_arguments(ARG "NO_PCH" "GROUP" "LINK;LABELS;DEFINITIONS;DEPENDS" ${ARGN})
  # A test of the window (one that links its libraries) takes Qt Widgets in its header too.
  set(widgets "")
  if(ARG_LINK MATCHES "tb_gui|tb_widgets|tb_project_editor|tb_run_history")
    set(widgets WIDGETS)
  endif()
  if(ARG_NO_PCH)
    set(kind "qt-${widgets}")
  else()
    set(kind "torch")
  endif()
  if(ARG_GROUP)
    set(target ${ARG_GROUP})
  else()
    set(target ${name})
  endif()
  if(NOT TARGET ${target})
    add_executable(${target} ${source})
    target_link_libraries(${target} PRIVATE Qt6::Test)
    target_compile_definitions(${target} PRIVATE
      TB_SOURCE_DIR="${CMAKE_SOURCE_DIR}" TB_BINARY_DIR="${CMAKE_BINARY_DIR}")
    if(NOT ARG_NO_PCH)
      tb_use_torch_pch(${target} TESTS)
    else()
      tb_use_qt_test_pch(${target} ${widgets})
    endif()
    set_target_properties(${target} PROPERTIES AUTOMOC OFF TB_TEST_KIND "${kind}")
    if(ARG_GROUP)
      target_sources(${target} PRIVATE ${CMAKE_SOURCE_DIR}/tests/support/TestMain.cpp)
      target_compile_definitions(${target} PRIVATE TB_TEST_GROUP)
      target_include_directories(${target} PRIVATE ${CMAKE_SOURCE_DIR})
      if(TOWERBENCH_UNITY)
        set_target_properties(${target} PROPERTIES UNITY_BUILD ON
                              UNITY_BUILD_BATCH_SIZE ${TOWERBENCH_UNITY_BATCH})
      endif()
    endif()
  else()
    get_target_property(groupKind ${target} TB_TEST_KIND)
    if(NOT groupKind STREQUAL kind)
      message(FATAL_ERROR "tb_test(${name}): group ${target} takes tests of one precompiled "
                          "header; ${name} needs another (NO_PCH or the window's libraries)")
    endif()
    target_sources(${target} PRIVATE ${source})
  endif()
  target_link_libraries(${target} PRIVATE ${ARG_LINK})
  if(ARG_DEFINITIONS)
    target_compile_definitions(${target} PRIVATE ${ARG_DEFINITIONS})
  endif()
  if(ARG_DEPENDS)
    add_dependencies(${target} ${ARG_DEPENDS})
  endif()
  # The test's QObject class is in its .cpp, which includes "<stem>.moc". moc runs on that file
  # alone: AUTOMOC would hand it the target's include path, and moc would then read LibTorch's
  # headers through the engine's (5-25 s a test on the 2-core machines, 0.3 s without; the
  # output is the same, moc knows Q_OBJECT and slots without Qt's headers).
  get_filename_component(stem ${source} NAME_WE)
  get_filename_component(sourcePath ${source} ABSOLUTE)
  set(mocDir ${CMAKE_CURRENT_BINARY_DIR}/${name}_moc)
  tb_moc_file(${target} ${sourcePath} ${mocDir}/${stem}.moc)
  target_include_directories(${target} PRIVATE ${mocDir})
  if(ARG_GROUP)
    # `ninja test_X` still builds test X (scripts/gpu-check.sh and sanitize.sh name tests, not
    # the executables that hold them).
    add_custom_target(${name} DEPENDS ${target})
    add_test(NAME ${name} COMMAND ${target} ${name})
    add_custom_command(TARGET ${target} POST_BUILD
      COMMAND ${CMAKE_COMMAND} -E rm -f ${CMAKE_CURRENT_BINARY_DIR}/${name}
      COMMAND ${CMAKE_COMMAND} -E create_symlink $<TARGET_FILE_NAME:${target}>
              ${CMAKE_CURRENT_BINARY_DIR}/${name}
      VERBATIM)
  else()
    add_test(NAME ${name} COMMAND ${name})
  endif()
  set_tests_properties(${name} PROPERTIES
    ENVIRONMENT "QT_QPA_PLATFORM=offscreen;${TB_TEST_ENVIRONMENT}"
    LABELS "${ARG_LABELS}" TIMEOUT ${TOWERBENCH_TEST_TIMEOUT})
endfunction()

# Every engine library, in link order (engine/CMakeLists.txt).
set(TB_ENGINE_LIBRARIES tb_run tb_predict tb_project tb_models tb_strategies tb_savers tb_train tb_checkpoint
    tb_comm tb_inference tb_input tb_tensorboard tb_monitors tb_callbacks tb_data tb_core)

# tb_plugin_host(TARGET): an executable that loads plugins (Note [Plugins],
# engine/project/registry/PluginLoader.h). A plugin links LibTorch only and takes the engine's symbols
# from the program that loads it, so the program links every engine library whole (also the
# objects it does not use itself) and exports its symbols (-rdynamic): one registry, shared
# RTTI and exceptions.
function(tb_plugin_host target)
  set(archives "")
  foreach(lib ${TB_ENGINE_LIBRARIES})
    string(APPEND archives " $<TARGET_FILE:${lib}>")
  endforeach()
  target_link_options(${target} PRIVATE
    "SHELL:-Wl,--whole-archive${archives} -Wl,--no-whole-archive")
  target_link_libraries(${target} PRIVATE tb_project)
  set_target_properties(${target} PROPERTIES ENABLE_EXPORTS ON)
endfunction()
