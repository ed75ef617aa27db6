# SPDX-License-Identifier: MIT
# cmake -P script (ctest layering.light_result_headers): the headers that write, read and report
# results (eval/result.hpp, eval/report.hpp, report/*.hpp) and srs-bench's command line
# (bench/options.hpp) do not pull in the trainer or the gradient kernels, directly or not: the
# compiler's dependency list (-M) of each names neither optim/trainer.hpp nor optim/kernels/.
#   cmake -DCXX=g++ -DSRS_INCLUDE_DIR=include -DWORK_DIR=/tmp -P tests/layering/check_light_headers.cmake
cmake_minimum_required(VERSION 3.21)
set(light eval/result.hpp eval/report.hpp report/results.hpp report/summary.hpp report/text.hpp
  report/markdown.hpp report/html.hpp report/readme.hpp bench/options.hpp bench/results.hpp)
set(problems "")
foreach(h IN LISTS light)
  file(WRITE "${WORK_DIR}/light_header.cpp" "#include <srs/${h}>\n")
  execute_process(COMMAND "${CXX}" -std=c++20 -M "-I${SRS_INCLUDE_DIR}" "${WORK_DIR}/light_header.cpp"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE deps ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(APPEND problems "\n  <srs/${h}>: the compiler failed: ${err}")
  elseif(deps MATCHES "srs/(optim/trainer\\.hpp|optim/kernels/[a-z0-9_]+\\.hpp)")
    string(APPEND problems "\n  <srs/${h}> pulls in ${CMAKE_MATCH_1}")
  endif()
endforeach()
if(problems)
  message(FATAL_ERROR "headers that must stay light:${problems}")
endif()
message(STATUS "light headers: none of the result and report headers pulls in the trainer or the kernels")
