/* SPDX-License-Identifier: MIT */
/* The flashcard-app loop in C, through the C API (include/srs/c/srs.h, library
 * srs_c): train FSRS-6 on the app's log (card id, time in ms, rating), then
 * schedule a card from its history.
 *
 *   flashcard_app_c               # a built-in six-review log: too small to train, the defaults are used
 *   flashcard_app_c reviews.csv   # the app's log: card_id,time_ms,rating[,...] (a header line; an Anki
 *                                 # export revlog_anki.csv reads as it is)
 *
 * The day boundary is the app's: a new day starts at 04:00 local time, here UTC+1. */
#include <srs/c/srs.h>

#include <stdint.h> /* int32_t, int64_t */
#include <stdio.h>  /* printf, fprintf, fopen, fgets, sscanf */
#include <stdlib.h> /* realloc, free */

/* The app's review log as parallel arrays. */
typedef struct review_log {
  int64_t* cards;
  int64_t* times;
  int32_t* ratings;
  size_t n;
} review_log;

static void free_log(review_log* log) {
  free(log->cards);
  free(log->times);
  free(log->ratings);
}

/* Reads card_id,time_ms,rating[,...] rows after a header line; 0 on success,
 * else a message naming the file and line on stderr and -1. */
static int read_log(const char* path, review_log* log) {
  FILE* f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "%s: cannot open the file\n", path);
    return -1;
  }
  char line[1024];
  size_t capacity = 0;
  long number = 1;
  int status = 0;
  if (!fgets(line, sizeof line, f)) status = -1; /* the header */
  while (status == 0 && fgets(line, sizeof line, f)) {
    ++number;
    long long card = 0, time = 0;
    int rating = 0, used = 0;
    if (line[0] == '\n' || line[0] == '\r') continue;
    if (sscanf(line, "%lld,%lld,%d%n", &card, &time, &rating, &used) != 3 ||
        (line[used] != ',' && line[used] != '\n' && line[used] != '\r' && line[used] != '\0')) {
      fprintf(stderr, "%s:%ld: expected card_id,time_ms,rating\n", path, number);
      status = -1;
      break;
    }
    if (log->n == capacity) {
      capacity = capacity ? 2 * capacity : 1024;
      int64_t* cards = realloc(log->cards, capacity * sizeof *cards);
      if (cards) log->cards = cards;
      int64_t* times = realloc(log->times, capacity * sizeof *times);
      if (times) log->times = times;
      int32_t* ratings = realloc(log->ratings, capacity * sizeof *ratings);
      if (ratings) log->ratings = ratings;
      if (!cards || !times || !ratings) {
        fprintf(stderr, "%s: out of memory\n", path);
        status = -1;
        break;
      }
    }
    log->cards[log->n] = card;
    log->times[log->n] = time;
    log->ratings[log->n] = rating;
    ++log->n;
  }
  if (status == 0 && log->n == 0) {
    fprintf(stderr, "%s: no reviews\n", path);
    status = -1;
  }
  fclose(f);
  return status;
}

static int report(void* user_data, size_t step, size_t total) {
  (void)user_data;
  if (total > 0 && step % 10 == 0) fprintf(stderr, "\rtraining %zu/%zu", step, total);
  return 1; /* 0 cancels: srs_fsrs6_train returns SRS_CANCELLED */
}

int main(int argc, char** argv) {
  /* The app's log: card 7 reviewed four times, card 9 twice (times in ms since the epoch). */
  int64_t cards[6] = {7, 9, 7, 7, 9, 7};
  int64_t times[6] = {1704099600000, 1704099700000, 1704186000000, 1704531600000, 1704618000000, 1705482000000};
  int32_t ratings[6] = {3, 1, 3, 3, 3, 2};
  review_log log = {cards, times, ratings, 6};
  review_log file = {NULL, NULL, NULL, 0};
  if (argc > 1) {
    if (read_log(argv[1], &file) != 0) {
      free_log(&file);
      return 1;
    }
    log = file;
  }

  /* [c_train] */
  srs_train_options options;
  srs_train_options_init(&options);
  options.rollover_hour = 4;       /* a new day starts at 04:00 ... */
  options.utc_offset_minutes = 60; /* ... local time, UTC+1 */
  options.progress = report;
  double w[SRS_FSRS6_NUM_PARAMS];
  srs_train_info info;
  srs_train_info_init(&info);
  if (srs_fsrs6_train(log.cards, log.times, log.ratings, NULL, log.n, &options, w, &info) != SRS_OK) {
    fprintf(stderr, "training failed: %s\n", srs_last_error());
    free_log(&file);
    return 1;
  }
  /* [c_train] */
  free_log(&file);
  fprintf(stderr, "\n");
  printf("%zu reviews, %zu training items: %s\nparameters:", info.reviews, info.items,
         info.outcome == SRS_FIT_TRAINED                  ? "trained"
         : info.outcome == SRS_FIT_INITIAL_STABILITY_ONLY ? "initial stability only"
                                                          : "defaults (too few reviews)");
  for (int k = 0; k < SRS_FSRS6_NUM_PARAMS; ++k) printf(" %.4f", w[k]);
  printf("\n");

  /* [c_schedule] */
  /* A card's history, oldest first: days since the previous review (the first is ignored) and ratings. */
  const double days[4] = {0, 1, 4, 10};
  const int32_t card_ratings[4] = {3, 3, 3, 2};
  srs_memory_state state;
  int32_t interval = 0;
  double recall = 0;
  srs_next_states next;
  if (srs_fsrs6_memory_state(w, days, card_ratings, 4, &state) != SRS_OK ||
      srs_fsrs6_next_interval(w, state, 0.9, 36500, &interval) != SRS_OK ||
      srs_fsrs6_retrievability(w, state, 5.0, &recall) != SRS_OK ||
      srs_fsrs6_next_states(w, &state, 0.9, 5.0, 36500, &next) != SRS_OK) {
    fprintf(stderr, "scheduling failed: %s\n", srs_last_error());
    return 1;
  }
  printf("stability %.2f, difficulty %.2f: next review in %d days; P(recall) in 5 days %.3f\n", state.stability,
         state.difficulty, (int)interval, recall);
  printf("reviewed in 5 days: again %d, hard %d, good %d, easy %d days\n", (int)next.again.interval,
         (int)next.hard.interval, (int)next.good.interval, (int)next.easy.interval);
  /* [c_schedule] */
  return 0;
}
