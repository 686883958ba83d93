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
check_dir(app/gui "torch/|ATen/|c10/|engine/|app/bridge/(BridgeMonitor|RunMailbox|ToQt)"
          "the window sees the engine only through app/bridge's Qt-only headers")
# The run directory readers and the live run are models: QtCore, no widget (tested without a
# window).
set(widgetHeaders "Qt(Widgets|Gui)/|widgets/|app/gui/(editor|history|learned)/|Q(Application|Widget|Dialog|Label|Action|Menu|MenuBar|ToolBar|StatusBar|MainWindow|MessageBox|PushButton|ComboBox|LineEdit|SpinBox|CheckBox|[HV]BoxLayout|FormLayout|GridLayout|TableWidget|TreeWidget|ListWidget|HeaderView|Palette|Pixmap|Icon|Color|Painter|Style|Image|Font)>")
check_dir(app/gui/rundir "${widgetHeaders}" "app/gui/rundir reads run directories without widgets")
check_dir(app/gui/run "${widgetHeaders}" "app/gui/run is the live run's model, without widgets")
foreach(header BridgeTypes.h EngineServices.h Plugins.h ProjectServices.h ProjectViews.h
               RunController.h RunDirectoryServices.h RunDirectoryViews.h SweepServices.h)
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
