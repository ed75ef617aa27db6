/* SPDX-License-Identifier: MIT */
/* Binary compatibility with apps built against C API 0.1.0: old_app.c is
 * compiled against that header as published (srs_0_1_0.h) and calls the
 * library's 0.1.0 symbols srs_train_options_init and srs_fsrs6_train with the
 * unsized structs; new_app.c does the same through the current header. Both
 * link the current libsrs_c. Checked here: the old app's calls succeed, write
 * nothing past its structs, read its options field by field (non-default
 * values, a callback with user data, an invalid rules value refused), and give
 * exactly the new app's results (training on a generated log, then scheduling). */
#include <stdint.h> /* int32_t, int64_t, uint64_t */
#include <stdio.h>  /* printf, fprintf */
#include <stdlib.h> /* malloc, free */
#include <string.h> /* memcmp */

#include "abi_app.h"

static int abi_failures = 0;
#define ABI_CHECK(cond)                                                         \
  do {                                                                          \
    if (!(cond)) {                                                              \
      fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
      ++abi_failures;                                                           \
    }                                                                           \
  } while (0)

static uint64_t abi_rng = 7;
static double abi_uniform(void) { /* xorshift64*: reproducible draws in [0, 1) */
  abi_rng ^= abi_rng >> 12;
  abi_rng ^= abi_rng << 25;
  abi_rng ^= abi_rng >> 27;
  return (double)((abi_rng * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

/* A log without the API: each card reviewed at intervals growing 2.5x on a pass,
 * back to 1 day on Again (Again 15%, Hard 10%, Easy 5%), over 240 days. */
static size_t generate(int64_t* cards, int64_t* times, int32_t* ratings, size_t cap) {
  const int64_t day_ms = 86400000, t0 = 1700049600000; /* 2023-11-15 12:00 UTC */
  size_t n = 0;
  for (int c = 0; c < 250 && n < cap; ++c) {
    double day = c / 4, ivl = 1;
    while (day < 240 && n < cap) {
      const double u = abi_uniform();
      const int32_t g = u < 0.15 ? 1 : u < 0.25 ? 2 : u < 0.95 ? 3 : 4;
      cards[n] = 5000 + c;
      times[n] = t0 + (int64_t)day * day_ms + c * 1000;
      ratings[n] = g;
      ++n;
      ivl = g == 1 ? 1 : ivl * (g == 2 ? 1.2 : g == 3 ? 2.5 : 3.5);
      day += (int)(ivl + 0.5);
    }
  }
  return n;
}

int main(void) {
  enum { cap = 8000 };
  int64_t* cards = (int64_t*)malloc(cap * sizeof(int64_t));
  int64_t* times = (int64_t*)malloc(cap * sizeof(int64_t));
  int32_t* ratings = (int32_t*)malloc(cap * sizeof(int32_t));
  if (!cards || !times || !ratings) return 1;
  const abi_log log = {cards, times, ratings, generate(cards, times, ratings, cap)};
  ABI_CHECK(log.n > 1000);

  abi_results old_r, new_r;
  ABI_CHECK(old_app_run(&log, &old_r) == 0);
  ABI_CHECK(new_app_run(&log, &new_r) == 0);

  ABI_CHECK(old_r.defaults_ok && new_r.defaults_ok);
  ABI_CHECK(old_r.guards_ok);
  ABI_CHECK(old_r.train_status == 0 && new_r.train_status == 0);
  ABI_CHECK(old_r.outcome == 0); /* SRS_FIT_TRAINED: the comparison below is of trained parameters */
  ABI_CHECK(old_r.outcome == new_r.outcome);
  ABI_CHECK(old_r.reviews == log.n && new_r.reviews == log.n);
  ABI_CHECK(old_r.items > 100 && old_r.items == new_r.items);
  ABI_CHECK(memcmp(old_r.params, new_r.params, sizeof old_r.params) == 0);
  ABI_CHECK(old_r.progress_calls > 0 && old_r.progress_last == old_r.progress_total);
  ABI_CHECK(old_r.progress_calls == new_r.progress_calls && old_r.progress_total == new_r.progress_total);
  ABI_CHECK(old_r.bad_rules_status == 1 && new_r.bad_rules_status == 1); /* SRS_INVALID_ARGUMENT */
  ABI_CHECK(old_r.stability == new_r.stability && old_r.difficulty == new_r.difficulty);
  ABI_CHECK(old_r.interval == new_r.interval && old_r.interval >= 1);
  ABI_CHECK(old_r.recall == new_r.recall && old_r.recall > 0 && old_r.recall < 1);
  ABI_CHECK(memcmp(old_r.next_intervals, new_r.next_intervals, sizeof old_r.next_intervals) == 0);
  ABI_CHECK(memcmp(old_r.next_stability, new_r.next_stability, sizeof old_r.next_stability) == 0);
  free(cards);
  free(times);
  free(ratings);
  if (abi_failures) {
    fprintf(stderr, "%d check(s) failed\n", abi_failures);
    return 1;
  }
  printf("C API 0.1.0 app on libsrs_c %d reviews: same results as the current header\n", (int)log.n);
  return 0;
}
