/* SPDX-License-Identifier: MIT */
/* The flashcard-app loop in C, through the C API (include/srs/c/srs.h, library
 * srs_c): train FSRS-6 on the app's log (card id, time in ms, rating), then
 * schedule a card from its history. A log this small gives the default
 * parameters (the C API says so in srs_train_info); a real log trains them.
 *
 *   flashcard_app_c */
#include <srs/c/srs.h>

#include <stdint.h> /* int32_t, int64_t */
#include <stdio.h>  /* printf, fprintf */

int main(void) {
  /* [c_train] */
  /* The app's log: card 7 reviewed four times, card 9 twice (times in ms since the epoch). */
  const int64_t cards[6] = {7, 9, 7, 7, 9, 7};
  const int64_t times[6] = {1704099600000, 1704099700000, 1704186000000, 1704531600000, 1704618000000,
                            1705482000000};
  const int32_t ratings[6] = {3, 1, 3, 3, 3, 2};
  srs_train_options options;
  srs_train_options_init(&options);
  options.rollover_hour = 4;        /* a new day starts at 04:00 ... */
  options.utc_offset_minutes = 60;  /* ... local time, UTC+1 */
  double w[SRS_FSRS6_NUM_PARAMS];
  srs_train_info info;
  if (srs_fsrs6_train(cards, times, ratings, NULL, 6, &options, w, &info) != SRS_OK) {
    fprintf(stderr, "training failed: %s\n", srs_last_error());
    return 1;
  }
  /* [c_train] */
  printf("%zu reviews, outcome %d (0 trained, 1 S0 only, 2 defaults), w0 = %.4f\n", info.reviews,
         (int)info.outcome, w[0]);

  /* [c_schedule] */
  /* Card 7: {days since the previous review, rating}, oldest first. */
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
