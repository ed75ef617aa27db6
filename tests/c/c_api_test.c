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
 *   - the card scheduler (srs_scheduler_*): default options; a new card's four
 *     outcomes by hand (steps 1 and 10 minutes: Again 1 min, Hard 6 min, Good
 *     10 min to step 1, Easy to review in round(w3) = 8 days; S = w0..w3,
 *     D = w4 - exp(w5 (g - 1)) + 1); graduation with the interval
 *     srs_fsrs6_next_states gives; a lapse to relearning; R against
 *     srs_fsrs6_retrievability; forget, rollback (the card before, exactly),
 *     reschedule (the step-by-step cards and logs); every error named
 *     (NULLs, ratings, bad options, bad cards and logs, sizes), outputs
 *     untouched on failure, nothing written past an output's struct_size,
 *     a newer (longer) card accepted with a zero tail and refused otherwise.
 *     (c_api.scheduler_parity compares it with the C++ Scheduler at length.)
 *   - time zones (0.3.0): days across a daylight-saving change with a zone and
 *     with a fixed offset, a 0.2.0-sized options struct, bad zone names, and
 *     the zone in training and evaluation.
 *   (tests/c/abi/ checks an app built against the 0.1.0 header.) */
#include <srs/c/srs.h>

#include <math.h>   /* fabs, exp, log, pow, sqrt, NAN, INFINITY */
#include <stddef.h> /* offsetof */
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

  /* A train call with a struct_size too small, inside the 0.3.0 time_zone field,
   * or never set changes nothing. */
  w[0] = -1;
  o.struct_size = (uint32_t)offsetof(srs_train_options, time_zone) - 8;
  CHECK(srs_fsrs6_train(ids, ts, rs, NULL, 3, &o, w, NULL) == SRS_INVALID_ARGUMENT);
  CHECK(strstr(srs_last_error(), "srs_train_options") != NULL);
  o.struct_size = (uint32_t)sizeof o - 4;
  CHECK(srs_fsrs6_train(ids, ts, rs, NULL, 3, &o, w, NULL) == SRS_INVALID_ARGUMENT);
  CHECK(strstr(srs_last_error(), " or at least ") != NULL);
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

/* ---- The card scheduler ---------------------------------------------------- */

static const int64_t t0 = 1704110400000; /* 2024-01-01 12:00 UTC */
static const int64_t minute_ms = 60000;
static const int64_t day_ms_c = 86400000;

static int error_names(const char* what) { return strstr(srs_last_error(), what) != NULL; }

static void test_card_scheduler(void) {
  double w[SRS_FSRS6_NUM_PARAMS];
  srs_fsrs6_default_parameters(w);
  srs_scheduler_options o;
  memset(&o, 0x7F, sizeof o);
  CHECK(srs_scheduler_options_init(&o) == SRS_OK);
  CHECK(o.struct_size == sizeof o && o.desired_retention == 0.9 && o.maximum_interval == 36500);
  CHECK(o.parameters[0] == w[0] && o.parameters[20] == w[20]);
  CHECK(o.learning_step_count == 2 && o.learning_steps_minutes[0] == 1 && o.learning_steps_minutes[1] == 10);
  CHECK(o.learning_steps_minutes[2] == 0);
  CHECK(o.relearning_step_count == 1 && o.relearning_steps_minutes[0] == 10);
  CHECK(o.enable_fuzz == 0 && o.rollover_hour == 0 && o.utc_offset_minutes == 0 && o.reserved == 0);
  srs_scheduler* s = NULL;
  CHECK(srs_scheduler_create(&o, &s) == SRS_OK && s != NULL);

  srs_card card;
  memset(&card, 0x7F, sizeof card);
  CHECK(srs_card_init(&card) == SRS_OK);
  CHECK(card.struct_size == sizeof card && card.state == SRS_STATE_NEW && card.id == 0 && card.stability == 0);
  CHECK(card.has_last_review == 0 && card.reps == 0 && card.due_ms == 0);
  CHECK(srs_scheduler_new_card(s, 7, t0, &card) == SRS_OK);
  CHECK(card.id == 7 && card.due_ms == t0 && card.state == SRS_STATE_NEW && card.difficulty == 0);

  /* A new card's four outcomes. */
  srs_card p[4];
  srs_review_log pl[4];
  for (int k = 0; k < 4; ++k) {
    srs_card_init(&p[k]);
    srs_review_log_init(&pl[k]);
  }
  double r = -1;
  CHECK(srs_scheduler_retrievability(s, &card, t0, &r) == SRS_OK && r == 0);
  CHECK(srs_scheduler_preview(s, &card, t0, p, pl) == SRS_OK);
  CHECK(p[0].state == SRS_STATE_LEARNING && p[0].step == 0 && p[0].due_ms == t0 + minute_ms);
  CHECK(p[0].stability == w[0] && fabs(p[0].difficulty - w[4]) < 1e-12);
  CHECK(p[1].state == SRS_STATE_LEARNING && p[1].step == 0 && p[1].due_ms == t0 + 6 * minute_ms);
  CHECK(p[1].stability == w[1] && fabs(p[1].difficulty - (w[4] - exp(w[5]) + 1)) < 1e-12);
  CHECK(p[2].state == SRS_STATE_LEARNING && p[2].step == 1 && p[2].due_ms == t0 + 10 * minute_ms);
  CHECK(p[2].stability == w[2] && fabs(p[2].difficulty - (w[4] - exp(2 * w[5]) + 1)) < 1e-12);
  CHECK(p[3].state == SRS_STATE_REVIEW && p[3].scheduled_days == 8 && p[3].due_ms == t0 + 8 * day_ms_c);
  CHECK(p[3].stability == w[3]);
  for (int k = 0; k < 4; ++k) {
    CHECK(p[k].reps == 1 && p[k].has_last_review && p[k].last_review_ms == t0 && p[k].id == 7);
    CHECK(pl[k].rating == k + 1 && pl[k].card_id == 7 && pl[k].review_time_ms == t0);
    CHECK(pl[k].state == SRS_STATE_NEW && pl[k].stability == 0 && pl[k].has_last_review == 0 && pl[k].due_ms == t0);
  }

  /* Good (step 1), then Good 10 minutes later: graduates with next_states' interval. */
  srs_card c1, c2;
  srs_review_log l1, l2;
  srs_card_init(&c1);
  srs_card_init(&c2);
  srs_review_log_init(&l1);
  srs_review_log_init(&l2);
  CHECK(srs_scheduler_review(s, &card, SRS_RATING_GOOD, t0, &c1, &l1) == SRS_OK);
  CHECK(memcmp(&c1, &p[2], sizeof c1) == 0 && memcmp(&l1, &pl[2], sizeof l1) == 0); /* preview == review */
  const int64_t t1 = t0 + 10 * minute_ms;
  CHECK(srs_scheduler_review(s, &c1, SRS_RATING_GOOD, t1, &c2, &l2) == SRS_OK);
  {
    srs_memory_state m = {c1.stability, c1.difficulty};
    srs_next_states ns;
    CHECK(srs_fsrs6_next_states(NULL, &m, 0.9, 0, 0, &ns) == SRS_OK);
    CHECK(c2.state == SRS_STATE_REVIEW && c2.step == 0 && c2.reps == 2 && c2.elapsed_days == 0);
    CHECK(c2.stability == ns.good.memory.stability && c2.difficulty == ns.good.memory.difficulty);
    CHECK(c2.scheduled_days == ns.good.interval && c2.due_ms == t1 + ns.good.interval * day_ms_c);
    CHECK(l2.state == SRS_STATE_LEARNING && l2.step == 1 && l2.stability == c1.stability && l2.last_review_ms == t0);
  }
  /* R: the forgetting curve after the whole days since the last review. */
  {
    const int64_t later = c2.last_review_ms + 5 * day_ms_c + 3600000;
    srs_memory_state m = {c2.stability, c2.difficulty};
    double expected = 0;
    CHECK(srs_fsrs6_retrievability(NULL, m, 5, &expected) == SRS_OK);
    CHECK(srs_scheduler_retrievability(s, &c2, later, &r) == SRS_OK && r == expected && r < 1 && r > 0.5);
  }
  /* A lapse when due: relearning at the 10-minute step, lapses 1; output may alias the input. */
  srs_card c3 = c2;
  srs_review_log l3;
  srs_review_log_init(&l3);
  CHECK(srs_scheduler_review(s, &c3, SRS_RATING_AGAIN, c2.due_ms, &c3, &l3) == SRS_OK);
  CHECK(c3.state == SRS_STATE_RELEARNING && c3.lapses == 1 && c3.reps == 3 && c3.due_ms == c2.due_ms + 10 * minute_ms);
  CHECK(c3.stability < c2.stability && c3.elapsed_days == c2.scheduled_days);

  /* Rollback: exactly the card before; reschedule: the step-by-step card and logs. */
  srs_card back;
  srs_card_init(&back);
  CHECK(srs_scheduler_rollback(s, &c3, &l3, &back) == SRS_OK);
  CHECK(memcmp(&back, &c2, sizeof back) == 0);
  CHECK(srs_scheduler_rollback(s, &c3, &l2, &back) == SRS_INVALID_ARGUMENT); /* not the latest review */
  CHECK(error_names("latest review"));
  {
    const int64_t times[3] = {t0, t1, c2.due_ms};
    const int32_t ratings[3] = {3, 3, 1};
    srs_card rc;
    srs_review_log rl[3];
    srs_card_init(&rc);
    for (int k = 0; k < 3; ++k) srs_review_log_init(&rl[k]);
    CHECK(srs_scheduler_reschedule(s, 7, times, ratings, 3, &rc, rl) == SRS_OK);
    CHECK(memcmp(&rc, &c3, sizeof rc) == 0);
    CHECK(memcmp(&rl[0], &l1, sizeof l1) == 0 && memcmp(&rl[1], &l2, sizeof l2) == 0 && memcmp(&rl[2], &l3, sizeof l3) == 0);
    CHECK(srs_scheduler_reschedule(s, 7, times, ratings, 3, &rc, NULL) == SRS_OK);
    const int32_t bad[3] = {3, 5, 1};
    CHECK(srs_scheduler_reschedule(s, 7, times, bad, 3, &rc, NULL) == SRS_INVALID_ARGUMENT && error_names("ratings[1]"));
    const int64_t unordered[3] = {t1, t0, c2.due_ms};
    CHECK(srs_scheduler_reschedule(s, 7, unordered, ratings, 3, &rc, NULL) == SRS_INVALID_ARGUMENT &&
          error_names("time order"));
    CHECK(srs_scheduler_reschedule(s, 7, times, ratings, 0, &rc, NULL) == SRS_INVALID_ARGUMENT && error_names("n "));
    CHECK(srs_scheduler_reschedule(s, 7, NULL, ratings, 3, &rc, NULL) == SRS_INVALID_ARGUMENT && error_names("times_ms"));
    CHECK(srs_scheduler_reschedule(s, 7, times, NULL, 3, &rc, NULL) == SRS_INVALID_ARGUMENT && error_names("ratings"));
    srs_review_log_init(&rl[2]);
    rl[2].struct_size = 8; /* the elements differ */
    CHECK(srs_scheduler_reschedule(s, 7, times, ratings, 3, &rc, rl) == SRS_INVALID_ARGUMENT && error_names("out_logs[2]"));
    CHECK(memcmp(&rc, &c3, sizeof rc) == 0); /* untouched by the failed calls */
  }

  /* Forget: new again, due now, last review kept; counts reset on request. */
  {
    srs_card f;
    srs_card_init(&f);
    const int64_t now = c3.due_ms + day_ms_c;
    CHECK(srs_scheduler_forget(s, &c3, now, 0, &f) == SRS_OK);
    CHECK(f.state == SRS_STATE_NEW && f.stability == 0 && f.difficulty == 0 && f.due_ms == now && f.step == 0);
    CHECK(f.reps == 3 && f.lapses == 1 && f.has_last_review && f.last_review_ms == c3.last_review_ms);
    CHECK(srs_scheduler_forget(s, &c3, now, 1, &f) == SRS_OK);
    CHECK(f.reps == 0 && f.lapses == 0);
    CHECK(srs_scheduler_retrievability(s, &f, now, &r) == SRS_OK && r == 0);
  }
  srs_scheduler_free(s);
  srs_scheduler_free(NULL);

  /* Created without options: the defaults, same results. */
  CHECK(srs_scheduler_create(NULL, &s) == SRS_OK);
  {
    srs_card d;
    srs_card_init(&d);
    CHECK(srs_scheduler_review(s, &card, SRS_RATING_GOOD, t0, &d, NULL) == SRS_OK);
    CHECK(memcmp(&d, &c1, sizeof d) == 0);
  }
  srs_scheduler_free(s);
}

