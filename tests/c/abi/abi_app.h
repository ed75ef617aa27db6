/* SPDX-License-Identifier: MIT */
/* What tests/c/abi/old_app.c (built against the 0.1.0 header) and new_app.c
 * (built against the current one) compute, in plain C types: neither header is
 * included here, so abi_test.c can compare the two. */
#ifndef SRS_TEST_ABI_APP_H
#define SRS_TEST_ABI_APP_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* int32_t, int64_t */

/* A review log as an app keeps it. */
typedef struct abi_log {
  const int64_t* cards;
  const int64_t* times;
  const int32_t* ratings;
  size_t n;
} abi_log;

typedef struct abi_results {
  int defaults_ok;       /* the init gave 0.1.0's defaults */
  int train_status;      /* srs_fsrs6_train with the options below */
  int outcome;           /* srs_train_info */
  size_t reviews, items; /* srs_train_info */
  double params[21];     /* trained */
  size_t progress_calls, progress_last, progress_total;
  int bad_rules_status;  /* srs_fsrs6_train with rules = 7 */
  double stability, difficulty; /* srs_fsrs6_memory_state of a history with the trained parameters */
  int32_t interval;              /* srs_fsrs6_next_interval */
  double recall;                 /* srs_fsrs6_retrievability after 5 days */
  int32_t next_intervals[4];     /* srs_fsrs6_next_states after 5 days */
  double next_stability[4];
  int guards_ok; /* no byte written past the app's structs */
} abi_results;

/* The options both apps set (not the defaults, so that a misread field shows). */
enum { abi_rollover_hour = 2, abi_utc_offset_minutes = 60, abi_short_term = 1, abi_recency = 1 };

int old_app_run(const abi_log* log, abi_results* out); /* old_app.c */
int new_app_run(const abi_log* log, abi_results* out); /* new_app.c */

#endif
