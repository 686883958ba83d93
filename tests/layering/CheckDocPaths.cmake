cmake_minimum_required(VERSION 3.16)
# Fails when a page of docs/ names a source file that does not exist (issue 10: the
# architecture page named TrainLoop.h and others that were never written). A line that says
# "planned" may name what is not built yet.
# Usage: cmake -DROOT=<source dir> -DDOC=<page relative to ROOT> -P CheckDocPaths.cmake

file(STRINGS "${ROOT}/${DOC}" lines)
file(GLOB_RECURSE sources RELATIVE "${ROOT}" "${ROOT}/engine/*" "${ROOT}/app/*"
     "${ROOT}/widgets/*" "${ROOT}/bench/*" "${ROOT}/tests/*" "${ROOT}/cmake/*")
set(names "")
foreach(source ${sources})
  get_filename_component(name "${source}" NAME)
  list(APPEND names "${name}")
endforeach()

set(missing "")
foreach(line IN LISTS lines)
  if(line MATCHES "planned")
    continue()
  endif()
  # .hpp names are other projects' headers (c10d's, nlohmann's); without this the pattern
  # below would read ProcessGroupGloo.hpp as a missing ProcessGroupGloo.h.
  string(REGEX REPLACE "[A-Za-z0-9_/.]*\\.hpp" "" line "${line}")
  string(REGEX MATCHALL "[A-Za-z0-9_/]*[A-Z][A-Za-z0-9_]*\\.(h|cpp)" paths "${line}")
  foreach(path ${paths})
    if(path MATCHES "^(torch|ATen|c10)/")
      continue()  # LibTorch's headers
    elseif(path MATCHES "/")
      if(NOT EXISTS "${ROOT}/${path}")
        list(APPEND missing "${path}")
      endif()
    elseif(NOT path IN_LIST names)
      list(APPEND missing "${path}")
    endif()
  endforeach()
endforeach()

if(missing)
  list(REMOVE_DUPLICATES missing)
  string(REPLACE ";" "\n  " text "${missing}")
  message(FATAL_ERROR "${DOC} names files that do not exist (mark them planned or fix them):\n  ${text}")
endif()