static void test_card_scheduler_errors(void) {
  srs_scheduler* s = NULL;
  srs_scheduler* const sentinel = (srs_scheduler*)(void*)&s;
  srs_scheduler_options o;
  srs_scheduler* out = sentinel;
  CHECK(srs_scheduler_create(NULL, NULL) == SRS_INVALID_ARGUMENT && error_names("out is NULL"));
  /* Each bad option is refused, named, and *out untouched. */
#define BAD_OPTION(assign, name)                                              \
  do {                                                                        \
    srs_scheduler_options_init(&o);                                           \
    assign;                                                                   \
    CHECK(srs_scheduler_create(&o, &out) == SRS_INVALID_ARGUMENT);            \
    CHECK(error_names(name));                                                 \
    CHECK(out == sentinel);                                                   \
  } while (0)
  BAD_OPTION(o.struct_size = 0, "struct_size");
  BAD_OPTION(o.struct_size = sizeof o - 4, "srs_scheduler_options");
  BAD_OPTION(o.desired_retention = 1.5, "desired_retention");
  BAD_OPTION(o.desired_retention = 0, "desired_retention");
  BAD_OPTION(o.learning_step_count = SRS_SCHEDULER_MAX_STEPS + 1, "learning_step_count");
  BAD_OPTION(o.relearning_step_count = -1, "relearning_step_count");
  BAD_OPTION(o.learning_steps_minutes[1] = 0, "learning_steps[1]");
  BAD_OPTION(o.relearning_steps_minutes[0] = -5, "relearning_steps[0]");
  BAD_OPTION(o.maximum_interval = 0, "maximum_interval");
  BAD_OPTION(o.rollover_hour = 24, "rollover_hour");
  BAD_OPTION(o.utc_offset_minutes = 1500, "utc_offset_minutes");
  BAD_OPTION(o.parameters[3] = NAN, "parameters[3]");
  /* Outside FSRS-6's ranges (w20 in [0.1, 0.8]): a curve above 1 (found by the C API fuzzer). */
  BAD_OPTION(o.parameters[20] = -5.0, "parameters[20] = -5.000000 is outside FSRS-6's range [0.100000, 0.800000]");
  BAD_OPTION(o.parameters[0] = 1e300, "parameters[0]");
  BAD_OPTION(o.reserved = 1, "reserved");
#undef BAD_OPTION
  CHECK(srs_scheduler_options_init_sized(NULL, sizeof o) == SRS_INVALID_ARGUMENT);
  CHECK(srs_scheduler_options_init_sized(&o, 8) == SRS_INVALID_ARGUMENT);
  CHECK(srs_card_init_sized(NULL, sizeof(srs_card)) == SRS_INVALID_ARGUMENT);
  CHECK(srs_review_log_init_sized(NULL, sizeof(srs_review_log)) == SRS_INVALID_ARGUMENT);
  /* Options from a newer header (longer): a zero tail accepted, a set byte refused. */
  {
    enum { extra = 16 };
    unsigned char ob[sizeof(srs_scheduler_options) + extra + guard];
    memset(ob, canary, sizeof ob);
    srs_scheduler_options* po = (srs_scheduler_options*)(void*)ob;
    CHECK(srs_scheduler_options_init_sized(po, sizeof(srs_scheduler_options) + extra) == SRS_OK);
    CHECK(canaries_intact(ob, sizeof(srs_scheduler_options) + extra) && ob[sizeof(srs_scheduler_options)] == 0);
    CHECK(srs_scheduler_create(po, &s) == SRS_OK);
    srs_scheduler_free(s);
    ob[sizeof(srs_scheduler_options) + 3] = 1;
    CHECK(srs_scheduler_create(po, &out) == SRS_INVALID_ARGUMENT && error_names("does not know") && out == sentinel);
  }
  /* A step count below the array's use ignores the rest; steps past the count are not read. */
  srs_scheduler_options_init(&o);
  o.learning_step_count = 1;
  o.learning_steps_minutes[1] = -3;
  CHECK(srs_scheduler_create(&o, &s) == SRS_OK);

  srs_card card, out_card;
  srs_card_init(&card);
  CHECK(srs_scheduler_new_card(s, 1, t0, &card) == SRS_OK);
  srs_card_init(&out_card);
  out_card.id = -99;
  srs_review_log log;
  srs_review_log_init(&log);
  CHECK(srs_scheduler_review(NULL, &card, 3, t0, &out_card, NULL) == SRS_INVALID_ARGUMENT && error_names("scheduler"));
  CHECK(srs_scheduler_review(s, NULL, 3, t0, &out_card, NULL) == SRS_INVALID_ARGUMENT && error_names("card is NULL"));
  CHECK(srs_scheduler_review(s, &card, 0, t0, &out_card, NULL) == SRS_INVALID_ARGUMENT && error_names("rating"));
  CHECK(srs_scheduler_review(s, &card, 5, t0, &out_card, NULL) == SRS_INVALID_ARGUMENT && error_names("got 5"));
  CHECK(srs_scheduler_review(s, &card, 3, t0, NULL, NULL) == SRS_INVALID_ARGUMENT && error_names("out_card is NULL"));
  out_card.struct_size = 0;
  CHECK(srs_scheduler_review(s, &card, 3, t0, &out_card, NULL) == SRS_INVALID_ARGUMENT && error_names("out_card"));
  srs_card_init(&out_card);
  out_card.id = -99;
  log.struct_size = 3;
  CHECK(srs_scheduler_review(s, &card, 3, t0, &out_card, &log) == SRS_INVALID_ARGUMENT && error_names("out_log"));
  CHECK(out_card.id == -99); /* nothing written when the log is refused */
  CHECK(srs_scheduler_new_card(s, 1, t0, NULL) == SRS_INVALID_ARGUMENT && error_names("out is NULL"));
  CHECK(srs_scheduler_new_card(s, 1, INT64_MAX, &out_card) == SRS_INVALID_ARGUMENT && error_names("now"));
  {
    srs_card bad = card;
    bad.state = 9;
    CHECK(srs_scheduler_review(s, &bad, 3, t0, &out_card, NULL) == SRS_INVALID_ARGUMENT && error_names("state 9"));
    bad.state = SRS_STATE_REVIEW; /* a review card without a memory state */
    CHECK(srs_scheduler_review(s, &bad, 3, t0, &out_card, NULL) == SRS_INVALID_ARGUMENT &&
          error_names("no memory state"));
    bad.stability = -1;
    bad.difficulty = 5;
    CHECK(srs_scheduler_review(s, &bad, 3, t0, &out_card, NULL) == SRS_INVALID_ARGUMENT &&
          error_names("stability > 0"));
    bad.stability = 3;
    bad.difficulty = 11;
    CHECK(srs_scheduler_retrievability(s, &bad, t0, NULL) == SRS_INVALID_ARGUMENT && error_names("difficulty"));
    bad.difficulty = 5;
    bad.has_last_review = 1;
    bad.last_review_ms = t0 + day_ms_c;
    CHECK(srs_scheduler_review(s, &bad, 3, t0, &out_card, NULL) == SRS_INVALID_ARGUMENT &&
          error_names("before its last review"));
    bad.last_review_ms = INT64_MIN;
    CHECK(srs_scheduler_review(s, &bad, 3, t0, &out_card, NULL) == SRS_INVALID_ARGUMENT && error_names("last_review_ms"));
    bad.last_review_ms = t0;
    bad.step = -1;
    CHECK(srs_scheduler_forget(s, &bad, t0, 0, &out_card) == SRS_INVALID_ARGUMENT && error_names("step"));
    bad.step = 0;
    double r = -1;
    CHECK(srs_scheduler_retrievability(s, &bad, t0, NULL) == SRS_INVALID_ARGUMENT && error_names("out is NULL"));
    CHECK(srs_scheduler_retrievability(s, &bad, t0 + day_ms_c, &r) == SRS_OK && r > 0.5 && r < 1);
    bad.struct_size = 16;
    CHECK(srs_scheduler_retrievability(s, &bad, t0, &r) == SRS_INVALID_ARGUMENT && error_names("card: struct_size 16"));
  }
  CHECK(out_card.id == -99);
  /* Preview: every element initialized with one size. */
  {
    srs_card p[4];
    for (int k = 0; k < 4; ++k) srs_card_init(&p[k]);
    p[2].struct_size = 0;
    CHECK(srs_scheduler_preview(s, &card, t0, p, NULL) == SRS_INVALID_ARGUMENT && error_names("out_cards[2]"));
    CHECK(srs_scheduler_preview(s, &card, t0, NULL, NULL) == SRS_INVALID_ARGUMENT && error_names("out_cards is NULL"));
    srs_card_init(&p[2]);
    srs_review_log pl[4];
    for (int k = 0; k < 4; ++k) srs_review_log_init(&pl[k]);
    pl[0].struct_size = 1;
    CHECK(srs_scheduler_preview(s, &card, t0, p, pl) == SRS_INVALID_ARGUMENT && error_names("out_logs[0]"));
    CHECK(p[0].reps == 0); /* untouched */
  }
  /* Rollback: a log of another card, a bad log. */
  {
    srs_card c1;
    srs_card_init(&c1);
    srs_review_log_init(&log);
    CHECK(srs_scheduler_review(s, &card, 3, t0, &c1, &log) == SRS_OK);
    srs_review_log other = log;
    other.card_id = 2;
    CHECK(srs_scheduler_rollback(s, &c1, &other, &out_card) == SRS_INVALID_ARGUMENT && error_names("card 2"));
    other = log;
    other.rating = 0;
    CHECK(srs_scheduler_rollback(s, &c1, &other, &out_card) == SRS_INVALID_ARGUMENT && error_names("log: rating"));
    other = log;
    other.state = -1;
    CHECK(srs_scheduler_rollback(s, &c1, &other, &out_card) == SRS_INVALID_ARGUMENT && error_names("log: state"));
    other = log;
    other.reserved = 2;
    CHECK(srs_scheduler_rollback(s, &c1, &other, &out_card) == SRS_INVALID_ARGUMENT && error_names("reserved"));
    CHECK(srs_scheduler_rollback(s, &c1, NULL, &out_card) == SRS_INVALID_ARGUMENT && error_names("log is NULL"));
    CHECK(srs_scheduler_rollback(s, &c1, &log, NULL) == SRS_INVALID_ARGUMENT && error_names("out is NULL"));
    CHECK(out_card.id == -99);
  }
  srs_scheduler_free(s);
}

