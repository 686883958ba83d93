# `cmake --install` puts what a desktop needs where freedesktop.org says (resources/).
# Usage: cmake -DBUILD=<build dir> -DPREFIX=<empty dir> -P CheckInstall.cmake
include(${CMAKE_CURRENT_LIST_DIR}/InstallTree.cmake)
install_tree("${BUILD}" "${PREFIX}"
             bin/towerbench bin/towerbench-cli share/applications/towerbench.desktop
             share/icons/hicolor/scalable/apps/towerbench.svg
             share/icons/hicolor/48x48/apps/towerbench.png
             share/icons/hicolor/256x256/apps/towerbench.png
             share/towerbench/projects/fashion-mnist-convnet.json)
file(READ "${PREFIX}/share/applications/towerbench.desktop" desktop)
foreach(line "Exec=towerbench" "Icon=towerbench" "Type=Application")
  string(FIND "${desktop}" "${line}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the desktop entry lacks ${line}")
  endif()
endforeach()
file(REMOVE_RECURSE "${PREFIX}")
