# SPDX-License-Identifier: MIT
# cmake -P script (ctest package.bench_consumer): a researcher's own benchmark program,
# tests/consumer/bench/my_bench.cpp (a model of its own beside FSRS-6 and AVG, through
# srs::bench::main), built against srs installed from SRS_BUILD_DIR into a scratch prefix, run
# with srs-bench's flags; its results then go through the installed srs-report.
#   DATASET_DIR  the anki-revlogs-10k dataset (optional: its user 1, Parquet, with --partitions)
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "command failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
endfunction()
function(expect text pattern what)
  if(NOT text MATCHES "${pattern}")
    message(FATAL_ERROR "${what}: expected '${pattern}' in:\n${text}")
  endif()
endfunction()
function(same_file a b)
  file(READ "${a}" x)
  file(READ "${b}" y)
  if(NOT x STREQUAL y)
    message(FATAL_ERROR "${a} and ${b} differ")
  endif()
endfunction()

set(prefix "${WORK_DIR}/prefix")
run("${CMAKE_COMMAND}" --install "${SRS_BUILD_DIR}" --prefix "${prefix}")
foreach(program srs-bench srs-report)
  if(NOT EXISTS "${prefix}/bin/${program}")
    message(FATAL_ERROR "the package does not install bin/${program}")
  endif()
endforeach()
set(flags)
if(CONSUMER_FLAGS)
  set(flags "-DCMAKE_CXX_FLAGS=${CONSUMER_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${CONSUMER_FLAGS}")
endif()
run("${CMAKE_COMMAND}" -S "${SRS_SOURCE_DIR}/tests/consumer/bench" -B "${WORK_DIR}/build"
    "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}" -DCMAKE_BUILD_TYPE=Release ${flags})
run("${CMAKE_COMMAND}" --build "${WORK_DIR}/build")
set(bench "${WORK_DIR}/build/my_bench")
set(demo --demo --demo-users 3 --quiet)

# --help lists the program's models; an unknown one is refused with them.
run("${bench}" --help)
expect("${out}" "--model NAME        MyModel, FSRS-6, AVG\n" "--help")
execute_process(COMMAND "${bench}" ${demo} --model Nope --out "${WORK_DIR}/none" RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "--model Nope: exit status ${rc}, expected 2")
endif()
expect("${err}" "my_bench: unknown model 'Nope'; available: MyModel, FSRS-6, AVG \\(see my_bench --help\\)" "--model Nope")

# Every model by default, the summary table, one result file per model.
run("${bench}" ${demo} --short --out "${WORK_DIR}/all")
expect("${out}" "MyModel-short +3 " "the summary table")
foreach(name MyModel-short FSRS-6-short AVG-short)
  if(NOT EXISTS "${WORK_DIR}/all/${name}.jsonl")
    message(FATAL_ERROR "no result file ${name}.jsonl")
  endif()
endforeach()

# The protocol flags name the result files as srs-bench's do.
run("${bench}" ${demo} --secs --equalize_test_with_non_secs --recency --threads 2 --model MyModel --model FSRS-6
    --out "${WORK_DIR}/secs")
foreach(name MyModel-secs-recency-equalize_test_with_non_secs FSRS-6-secs-recency-equalize_test_with_non_secs)
  if(NOT EXISTS "${WORK_DIR}/secs/${name}.jsonl")
    message(FATAL_ERROR "no result file ${name}.jsonl")
  endif()
endforeach()

# The training and output flags: --default, --S0, --two_buttons, --fast, --precision, --raw.
run("${bench}" ${demo} --default --model MyModel --out "${WORK_DIR}/flags")
run("${bench}" ${demo} --S0 --model FSRS-6 --out "${WORK_DIR}/flags")
run("${bench}" ${demo} --two_buttons --fast --precision double --raw --model MyModel --out "${WORK_DIR}/flags")
foreach(name MyModel-default FSRS-6-S0 MyModel-binary-fast raw/MyModel-binary-fast)
  if(NOT EXISTS "${WORK_DIR}/flags/${name}.jsonl")
    message(FATAL_ERROR "no result file ${name}.jsonl")
  endif()
endforeach()

# --shard I/N then --merge: the single run's files.
run("${bench}" ${demo} --short --shard 1/2 --out "${WORK_DIR}/shards")
run("${bench}" ${demo} --short --shard 2/2 --out "${WORK_DIR}/shards")
run("${bench}" --merge --out "${WORK_DIR}/shards" --quiet)
foreach(name MyModel-short FSRS-6-short AVG-short)
  same_file("${WORK_DIR}/all/${name}.jsonl" "${WORK_DIR}/shards/${name}.jsonl")
endforeach()

# --resume after a killed run (its last line cut off): the single run's file.
file(MAKE_DIRECTORY "${WORK_DIR}/resumed")
file(READ "${WORK_DIR}/all/MyModel-short.jsonl" lines)
string(FIND "${lines}" "\n" first_end)
math(EXPR cut "${first_end} + 40")
string(SUBSTRING "${lines}" 0 ${cut} partial)
file(WRITE "${WORK_DIR}/resumed/MyModel-short.jsonl" "${partial}")
run("${bench}" ${demo} --short --resume --model MyModel --out "${WORK_DIR}/resumed")
same_file("${WORK_DIR}/all/MyModel-short.jsonl" "${WORK_DIR}/resumed/MyModel-short.jsonl")

# Real data as published (Parquet), per preset, when the dataset and the parquet component are there.
if(DATASET_DIR AND EXISTS "${DATASET_DIR}/revlogs/user_id=1/data.parquet"
   AND EXISTS "${prefix}/share/cmake/srs/srsParquetTargets.cmake")
  run("${bench}" --data "${DATASET_DIR}" --users 1 --partitions preset --model MyModel --quiet --out "${WORK_DIR}/user1")
  expect("${out}" "MyModel-preset +1 +[0-9]+ " "user 1")
endif()

# The installed srs-report reads the results; MyModel's parameter count comes from its lines.
run("${prefix}/bin/srs-report" "${WORK_DIR}/all")
expect("${out}" "\\| MyModel-short \\| 4 \\|" "srs-report's Parameters column")
expect("${out}" "\\| \\*\\*FSRS-6-short\\*\\* \\| 21 \\||\\| FSRS-6-short \\| 21 \\|" "srs-report: FSRS-6")
message(STATUS "my_bench: every flag checked; srs-report read its results")