/* The struct_size rules on srs_card and srs_review_log. */
static void test_card_sizes(void) {
  srs_scheduler* s = NULL;
  CHECK(srs_scheduler_create(NULL, &s) == SRS_OK);
  enum { extra = 16 };
  unsigned char cb[sizeof(srs_card) + extra + guard], ob[sizeof(srs_card) + extra + guard];
  unsigned char lb[sizeof(srs_review_log) + extra + guard];
  memset(cb, canary, sizeof cb);
  memset(ob, canary, sizeof ob);
  memset(lb, canary, sizeof lb);
  srs_card* c = (srs_card*)(void*)cb;
  srs_card* o = (srs_card*)(void*)ob;
  srs_review_log* l = (srs_review_log*)(void*)lb;
  /* Exactly sized: written up to struct_size, not past it. */
  CHECK(srs_card_init(c) == SRS_OK && canaries_intact(cb, sizeof(srs_card)));
  CHECK(srs_card_init(o) == SRS_OK);
  CHECK(srs_review_log_init(l) == SRS_OK && canaries_intact(lb, sizeof(srs_review_log)));
  CHECK(srs_scheduler_new_card(s, 3, t0, c) == SRS_OK && canaries_intact(cb, sizeof(srs_card)));
  CHECK(srs_scheduler_review(s, c, 4, t0, o, l) == SRS_OK);
  CHECK(canaries_intact(ob, sizeof(srs_card)) && canaries_intact(lb, sizeof(srs_review_log)));
  CHECK(o->state == SRS_STATE_REVIEW && l->rating == 4);
  /* A newer header's longer structs: zero tails accepted, the app's extra output bytes kept. */
  memset(cb, canary, sizeof cb);
  memset(ob, canary, sizeof ob);
  memset(lb, canary, sizeof lb);
  CHECK(srs_card_init_sized(c, sizeof(srs_card) + extra) == SRS_OK);
  CHECK(cb[sizeof(srs_card)] == 0 && cb[sizeof(srs_card) + extra - 1] == 0);
  CHECK(canaries_intact(cb, sizeof(srs_card) + extra));
  CHECK(srs_card_init_sized(o, sizeof(srs_card) + extra) == SRS_OK);
  CHECK(srs_review_log_init_sized(l, sizeof(srs_review_log) + extra) == SRS_OK);
  ob[sizeof(srs_card) + 2] = 0x42;
  CHECK(srs_scheduler_new_card(s, 3, t0, c) == SRS_OK);
  CHECK(srs_scheduler_review(s, c, 4, t0, o, l) == SRS_OK);
  CHECK(o->struct_size == sizeof(srs_card) + extra && o->state == SRS_STATE_REVIEW);
  CHECK(ob[sizeof(srs_card) + 2] == 0x42 && canaries_intact(ob, sizeof(srs_card) + extra));
  CHECK(canaries_intact(lb, sizeof(srs_review_log) + extra));
  /* ... and refused when a field this library does not know is set. */
  cb[sizeof(srs_card) + 1] = 1;
  CHECK(srs_scheduler_review(s, c, 4, t0, o, l) == SRS_INVALID_ARGUMENT && error_names("does not know"));
  CHECK(error_names("card"));
  /* Too small, or never initialized. */
  {
    srs_card small;
    srs_card_init(&small);
    CHECK(srs_card_init_sized(&small, sizeof small - 4) == SRS_INVALID_ARGUMENT && error_names("srs_card"));
    small.struct_size = sizeof small - 4;
    CHECK(srs_scheduler_new_card(s, 1, t0, &small) == SRS_INVALID_ARGUMENT && error_names("out: struct_size"));
    srs_review_log lg;
    CHECK(srs_review_log_init_sized(&lg, 4) == SRS_INVALID_ARGUMENT && error_names("srs_review_log"));
  }
  srs_scheduler_free(s);
}


