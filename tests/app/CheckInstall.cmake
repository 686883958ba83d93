# `cmake --install` puts what a desktop needs where freedesktop.org says (resources/).
# Usage: cmake -DBUILD=<build dir> -DPREFIX=<empty dir> -P CheckInstall.cmake
file(REMOVE_RECURSE "${PREFIX}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD}" --prefix "${PREFIX}"
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${rc})")
endif()
set(missing "")
foreach(f bin/towerbench bin/towerbench-cli share/applications/towerbench.desktop
          share/icons/hicolor/scalable/apps/towerbench.svg
          share/icons/hicolor/48x48/apps/towerbench.png
          share/icons/hicolor/256x256/apps/towerbench.png
          share/towerbench/projects/fashion-mnist-convnet.json)
  if(NOT EXISTS "${PREFIX}/${f}")
    list(APPEND missing "${f}")
  endif()
endforeach()
if(missing)
  message(FATAL_ERROR "not installed: ${missing}")
endif()
file(READ "${PREFIX}/share/applications/towerbench.desktop" desktop)
foreach(line "Exec=towerbench" "Icon=towerbench" "Type=Application")
  string(FIND "${desktop}" "${line}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the desktop entry lacks ${line}")
  endif()
endforeach()
file(REMOVE_RECURSE "${PREFIX}")
