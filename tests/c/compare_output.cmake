# SPDX-License-Identifier: MIT
# cmake -P script (ctest c_api.doc_example): runs PROGRAM and requires its standard output to be
# the content of EXPECTED_FILE exactly, and its exit code 0.
# Run: cmake -DPROGRAM=<program> -DEXPECTED_FILE=<file> -P compare_output.cmake
cmake_minimum_required(VERSION 3.21)
execute_process(COMMAND "${PROGRAM}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
file(READ "${EXPECTED_FILE}" expected)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROGRAM}: exit ${rc}\n${out}${err}")
endif()
if(NOT out STREQUAL expected)
  message(FATAL_ERROR "${PROGRAM} printed:\n${out}\nexpected:\n${expected}")
endif()