/* Time zones (0.3.0): a new day at 04:00 local in New York on both sides of the
 * 2024 daylight-saving change, which a fixed offset misplaces by an hour; an
 * options struct of the 0.2.0 size (without time_zone) still works; unknown or
 * unsafe zone names are refused, naming the field. Needs the tz database
 * (Debian: tzdata). */
static void test_time_zone(void) {
  const int64_t mar10_evening = 1710108000000; /* 2024-03-10 18:00 EDT */
  const int64_t mar11_0430 = 1710145800000;    /* 2024-03-11 04:30 EDT, 03:30 in EST */
  srs_scheduler_options o;
  CHECK(srs_scheduler_options_init(&o) == SRS_OK);
  CHECK(o.time_zone == NULL);
  o.rollover_hour = 4;
  o.time_zone = "America/New_York";
  srs_scheduler* zoned = NULL;
  CHECK(srs_scheduler_create(&o, &zoned) == SRS_OK);
  o.time_zone = NULL;
  o.utc_offset_minutes = -300;
  srs_scheduler* fixed = NULL;
  CHECK(srs_scheduler_create(&o, &fixed) == SRS_OK);
  /* The 0.2.0 layout: struct_size without the time_zone field. */
  srs_scheduler_options old;
  CHECK(srs_scheduler_options_init_sized(&old, offsetof(srs_scheduler_options, time_zone)) == SRS_OK);
  old.rollover_hour = 4;
  old.utc_offset_minutes = -300;
  srs_scheduler* old_app = NULL;
  CHECK(srs_scheduler_create(&old, &old_app) == SRS_OK);
  srs_scheduler* each[3] = {zoned, fixed, old_app};
  const int32_t expect[3] = {1, 0, 0};
  for (int k = 0; k < 3; ++k) {
    srs_card c, r;
    srs_review_log log;
    srs_card_init(&c);
    srs_card_init(&r);
    srs_review_log_init(&log);
    CHECK(srs_scheduler_new_card(each[k], 1, mar10_evening, &c) == SRS_OK);
    CHECK(srs_scheduler_review(each[k], &c, SRS_RATING_GOOD, mar10_evening, &r, NULL) == SRS_OK);
    CHECK(srs_scheduler_review(each[k], &r, SRS_RATING_GOOD, mar11_0430, &c, &log) == SRS_OK);
    CHECK(log.elapsed_days == expect[k]);
  }
  srs_scheduler_free(zoned);
  srs_scheduler_free(fixed);
  srs_scheduler_free(old_app);

  srs_scheduler* s = NULL;
  o.time_zone = "Nowhere/Atlantis";
  CHECK(srs_scheduler_create(&o, &s) == SRS_INVALID_INPUT && s == NULL && error_names("Nowhere/Atlantis"));
  o.time_zone = "../../etc/passwd";
  CHECK(srs_scheduler_create(&o, &s) == SRS_INVALID_ARGUMENT && s == NULL && error_names("time_zone"));

  /* Training and evaluation take the zone too. */
  const int64_t ids[4] = {1, 1, 2, 2};
  const int64_t ts[4] = {mar10_evening, mar11_0430, mar10_evening, mar11_0430};
  const int32_t rs[4] = {3, 3, 1, 3};
  double w[SRS_FSRS6_NUM_PARAMS];
  srs_train_options to;
  srs_train_options_init(&to);
  CHECK(to.time_zone == NULL);
  to.time_zone = "America/New_York";
  CHECK(srs_fsrs6_train(ids, ts, rs, NULL, 4, &to, w, NULL) == SRS_OK);
  to.time_zone = "Nowhere/Atlantis";
  CHECK(srs_fsrs6_train(ids, ts, rs, NULL, 4, &to, w, NULL) == SRS_INVALID_INPUT && error_names("Atlantis"));
  srs_evaluate_options eo;
  srs_evaluation ev;
  srs_evaluate_options_init(&eo);
  srs_evaluation_init(&ev);
  CHECK(eo.time_zone == NULL);
  eo.time_zone = "Nowhere/Atlantis";
  srs_fsrs6_default_parameters(w);
  CHECK(srs_fsrs6_evaluate(w, ids, ts, rs, NULL, 4, &eo, &ev) == SRS_INVALID_INPUT && error_names("Atlantis"));
}

