# SPDX-License-Identifier: MIT
# Cross-checks of srs::sched against fsrs-rs 6.5.0's Node binding (included by tests/CMakeLists.txt):
# crosscheck.fsrs_rs_sm2 (memory_state_from_sm2, memory_state from a starting state),
# crosscheck.fsrs_rs_interval (next states and intervals of converted cards) and
# crosscheck.fsrs_rs_evaluate (log loss, RMSE(bins)). They install the pinned npm peers
# (tests/tools/npm_peers.sh) into <build folder>/npm_peers and are skipped (exit 77) without node or npm;
# CI installs both, so there they run.
add_executable(fsrs_rs_crosscheck_driver "${CMAKE_CURRENT_SOURCE_DIR}/crosscheck/fsrs_rs_driver.cpp")
target_link_libraries(fsrs_rs_crosscheck_driver PRIVATE srs::srs srs_warnings)
target_compile_options(fsrs_rs_crosscheck_driver PRIVATE ${SRS_TEST_COMPILE_OPTIONS})
# compat::FsrsRsF32 is bit-exact only without fused multiply-adds (rustc never contracts).
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  target_compile_options(fsrs_rs_crosscheck_driver PRIVATE -ffp-contract=off)
endif()
foreach(mode IN ITEMS sm2 interval evaluate)
  add_test(NAME crosscheck.fsrs_rs_${mode}
    COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/crosscheck/run_fsrs_rs.sh" "${PROJECT_BINARY_DIR}/npm_peers"
      $<TARGET_FILE:fsrs_rs_crosscheck_driver> ${mode})
  set_tests_properties(crosscheck.fsrs_rs_${mode} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
endforeach()
