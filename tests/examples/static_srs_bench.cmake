# SPDX-License-Identifier: MIT
# ctest example.srs_bench_static (a build with -DSRS_STATIC_PROGRAMS=ON): srs-bench is one static
# executable (no program interpreter, so no dynamic loading) and it runs: the demo users, and
# with the components, an Anki collection (SQLite) and a Parquet user when the shared data exist;
# a malformed CSV is reported (an exception caught in a static program) with exit status 1.
#   cmake -DSRS_BENCH=<srs-bench> -DREADELF=<readelf> -DWORK=<dir> [-DANKI=<collection.anki2>]
#         [-DPARQUET=<dataset root>] -P static_srs_bench.cmake
foreach(v SRS_BENCH READELF WORK)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "static_srs_bench.cmake: -D${v}=... is required")
  endif()
endforeach()
execute_process(COMMAND "${READELF}" -l "${SRS_BENCH}" OUTPUT_VARIABLE headers RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "readelf -l ${SRS_BENCH} failed (${rc})")
endif()
if(headers MATCHES "INTERP")
  message(FATAL_ERROR "${SRS_BENCH} has a program interpreter: it is not statically linked")
endif()
file(REMOVE_RECURSE "${WORK}")
set(names demo)
set(args_demo --demo --demo-users 2 --short --fast --model FSRS-6 --model AVG)
if(DEFINED ANKI AND EXISTS "${ANKI}")
  list(APPEND names anki)
  set(args_anki --data "${ANKI}" --model HLR)
endif()
if(DEFINED PARQUET AND EXISTS "${PARQUET}")
  list(APPEND names parquet)
  set(args_parquet --data "${PARQUET}" --users 1 --model AVG)
endif()
foreach(name IN LISTS names)
  execute_process(COMMAND "${SRS_BENCH}" ${args_${name}} --quiet --out "${WORK}/${name}" RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "srs-bench (${name}) failed (${rc}):\n${out}\n${err}")
  endif()
  file(GLOB results "${WORK}/${name}/*.jsonl")
  if(NOT results)
    message(FATAL_ERROR "srs-bench (${name}) wrote no result file in ${WORK}/${name}")
  endif()
  message(STATUS "${name}: ${results}")
endforeach()

# A bad rating on line 3: reported with file, line and column, exit status 1.
file(WRITE "${WORK}/bad.csv" "card_id,day_offset,rating,state,duration,elapsed_days,elapsed_seconds\n"
                             "0,0,3,0,1000,-1,-1\n0,1,7,2,1000,1,86400\n")
execute_process(COMMAND "${SRS_BENCH}" --data "${WORK}/bad.csv" --model AVG --quiet --out "${WORK}/bad"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT err MATCHES "bad.csv:3" OR NOT err MATCHES "rating")
  message(FATAL_ERROR "srs-bench on a malformed CSV: exit status ${rc} (expected 1), stderr:\n${err}")
endif()
message(STATUS "bad.csv: ${err}")