/* ---- Migration and tuning ---------------------------------------------------- */

/* FSRS-6's forgetting curve with the default parameters, by hand:
 * R(t, S) = (1 + F t / S)^(-w20), F = 0.9^(-1/w20) - 1. */
static double curve(const double* w, double t, double s) {
  const double f = pow(0.9, -1.0 / w[20]) - 1.0;
  return pow(1.0 + f * t / s, -w[20]);
}

static void test_migration(void) {
  double w[SRS_FSRS6_NUM_PARAMS];
  srs_fsrs6_default_parameters(w);
  srs_sm2_card card;
  memset(&card, 0x7F, sizeof card);
  CHECK(srs_sm2_card_init(&card) == SRS_OK);
  CHECK(card.struct_size == sizeof card && card.ease_factor == 2.5 && card.interval_days == 0 && card.reserved == 0);
  /* fsrs-rs v6.5.0's unit-test values (inference.rs test_memory_from_sm2, default parameters). */
  {
    const double cases[4][5] = {{2.5, 10, 0.9, 10.0, 6.9140563},
                                {2.5, 10, 0.8, 3.01572, 9.393428},
                                {2.5, 10, 0.95, 24.841097, 1.2974405},
                                {1.3, 20, 0.9, 20.0, 10.0}};
    for (int k = 0; k < 4; ++k) {
      srs_memory_state st = {0, 0};
      card.ease_factor = cases[k][0];
      card.interval_days = cases[k][1];
      CHECK(srs_fsrs6_memory_state_from_sm2(NULL, &card, cases[k][2], &st) == SRS_OK);
      /* fsrs-rs computes in f32: 1e-6 relative (plus 1e-6 absolute), as the C++ test's. */
      CHECK(fabs(st.stability - cases[k][3]) < 1e-6 * (1 + fabs(cases[k][3])));
      CHECK(fabs(st.difficulty - cases[k][4]) < 1e-6 * (1 + fabs(cases[k][4])));
    }
  }
  /* The conversion's definition: R(interval) = the SM-2 retention, and a Good review then
   * multiplies S by the ease. */
  card.ease_factor = 2.2;
  card.interval_days = 15;
  srs_memory_state st;
  CHECK(srs_fsrs6_memory_state_from_sm2(w, &card, 0.85, &st) == SRS_OK);
  CHECK(fabs(curve(w, 15, st.stability) - 0.85) < 1e-12);
  {
    srs_next_states ns;
    CHECK(srs_fsrs6_next_states(w, &st, 0.9, 15, 0, &ns) == SRS_OK);
    CHECK(fabs(ns.good.memory.stability / st.stability - 2.2) < 1e-12);
    /* ... which is what srs_fsrs6_memory_state_from gives for that review. */
    const double days[1] = {15};
    const int32_t good[1] = {SRS_RATING_GOOD};
    srs_memory_state after;
    CHECK(srs_fsrs6_memory_state_from(w, st, days, good, 1, &after) == SRS_OK);
    CHECK(after.stability == ns.good.memory.stability && after.difficulty == ns.good.memory.difficulty);
  }
  /* Continuing a history from the state its first reviews left equals replaying it whole. */
  {
    const double days[5] = {0, 1, 3, 8, 0};
    const int32_t ratings[5] = {3, 1, 3, 2, 3};
    srs_memory_state whole, head, rest, same;
    CHECK(srs_fsrs6_memory_state(w, days, ratings, 5, &whole) == SRS_OK);
    CHECK(srs_fsrs6_memory_state(w, days, ratings, 2, &head) == SRS_OK);
    CHECK(srs_fsrs6_memory_state_from(w, head, days + 2, ratings + 2, 3, &rest) == SRS_OK);
    CHECK(rest.stability == whole.stability && rest.difficulty == whole.difficulty);
    CHECK(srs_fsrs6_memory_state_from(NULL, head, NULL, NULL, 0, &same) == SRS_OK); /* n = 0: the start */
    CHECK(same.stability == head.stability && same.difficulty == head.difficulty);
  }
  /* Errors, outputs untouched. */
  {
    srs_memory_state out = {-7, -7};
    card.ease_factor = 2500; /* Anki's stored factor, not the ease */
    CHECK(srs_fsrs6_memory_state_from_sm2(w, &card, 0.9, &out) == SRS_INVALID_ARGUMENT && error_names("ease_factor"));
    card.ease_factor = 2.5;
    card.interval_days = 0;
    CHECK(srs_fsrs6_memory_state_from_sm2(w, &card, 0.9, &out) == SRS_INVALID_ARGUMENT && error_names("interval"));
    card.interval_days = 10;
    CHECK(srs_fsrs6_memory_state_from_sm2(w, &card, 1.0, &out) == SRS_INVALID_ARGUMENT && error_names("Sm2Retention"));
    CHECK(srs_fsrs6_memory_state_from_sm2(w, NULL, 0.9, &out) == SRS_INVALID_ARGUMENT && error_names("card is NULL"));
    CHECK(srs_fsrs6_memory_state_from_sm2(w, &card, 0.9, NULL) == SRS_INVALID_ARGUMENT && error_names("out is NULL"));
    card.reserved = 1;
    CHECK(srs_fsrs6_memory_state_from_sm2(w, &card, 0.9, &out) == SRS_INVALID_ARGUMENT && error_names("reserved"));
    card.reserved = 0;
    card.struct_size = 8;
    CHECK(srs_fsrs6_memory_state_from_sm2(w, &card, 0.9, &out) == SRS_INVALID_ARGUMENT &&
          error_names("srs_sm2_card"));
    CHECK(srs_sm2_card_init_sized(&card, 8) == SRS_INVALID_ARGUMENT && srs_sm2_card_init_sized(NULL, 24) != SRS_OK);
    const double days[2] = {1, -1};
    const int32_t ratings[2] = {3, 5};
    const srs_memory_state good = {5, 5}, bad_s = {0, 5}, bad_d = {5, 11};
    CHECK(srs_fsrs6_memory_state_from(w, bad_s, days, ratings, 1, &out) == SRS_INVALID_ARGUMENT &&
          error_names("stability"));
    CHECK(srs_fsrs6_memory_state_from(w, bad_d, days, ratings, 1, &out) == SRS_INVALID_ARGUMENT &&
          error_names("difficulty"));
    CHECK(srs_fsrs6_memory_state_from(w, good, days, ratings, 2, &out) == SRS_INVALID_ARGUMENT &&
          error_names("rating"));
    {
      const int32_t ok[2] = {3, 3};
      CHECK(srs_fsrs6_memory_state_from(w, good, days, ok, 2, &out) == SRS_INVALID_ARGUMENT &&
            error_names("interval"));
    }
    CHECK(srs_fsrs6_memory_state_from(w, good, NULL, ratings, 1, &out) == SRS_INVALID_ARGUMENT);
    CHECK(srs_fsrs6_memory_state_from(w, good, days, ratings, 1, NULL) == SRS_INVALID_ARGUMENT);
    CHECK(out.stability == -7 && out.difficulty == -7);
  }
}

