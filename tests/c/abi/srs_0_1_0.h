/* SPDX-License-Identifier: MIT */
/**
 * @file srs/c/srs.h
 * The C API of srs (shared library `srs_c`, CMake target srs::c): FSRS-6's
 * scheduler and in-process training for apps written in C or any language
 * with a C FFI. A thin layer over the C++ library: srs::sched (memory_state,
 * retrievability, next_interval, next_states, fit) with srs::models::Fsrs6,
 * the benchmark's FSRS-6.
 *
 * Conventions:
 *  - Every function returns an srs_status; SRS_OK (0) on success. On failure
 *    nothing is written to the outputs and srs_last_error() describes the
 *    problem (per thread, until the next failing call). No exception or
 *    longjmp crosses the boundary.
 *  - Parameters are arrays of SRS_FSRS6_NUM_PARAMS (21) doubles; NULL means
 *    FSRS-6's defaults (srs_fsrs6_default_parameters).
 *  - A history is the card's reviews, oldest first, as parallel arrays of
 *    intervals (days since the previous review, whole days in the app's day
 *    convention; the first is ignored) and ratings (1 Again .. 4 Easy).
 *  - Intervals returned are whole days: the exact inverse of the forgetting
 *    curve, rounded half away from zero, clamped to [1, max_interval]
 *    (fsrs-rs's and ts-fsrs's rule; max_interval <= 0 means 36500).
 *  - Training takes an app's raw log as parallel arrays (card id, time in ms
 *    since the Unix epoch, rating 0..4, optional Anki review kind) and builds
 *    the benchmark's revlog from it as the Anki import does (reviews with
 *    rating 0 dropped; with kinds, filtered-deck reviews without rescheduling
 *    dropped and each card's history kept from its last learning start; days:
 *    a day starts at `rollover_hour` local time, local time = UTC +
 *    `utc_offset_minutes`), then trains as srs::sched::fit.
 *
 * Thread safety: every function may be called from any thread; calls share no
 * state except the per-thread error message.
 */
#ifndef SRS_C_SRS_H
#define SRS_C_SRS_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* int32_t, int64_t */

#if defined(_WIN32)
#if defined(SRS_C_BUILDING)
#define SRS_C_API __declspec(dllexport)
#else
#define SRS_C_API __declspec(dllimport)
#endif
#else
#define SRS_C_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Number of FSRS-6 parameters. */
#define SRS_FSRS6_NUM_PARAMS 21

/** Result of every call. */
typedef enum srs_status {
  SRS_OK = 0,               /**< success */
  SRS_INVALID_ARGUMENT = 1, /**< a NULL pointer, a rating outside 1..4, a retention outside (0, 1], ... */
  SRS_INVALID_INPUT = 2,    /**< inconsistent review data (two reviews of a card at the same time) */
  SRS_CANCELLED = 3,        /**< training cancelled by the progress callback */
  SRS_ERROR = 4             /**< anything else (out of memory, internal error) */
} srs_status;

/** An FSRS-6 memory state: stability (days) and difficulty (1..10). */
typedef struct srs_memory_state {
  double stability;
  double difficulty;
} srs_memory_state;

/** The state after an answer and the interval it schedules (days). */
typedef struct srs_item_state {
  srs_memory_state memory;
  int32_t interval;
} srs_item_state;

/** The outcome of each answer button. */
typedef struct srs_next_states {
  srs_item_state again;
  srs_item_state hard;
  srs_item_state good;
  srs_item_state easy;
} srs_next_states;

/** Training progress: return nonzero to continue, 0 to cancel. */
typedef int (*srs_progress_fn)(void* user_data, size_t step, size_t total);

/** Which data rules training applies (srs::sched::FitRules). */
typedef enum srs_fit_rules {
  SRS_FIT_BENCHMARK = 0, /**< the benchmark's pipeline and training */
  SRS_FIT_FSRS_RS = 1    /**< + fsrs-rs compute_parameters' outlier filter and item-count fallbacks */
} srs_fit_rules;

/** What training did (srs::sched::FitOutcome). */
typedef enum srs_fit_outcome {
  SRS_FIT_TRAINED = 0,              /**< fully trained */
  SRS_FIT_INITIAL_STABILITY_ONLY = 1, /**< only w0..w3 fitted */
  SRS_FIT_DEFAULTS = 2              /**< too little data: the defaults */
} srs_fit_outcome;

/** Options of srs_fsrs6_train; initialize with srs_train_options_init. */
typedef struct srs_train_options {
  int32_t rollover_hour;      /**< hour a new day starts, 0..23 (default 4) */
  int32_t utc_offset_minutes; /**< local time - UTC in minutes (default 0) */
  int32_t short_term;         /**< nonzero: same-day reviews in the histories (default 1) */
  int32_t recency;            /**< nonzero: weight reviews by recency (default 0) */
  srs_fit_rules rules;        /**< default SRS_FIT_BENCHMARK */
  srs_progress_fn progress;   /**< NULL: no progress */
  void* user_data;            /**< passed to progress */
} srs_train_options;

/** What srs_fsrs6_train did (optional output). */
typedef struct srs_train_info {
  srs_fit_outcome outcome;
  size_t reviews; /**< reviews kept by the builder's rules */
  size_t items;   /**< training items after the data rules */
} srs_train_info;

/** The library version, e.g. "0.1.0". */
SRS_C_API const char* srs_version(void);

/** The message of the last failed call on this thread ("" if none). */
SRS_C_API const char* srs_last_error(void);

/** FSRS-6's default parameters (the benchmark's medians). */
SRS_C_API srs_status srs_fsrs6_default_parameters(double out[SRS_FSRS6_NUM_PARAMS]);

/** The memory state after a history of n >= 1 reviews. */
SRS_C_API srs_status srs_fsrs6_memory_state(const double* params, const double* elapsed_days,
                                            const int32_t* ratings, size_t n, srs_memory_state* out);

/** P(recall) elapsed_days days after the review that left `state`. */
SRS_C_API srs_status srs_fsrs6_retrievability(const double* params, srs_memory_state state, double elapsed_days,
                                              double* out);

/** The next interval (days) of `state` at desired_retention in (0, 1]. */
SRS_C_API srs_status srs_fsrs6_next_interval(const double* params, srs_memory_state state,
                                             double desired_retention, int32_t max_interval, int32_t* out);

/** The states and intervals of the four answers: for a new card pass state = NULL
 *  (elapsed_days ignored), else the review after elapsed_days days (0: same day). */
SRS_C_API srs_status srs_fsrs6_next_states(const double* params, const srs_memory_state* state,
                                           double desired_retention, double elapsed_days, int32_t max_interval,
                                           srs_next_states* out);

/** Default training options. */
SRS_C_API void srs_train_options_init(srs_train_options* options);

/** Train FSRS-6 on n reviews given as parallel arrays: card ids, times (ms
 *  since the Unix epoch), ratings (1..4; 0 = manual entry, ignored) and
 *  optionally Anki review kinds (0 learning, 1 review, 2 relearning,
 *  3 filtered, 4 manual, 5 rescheduled; NULL = unknown: every card keeps its
 *  whole history). options NULL = defaults. Lack of data is not an error:
 *  out_params then holds the defaults (or the S0 fit), and info says so. */
SRS_C_API srs_status srs_fsrs6_train(const int64_t* card_ids, const int64_t* times_ms, const int32_t* ratings,
                                     const int32_t* kinds, size_t n, const srs_train_options* options,
                                     double out_params[SRS_FSRS6_NUM_PARAMS], srs_train_info* info);

#ifdef __cplusplus
}
#endif

#endif /* SRS_C_SRS_H */
