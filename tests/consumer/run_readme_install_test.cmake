# SPDX-License-Identifier: MIT
# cmake -P script: the install commands of README.md, as a newcomer runs them, on
# a fresh clone of the repository (its committed state: `git clone` of
# SRS_SOURCE_DIR; without git, the source tree itself), then the find_package
# consumer tests/consumer built against the installed prefix.
#
# The commands are read from README.md: the `cmake ...` lines of the first code
# block after the line `<!-- install-commands -->`, with the prefix `P` replaced
# by a scratch folder and run from the clone's root.
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
function(run)
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY "${src}" RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "command failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
endfunction()

set(src "${SRS_SOURCE_DIR}")
find_program(GIT git)
if(GIT AND EXISTS "${SRS_SOURCE_DIR}/.git")
  set(src "${WORK_DIR}/clone")
  execute_process(COMMAND "${GIT}" clone --quiet --no-hardlinks "${SRS_SOURCE_DIR}" "${src}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "git clone of ${SRS_SOURCE_DIR} failed")
  endif()
endif()

# The README's install commands.
file(STRINGS "${src}/README.md" readme)
set(state search)
set(commands)
foreach(line IN LISTS readme)
  if(state STREQUAL search AND line MATCHES "<!-- install-commands -->")
    set(state before)
  elseif(state STREQUAL before AND line MATCHES "^```")
    set(state block)
  elseif(state STREQUAL block)
    if(line MATCHES "^```")
      break()
    endif()
    string(REGEX REPLACE "[ ]+#.*$" "" line "${line}")
    if(line MATCHES "^cmake ")
      list(APPEND commands "${line}")
    endif()
  endif()
endforeach()
list(LENGTH commands n)
if(n LESS 3)
  message(FATAL_ERROR "README.md: expected the configure, build and install commands after <!-- install-commands -->, found ${n}")
endif()
set(prefix "${WORK_DIR}/prefix")
foreach(cmd IN LISTS commands)
  string(REPLACE " P" " ${prefix}" cmd "${cmd}")
  separate_arguments(args UNIX_COMMAND "${cmd}")
  list(POP_FRONT args)  # cmake
  message(STATUS "README: cmake ${args}")
  run("${CMAKE_COMMAND}" ${args})
endforeach()
if(NOT EXISTS "${prefix}/share/cmake/srs/srsConfig.cmake")
  message(FATAL_ERROR "the README's commands installed no srsConfig.cmake under ${prefix}")
endif()

# A project using the installed srs.
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${src}/tests/consumer" -B "${WORK_DIR}/consumer"
                "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}" -DCMAKE_BUILD_TYPE=Release
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "consumer configure failed\n${out}\n${err}")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${WORK_DIR}/consumer" RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "consumer build failed\n${out}\n${err}")
endif()
execute_process(COMMAND "${WORK_DIR}/consumer/consumer" RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "consumer failed: ${out}")
endif()
message(STATUS "${out}")