static void test_evaluate(void) {
  double w[SRS_FSRS6_NUM_PARAMS];
  srs_fsrs6_default_parameters(w);
  srs_evaluate_options o;
  memset(&o, 0x7F, sizeof o);
  CHECK(srs_evaluate_options_init(&o) == SRS_OK);
  CHECK(o.struct_size == sizeof o && o.rollover_hour == 4 && o.utc_offset_minutes == 0 && o.short_term == 1);
  CHECK(o.recency == 0 && o.rules == SRS_FIT_BENCHMARK && o.progress == NULL && o.user_data == NULL);
  srs_evaluation e;
  memset(&e, 0x7F, sizeof e);
  CHECK(srs_evaluation_init(&e) == SRS_OK);
  CHECK(e.struct_size == sizeof e && e.log_loss == 0 && e.rmse_bins == 0 && e.reviews == 0 && e.items == 0);

  /* Two cards, by hand (fsrs-rs's rules, which keep every review after a card's first day):
   * card 1 Good then Good `gap` days later (p1 = R(gap, w2)), card 2 Again then Good 1 day later
   * (p2 = R(1, w0)); both recalled: log loss = -(ln p1 + ln p2) / 2. The interval bins are
   * 2.48 * 3.62^floor(ln t / ln 3.62): a gap of 2 days shares the bin of 1 day (RMSE(bins) =
   * 1 - (p1 + p2) / 2), a gap of 4 days does not (sqrt(((1 - p1)^2 + (1 - p2)^2) / 2)). */
  for (int gap = 2; gap <= 4; gap += 2) {
    const int64_t ids[4] = {1, 2, 1, 2};
    const int64_t ts[4] = {t0, t0 + 1000, t0 + gap * day_ms_c, t0 + day_ms_c};
    const int32_t rs[4] = {3, 1, 3, 3};
    const double p1 = curve(w, gap, w[2]), p2 = curve(w, 1, w[0]);
    const double loss = -(log(p1) + log(p2)) / 2;
    const double rmse = gap == 2 ? 1 - (p1 + p2) / 2 : sqrt(((1 - p1) * (1 - p1) + (1 - p2) * (1 - p2)) / 2);
    o.rules = SRS_FIT_FSRS_RS;
    CHECK(srs_fsrs6_evaluate(NULL, ids, ts, rs, NULL, 4, &o, &e) == SRS_OK);
    CHECK(e.reviews == 4 && e.items == 2);
    CHECK(fabs(e.log_loss - loss) < 1e-12 && fabs(e.rmse_bins - rmse) < 1e-12);
    /* The benchmark's outlier filter drops groups this small: nothing left to evaluate. */
    o.rules = SRS_FIT_BENCHMARK;
    CHECK(srs_fsrs6_evaluate(NULL, ids, ts, rs, NULL, 4, &o, &e) == SRS_INVALID_INPUT && error_names("no data"));
  }

  /* A simulated log: the metrics of the defaults (which made it) and of other parameters. */
  enum { cap = 6000 };
  int64_t* card_ids = (int64_t*)malloc(cap * sizeof(int64_t));
  int64_t* times = (int64_t*)malloc(cap * sizeof(int64_t));
  int32_t* ratings = (int32_t*)malloc(cap * sizeof(int32_t));
  const size_t n = simulate(card_ids, times, ratings, cap, 200, 100);
  CHECK(n > 500);
  srs_evaluate_options_init(&o);
  progress_log log = {0, 0, 0, 0};
  o.progress = on_progress;
  o.user_data = &log;
  CHECK(srs_fsrs6_evaluate(w, card_ids, times, ratings, NULL, n, &o, &e) == SRS_OK);
  CHECK(e.reviews == n && e.items > 0 && e.items < n);
  CHECK(e.log_loss > 0.1 && e.log_loss < 1 && e.rmse_bins > 0 && e.rmse_bins < 0.2);
  CHECK(log.calls >= 2 && log.last_step == e.items && log.total == e.items);
  {
    double far[SRS_FSRS6_NUM_PARAMS];
    srs_evaluation e2;
    srs_evaluation_init(&e2);
    memcpy(far, w, sizeof far);
    far[0] = far[1] = far[2] = far[3] = 0.01; /* tiny first stabilities: a worse fit */
    CHECK(srs_fsrs6_evaluate(far, card_ids, times, ratings, NULL, n, NULL, &e2) == SRS_OK);
    CHECK(e2.log_loss > e.log_loss && e2.items == e.items);
    o.recency = 1; /* weighted: other values, same items */
    CHECK(srs_fsrs6_evaluate(w, card_ids, times, ratings, NULL, n, &o, &e2) == SRS_OK);
    CHECK(e2.items == e.items && e2.log_loss != e.log_loss);
    o.recency = 0;
  }
  /* Cancelled from the callback, output untouched. */
  {
    srs_evaluation e3;
    srs_evaluation_init(&e3);
    e3.log_loss = -1;
    log.cancel_at = 1;
    CHECK(srs_fsrs6_evaluate(w, card_ids, times, ratings, NULL, n, &o, &e3) == SRS_CANCELLED);
    CHECK(e3.log_loss == -1 && error_names("cancelled"));
    log.cancel_at = 0;
  }
  /* Errors. */
  {
    srs_evaluation e4;
    srs_evaluation_init(&e4);
    e4.items = 77;
    const int64_t ids[2] = {1, 1};
    const int64_t same[2] = {t0, t0};
    const int32_t rs[2] = {3, 3};
    CHECK(srs_fsrs6_evaluate(w, ids, same, rs, NULL, 2, NULL, &e4) == SRS_INVALID_INPUT); /* same time twice */
    {
      srs_evaluate_options fr;
      srs_evaluate_options_init(&fr);
      fr.rules = SRS_FIT_FSRS_RS;
      CHECK(srs_fsrs6_evaluate(w, ids, same, rs, NULL, 1, &fr, &e4) == SRS_INVALID_INPUT &&
            error_names("no reviews to evaluate"));
    }
    CHECK(srs_fsrs6_evaluate(w, ids, same, rs, NULL, 0, NULL, &e4) == SRS_INVALID_INPUT);
    {
      const int32_t bad[2] = {3, 7};
      const int64_t ts[2] = {t0, t0 + day_ms_c};
      CHECK(srs_fsrs6_evaluate(w, ids, ts, bad, NULL, 2, NULL, &e4) == SRS_INVALID_ARGUMENT && error_names("ratings"));
    }
    CHECK(srs_fsrs6_evaluate(w, NULL, same, rs, NULL, 2, NULL, &e4) == SRS_INVALID_ARGUMENT);
    CHECK(srs_fsrs6_evaluate(w, card_ids, times, ratings, NULL, n, NULL, NULL) == SRS_INVALID_ARGUMENT &&
          error_names("out is NULL"));
    o.rules = 9;
    CHECK(srs_fsrs6_evaluate(w, card_ids, times, ratings, NULL, n, &o, &e4) == SRS_INVALID_ARGUMENT &&
          error_names("rules 9"));
    srs_evaluate_options_init(&o);
    o.rollover_hour = 24;
    CHECK(srs_fsrs6_evaluate(w, card_ids, times, ratings, NULL, n, &o, &e4) == SRS_INVALID_ARGUMENT);
    srs_evaluate_options_init(&o);
    o.struct_size = 12;
    CHECK(srs_fsrs6_evaluate(w, card_ids, times, ratings, NULL, n, &o, &e4) == SRS_INVALID_ARGUMENT &&
          error_names("srs_evaluate_options"));
    srs_evaluate_options_init(&o);
    e4.struct_size = 0;
    CHECK(srs_fsrs6_evaluate(w, card_ids, times, ratings, NULL, n, &o, &e4) == SRS_INVALID_ARGUMENT &&
          error_names("srs_evaluation"));
    CHECK(e4.items == 77);
    CHECK(srs_evaluate_options_init_sized(&o, 8) == SRS_INVALID_ARGUMENT);
    CHECK(srs_evaluation_init_sized(&e4, 8) == SRS_INVALID_ARGUMENT);
  }
  /* Sizes: nothing written past struct_size; a newer, longer struct with zero tail accepted. */
  {
    enum { extra = 16 };
    unsigned char ob[sizeof(srs_evaluate_options) + extra + guard], eb[sizeof(srs_evaluation) + extra + guard];
    memset(ob, canary, sizeof ob);
    memset(eb, canary, sizeof eb);
    srs_evaluate_options* po = (srs_evaluate_options*)(void*)ob;
    srs_evaluation* pe = (srs_evaluation*)(void*)eb;
    CHECK(srs_evaluate_options_init(po) == SRS_OK && canaries_intact(ob, sizeof(srs_evaluate_options)));
    CHECK(srs_evaluation_init(pe) == SRS_OK && canaries_intact(eb, sizeof(srs_evaluation)));
    CHECK(srs_fsrs6_evaluate(w, card_ids, times, ratings, NULL, n, po, pe) == SRS_OK);
    CHECK(canaries_intact(eb, sizeof(srs_evaluation)) && pe->log_loss == e.log_loss);
    memset(ob, canary, sizeof ob);
    memset(eb, canary, sizeof eb);
    CHECK(srs_evaluate_options_init_sized(po, sizeof(srs_evaluate_options) + extra) == SRS_OK);
    CHECK(srs_evaluation_init_sized(pe, sizeof(srs_evaluation) + extra) == SRS_OK);
    eb[sizeof(srs_evaluation) + 1] = 0x42;
    CHECK(srs_fsrs6_evaluate(w, card_ids, times, ratings, NULL, n, po, pe) == SRS_OK);
    CHECK(pe->rmse_bins == e.rmse_bins && eb[sizeof(srs_evaluation) + 1] == 0x42);
    CHECK(canaries_intact(eb, sizeof(srs_evaluation) + extra));
    ob[sizeof(srs_evaluate_options) + 3] = 1;
    CHECK(srs_fsrs6_evaluate(w, card_ids, times, ratings, NULL, n, po, pe) == SRS_INVALID_ARGUMENT &&
          error_names("does not know"));
  }
  free(card_ids);
  free(times);
  free(ratings);
}

