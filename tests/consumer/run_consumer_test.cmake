# SPDX-License-Identifier: MIT
# cmake -P script: install srs from SRS_BUILD_DIR into a scratch prefix, then
# configure, build and run tests/consumer (or CONSUMER_DIR) against it.
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "command failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
endfunction()
run("${CMAKE_COMMAND}" --install "${SRS_BUILD_DIR}" --prefix "${WORK_DIR}/prefix")
# CONSUMER_DIR: the consumer project (default tests/consumer).
if(NOT DEFINED CONSUMER_DIR)
  set(CONSUMER_DIR "${SRS_SOURCE_DIR}/tests/consumer")
endif()
# CONSUMER_FLAGS: extra compile and link flags (the test preset's sanitizers).
set(flags)
if(CONSUMER_FLAGS)
  set(flags "-DCMAKE_CXX_FLAGS=${CONSUMER_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${CONSUMER_FLAGS}")
endif()
run("${CMAKE_COMMAND}" -S "${CONSUMER_DIR}" -B "${WORK_DIR}/build"
    "-DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix" "-DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}"
    -DCMAKE_BUILD_TYPE=Release ${flags})
run("${CMAKE_COMMAND}" --build "${WORK_DIR}/build")
run("${WORK_DIR}/build/consumer")
