# SPDX-License-Identifier: MIT
# cmake -P script (the ctest layering.include_graph): the headers of include/srs/ follow the layers
#
#   core < detail < data < training.hpp < concepts.hpp < optim < models < optim/kernels < optim/trainer.hpp < eval, sched < report;
#   stats on core;   anki on data;   bench (srs-bench's library) on eval, sched and anki;
#   testing (the model checker and benchmark helper) on eval and sched
#
# Each folder's headers may include srs headers of the folders listed for it only (and version.hpp).
# Two parts of optim/ are units of their own, above the models: optim/kernels/ (the gradient kernels,
# which know the models they are specialised for) and the trainers, optim/trainer.hpp with
# optim/trainers/ (the shared trainer, which picks a model's kernel, and the model-specific ones);
# the models may include neither (models hold their math, not the trainer's machinery).
# Every offending include is printed as "<file>:<line>: <folder>/ must not include <what>: <text>",
# and the script fails; so does a folder without a rule (give a new folder its place here).
#
#   cmake -DSRS_INCLUDE_DIR=include -DSRS_SOURCE_DIR=. -P tests/layering/check_layering.cmake
#
# tests/layering/forbidden_fixture/ holds a header with a forbidden include: the ctest
# layering.detects_forbidden runs this script on it and expects that line reported.
cmake_minimum_required(VERSION 3.21)
if(NOT SRS_INCLUDE_DIR)
  message(FATAL_ERROR "usage: cmake -DSRS_INCLUDE_DIR=<dir holding srs/> -P check_layering.cmake")
endif()
get_filename_component(SRS_INCLUDE_DIR "${SRS_INCLUDE_DIR}" ABSOLUTE)
# Paths are printed relative to SRS_SOURCE_DIR when given (include/srs/...), else from SRS_INCLUDE_DIR.
set(shown "${SRS_INCLUDE_DIR}")
if(SRS_SOURCE_DIR)
  get_filename_component(SRS_SOURCE_DIR "${SRS_SOURCE_DIR}" ABSOLUTE)
  file(RELATIVE_PATH shown "${SRS_SOURCE_DIR}" "${SRS_INCLUDE_DIR}")
endif()

# folder (or top-level header) -> what its headers may include
set(allowed_core core)
set(allowed_detail core detail)
set(allowed_data core detail data)
set(allowed_stats core detail stats)
set(allowed_optim core detail data training.hpp concepts.hpp optim)
set(allowed_models core detail data training.hpp concepts.hpp optim models)
set(allowed_optim/kernels core detail data training.hpp concepts.hpp optim models optim/kernels)
set(allowed_optim/trainer.hpp core detail data training.hpp concepts.hpp optim models optim/kernels optim/trainer.hpp)
set(allowed_eval core detail data training.hpp concepts.hpp optim models optim/kernels optim/trainer.hpp stats eval)
set(allowed_sched core detail data training.hpp concepts.hpp optim models optim/kernels optim/trainer.hpp sched)
set(allowed_report core detail data training.hpp concepts.hpp optim models optim/kernels optim/trainer.hpp stats eval report)  # the top
set(allowed_anki core detail data anki)
set(allowed_bench core detail data training.hpp concepts.hpp optim models optim/kernels optim/trainer.hpp stats eval sched anki bench)
set(allowed_testing core detail data training.hpp concepts.hpp optim models optim/kernels optim/trainer.hpp stats eval sched testing)
set(allowed_c "")  # the C API header includes no srs header
set(allowed_training.hpp "")  # the training vocabulary includes no srs header
set(allowed_concepts.hpp core data training.hpp)
# no rule: srs.hpp (the umbrella header includes everything) and version.hpp (includes nothing)
set(unchecked srs.hpp version.hpp)

# The unit of a header path (relative to srs/): optim/kernels for those, optim/trainer.hpp for it and
# optim/trainers/, else its folder (or the header itself at the top level).
function(layer_unit path out)
  if(path MATCHES "^optim/kernels/")
    set(${out} "optim/kernels" PARENT_SCOPE)
  elseif(path STREQUAL "optim/trainer.hpp" OR path MATCHES "^optim/trainers/")
    set(${out} "optim/trainer.hpp" PARENT_SCOPE)
  else()
    string(REGEX REPLACE "/.*" "" unit "${path}")
    set(${out} "${unit}" PARENT_SCOPE)
  endif()
endfunction()

file(GLOB_RECURSE headers RELATIVE "${SRS_INCLUDE_DIR}/srs" "${SRS_INCLUDE_DIR}/srs/*.hpp" "${SRS_INCLUDE_DIR}/srs/*.h")
if(NOT headers)
  message(FATAL_ERROR "no headers under ${SRS_INCLUDE_DIR}/srs")
endif()
list(SORT headers)
set(failures 0)
foreach(header IN LISTS headers)
  layer_unit("${header}" from)
  if(from IN_LIST unchecked)
    continue()
  endif()
  if(NOT DEFINED allowed_${from})
    message(SEND_ERROR "${shown}/srs/${header}: no layering rule for '${from}' in tests/layering/check_layering.cmake")
    math(EXPR failures "${failures} + 1")
    continue()
  endif()
  # Its lines, numbered: ';' and brackets (which a CMake list treats specially) neutralised first.
  file(READ "${SRS_INCLUDE_DIR}/srs/${header}" content)
  string(REGEX REPLACE "[][;]" "_" content "${content}")
  string(REPLACE "\n" ";" lines "${content}")
  set(n 0)
  foreach(line IN LISTS lines)
    math(EXPR n "${n} + 1")
    if(line MATCHES "^[ \t]*#[ \t]*include[ \t]*[<\"]srs/([^>\"]+)[>\"]")
      layer_unit("${CMAKE_MATCH_1}" to)
      if(NOT to IN_LIST allowed_${from} AND NOT to STREQUAL "version.hpp")
        string(STRIP "${line}" text)
        if(from MATCHES "\\.")
          set(what "${from}")
        else()
          set(what "${from}/")
        endif()
        if(to MATCHES "\\.")
          set(target "${to}")
        else()
          set(target "${to}/")
        endif()
        message("${shown}/srs/${header}:${n}: ${what} must not include ${target}: ${text}")
        math(EXPR failures "${failures} + 1")
      endif()
    endif()
  endforeach()
endforeach()
list(LENGTH headers count)
if(failures GREATER 0)
  message(FATAL_ERROR "layering: ${failures} forbidden include(s) in ${count} headers (rules: tests/layering/check_layering.cmake)")
endif()
message(STATUS "layering: ${count} headers follow the layers")
