# Fails when a layer includes what the dependency rule forbids (docs/ARCHITECTURE.md §1):
# Qt under engine/, LibTorch or the engine under widgets/.
# Usage: cmake -DROOT=<source dir> -P CheckIncludes.cmake

set(violations "")

function(check_dir dir regex what)
  file(GLOB_RECURSE files "${ROOT}/${dir}/*.h" "${ROOT}/${dir}/*.hpp" "${ROOT}/${dir}/*.cpp")
  foreach(f ${files})
    file(STRINGS "${f}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"](${regex})")
    foreach(line ${lines})
      file(RELATIVE_PATH rel "${ROOT}" "${f}")
      list(APPEND violations "${rel}: ${line}  (${what})")
    endforeach()
  endforeach()
  set(violations "${violations}" PARENT_SCOPE)
endfunction()

check_dir(engine "Q[A-Za-z]|qcustomplot" "the engine must stay Qt-free")
check_dir(widgets "torch/|ATen/|c10/|engine/" "widgets must not see LibTorch or the engine")
check_dir(app/gui "torch/|ATen/|c10/|engine/|app/bridge/(BridgeMonitor|RunMailbox)"
          "the window sees the engine only through app/bridge's Qt-only headers")
foreach(header BridgeTypes.h Plugins.h ProjectServices.h RunController.h)
  if(EXISTS "${ROOT}/app/bridge/${header}")
    file(STRINGS "${ROOT}/app/bridge/${header}" lines
         REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"](torch/|ATen/|c10/|engine/)")
    foreach(line ${lines})
      list(APPEND violations "app/bridge/${header}: ${line}  (a header the window includes)")
    endforeach()
  endif()
endforeach()

if(violations)
  list(JOIN violations "\n  " text)
  message(FATAL_ERROR "forbidden includes:\n  ${text}")
endif()
message(STATUS "layering: no forbidden include")
