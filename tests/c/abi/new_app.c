/* SPDX-License-Identifier: MIT */
/* tests/c/abi/old_app.c's app built against the current header (<srs/c/srs.h>,
 * sized structs): abi_test.c checks that both get the same results from the
 * same libsrs_c. */
#include <srs/c/srs.h>

#include <string.h> /* memset */

#include "abi_app.h"

static int new_progress(void* user_data, size_t step, size_t total) {
  abi_results* r = (abi_results*)user_data;
  ++r->progress_calls;
  r->progress_last = step;
  r->progress_total = total;
  return 1;
}

int new_app_run(const abi_log* log, abi_results* out) {
  memset(out, 0, sizeof *out);
  out->guards_ok = 1;
  srs_train_options options;
  if (srs_train_options_init(&options) != SRS_OK) return 1;
  out->defaults_ok = options.rollover_hour == 4 && options.utc_offset_minutes == 0 && options.short_term == 1 &&
                     options.recency == 0 && options.rules == SRS_FIT_BENCHMARK && options.progress == NULL &&
                     options.user_data == NULL;
  options.rollover_hour = abi_rollover_hour;
  options.utc_offset_minutes = abi_utc_offset_minutes;
  options.short_term = abi_short_term;
  options.recency = abi_recency;
  options.rules = SRS_FIT_FSRS_RS;
  options.progress = new_progress;
  options.user_data = out;
  srs_train_info info;
  if (srs_train_info_init(&info) != SRS_OK) return 1;
  out->train_status = srs_fsrs6_train(log->cards, log->times, log->ratings, NULL, log->n, &options, out->params, &info);
  out->outcome = info.outcome;
  out->reviews = info.reviews;
  out->items = info.items;

  options.rules = (srs_fit_rules)7;
  double unused[SRS_FSRS6_NUM_PARAMS];
  out->bad_rules_status = srs_fsrs6_train(log->cards, log->times, log->ratings, NULL, log->n, &options, unused, &info);

  const double days[4] = {0, 1, 4, 10};
  const int32_t ratings[4] = {SRS_RATING_GOOD, SRS_RATING_GOOD, SRS_RATING_AGAIN, SRS_RATING_GOOD};
  srs_memory_state state;
  srs_next_states next;
  if (srs_fsrs6_memory_state(out->params, days, ratings, 4, &state) != SRS_OK ||
      srs_fsrs6_next_interval(out->params, state, 0.9, 36500, &out->interval) != SRS_OK ||
      srs_fsrs6_retrievability(out->params, state, 5.0, &out->recall) != SRS_OK ||
      srs_fsrs6_next_states(out->params, &state, 0.9, 5.0, 36500, &next) != SRS_OK) {
    return 1;
  }
  out->stability = state.stability;
  out->difficulty = state.difficulty;
  const srs_item_state* each[4] = {&next.again, &next.hard, &next.good, &next.easy};
  for (int k = 0; k < 4; ++k) {
    out->next_intervals[k] = each[k]->interval;
    out->next_stability[k] = each[k]->memory.stability;
  }
  return 0;
}