static void test_simulate(void) {
  srs_simulator_config c;
  memset(&c, 0x7F, sizeof c);
  CHECK(srs_simulator_config_init(&c) == SRS_OK);
  /* fsrs-rs's defaults (SimulatorConfig::default()). */
  CHECK(c.struct_size == sizeof c && c.deck_size == 10000 && c.learn_span == 365 && c.max_cost_per_day == 1800);
  CHECK(c.max_interval == 36500 && c.learn_limit == SRS_NO_LIMIT && c.review_limit == SRS_NO_LIMIT);
  CHECK(c.new_cards_ignore_review_limit == 1 && c.suspend_after_lapses == 0);
  CHECK(c.first_rating_prob[0] == 0.24 && c.first_rating_prob[3] == 0.171 && c.review_rating_prob[1] == 0.631);
  CHECK(c.learning_step_transitions[0][0] == 0.3686 && c.relearning_step_transitions[2][3] == 0.0244);
  CHECK(c.state_rating_costs[0][0] == 19.58 && c.state_rating_costs[2][3] == 8.03);
  CHECK(c.learning_step_count == 2 && c.relearning_step_count == 1);
  srs_simulation_summary s;
  memset(&s, 0x7F, sizeof s);
  CHECK(srs_simulation_summary_init(&s) == SRS_OK);
  CHECK(s.struct_size == sizeof s && s.memorized == 0 && s.reviews == 0 && s.memorized_per_day == NULL);

  /* By hand: 10 new cards a day, no steps, each new card costs 1 s and a review 0 s, no daily
   * cost limit: 200 cards are learned on days 0..19, 10 each, and the cost is 200 s. */
  enum { span = 30 };
  c.deck_size = 200;
  c.learn_span = span;
  c.learn_limit = 10;
  c.max_cost_per_day = INFINITY;
  c.learning_step_count = 0;
  c.relearning_step_count = 0;
  for (int r = 0; r < 3; ++r)
    for (int k = 0; k < 4; ++k) c.state_rating_costs[r][k] = r == 0 ? 1.0 : 0.0;
  double memorized[span], cost[span];
  uint64_t reviews[span], learned[span];
  s.memorized_per_day = memorized;
  s.cost_per_day = cost;
  s.reviews_per_day = reviews;
  s.learned_per_day = learned;
  CHECK(srs_fsrs6_simulate(NULL, 0.9, &c, 42, &s) == SRS_OK);
  CHECK(s.learned == 200 && s.cost == 200 && s.memorized > 0 && s.memorized <= 200);
  CHECK(s.cost_per_memorized == s.cost / s.memorized && s.correct <= s.reviews && s.reviews > 0);
  CHECK(s.memorized_per_day == memorized && s.learned_per_day == learned); /* the app's pointers kept */
  {
    uint64_t sum_reviews = 0;
    double sum_cost = 0;
    int by_hand = 1;
    for (int d = 0; d < span; ++d) {
      if (learned[d] != (d < 20 ? 10u : 0u) || cost[d] != (double)learned[d]) by_hand = 0;
      sum_reviews += reviews[d];
      sum_cost += cost[d];
    }
    CHECK(by_hand && sum_reviews == s.reviews && sum_cost == s.cost && memorized[span - 1] == s.memorized);
    CHECK(memorized[0] > 9 && memorized[0] <= 10); /* the first day's 10 cards, just learned */
  }
  /* Deterministic for a seed, another seed differs; totals without arrays equal. */
  {
    srs_simulation_summary t;
    srs_simulation_summary_init(&t);
    CHECK(srs_fsrs6_simulate(NULL, 0.9, &c, 42, &t) == SRS_OK);
    CHECK(t.memorized == s.memorized && t.reviews == s.reviews && t.correct == s.correct && t.cost == s.cost);
    CHECK(srs_fsrs6_simulate(NULL, 0.9, &c, 43, &t) == SRS_OK);
    CHECK(t.memorized != s.memorized);
    CHECK(srs_fsrs6_simulate(NULL, 0.7, &c, 42, &t) == SRS_OK);
    CHECK(t.reviews < s.reviews); /* a lower retention: fewer reviews */
  }
  /* Errors, named; the summary untouched. */
  {
    srs_simulation_summary t;
    srs_simulation_summary_init(&t);
    t.memorized = -1;
    CHECK(srs_fsrs6_simulate(NULL, 0.0, &c, 42, &t) == SRS_INVALID_ARGUMENT && error_names("retention"));
    CHECK(srs_fsrs6_simulate(NULL, 1.5, &c, 42, &t) == SRS_INVALID_ARGUMENT);
    srs_simulator_config bad = c;
    bad.deck_size = 0;
    CHECK(srs_fsrs6_simulate(NULL, 0.9, &bad, 42, &t) == SRS_INVALID_ARGUMENT && error_names("deck_size"));
    bad = c;
    bad.learn_span = 0;
    CHECK(srs_fsrs6_simulate(NULL, 0.9, &bad, 42, &t) == SRS_INVALID_ARGUMENT && error_names("learn_span"));
    bad = c;
    bad.max_interval = 0;
    CHECK(srs_fsrs6_simulate(NULL, 0.9, &bad, 42, &t) == SRS_INVALID_ARGUMENT && error_names("max_interval"));
    bad = c;
    bad.first_rating_prob[2] = -1;
    CHECK(srs_fsrs6_simulate(NULL, 0.9, &bad, 42, &t) == SRS_INVALID_ARGUMENT && error_names("first_rating_prob[2]"));
    bad = c;
    bad.review_rating_prob[0] = bad.review_rating_prob[1] = bad.review_rating_prob[2] = 0;
    CHECK(srs_fsrs6_simulate(NULL, 0.9, &bad, 42, &t) == SRS_INVALID_ARGUMENT && error_names("review_rating_prob"));
    bad = c;
    bad.state_rating_costs[1][0] = NAN;
    CHECK(srs_fsrs6_simulate(NULL, 0.9, &bad, 42, &t) == SRS_INVALID_ARGUMENT && error_names("state_rating_costs[1]"));
    bad = c;
    bad.max_cost_per_day = -1;
    CHECK(srs_fsrs6_simulate(NULL, 0.9, &bad, 42, &t) == SRS_INVALID_ARGUMENT && error_names("max_cost_per_day"));
    bad = c;
    bad.struct_size = 16;
    CHECK(srs_fsrs6_simulate(NULL, 0.9, &bad, 42, &t) == SRS_INVALID_ARGUMENT && error_names("srs_simulator_config"));
    CHECK(srs_fsrs6_simulate(NULL, 0.9, &c, 42, NULL) == SRS_INVALID_ARGUMENT && error_names("out is NULL"));
    t.struct_size = 3;
    CHECK(srs_fsrs6_simulate(NULL, 0.9, &c, 42, &t) == SRS_INVALID_ARGUMENT &&
          error_names("srs_simulation_summary"));
    CHECK(t.memorized == -1);
    CHECK(srs_simulator_config_init_sized(&bad, 8) == SRS_INVALID_ARGUMENT);
    CHECK(srs_simulation_summary_init_sized(&t, 8) == SRS_INVALID_ARGUMENT);
  }
  /* Sizes: nothing past struct_size; a newer summary's unknown tail must be zero (a series this
   * library cannot fill is refused), a newer config's too. */
  {
    enum { extra = 16 };
    unsigned char sb[sizeof(srs_simulation_summary) + extra + guard];
    unsigned char cb[sizeof(srs_simulator_config) + extra + guard];
    memset(sb, canary, sizeof sb);
    memset(cb, canary, sizeof cb);
    srs_simulation_summary* ps = (srs_simulation_summary*)(void*)sb;
    srs_simulator_config* pc = (srs_simulator_config*)(void*)cb;
    CHECK(srs_simulation_summary_init(ps) == SRS_OK && srs_simulator_config_init(pc) == SRS_OK);
    memcpy(pc, &c, sizeof c);
    CHECK(srs_fsrs6_simulate(NULL, 0.9, pc, 42, ps) == SRS_OK && ps->memorized == s.memorized);
    CHECK(canaries_intact(sb, sizeof(srs_simulation_summary)) && canaries_intact(cb, sizeof(srs_simulator_config)));
    memset(sb, canary, sizeof sb);
    CHECK(srs_simulation_summary_init_sized(ps, sizeof(srs_simulation_summary) + extra) == SRS_OK);
    CHECK(srs_fsrs6_simulate(NULL, 0.9, &c, 42, ps) == SRS_OK && ps->reviews == s.reviews);
    CHECK(canaries_intact(sb, sizeof(srs_simulation_summary) + extra));
    sb[sizeof(srs_simulation_summary) + 7] = 1;
    CHECK(srs_fsrs6_simulate(NULL, 0.9, &c, 42, ps) == SRS_INVALID_ARGUMENT && error_names("does not know"));
    memset(cb, canary, sizeof cb);
    CHECK(srs_simulator_config_init_sized(pc, sizeof(srs_simulator_config) + extra) == SRS_OK);
    CHECK(pc->deck_size == 10000 && canaries_intact(cb, sizeof(srs_simulator_config) + extra));
    cb[sizeof(srs_simulator_config)] = 1;
    CHECK(srs_fsrs6_simulate(NULL, 0.9, pc, 42, &s) == SRS_INVALID_ARGUMENT && error_names("does not know"));
  }
}

