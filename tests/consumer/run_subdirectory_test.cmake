# SPDX-License-Identifier: MIT
# cmake -P script: configure, build and run tests/consumer/subdirectory, a project
# that uses srs through add_subdirectory(SRS_SOURCE_DIR).
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "command failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
endfunction()
set(flags)
if(CONSUMER_FLAGS)
  set(flags "-DCMAKE_CXX_FLAGS=${CONSUMER_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${CONSUMER_FLAGS}"
            "-DCMAKE_SHARED_LINKER_FLAGS=${CONSUMER_FLAGS}")
endif()
run("${CMAKE_COMMAND}" -S "${SRS_SOURCE_DIR}/tests/consumer/subdirectory" -B "${WORK_DIR}/build"
    "-DSRS_SOURCE_DIR=${SRS_SOURCE_DIR}" "-DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}" -DCMAKE_BUILD_TYPE=Release ${flags})
run("${CMAKE_COMMAND}" --build "${WORK_DIR}/build" --target consumer)
run("${WORK_DIR}/build/consumer")
