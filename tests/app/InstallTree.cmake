# install_tree(BUILD PREFIX FILES...): `cmake --install BUILD` into PREFIX, emptied first; fails
# naming what the install lacks of FILES (paths relative to PREFIX). Included by
# CheckInstall.cmake and CheckPluginInstall.cmake.
function(install_tree build prefix)
  file(REMOVE_RECURSE "${prefix}")
  execute_process(COMMAND "${CMAKE_COMMAND}" --install "${build}" --prefix "${prefix}"
                  RESULT_VARIABLE rc OUTPUT_QUIET)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cmake --install failed (${rc})")
  endif()
  set(missing "")
  foreach(f ${ARGN})
    if(NOT EXISTS "${prefix}/${f}")
      list(APPEND missing "${f}")
    endif()
  endforeach()
  if(missing)
    message(FATAL_ERROR "not installed: ${missing}")
  endif()
endfunction()
