# SPDX-License-Identifier: MIT
# cmake -P script (ctest umbrella.every_header): <srs/srs.hpp> includes every header of
# include/srs/ except those of the optional components, and none of those. A new header is
# either in srs.hpp or in a component's list below; the failure names it.
#
#   cmake -DSRS_SOURCE_DIR=. -P tests/umbrella_check.cmake
cmake_minimum_required(VERSION 3.21)
if(NOT SRS_SOURCE_DIR)
  message(FATAL_ERROR "umbrella_check.cmake needs -DSRS_SOURCE_DIR=<repository>")
endif()
# The optional components' headers (they need a library that srs::srs does not link).
set(component_neural  # Eigen
  models/gru_mix.hpp models/lstm.hpp models/neural.hpp models/nn17.hpp models/rnn.hpp models/transformer.hpp
  optim/kernels/f32.hpp optim/kernels/gru_f32.hpp optim/kernels/gru_mix.hpp optim/kernels/lstm.hpp
  optim/kernels/lstm_f32.hpp optim/kernels/neural.hpp optim/kernels/nn17.hpp optim/kernels/nn17_f32.hpp
  optim/kernels/rnn.hpp optim/kernels/transformer.hpp
  optim/trainers/gru_mix.hpp optim/trainers/lstm.hpp optim/trainers/neural.hpp)
set(component_anki anki/collection.hpp)  # SQLite
set(component_parquet data/parquet.hpp data/parquet_file.hpp data/parquet_writer.hpp)  # Snappy, zstd, zlib
set(component_c c/srs.h)  # the C API's own header
set(component_mpi bench/mpi.hpp)  # MPI
set(component_benchmark testing/benchmark.hpp)  # Google Benchmark
set(optional ${component_neural} ${component_anki} ${component_parquet} ${component_c} ${component_mpi}
  ${component_benchmark})

get_filename_component(SRS_SOURCE_DIR "${SRS_SOURCE_DIR}" ABSOLUTE)
set(inc "${SRS_SOURCE_DIR}/include/srs")
file(GLOB_RECURSE headers RELATIVE "${inc}" "${inc}/*.hpp" "${inc}/*.h")
file(STRINGS "${inc}/srs.hpp" lines REGEX "^#include <srs/")
set(included "")
foreach(line IN LISTS lines)
  string(REGEX REPLACE "^#include <srs/([^>]+)>.*$" "\\1" h "${line}")
  list(APPEND included "${h}")
endforeach()
set(problems "")
foreach(h IN LISTS headers)
  if(h STREQUAL "srs.hpp")
    continue()
  endif()
  list(FIND included "${h}" in_umbrella)
  list(FIND optional "${h}" is_optional)
  if(is_optional GREATER -1 AND in_umbrella GREATER -1)
    string(APPEND problems "\n  include/srs/srs.hpp includes <srs/${h}>, a header of an optional component")
  elseif(is_optional EQUAL -1 AND in_umbrella EQUAL -1)
    string(APPEND problems "\n  include/srs/srs.hpp does not include <srs/${h}> (add it, or list it under its component in tests/umbrella_check.cmake)")
  endif()
endforeach()
foreach(h IN LISTS included)
  if(NOT EXISTS "${inc}/${h}")
    string(APPEND problems "\n  include/srs/srs.hpp includes <srs/${h}>, which does not exist")
  endif()
endforeach()
if(problems)
  message(FATAL_ERROR "the umbrella header:${problems}")
endif()
list(LENGTH included n)
message(STATUS "umbrella: srs.hpp includes the ${n} headers of srs::srs")