static void test_optimal_retention(void) {
  srs_simulator_config c;
  srs_simulator_config_init(&c);
  c.deck_size = 200;
  c.learn_span = 30;
  srs_retention_options o;
  memset(&o, 0x7F, sizeof o);
  CHECK(srs_retention_options_init(&o) == SRS_OK);
  CHECK(o.struct_size == sizeof o && o.samples == 0 && o.first_seed == 42 && o.progress == NULL && o.reserved == 0);
  srs_retention_result r;
  memset(&r, 0x7F, sizeof r);
  CHECK(srs_retention_result_init(&r) == SRS_OK);
  CHECK(r.struct_size == sizeof r && r.retention == 0 && r.simulations == 0);

  progress_log log = {0, 0, 0, 0};
  o.samples = 2;
  o.progress = on_progress;
  o.user_data = &log;
  CHECK(srs_fsrs6_optimal_retention(NULL, &c, &o, &r) == SRS_OK);
  CHECK(r.retention >= 0.70 && r.retention <= 0.95 && r.cost_per_memorized > 0);
  CHECK(r.evaluations >= 2 && r.simulations == 2 * r.evaluations);
  /* Progress: once before the first simulation and after each, out of at most 2 * 65. */
  CHECK(log.calls == r.simulations + 1 && log.last_step == r.simulations && log.total == 2 * 65);
  /* The objective at the retention found: the mean of srs_fsrs6_simulate's over seeds 42, 43. */
  {
    srs_simulation_summary a, b;
    srs_simulation_summary_init(&a);
    srs_simulation_summary_init(&b);
    CHECK(srs_fsrs6_simulate(NULL, r.retention, &c, 42, &a) == SRS_OK);
    CHECK(srs_fsrs6_simulate(NULL, r.retention, &c, 43, &b) == SRS_OK);
    CHECK(fabs((a.cost_per_memorized + b.cost_per_memorized) / 2 - r.cost_per_memorized) <=
          1e-12 * r.cost_per_memorized);
  }
  /* Cancelled by the callback: SRS_CANCELLED, result untouched. */
  {
    srs_retention_result u;
    srs_retention_result_init(&u);
    u.retention = -1;
    log.calls = 0;
    log.cancel_at = 3;
    CHECK(srs_fsrs6_optimal_retention(NULL, &c, &o, &u) == SRS_CANCELLED && error_names("cancelled"));
    CHECK(u.retention == -1 && log.last_step == 3 && log.calls == 4);
    log.cancel_at = 0;
    /* Errors. */
    srs_simulator_config bad = c;
    bad.learn_span = 0;
    CHECK(srs_fsrs6_optimal_retention(NULL, &bad, &o, &u) == SRS_INVALID_ARGUMENT && error_names("learn_span"));
    CHECK(srs_fsrs6_optimal_retention(NULL, &c, &o, NULL) == SRS_INVALID_ARGUMENT && error_names("out is NULL"));
    o.reserved = 1;
    CHECK(srs_fsrs6_optimal_retention(NULL, &c, &o, &u) == SRS_INVALID_ARGUMENT && error_names("reserved"));
    o.reserved = 0;
    o.struct_size = 4;
    CHECK(srs_fsrs6_optimal_retention(NULL, &c, &o, &u) == SRS_INVALID_ARGUMENT &&
          error_names("srs_retention_options"));
    srs_retention_options_init(&o);
    u.struct_size = 9;
    CHECK(srs_fsrs6_optimal_retention(NULL, &c, &o, &u) == SRS_INVALID_ARGUMENT &&
          error_names("srs_retention_result"));
    CHECK(u.retention == -1);
    CHECK(srs_retention_options_init_sized(&o, 8) == SRS_INVALID_ARGUMENT);
    CHECK(srs_retention_result_init_sized(&u, 8) == SRS_INVALID_ARGUMENT);
  }
  /* Sizes: nothing written past the result's struct_size. */
  {
    unsigned char rb[sizeof(srs_retention_result) + guard];
    memset(rb, canary, sizeof rb);
    srs_retention_result* pr = (srs_retention_result*)(void*)rb;
    srs_retention_options_init(&o);
    o.samples = 1;
    CHECK(srs_retention_result_init(pr) == SRS_OK);
    CHECK(srs_fsrs6_optimal_retention(NULL, &c, &o, pr) == SRS_OK && pr->simulations == pr->evaluations);
    CHECK(canaries_intact(rb, sizeof(srs_retention_result)));
  }
}

int main(void) {
  test_versions_and_constants();
  test_sized_structs();
  test_scheduler();
  test_errors();
  test_training();
  test_card_scheduler();
  test_card_scheduler_errors();
  test_card_sizes();
  test_time_zone();
  test_migration();
  test_evaluate();
  test_simulate();
  test_optimal_retention();
  if (failures) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("C API: all checks passed\n");
  return 0;
}
