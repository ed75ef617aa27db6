/* SPDX-License-Identifier: MIT */
/* An app built against the 0.1.0 header of the C API (srs_0_1_0.h, the header
 * as published, unmodified: no struct_size) and linked to the current libsrs_c:
 * it initializes the options, sets fields, trains and schedules exactly as a
 * 0.1.0 app does. Its structs sit where a write past them is caught: the
 * options in a heap block of their exact size (AddressSanitizer, test preset),
 * the options and the info again in buffers with canary bytes after them. */
#include "srs_0_1_0.h"

#include <stdlib.h> /* malloc, free */
#include <string.h> /* memset */

#include "abi_app.h"

enum { old_guard = 64, old_canary = 0xA5 };

static int old_guard_intact(const unsigned char* buffer, size_t size) {
  for (size_t k = size; k < size + old_guard; ++k) {
    if (buffer[k] != old_canary) return 0;
  }
  return 1;
}

static int old_progress(void* user_data, size_t step, size_t total) {
  abi_results* r = (abi_results*)user_data;
  ++r->progress_calls;
  r->progress_last = step;
  r->progress_total = total;
  return 1;
}

int old_app_run(const abi_log* log, abi_results* out) {
  memset(out, 0, sizeof *out);
  out->guards_ok = 1;
  srs_train_options_init(NULL); /* 0.1.0: a no-op */

  /* The options in a block of their exact size. */
  srs_train_options* options = (srs_train_options*)malloc(sizeof *options);
  if (!options) return 1;
  srs_train_options_init(options);
  out->defaults_ok = options->rollover_hour == 4 && options->utc_offset_minutes == 0 && options->short_term == 1 &&
                     options->recency == 0 && options->rules == SRS_FIT_BENCHMARK && options->progress == NULL &&
                     options->user_data == NULL;
  options->rollover_hour = abi_rollover_hour;
  options->utc_offset_minutes = abi_utc_offset_minutes;
  options->short_term = abi_short_term;
  options->recency = abi_recency;
  options->rules = SRS_FIT_FSRS_RS;
  options->progress = old_progress;
  options->user_data = out;

  /* The info in a guarded buffer. */
  unsigned char info_buffer[sizeof(srs_train_info) + old_guard];
  memset(info_buffer, old_canary, sizeof info_buffer);
  srs_train_info* info = (srs_train_info*)(void*)info_buffer;
  out->train_status =
      srs_fsrs6_train(log->cards, log->times, log->ratings, NULL, log->n, options, out->params, info);
  out->guards_ok &= old_guard_intact(info_buffer, sizeof(srs_train_info));
  out->outcome = info->outcome;
  out->reviews = info->reviews;
  out->items = info->items;

  /* The options in a guarded buffer: init writes 0.1.0's struct and no more; the rules field is read. */
  unsigned char options_buffer[sizeof(srs_train_options) + old_guard];
  memset(options_buffer, old_canary, sizeof options_buffer);
  srs_train_options* guarded = (srs_train_options*)(void*)options_buffer;
  srs_train_options_init(guarded);
  out->guards_ok &= old_guard_intact(options_buffer, sizeof(srs_train_options));
  guarded->rules = (srs_fit_rules)7;
  double unused[SRS_FSRS6_NUM_PARAMS];
  out->bad_rules_status = srs_fsrs6_train(log->cards, log->times, log->ratings, NULL, log->n, guarded, unused, info);
  out->guards_ok &= old_guard_intact(options_buffer, sizeof(srs_train_options));
  out->guards_ok &= old_guard_intact(info_buffer, sizeof(srs_train_info));
  free(options);

  /* Scheduling with the trained parameters. */
  const double days[4] = {0, 1, 4, 10};
  const int32_t ratings[4] = {3, 3, 1, 3};
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
