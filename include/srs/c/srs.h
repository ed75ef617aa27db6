/* SPDX-License-Identifier: MIT */
/**
 * @file srs/c/srs.h
 * The C API of srs (shared library `srs_c`, CMake target srs::c): FSRS-6's
 * scheduler and in-process training for apps written in C or any language
 * with a C FFI. A thin layer over the C++ library: srs::sched (memory_state,
 * retrievability, next_interval, next_states, fit, the card scheduler
 * Scheduler, memory_state_from_sm2, evaluate, simulate, optimal_retention)
 * with srs::models::Fsrs6, the benchmark's FSRS-6.
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
 *  - Structs the app allocates and that may grow (srs_train_options,
 *    srs_train_info, srs_scheduler_options, srs_card, srs_review_log,
 *    srs_sm2_card, srs_evaluate_options, srs_evaluation, srs_simulator_config,
 *    srs_simulation_summary, srs_retention_options, srs_retention_result) start
 *    with `struct_size`, set by their init macro (srs_train_options_init,
 *    srs_train_info_init, ...) to the size the app was
 *    compiled with. The library reads and writes only that many bytes; fields
 *    an older app does not have take their defaults. A struct_size below the
 *    first sized layout (0.2.0) is SRS_INVALID_ARGUMENT. The value structs
 *    (srs_memory_state, srs_item_state, srs_next_states) never change.
 *  - Compatibility (docs/c-api.md): an app built against this header runs with
 *    any libsrs_c of the same SRS_C_API_VERSION_MAJOR and a minor version at
 *    least this header's (check srs_c_api_version() at startup). Apps built
 *    against the 0.1.0 header (no struct_size) keep working: its symbols
 *    srs_train_options_init and srs_fsrs6_train are still exported with their
 *    0.1.0 layouts; this header maps those names to the sized entry points.
 *
 * Thread safety: every function may be called from any thread; calls share no
 * state except the per-thread error message.
 */
#ifndef SRS_C_SRS_H
#define SRS_C_SRS_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* int32_t, int64_t, uint32_t */

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

/* The version of the C API this header declares (docs/c-api.md: what each part
 * promises). MAJOR is the shared library's SOVERSION. */
#define SRS_C_API_VERSION_MAJOR 0
#define SRS_C_API_VERSION_MINOR 3
#define SRS_C_API_VERSION_PATCH 0
/** A version as one number, major * 1000000 + minor * 1000 + patch. */
#define SRS_C_API_MAKE_VERSION(major, minor, patch) ((major) * 1000000 + (minor) * 1000 + (patch))
/** This header's version as one number (compare with srs_c_api_version()). */
#define SRS_C_API_VERSION \
  SRS_C_API_MAKE_VERSION(SRS_C_API_VERSION_MAJOR, SRS_C_API_VERSION_MINOR, SRS_C_API_VERSION_PATCH)

/** Number of FSRS-6 parameters. */
#define SRS_FSRS6_NUM_PARAMS 21

/** The answer buttons, numbered as Anki, ts-fsrs and fsrs-rs number them
 *  (0 is a manual entry in a review log, never an answer). */
typedef enum srs_rating {
  SRS_RATING_AGAIN = 1,
  SRS_RATING_HARD = 2,
  SRS_RATING_GOOD = 3,
  SRS_RATING_EASY = 4
} srs_rating;

/** The states of a card, numbered as ts-fsrs's State and py-fsrs's State
 *  (py-fsrs has no New: its cards start in Learning). */
typedef enum srs_card_state {
  SRS_STATE_NEW = 0,
  SRS_STATE_LEARNING = 1,
  SRS_STATE_REVIEW = 2,
  SRS_STATE_RELEARNING = 3
} srs_card_state;

