/* SPDX-License-Identifier: MIT */
/* Test of the C API (include/srs/c/srs.h), written in C11 and linked to the
 * srs_c shared library:
 *
 *   - defaults, memory state of a history, retrievability (R(S, S) = 0.9),
 *     next interval (rounding, clamp), next states of a new card (the initial
 *     stabilities) and of a review (ordered by rating, each interval the next
 *     interval of its state);
 *   - errors: NULL pointers, ratings outside 1..4, retentions outside (0, 1],
 *     a bad memory state: SRS_INVALID_ARGUMENT with a message, outputs untouched;
 *   - training on a log simulated here with the API itself (cards reviewed at
 *     their scheduled intervals, recalls drawn with the predicted probability):
 *     trained, progress reported up to its total, parameters not the defaults
 *     and usable; cancellation from the callback (SRS_CANCELLED); a tiny log
 *     gives the defaults (SRS_FIT_DEFAULTS); two reviews of a card at the same
 *     time are SRS_INVALID_INPUT; the fsrs-rs rules run too;
 *   - the evolution conventions (C API 0.2.0): srs_c_api_version() equals the
 *     header's version, the rating and state constants have ts-fsrs's numbers,
 *     srs_status_string names every code and "unknown status" otherwise; the
 *     sized structs: init macros set struct_size and the defaults, sizes below
 *     the first sized layout or absurd sizes are SRS_INVALID_ARGUMENT, a struct
 *     larger than the library's (a newer header) is accepted when the unknown
 *     bytes are zero and refused otherwise, and nothing is written past the
 *     struct_size the app gave (canary bytes after the struct).
 *   (tests/c/abi/ checks an app built against the 0.1.0 header.) */
#include <srs/c/srs.h>

#include <math.h>   /* fabs */
#include <stdint.h> /* int32_t, int64_t, uint64_t */
#include <stdio.h>  /* printf, fprintf */
#include <stdlib.h> /* malloc, free */
#include <string.h> /* strlen */

static int failures = 0;

#define CHECK(cond)                                                   \
  do {                                                                \
    if (!(cond)) {                                                    \
      fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                     \
    }                                                                 \
  } while (0)