/** Result of every call. */
typedef enum srs_status {
  SRS_OK = 0,               /**< success */
  SRS_INVALID_ARGUMENT = 1, /**< a NULL pointer, a rating outside 1..4, a retention outside (0, 1], ... */
  SRS_INVALID_INPUT = 2,    /**< inconsistent review data (two reviews of a card at the same time), or nothing to evaluate */
  SRS_CANCELLED = 3,        /**< cancelled by the progress callback (training, evaluation, retention search) */
  SRS_ERROR = 4             /**< anything else (out of memory, internal error) */
  /* Later minor versions may add codes: treat every nonzero code as a failure. */
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

/** Progress of training, evaluation or a retention search (step done of
 *  total): return nonzero to continue, 0 to cancel (SRS_CANCELLED). */
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

/** Options of srs_fsrs6_train. Initialize with srs_train_options_init(&options),
 *  which sets struct_size and the defaults, then set the fields to change. */
typedef struct srs_train_options {
  uint32_t struct_size;       /**< sizeof the struct as the app was compiled (set by the init) */
  int32_t rollover_hour;      /**< hour a new day starts, 0..23 (default 4) */
  int32_t utc_offset_minutes; /**< local time - UTC in minutes (default 0) */
  int32_t short_term;         /**< nonzero: same-day reviews in the histories (default 1) */
  int32_t recency;            /**< nonzero: weight reviews by recency (default 0) */
  srs_fit_rules rules;        /**< default SRS_FIT_BENCHMARK */
  srs_progress_fn progress;   /**< NULL: no progress */
  void* user_data;            /**< passed to progress */
  const char* time_zone;      /**< 0.3.0: IANA zone ("Europe/Berlin") whose daylight-saving changes the
                                   days follow, replacing utc_offset_minutes; NULL (default): the offset */
  /* Later minor versions add fields here only. */
} srs_train_options;

/** What srs_fsrs6_train did (optional output). Initialize with
 *  srs_train_info_init(&info) before the call. */
typedef struct srs_train_info {
  uint32_t struct_size;    /**< sizeof the struct as the app was compiled (set by the init) */
  srs_fit_outcome outcome;
  size_t reviews; /**< reviews kept by the builder's rules */
  size_t items;   /**< training items after the data rules */
  /* Later minor versions add fields here only. */
} srs_train_info;

/** The library version, e.g. "0.1.0". */
SRS_C_API const char* srs_version(void);

/** The C API version of the loaded library, as SRS_C_API_MAKE_VERSION numbers it.
 *  An app built against this header needs the same major version and a minor
 *  version at least SRS_C_API_VERSION_MINOR. Since 0.2.0. */
SRS_C_API uint32_t srs_c_api_version(void);

/** A static description of a status ("ok", "invalid argument", ...); an unknown
 *  code gives "unknown status". Never NULL. Since 0.2.0. */
SRS_C_API const char* srs_status_string(srs_status status);

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

/** Writes the default options and struct_size = size into the first `size`
 *  bytes of *options (bytes past this library's struct are zeroed). size must
 *  be at least the 0.2.0 struct's size. Call it through srs_train_options_init.
 *  Since 0.2.0. */
SRS_C_API srs_status srs_train_options_init_sized(srs_train_options* options, size_t size);
/** Default training options: srs_train_options_init(&options). */
#define srs_train_options_init(options) srs_train_options_init_sized((options), sizeof *(options))

/** Sets struct_size = size and zeroes the rest of the first `size` bytes of *info.
 *  Call it through srs_train_info_init. Since 0.2.0. */
SRS_C_API srs_status srs_train_info_init_sized(srs_train_info* info, size_t size);
/** An empty srs_train_info: srs_train_info_init(&info). */
#define srs_train_info_init(info) srs_train_info_init_sized((info), sizeof *(info))

/** Train FSRS-6 on n reviews given as parallel arrays: card ids, times (ms
 *  since the Unix epoch), ratings (1..4; 0 = manual entry, ignored) and
 *  optionally Anki review kinds (0 learning, 1 review, 2 relearning,
 *  3 filtered, 4 manual, 5 rescheduled; NULL = unknown: every card keeps its
 *  whole history). options NULL = defaults; info NULL = not wanted. Lack of
 *  data is not an error: out_params then holds the defaults (or the S0 fit),
 *  and info says so. Call it as srs_fsrs6_train. Since 0.2.0 (the symbol
 *  srs_fsrs6_train is 0.1.0's, for the unsized structs). */
SRS_C_API srs_status srs_fsrs6_train_v2(const int64_t* card_ids, const int64_t* times_ms, const int32_t* ratings,
                                        const int32_t* kinds, size_t n, const srs_train_options* options,
                                        double out_params[SRS_FSRS6_NUM_PARAMS], srs_train_info* info);
#define srs_fsrs6_train srs_fsrs6_train_v2

/* ---- The card scheduler (srs::sched::Scheduler<srs::models::Fsrs6>) -------
 * A card's life cycle as ts-fsrs 5.4 runs it (docs/scheduler.md): new ->
 * learning steps -> review -> (lapse) relearning steps -> review. Times are ms
 * since the Unix epoch; days start at rollover_hour local time (UTC +
 * utc_offset_minutes). The sized structs below (srs_scheduler_options,
 * srs_card, srs_review_log) follow the struct_size rules above: initialize
 * each with its init macro, inputs and outputs alike; the library reads and
 * writes only struct_size bytes. An output may be the same struct as the
 * input (e.g. srs_scheduler_review(s, &card, 3, now, &card, NULL)).
 * Since 0.2.0. */

/** Most learning or relearning steps an srs_scheduler_options holds. */
#define SRS_SCHEDULER_MAX_STEPS 16

/** Options of srs_scheduler_create. Initialize with
 *  srs_scheduler_options_init(&options) (struct_size and ts-fsrs's defaults),
 *  then set the fields to change. The arrays are inline: the struct is a plain
 *  value with no pointer whose lifetime matters; the scheduler copies it. */
typedef struct srs_scheduler_options {
  uint32_t struct_size;       /**< sizeof the struct as the app was compiled (set by the init) */
  int32_t maximum_interval;   /**< days, >= 1 (default 36500) */
  double parameters[SRS_FSRS6_NUM_PARAMS]; /**< FSRS-6 parameters, each finite and within FSRS-6's range (default: srs_fsrs6_default_parameters) */
  double desired_retention;   /**< in (0, 1] (default 0.9) */
  int32_t learning_step_count;                              /**< 0..SRS_SCHEDULER_MAX_STEPS (default 2) */
  int32_t learning_steps_minutes[SRS_SCHEDULER_MAX_STEPS];  /**< each >= 1 (default 1, 10) */
  int32_t relearning_step_count;                            /**< 0..SRS_SCHEDULER_MAX_STEPS (default 1) */
  int32_t relearning_steps_minutes[SRS_SCHEDULER_MAX_STEPS]; /**< each >= 1 (default 10) */
  int32_t enable_fuzz;        /**< nonzero: Anki's fuzz ranges, seeded by card id and reps (default 0) */
  int32_t rollover_hour;      /**< hour a new day starts, 0..23 (default 0, ts-fsrs's midnight) */
  int32_t utc_offset_minutes; /**< local time - UTC in minutes, -1440..1440 (default 0) */
  int32_t reserved;           /**< 0 (keeps the struct free of end padding, see docs/c-api.md) */
  const char* time_zone;      /**< 0.3.0: IANA zone ("Europe/Berlin") whose daylight-saving changes the
                                   days follow, replacing utc_offset_minutes; read from the tz database
                                   ($TZDIR, else /usr/share/zoneinfo) by srs_scheduler_create; NULL
                                   (default): the offset */
  /* Later minor versions add fields here only. */
} srs_scheduler_options;

/** A card as the app stores it. A new card (srs_card_init, or
 *  srs_scheduler_new_card) has state SRS_STATE_NEW and stability = difficulty
 *  = 0 (no memory state); every other state has stability > 0 and difficulty
 *  in [1, 10]. */
typedef struct srs_card {
  uint32_t struct_size;    /**< sizeof the struct as the app was compiled (set by the init) */
  int32_t state;           /**< SRS_STATE_* */
  int64_t id;              /**< the app's card id (seeds the fuzz) */
  double stability;        /**< days; 0 when the card has no memory state */
  double difficulty;       /**< 1..10; 0 when the card has no memory state */
  int64_t due_ms;          /**< when the card is next due */
  int64_t last_review_ms;  /**< the last review (meaningful when has_last_review) */
  int32_t has_last_review; /**< 0 before the first review */
  int32_t step;            /**< index of the current (re)learning step */
  int32_t reps;            /**< reviews so far */
  int32_t lapses;          /**< Again answers in review state */
  int32_t scheduled_days;  /**< interval set by the last review (0 for a step under a day) */
  int32_t elapsed_days;    /**< days between the last review and the one before */
  /* Later minor versions add fields here only. */
} srs_card;

/** One review: the answer, its time, the days it counted and set, and the
 *  card's fields before it (what srs_scheduler_rollback restores). */
typedef struct srs_review_log {
  uint32_t struct_size;    /**< sizeof the struct as the app was compiled (set by the init) */
  int32_t rating;          /**< SRS_RATING_* */
  int64_t card_id;
  int64_t review_time_ms;
  int32_t elapsed_days;    /**< days since the previous review (0 for a new card) */
  int32_t scheduled_days;  /**< the interval this review set (0 for a step under a day) */
  /* The card before the review: */
  int32_t state;
  int32_t step;
  double stability;        /**< 0 when the card had no memory state */
  double difficulty;
  int64_t due_ms;
  int64_t last_review_ms;
  int32_t has_last_review;
  int32_t last_scheduled_days;
  int32_t last_elapsed_days;
  int32_t reserved;        /**< 0 (keeps the struct free of end padding, see docs/c-api.md) */
  /* Later minor versions add fields here only. */
} srs_review_log;

/** A scheduler: the options, validated and copied. Immutable; any number of
 *  threads may use one at once. */
typedef struct srs_scheduler srs_scheduler;

/** Writes the default options (ts-fsrs's: FSRS-6 defaults, retention 0.9,
 *  steps 1 and 10 minutes, relearning 10 minutes, 36500 days, no fuzz, days
 *  from midnight UTC) and struct_size = size into the first `size` bytes.
 *  Call it through srs_scheduler_options_init. Since 0.2.0. */
SRS_C_API srs_status srs_scheduler_options_init_sized(srs_scheduler_options* options, size_t size);
#define srs_scheduler_options_init(options) srs_scheduler_options_init_sized((options), sizeof *(options))

/** An empty new card (id 0, due 0, every field 0, state SRS_STATE_NEW) with
 *  struct_size = size. Call it through srs_card_init. Since 0.2.0. */
SRS_C_API srs_status srs_card_init_sized(srs_card* card, size_t size);
#define srs_card_init(card) srs_card_init_sized((card), sizeof *(card))

/** An empty log (every field 0) with struct_size = size. Call it through
 *  srs_review_log_init. Since 0.2.0. */
SRS_C_API srs_status srs_review_log_init_sized(srs_review_log* log, size_t size);
#define srs_review_log_init(log) srs_review_log_init_sized((log), sizeof *(log))

/** A scheduler with `options` (NULL: the defaults) into *out; free it with
 *  srs_scheduler_free. An invalid option is SRS_INVALID_ARGUMENT naming it.
 *  Since 0.2.0. */
SRS_C_API srs_status srs_scheduler_create(const srs_scheduler_options* options, srs_scheduler** out);

/** Frees a scheduler (NULL: nothing). Since 0.2.0. */
SRS_C_API void srs_scheduler_free(srs_scheduler* scheduler);

/** A new card `id`, due at now_ms, into *out (initialized by srs_card_init).
 *  Since 0.2.0. */
SRS_C_API srs_status srs_scheduler_new_card(const srs_scheduler* scheduler, int64_t id, int64_t now_ms,
                                            srs_card* out);

/** The card after answering `rating` (1..4) at now_ms into *out_card, and the
 *  review's log into *out_log (NULL: not wanted). now_ms must not be before
 *  the card's last review. Since 0.2.0. */
SRS_C_API srs_status srs_scheduler_review(const srs_scheduler* scheduler, const srs_card* card, int32_t rating,
                                          int64_t now_ms, srs_card* out_card, srs_review_log* out_log);

/** What each answer at now_ms would give: out_cards[0..3] the card after
 *  Again, Hard, Good, Easy (each equal to srs_scheduler_review's), out_logs
 *  (NULL: not wanted) their logs. Each array holds 4 initialized structs of
 *  one struct_size (the array's stride). Since 0.2.0. */
SRS_C_API srs_status srs_scheduler_preview(const srs_scheduler* scheduler, const srs_card* card, int64_t now_ms,
                                           srs_card* out_cards, srs_review_log* out_logs);

/** P(recall) of the card at now_ms: 0 for a new card, else the forgetting
 *  curve after the whole 24-hour periods since the last review. Since 0.2.0. */
SRS_C_API srs_status srs_scheduler_retrievability(const srs_scheduler* scheduler, const srs_card* card,
                                                  int64_t now_ms, double* out);

/** The card as new again, due at now_ms (last review kept); reps and lapses
 *  set to 0 when reset_counts is nonzero. Since 0.2.0. */
SRS_C_API srs_status srs_scheduler_forget(const srs_scheduler* scheduler, const srs_card* card, int64_t now_ms,
                                          int32_t reset_counts, srs_card* out);

/** The card before the review of `log` (undo); `log` must be the card's
 *  latest review. Since 0.2.0. */
SRS_C_API srs_status srs_scheduler_rollback(const srs_scheduler* scheduler, const srs_card* card,
                                            const srs_review_log* log, srs_card* out);

/** Card `card_id` rebuilt from its n >= 1 reviews (times non-decreasing,
 *  ratings 1..4), as reviewing a new card created at the first time with each
 *  in turn; out_logs (NULL: not wanted) receives the n logs, an array of n
 *  initialized structs of one struct_size. Since 0.2.0. */
SRS_C_API srs_status srs_scheduler_reschedule(const srs_scheduler* scheduler, int64_t card_id,
                                              const int64_t* times_ms, const int32_t* ratings, size_t n,
                                              srs_card* out, srs_review_log* out_logs);

/* ---- Migration and tuning (srs::sched: memory_state_from_sm2, memory_state
 * from a starting state, evaluate, simulate, optimal_retention) ------------
 * docs/migration.md and docs/simulator.md describe the C++ functions; these
 * give their results exactly (c_api.tuning_parity). Since 0.2.0. */

/** An SM-2 card to convert (srs::sched::Sm2Card). Initialize with
 *  srs_sm2_card_init(&card) (ease 2.5, interval 0), then set both fields: the
 *  names keep the ease and the interval from being swapped silently. */
typedef struct srs_sm2_card {
  uint32_t struct_size;  /**< sizeof the struct as the app was compiled (set by the init) */
  int32_t reserved;      /**< 0 */
  double ease_factor;    /**< in (0, 100): Anki's 250% is 2.5 (its database stores 2500) */
  double interval_days;  /**< the card's current interval, days > 0 */
  /* Later minor versions add fields here only. */
} srs_sm2_card;

/** Writes ease 2.5, interval 0 and struct_size = size. Call it through
 *  srs_sm2_card_init. Since 0.2.0. */
SRS_C_API srs_status srs_sm2_card_init_sized(srs_sm2_card* card, size_t size);
#define srs_sm2_card_init(card) srs_sm2_card_init_sized((card), sizeof *(card))

/** The memory state of an SM-2 card (fsrs-rs's memory_state_from_sm2): the
 *  stability whose curve falls to sm2_retention after the card's interval,
 *  the difficulty whose Good-review stability increase equals the ease.
 *  sm2_retention in (0, 1) is the retention the SM-2 schedule achieved (the
 *  same for the whole collection, hence an argument of its own). Since 0.2.0. */
SRS_C_API srs_status srs_fsrs6_memory_state_from_sm2(const double* params, const srs_sm2_card* card,
                                                     double sm2_retention, srs_memory_state* out);

/** The memory state after n >= 0 reviews continuing from `start` (fsrs-rs's
 *  memory_state with a starting state): every review is an ordinary review of
 *  the state before it, elapsed_days[0] included (days since the review that
 *  left `start`). n = 0 gives `start` (the arrays may then be NULL). Since 0.2.0. */
SRS_C_API srs_status srs_fsrs6_memory_state_from(const double* params, srs_memory_state start,
                                                 const double* elapsed_days, const int32_t* ratings, size_t n,
                                                 srs_memory_state* out);

/** Options of srs_fsrs6_evaluate. Initialize with srs_evaluate_options_init;
 *  the fields mean what srs_train_options' do, so that an app evaluates on
 *  the items it trains on. */
typedef struct srs_evaluate_options {
  uint32_t struct_size;       /**< sizeof the struct as the app was compiled (set by the init) */
  int32_t rollover_hour;      /**< hour a new day starts, 0..23 (default 4) */
  int32_t utc_offset_minutes; /**< local time - UTC in minutes (default 0) */
  int32_t short_term;         /**< nonzero: same-day reviews in the histories (default 1) */
  int32_t recency;            /**< nonzero: weight items by recency as fsrs-rs's evaluate (default 0) */
  int32_t rules;              /**< SRS_FIT_BENCHMARK (default) or SRS_FIT_FSRS_RS: which items */
  srs_progress_fn progress;   /**< NULL: no progress; (items done, items); 0 cancels */
  void* user_data;            /**< passed to progress */
  const char* time_zone;      /**< 0.3.0: IANA zone, as srs_train_options's; NULL (default): the offset */
  /* Later minor versions add fields here only. */
} srs_evaluate_options;

/** What srs_fsrs6_evaluate measured. Initialize with srs_evaluation_init. */
typedef struct srs_evaluation {
  uint32_t struct_size; /**< sizeof the struct as the app was compiled (set by the init) */
  uint32_t reserved;    /**< 0 */
  double log_loss;      /**< (weighted) log loss */
  double rmse_bins;     /**< (weighted) RMSE(bins) */
  size_t reviews;       /**< reviews kept by the builder's rules (as srs_train_info's) */
  size_t items;         /**< items evaluated */
  /* Later minor versions add fields here only. */
} srs_evaluation;

SRS_C_API srs_status srs_evaluate_options_init_sized(srs_evaluate_options* options, size_t size);
#define srs_evaluate_options_init(options) srs_evaluate_options_init_sized((options), sizeof *(options))
SRS_C_API srs_status srs_evaluation_init_sized(srs_evaluation* evaluation, size_t size);
#define srs_evaluation_init(evaluation) srs_evaluation_init_sized((evaluation), sizeof *(evaluation))

/** Log loss and RMSE(bins) of `params` on an app's raw log (the arrays of
 *  srs_fsrs6_train, its revlog built the same way), as srs::sched::evaluate.
 *  options NULL = defaults. A log that leaves no item to evaluate is
 *  SRS_INVALID_INPUT; the progress callback returning 0, SRS_CANCELLED.
 *  Since 0.2.0. */
SRS_C_API srs_status srs_fsrs6_evaluate(const double* params, const int64_t* card_ids, const int64_t* times_ms,
                                        const int32_t* ratings, const int32_t* kinds, size_t n,
                                        const srs_evaluate_options* options, srs_evaluation* out);

/** "No limit" for srs_simulator_config's learn_limit and review_limit. */
#define SRS_NO_LIMIT UINT64_MAX

/** The simulator's inputs (srs::sched::SimulatorConfig, fsrs-rs's
 *  SimulatorConfig). Initialize with srs_simulator_config_init: fsrs-rs's
 *  defaults (10000 cards, 365 days, 1800 s a day, ...). Costs in seconds. */
typedef struct srs_simulator_config {
  uint32_t struct_size;          /**< sizeof the struct as the app was compiled (set by the init) */
  int32_t max_interval;          /**< days, >= 1 (36500) */
  uint64_t deck_size;            /**< new cards to learn, >= 1 (10000) */
  uint64_t learn_span;           /**< days simulated, 1..1000000 (365) */
  double max_cost_per_day;       /**< seconds, >= 0, may be INFINITY (1800) */
  uint64_t learn_limit;          /**< new cards a day (SRS_NO_LIMIT) */
  uint64_t review_limit;         /**< reviews a day (SRS_NO_LIMIT) */
  int32_t new_cards_ignore_review_limit; /**< 0: new cards count toward review_limit (1) */
  uint32_t suspend_after_lapses; /**< no more reviews after this many lapses; 0: never (0) */
  double first_rating_prob[4];   /**< weights of a new card's Again, Hard, Good, Easy */
  double review_rating_prob[3];  /**< weights of Hard, Good, Easy when recalled */
  double learning_step_transitions[3][4];   /**< row r-1: weights of the next rating after r */
  double relearning_step_transitions[3][4]; /**< as learning_step_transitions */
  double state_rating_costs[3][4];          /**< seconds: [learning, review, relearning][rating - 1] */
  uint32_t learning_step_count;   /**< passes to leave learning (2) */
  uint32_t relearning_step_count; /**< passes to leave relearning (1) */
  /* Later minor versions add fields here only. */
} srs_simulator_config;

/** What srs_fsrs6_simulate returns: totals, and per day (index 0 ..
 *  learn_span - 1) into the arrays the app sets (NULL: not wanted; else
 *  learn_span elements each). Initialize with srs_simulation_summary_init,
 *  then set the pointers wanted. */
typedef struct srs_simulation_summary {
  uint32_t struct_size;       /**< sizeof the struct as the app was compiled (set by the init) */
  uint32_t reserved;          /**< 0 */
  double memorized;           /**< expected cards known on the last day */
  double cost;                /**< total seconds */
  double cost_per_memorized;  /**< cost / memorized (optimal retention's objective) */
  uint64_t reviews;           /**< reviews (learning steps not counted) */
  uint64_t learned;           /**< new cards introduced */
  uint64_t correct;           /**< reviews recalled */
  double* memorized_per_day;  /**< in: NULL or learn_span doubles */
  double* cost_per_day;       /**< in: NULL or learn_span doubles */
  uint64_t* reviews_per_day;  /**< in: NULL or learn_span counts */
  uint64_t* learned_per_day;  /**< in: NULL or learn_span counts */
  /* Later minor versions add fields here only. */
} srs_simulation_summary;

/** Options of srs_fsrs6_optimal_retention. Initialize with
 *  srs_retention_options_init. */
typedef struct srs_retention_options {
  uint32_t struct_size;     /**< sizeof the struct as the app was compiled (set by the init) */
  uint32_t reserved;        /**< 0 */
  uint64_t samples;         /**< simulations per retention tried; 0: fsrs-rs's rule (0) */
  uint64_t first_seed;      /**< seeds first_seed, first_seed + 1, ... (42) */
  srs_progress_fn progress; /**< NULL: none; (simulations done, at most); 0 cancels */
  void* user_data;          /**< passed to progress */
  /* Later minor versions add fields here only. */
} srs_retention_options;

/** What srs_fsrs6_optimal_retention found. Initialize with srs_retention_result_init. */
typedef struct srs_retention_result {
  uint32_t struct_size;       /**< sizeof the struct as the app was compiled (set by the init) */
  uint32_t reserved;          /**< 0 */
  double retention;           /**< in [0.70, 0.95] */
  double cost_per_memorized;  /**< its objective value, seconds per memorized card */
  uint64_t evaluations;       /**< retentions tried */
  uint64_t simulations;       /**< simulations run */
  /* Later minor versions add fields here only. */
} srs_retention_result;

SRS_C_API srs_status srs_simulator_config_init_sized(srs_simulator_config* config, size_t size);
#define srs_simulator_config_init(config) srs_simulator_config_init_sized((config), sizeof *(config))
SRS_C_API srs_status srs_simulation_summary_init_sized(srs_simulation_summary* summary, size_t size);
#define srs_simulation_summary_init(summary) srs_simulation_summary_init_sized((summary), sizeof *(summary))
SRS_C_API srs_status srs_retention_options_init_sized(srs_retention_options* options, size_t size);
#define srs_retention_options_init(options) srs_retention_options_init_sized((options), sizeof *(options))
SRS_C_API srs_status srs_retention_result_init_sized(srs_retention_result* result, size_t size);
#define srs_retention_result_init(result) srs_retention_result_init_sized((result), sizeof *(result))

/** Simulates a deck learned and reviewed at desired_retention in (0, 1]
 *  (srs::sched::simulate); config NULL = the defaults. Deterministic for a
 *  seed. Since 0.2.0. */
SRS_C_API srs_status srs_fsrs6_simulate(const double* params, double desired_retention,
                                        const srs_simulator_config* config, uint64_t seed,
                                        srs_simulation_summary* out);

/** The desired retention in [0.70, 0.95] with the lowest simulated cost per
 *  memorized card (srs::sched::optimal_retention: Brent's method as
 *  fsrs-rs's). config, options NULL = defaults. The progress callback
 *  returning 0 cancels: SRS_CANCELLED. Since 0.2.0. */
SRS_C_API srs_status srs_fsrs6_optimal_retention(const double* params, const srs_simulator_config* config,
                                                 const srs_retention_options* options, srs_retention_result* out);

#ifdef __cplusplus
}
#endif

#endif /* SRS_C_SRS_H */