static uint64_t rng_state = 42;
static double uniform(void) { /* xorshift64*: reproducible draws in [0, 1) */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (double)((rng_state * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

typedef struct progress_log {
  size_t calls;
  size_t last_step;
  size_t total;
  size_t cancel_at; /* 0: never */
} progress_log;

static int on_progress(void* user_data, size_t step, size_t total) {
  progress_log* p = (progress_log*)user_data;
  ++p->calls;
  p->last_step = step;
  p->total = total;
  return p->cancel_at == 0 || step < p->cancel_at;
}

static void test_scheduler(void) {
  double w[SRS_FSRS6_NUM_PARAMS];
  CHECK(srs_fsrs6_default_parameters(w) == SRS_OK);
  CHECK(fabs(w[0] - 0.212) < 1e-12 && fabs(w[20] - 0.1542) < 1e-12);
  CHECK(strlen(srs_version()) > 0);

  const double days[4] = {0, 1, 3, 8};
  const int32_t ratings[4] = {3, 3, 2, 3};
  srs_memory_state s;
  CHECK(srs_fsrs6_memory_state(NULL, days, ratings, 4, &s) == SRS_OK);
  CHECK(s.stability > 1 && s.difficulty >= 1 && s.difficulty <= 10);
  srs_memory_state s2;
  CHECK(srs_fsrs6_memory_state(w, days, ratings, 4, &s2) == SRS_OK);
  CHECK(s2.stability == s.stability && s2.difficulty == s.difficulty);

  double r = 0;
  CHECK(srs_fsrs6_retrievability(NULL, s, s.stability, &r) == SRS_OK);
  CHECK(fabs(r - 0.9) < 1e-12);
  CHECK(srs_fsrs6_retrievability(NULL, s, 0, &r) == SRS_OK);
  CHECK(r == 1.0);

  int32_t ivl = 0;
  srs_memory_state half = {2.5, 5.0};
  CHECK(srs_fsrs6_next_interval(NULL, half, 0.9, 0, &ivl) == SRS_OK);
  CHECK(ivl == 3);
  srs_memory_state one = {1.0, 5.0};
  CHECK(srs_fsrs6_next_interval(NULL, one, 0.2, 0, &ivl) == SRS_OK);
  CHECK(ivl == 34793);
  CHECK(srs_fsrs6_next_interval(NULL, one, 0.2, 365, &ivl) == SRS_OK);
  CHECK(ivl == 365);

  srs_next_states n;
  CHECK(srs_fsrs6_next_states(NULL, NULL, 0.9, 0, 0, &n) == SRS_OK);
  CHECK(n.again.memory.stability == w[0] && n.hard.memory.stability == w[1]);
  CHECK(n.good.memory.stability == w[2] && n.easy.memory.stability == w[3]);
  CHECK(n.good.interval == 2 && n.easy.interval == 8);
  CHECK(srs_fsrs6_next_states(w, &s, 0.9, 10, 0, &n) == SRS_OK);
  CHECK(n.again.memory.stability < n.hard.memory.stability);
  CHECK(n.hard.memory.stability < n.good.memory.stability);
  CHECK(n.good.memory.stability < n.easy.memory.stability);
  CHECK(srs_fsrs6_next_interval(w, n.good.memory, 0.9, 0, &ivl) == SRS_OK);
  CHECK(ivl == n.good.interval);
  /* next_states after 10 days equals the memory state of the extended history. */
  {
    const double days5[5] = {0, 1, 3, 8, 10};
    const int32_t ratings5[5] = {3, 3, 2, 3, 3};
    srs_memory_state s5;
    CHECK(srs_fsrs6_memory_state(w, days5, ratings5, 5, &s5) == SRS_OK);
    CHECK(s5.stability == n.good.memory.stability && s5.difficulty == n.good.memory.difficulty);
  }
}

static void test_errors(void) {
  const double days[2] = {0, 1};
  const int32_t bad[2] = {3, 5};
  srs_memory_state s = {7.0, 7.0};
  CHECK(srs_fsrs6_memory_state(NULL, days, bad, 2, &s) == SRS_INVALID_ARGUMENT);
  CHECK(strlen(srs_last_error()) > 0);
  CHECK(s.stability == 7.0); /* untouched */
  CHECK(srs_fsrs6_memory_state(NULL, days, bad, 0, &s) == SRS_INVALID_ARGUMENT);
  CHECK(srs_fsrs6_memory_state(NULL, NULL, bad, 2, &s) == SRS_INVALID_ARGUMENT);
  int32_t ivl = -7;
  CHECK(srs_fsrs6_next_interval(NULL, s, 0.0, 0, &ivl) == SRS_INVALID_ARGUMENT);
  CHECK(srs_fsrs6_next_interval(NULL, s, 1.5, 0, &ivl) == SRS_INVALID_ARGUMENT);
  CHECK(ivl == -7);
  srs_memory_state broken = {-1.0, 5.0};
  CHECK(srs_fsrs6_next_interval(NULL, broken, 0.9, 0, &ivl) == SRS_INVALID_ARGUMENT);
  CHECK(srs_fsrs6_next_states(NULL, &s, 0.9, -2, 0, NULL) == SRS_INVALID_ARGUMENT);
  CHECK(srs_fsrs6_default_parameters(NULL) == SRS_INVALID_ARGUMENT);
}

/* A simulated log: `cards` cards, one new per 1/new_per_day days, each reviewed at its
 * scheduled interval (noon UTC), recalled with the predicted probability. */
static size_t simulate(int64_t* card_ids, int64_t* times, int32_t* ratings, size_t cap, int cards, int days) {
  size_t n = 0;
  const int64_t day_ms = 86400000;
  const int64_t t0 = 1700006400000; /* 2023-11-15 00:00 UTC */
  for (int c = 0; c < cards && n < cap; ++c) {
    int day = c / 10;
    srs_next_states ns;
    srs_fsrs6_next_states(NULL, NULL, 0.9, 0, 0, &ns);
    int32_t g = uniform() < 0.2 ? 1 : 3;
    srs_item_state cur = g == 1 ? ns.again : ns.good;
    card_ids[n] = 1000 + c;
    times[n] = t0 + day * day_ms + 12 * 3600000 + c;
    ratings[n] = g;
    ++n;
    while (n < cap) {
      const int32_t ivl = cur.interval;
      if (day + ivl >= days) break;
      day += ivl;
      double p = 0;
      srs_fsrs6_retrievability(NULL, cur.memory, ivl, &p);
      const double u = uniform();
      g = u < p ? (u < 0.1 * p ? 2 : (u > 0.95 * p ? 4 : 3)) : 1;
      srs_fsrs6_next_states(NULL, &cur.memory, 0.9, ivl, 0, &ns);
      cur = g == 1 ? ns.again : g == 2 ? ns.hard : g == 3 ? ns.good : ns.easy;
      card_ids[n] = 1000 + c;
      times[n] = t0 + day * day_ms + 12 * 3600000 + c;
      ratings[n] = g;
      ++n;
    }
  }
  return n;
}

static void test_training(void) {
  enum { cap = 20000 };
  int64_t* card_ids = (int64_t*)malloc(cap * sizeof(int64_t));
  int64_t* times = (int64_t*)malloc(cap * sizeof(int64_t));
  int32_t* ratings = (int32_t*)malloc(cap * sizeof(int32_t));
  const size_t n = simulate(card_ids, times, ratings, cap, 600, 200);
  CHECK(n > 2000);

  double w[SRS_FSRS6_NUM_PARAMS], defaults[SRS_FSRS6_NUM_PARAMS];
  srs_fsrs6_default_parameters(defaults);
  srs_train_options opt;
  CHECK(srs_train_options_init(&opt) == SRS_OK);
  CHECK(opt.rollover_hour == 4 && opt.short_term == 1 && opt.rules == SRS_FIT_BENCHMARK);
  progress_log log = {0, 0, 0, 0};
  opt.progress = on_progress;
  opt.user_data = &log;
  srs_train_info info;
  CHECK(srs_train_info_init(&info) == SRS_OK);
  CHECK(srs_fsrs6_train(card_ids, times, ratings, NULL, n, &opt, w, &info) == SRS_OK);
  CHECK(info.outcome == SRS_FIT_TRAINED);
  CHECK(info.reviews == n);
  CHECK(info.items > 1000 && info.items < n);
  CHECK(log.calls > 5 && log.total > 0 && log.last_step == log.total);
  {
    int differ = 0;
    for (int k = 0; k < SRS_FSRS6_NUM_PARAMS; ++k) differ += w[k] != defaults[k];
    CHECK(differ > 10);
  }
  /* The trained parameters schedule. */
  {
    srs_next_states ns;
    CHECK(srs_fsrs6_next_states(w, NULL, 0.9, 0, 0, &ns) == SRS_OK);
    CHECK(ns.good.interval >= 1);
  }

  /* Cancelled by the callback at step 3: outputs untouched. */
  {
    progress_log stop = {0, 0, 0, 3};
    double w2[SRS_FSRS6_NUM_PARAMS] = {0};
    opt.user_data = &stop;
    CHECK(srs_fsrs6_train(card_ids, times, ratings, NULL, n, &opt, w2, NULL) == SRS_CANCELLED);
    CHECK(stop.last_step == 3);
    CHECK(w2[0] == 0);
    CHECK(strlen(srs_last_error()) > 0);
  }

  /* fsrs-rs rules, no options struct for the other defaults. */
  {
    srs_train_options rs;
    srs_train_options_init(&rs);
    rs.rules = SRS_FIT_FSRS_RS;
    CHECK(srs_fsrs6_train(card_ids, times, ratings, NULL, n, &rs, w, &info) == SRS_OK);
    CHECK(info.outcome == SRS_FIT_TRAINED);
  }

  /* A tiny log: the defaults. */
  CHECK(srs_fsrs6_train(card_ids, times, ratings, NULL, 3, NULL, w, &info) == SRS_OK);
  CHECK(info.outcome == SRS_FIT_DEFAULTS);
  CHECK(w[0] == defaults[0] && w[20] == defaults[20]);

  /* Two reviews of one card at the same time. */
  {
    const int64_t ids[2] = {1, 1};
    const int64_t ts[2] = {1700000000000, 1700000000000};
    const int32_t rs2[2] = {3, 3};
    CHECK(srs_fsrs6_train(ids, ts, rs2, NULL, 2, NULL, w, NULL) == SRS_INVALID_INPUT);
    const int32_t bad[2] = {3, 7};
    CHECK(srs_fsrs6_train(ids, ts, bad, NULL, 2, NULL, w, NULL) == SRS_INVALID_ARGUMENT);
  }
  free(card_ids);
  free(times);
  free(ratings);
}

static void test_versions_and_constants(void) {
  CHECK(SRS_C_API_MAKE_VERSION(1, 2, 3) == 1002003);
  CHECK(srs_c_api_version() == SRS_C_API_VERSION);
  CHECK(srs_c_api_version() / 1000000 == SRS_C_API_VERSION_MAJOR);
  CHECK(srs_c_api_version() / 1000 % 1000 == SRS_C_API_VERSION_MINOR);
  CHECK(srs_c_api_version() % 1000 == SRS_C_API_VERSION_PATCH);
  /* ts-fsrs: Rating.Again = 1 .. Rating.Easy = 4; State.New = 0, Learning 1, Review 2, Relearning 3. */
  CHECK(SRS_RATING_AGAIN == 1 && SRS_RATING_HARD == 2 && SRS_RATING_GOOD == 3 && SRS_RATING_EASY == 4);
  CHECK(SRS_STATE_NEW == 0 && SRS_STATE_LEARNING == 1 && SRS_STATE_REVIEW == 2 && SRS_STATE_RELEARNING == 3);
  /* The constants are the ratings the functions take: Good then Easy from a new card. */
  {
    srs_next_states ns;
    CHECK(srs_fsrs6_next_states(NULL, NULL, 0.9, 0, 0, &ns) == SRS_OK);
    const double days[2] = {0, 0};
    const int32_t ratings[2] = {SRS_RATING_GOOD, SRS_RATING_EASY};
    srs_memory_state s;
    CHECK(srs_fsrs6_memory_state(NULL, days, ratings, 1, &s) == SRS_OK);
    CHECK(s.stability == ns.good.memory.stability);
  }

  CHECK(strcmp(srs_status_string(SRS_OK), "ok") == 0);
  CHECK(strcmp(srs_status_string(SRS_INVALID_ARGUMENT), "invalid argument") == 0);
  CHECK(strcmp(srs_status_string(SRS_INVALID_INPUT), "invalid input") == 0);
  CHECK(strcmp(srs_status_string(SRS_CANCELLED), "cancelled") == 0);
  CHECK(strcmp(srs_status_string(SRS_ERROR), "error") == 0);
  CHECK(strcmp(srs_status_string((srs_status)5), "unknown status") == 0);
  CHECK(strcmp(srs_status_string((srs_status)-1), "unknown status") == 0);
  CHECK(strcmp(srs_status_string((srs_status)1000), "unknown status") == 0);
}

/* A struct of `size` bytes followed by `guard` canary bytes. */
enum { guard = 64, canary = 0xA5 };
static int canaries_intact(const unsigned char* buffer, size_t size) {
  for (size_t k = size; k < size + guard; ++k) {
    if (buffer[k] != canary) return 0;
  }
  return 1;
}

static void test_sized_structs(void) {
  const int64_t ids[3] = {1, 1, 2};
  const int64_t ts[3] = {1700000000000, 1700086400000, 1700000000000};
  const int32_t rs[3] = {3, 3, 1};
  double w[SRS_FSRS6_NUM_PARAMS];

  /* init: struct_size and the defaults. */
  srs_train_options o;
  memset(&o, 0x7F, sizeof o);
  CHECK(srs_train_options_init(&o) == SRS_OK);
  CHECK(o.struct_size == sizeof o);
  CHECK(o.rollover_hour == 4 && o.utc_offset_minutes == 0 && o.short_term == 1 && o.recency == 0);
  CHECK(o.rules == SRS_FIT_BENCHMARK && o.progress == NULL && o.user_data == NULL);
  srs_train_info info;
  memset(&info, 0x7F, sizeof info);
  CHECK(srs_train_info_init(&info) == SRS_OK);
  CHECK(info.struct_size == sizeof info && info.reviews == 0 && info.items == 0);

  /* NULL and sizes below the first sized layout, or absurd. */
  CHECK(srs_train_options_init_sized(NULL, sizeof o) == SRS_INVALID_ARGUMENT);
  CHECK(strstr(srs_last_error(), "NULL") != NULL);
  CHECK(srs_train_info_init_sized(NULL, sizeof info) == SRS_INVALID_ARGUMENT);
  {
    unsigned char buffer[sizeof(srs_train_options) + guard];
    memset(buffer, canary, sizeof buffer);
    CHECK(srs_train_options_init_sized((srs_train_options*)(void*)buffer, sizeof(srs_train_options) - 1) ==
          SRS_INVALID_ARGUMENT);
    CHECK(strstr(srs_last_error(), "struct_size") != NULL);
    CHECK(srs_train_options_init_sized((srs_train_options*)(void*)buffer, 0) == SRS_INVALID_ARGUMENT);
    CHECK(srs_train_options_init_sized((srs_train_options*)(void*)buffer, 5000) == SRS_INVALID_ARGUMENT);
    CHECK(canaries_intact(buffer, 0)); /* nothing written */
  }
  CHECK(srs_train_info_init_sized(&info, sizeof info - 1) == SRS_INVALID_ARGUMENT);
  CHECK(srs_train_info_init_sized(&info, 4) == SRS_INVALID_ARGUMENT);

  /* A train call with a struct_size too small (or never set) changes nothing. */
  w[0] = -1;
  o.struct_size = (uint32_t)sizeof o - 8;
  CHECK(srs_fsrs6_train(ids, ts, rs, NULL, 3, &o, w, NULL) == SRS_INVALID_ARGUMENT);
  CHECK(strstr(srs_last_error(), "srs_train_options") != NULL);
  o.struct_size = 0;
  CHECK(srs_fsrs6_train(ids, ts, rs, NULL, 3, &o, w, NULL) == SRS_INVALID_ARGUMENT);
  CHECK(w[0] == -1);
  CHECK(srs_train_options_init(&o) == SRS_OK);
  info.struct_size = 0;
  CHECK(srs_fsrs6_train(ids, ts, rs, NULL, 3, &o, w, &info) == SRS_INVALID_ARGUMENT);
  CHECK(strstr(srs_last_error(), "srs_train_info") != NULL);
  info.struct_size = 100000;
  CHECK(srs_fsrs6_train(ids, ts, rs, NULL, 3, &o, w, &info) == SRS_INVALID_ARGUMENT);
  CHECK(w[0] == -1);

  /* Exactly sized, inside guarded buffers: written up to struct_size, not past it. */
  {
    unsigned char ob[sizeof(srs_train_options) + guard], ib[sizeof(srs_train_info) + guard];
    memset(ob, canary, sizeof ob);
    memset(ib, canary, sizeof ib);
    srs_train_options* po = (srs_train_options*)(void*)ob;
    srs_train_info* pi = (srs_train_info*)(void*)ib;
    CHECK(srs_train_options_init(po) == SRS_OK);
    CHECK(srs_train_info_init(pi) == SRS_OK);
    po->rollover_hour = 2;
    CHECK(srs_fsrs6_train(ids, ts, rs, NULL, 3, po, w, pi) == SRS_OK);
    CHECK(pi->struct_size == sizeof(srs_train_info) && pi->outcome == SRS_FIT_DEFAULTS && pi->reviews == 3);
    CHECK(canaries_intact(ob, sizeof(srs_train_options)));
    CHECK(canaries_intact(ib, sizeof(srs_train_info)));
  }

  /* A struct from a newer header (16 bytes more): its unknown fields zero by the init,
   * accepted; set, refused (this library cannot honour them). */
  {
    enum { extra = 16 };
    unsigned char ob[sizeof(srs_train_options) + extra + guard], ib[sizeof(srs_train_info) + extra + guard];
    memset(ob, canary, sizeof ob);
    memset(ib, canary, sizeof ib);
    srs_train_options* po = (srs_train_options*)(void*)ob;
    srs_train_info* pi = (srs_train_info*)(void*)ib;
    CHECK(srs_train_options_init_sized(po, sizeof(srs_train_options) + extra) == SRS_OK);
    CHECK(po->struct_size == sizeof(srs_train_options) + extra && po->rollover_hour == 4);
    CHECK(ob[sizeof(srs_train_options)] == 0 && ob[sizeof(srs_train_options) + extra - 1] == 0);
    CHECK(canaries_intact(ob, sizeof(srs_train_options) + extra));
    CHECK(srs_train_info_init_sized(pi, sizeof(srs_train_info) + extra) == SRS_OK);
    CHECK(canaries_intact(ib, sizeof(srs_train_info) + extra));
    /* The app's newer output fields keep their value: the library writes only what it knows. */
    ib[sizeof(srs_train_info) + 3] = 0x42;
    CHECK(srs_fsrs6_train(ids, ts, rs, NULL, 3, po, w, pi) == SRS_OK);
    CHECK(pi->outcome == SRS_FIT_DEFAULTS && pi->reviews == 3);
    CHECK(pi->struct_size == sizeof(srs_train_info) + extra);
    CHECK(ib[sizeof(srs_train_info) + 3] == 0x42);
    CHECK(canaries_intact(ib, sizeof(srs_train_info) + extra));
    ob[sizeof(srs_train_options) + 5] = 1;
    w[0] = -1;
    CHECK(srs_fsrs6_train(ids, ts, rs, NULL, 3, po, w, pi) == SRS_INVALID_ARGUMENT);
    CHECK(strstr(srs_last_error(), "does not know") != NULL);
    CHECK(w[0] == -1);
  }

  /* The fields inside struct_size are read: an unknown rules value is refused. */
  CHECK(srs_train_options_init(&o) == SRS_OK);
  o.rules = (srs_fit_rules)7;
  CHECK(srs_fsrs6_train(ids, ts, rs, NULL, 3, &o, w, NULL) == SRS_INVALID_ARGUMENT);
  CHECK(strstr(srs_last_error(), "rules") != NULL);
}

int main(void) {
  test_versions_and_constants();
  test_sized_structs();
  test_scheduler();
  test_errors();
  test_training();
  if (failures) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("C API: all checks passed\n");
  return 0;
}
