/* SPDX-License-Identifier: MIT */
/* A flashcard app in C that keeps its cards and their review logs in SQLite
 * and schedules them with the C API's card scheduler (include/srs/c/srs.h,
 * library srs_c):
 *
 *   sqlite_cards DB add FRONT BACK             add a card (prints its id)
 *   sqlite_cards DB review CARD TIME_MS RATING record an answer (1 Again .. 4 Easy) at TIME_MS
 *                                              (ms since the Unix epoch); prints the card's
 *                                              state, memory state and due time
 *   sqlite_cards DB undo CARD                  take back the card's last answer
 *   sqlite_cards DB due TIME_MS                the cards due at TIME_MS (new cards first)
 *   sqlite_cards DB cards                      every card with its state
 *   sqlite_cards DB import FILE                append a review log, card_id,time_ms,rating lines
 *                                              (cards missing are created), reschedule its cards
 *   sqlite_cards DB train                      train FSRS-6 on the stored log, store the parameters,
 *                                              reschedule every card with them
 *
 * The database is created on first use. Table cards holds each card's text and
 * its srs_card fields (state, step, due_ms, stability, difficulty, reps,
 * lapses, last_review_ms, scheduled_days, elapsed_days); table reviews one
 * srs_review_log per answer (what undo needs: the card's fields before it);
 * table parameters the 21 trained FSRS-6 parameters (empty: the defaults).
 * An answer is one srs_scheduler_review; undo is srs_scheduler_rollback; after
 * an import or training, the cards concerned are rebuilt from their whole log
 * with srs_scheduler_reschedule. Scheduler options: learning steps 1 and 10
 * minutes, relearning step 10 minutes, desired retention 0.9, days starting at
 * 04:00 UTC (APP_ROLLOVER_HOUR, APP_UTC_OFFSET_MINUTES), no fuzz (so that the
 * test session's dates are fixed). A card is due from its due_ms on. */
#include <srs/c/srs.h>

#include <sqlite3.h>

#include <stdint.h> /* int32_t, int64_t */
#include <stdio.h>  /* printf, fprintf, fopen, fgets, sscanf */
#include <stdlib.h> /* strtoll, realloc, free */
#include <string.h> /* strcmp, memcpy */

#define APP_ROLLOVER_HOUR 4
#define APP_UTC_OFFSET_MINUTES 0
#define APP_RETENTION 0.9

static const int64_t day_ms = 86400000;

static const char* const schema =
    "CREATE TABLE IF NOT EXISTS cards(id INTEGER PRIMARY KEY, front TEXT NOT NULL, back TEXT NOT NULL,"
    " state INTEGER NOT NULL DEFAULT 0, step INTEGER NOT NULL DEFAULT 0, due_ms INTEGER,"
    " stability REAL NOT NULL DEFAULT 0, difficulty REAL NOT NULL DEFAULT 0, reps INTEGER NOT NULL DEFAULT 0,"
    " lapses INTEGER NOT NULL DEFAULT 0, last_review_ms INTEGER, scheduled_days INTEGER NOT NULL DEFAULT 0,"
    " elapsed_days INTEGER NOT NULL DEFAULT 0);"
    "CREATE TABLE IF NOT EXISTS reviews(id INTEGER PRIMARY KEY, card_id INTEGER NOT NULL REFERENCES cards(id),"
    " time_ms INTEGER NOT NULL, rating INTEGER NOT NULL CHECK(rating BETWEEN 1 AND 4),"
    " elapsed_days INTEGER, scheduled_days INTEGER, prev_state INTEGER, prev_step INTEGER, prev_stability REAL,"
    " prev_difficulty REAL, prev_due_ms INTEGER, prev_last_review_ms INTEGER, prev_scheduled_days INTEGER,"
    " prev_elapsed_days INTEGER);"
    "CREATE INDEX IF NOT EXISTS reviews_by_card ON reviews(card_id, time_ms);"
    "CREATE TABLE IF NOT EXISTS parameters(k INTEGER PRIMARY KEY, w REAL NOT NULL);";

static const char* const state_names[4] = {"new", "learning", "review", "relearning"};

/* "YYYY-MM-DD HH:MM" (UTC; room for any int64 year) of a time in ms, proleptic Gregorian calendar. */
static void format_time(int64_t time_ms, char out[64]) {
  const int64_t day = time_ms >= 0 ? time_ms / day_ms : -((-time_ms + day_ms - 1) / day_ms);
  const int64_t minute_of_day = (time_ms - day * day_ms) / 60000;
  /* Count in 400-year eras of 146097 days, years starting on March 1st (leap day last). */
  const int64_t z = day + 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int64_t d = doy - (153 * mp + 2) / 5 + 1;
  const int64_t m = mp < 10 ? mp + 3 : mp - 9;
  const int64_t y = yoe + era * 400 + (m <= 2);
  snprintf(out, 64, "%04lld-%02lld-%02lld %02lld:%02lld", (long long)y, (long long)m, (long long)d,
           (long long)(minute_of_day / 60), (long long)(minute_of_day % 60));
}

static int db_error(sqlite3* db, const char* what) {
  fprintf(stderr, "%s: %s\n", what, sqlite3_errmsg(db));
  return 1;
}

static int srs_error(const char* what, srs_status status) {
  fprintf(stderr, "%s: %s (%s)\n", what, srs_last_error(), srs_status_string(status));
  return 1;
}

/* The stored parameters into w; *have = 0 when none are stored (then use the defaults). */
static int load_parameters(sqlite3* db, double w[SRS_FSRS6_NUM_PARAMS], int* have) {
  sqlite3_stmt* st = NULL;
  if (sqlite3_prepare_v2(db, "SELECT k, w FROM parameters ORDER BY k", -1, &st, NULL) != SQLITE_OK) {
    return db_error(db, "reading the parameters");
  }
  int count = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    const int k = sqlite3_column_int(st, 0);
    if (k == count && k < SRS_FSRS6_NUM_PARAMS) w[k] = sqlite3_column_double(st, 1);
    ++count;
  }
  sqlite3_finalize(st);
  if (count != 0 && count != SRS_FSRS6_NUM_PARAMS) {
    fprintf(stderr, "table parameters holds %d rows, expected %d\n", count, SRS_FSRS6_NUM_PARAMS);
    return 1;
  }
  *have = count == SRS_FSRS6_NUM_PARAMS;
  return 0;
}

/* The app's scheduler: its options, with the stored parameters when there are some. */
static int make_scheduler(sqlite3* db, srs_scheduler** out) {
  srs_scheduler_options options;
  srs_scheduler_options_init(&options); /* FSRS-6's defaults, steps 1 and 10 minutes, relearning 10 minutes */
  int have = 0;
  double w[SRS_FSRS6_NUM_PARAMS];
  if (load_parameters(db, w, &have) != 0) return 1;
  if (have) memcpy(options.parameters, w, sizeof w);
  options.desired_retention = APP_RETENTION;
  options.rollover_hour = APP_ROLLOVER_HOUR;
  options.utc_offset_minutes = APP_UTC_OFFSET_MINUTES;
  const srs_status s = srs_scheduler_create(&options, out);
  return s == SRS_OK ? 0 : srs_error("creating the scheduler", s);
}

#define CARD_COLUMNS \
  "state, step, due_ms, stability, difficulty, reps, lapses, last_review_ms, scheduled_days, elapsed_days"

/* Card `id` from its row into *card; *found = 0 when there is no such card. */
static int load_card(sqlite3* db, int64_t id, srs_card* card, int* found) {
  sqlite3_stmt* st = NULL;
  if (sqlite3_prepare_v2(db, "SELECT " CARD_COLUMNS " FROM cards WHERE id = ?", -1, &st, NULL) != SQLITE_OK) {
    return db_error(db, "reading the card");
  }
  sqlite3_bind_int64(st, 1, id);
  srs_card_init(card);
  *found = sqlite3_step(st) == SQLITE_ROW;
  if (*found) {
    card->id = id;
    card->state = sqlite3_column_int(st, 0);
    card->step = sqlite3_column_int(st, 1);
    card->due_ms = sqlite3_column_int64(st, 2); /* NULL (never scheduled): 0 */
    card->stability = sqlite3_column_double(st, 3);
    card->difficulty = sqlite3_column_double(st, 4);
    card->reps = sqlite3_column_int(st, 5);
    card->lapses = sqlite3_column_int(st, 6);
    card->has_last_review = sqlite3_column_type(st, 7) != SQLITE_NULL;
    card->last_review_ms = sqlite3_column_int64(st, 7);
    card->scheduled_days = sqlite3_column_int(st, 8);
    card->elapsed_days = sqlite3_column_int(st, 9);
  }
  sqlite3_finalize(st);
  return 0;
}

static int store_card(sqlite3* db, const srs_card* card) {
  sqlite3_stmt* st = NULL;
  if (sqlite3_prepare_v2(db,
                         "UPDATE cards SET state = ?, step = ?, due_ms = ?, stability = ?, difficulty = ?, reps = ?,"
                         " lapses = ?, last_review_ms = ?, scheduled_days = ?, elapsed_days = ? WHERE id = ?",
                         -1, &st, NULL) != SQLITE_OK) {
    return db_error(db, "storing the card");
  }
  sqlite3_bind_int(st, 1, card->state);
  sqlite3_bind_int(st, 2, card->step);
  sqlite3_bind_int64(st, 3, card->due_ms);
  sqlite3_bind_double(st, 4, card->stability);
  sqlite3_bind_double(st, 5, card->difficulty);
  sqlite3_bind_int(st, 6, card->reps);
  sqlite3_bind_int(st, 7, card->lapses);
  if (card->has_last_review) {
    sqlite3_bind_int64(st, 8, card->last_review_ms);
  } else {
    sqlite3_bind_null(st, 8);
  }
  sqlite3_bind_int(st, 9, card->scheduled_days);
  sqlite3_bind_int(st, 10, card->elapsed_days);
  sqlite3_bind_int64(st, 11, card->id);
  const int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? 0 : db_error(db, "storing the card");
}

static int insert_log(sqlite3* db, const srs_review_log* log) {
  sqlite3_stmt* st = NULL;
  if (sqlite3_prepare_v2(db,
                         "INSERT INTO reviews(card_id, time_ms, rating, elapsed_days, scheduled_days, prev_state,"
                         " prev_step, prev_stability, prev_difficulty, prev_due_ms, prev_last_review_ms,"
                         " prev_scheduled_days, prev_elapsed_days) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         -1, &st, NULL) != SQLITE_OK) {
    return db_error(db, "recording the review");
  }
  sqlite3_bind_int64(st, 1, log->card_id);
  sqlite3_bind_int64(st, 2, log->review_time_ms);
  sqlite3_bind_int(st, 3, log->rating);
  sqlite3_bind_int(st, 4, log->elapsed_days);
  sqlite3_bind_int(st, 5, log->scheduled_days);
  sqlite3_bind_int(st, 6, log->state);
  sqlite3_bind_int(st, 7, log->step);
  sqlite3_bind_double(st, 8, log->stability);
  sqlite3_bind_double(st, 9, log->difficulty);
  sqlite3_bind_int64(st, 10, log->due_ms);
  if (log->has_last_review) {
    sqlite3_bind_int64(st, 11, log->last_review_ms);
  } else {
    sqlite3_bind_null(st, 11);
  }
  sqlite3_bind_int(st, 12, log->last_scheduled_days);
  sqlite3_bind_int(st, 13, log->last_elapsed_days);
  const int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? 0 : db_error(db, "recording the review");
}

/* "card 1: learning (step 1), stability 2.3065, difficulty 2.1181, due 2024-01-01 12:10" */
static void print_card(const char* prefix, const srs_card* card, const char* suffix) {
  char due[64];
  format_time(card->due_ms, due);
  printf("%scard %lld: %s", prefix, (long long)card->id, state_names[card->state & 3]);
  if (card->state == SRS_STATE_LEARNING || card->state == SRS_STATE_RELEARNING) printf(" (step %d)", (int)card->step);
  if (card->state != SRS_STATE_NEW) {
    printf(", stability %.4f, difficulty %.4f", card->stability, card->difficulty);
    if (card->state == SRS_STATE_REVIEW) printf(", next review in %d day(s)", (int)card->scheduled_days);
    printf(", due %s", due);
  }
  printf("%s\n", suffix);
}

/* Rebuilds every card that has reviews from its whole log (after an import or training):
 * srs_scheduler_reschedule, then the card's row and its logs rewritten. */
static int rebuild_all(sqlite3* db) {
  srs_scheduler* scheduler = NULL;
  if (make_scheduler(db, &scheduler) != 0) return 1;
  sqlite3_stmt* cards = NULL;
  sqlite3_stmt* st = NULL;
  int status = 0;
  if (sqlite3_prepare_v2(db, "SELECT DISTINCT card_id FROM reviews ORDER BY card_id", -1, &cards, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(db, "SELECT time_ms, rating FROM reviews WHERE card_id = ? ORDER BY time_ms, id", -1, &st,
                         NULL) != SQLITE_OK) {
    status = db_error(db, "reading the reviews");
  }
  int64_t* times = NULL;
  int32_t* ratings = NULL;
  srs_review_log* logs = NULL;
  size_t capacity = 0;
  while (status == 0 && sqlite3_step(cards) == SQLITE_ROW) {
    const int64_t id = sqlite3_column_int64(cards, 0);
    size_t n = 0;
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, id);
    while (status == 0 && sqlite3_step(st) == SQLITE_ROW) {
      if (n == capacity) {
        capacity = capacity ? 2 * capacity : 64;
        int64_t* t = realloc(times, capacity * sizeof *t);
        if (t) times = t;
        int32_t* r = realloc(ratings, capacity * sizeof *r);
        if (r) ratings = r;
        srs_review_log* l = realloc(logs, capacity * sizeof *l);
        if (l) logs = l;
        if (!t || !r || !l) {
          fprintf(stderr, "out of memory\n");
          status = 1;
          break;
        }
      }
      times[n] = sqlite3_column_int64(st, 0);
      ratings[n] = sqlite3_column_int(st, 1);
      srs_review_log_init(&logs[n]);
      ++n;
    }
    if (status != 0) break;
    srs_card card;
    srs_card_init(&card);
    const srs_status s = srs_scheduler_reschedule(scheduler, id, times, ratings, n, &card, logs);
    if (s != SRS_OK) {
      status = srs_error("rescheduling", s);
      break;
    }
    sqlite3_stmt* del = NULL;
    if (sqlite3_prepare_v2(db, "DELETE FROM reviews WHERE card_id = ?", -1, &del, NULL) != SQLITE_OK) {
      status = db_error(db, "rewriting the reviews");
      break;
    }
    sqlite3_bind_int64(del, 1, id);
    if (sqlite3_step(del) != SQLITE_DONE) status = db_error(db, "rewriting the reviews");
    sqlite3_finalize(del);
    for (size_t k = 0; k < n && status == 0; ++k) status = insert_log(db, &logs[k]);
    if (status == 0) status = store_card(db, &card);
  }
  sqlite3_finalize(cards);
  sqlite3_finalize(st);
  free(times);
  free(ratings);
  free(logs);
  srs_scheduler_free(scheduler);
  return status;
}

static int cmd_add(sqlite3* db, const char* front, const char* back) {
  sqlite3_stmt* st = NULL;
  if (sqlite3_prepare_v2(db, "INSERT INTO cards(front, back) VALUES(?, ?)", -1, &st, NULL) != SQLITE_OK) {
    return db_error(db, "adding the card");
  }
  sqlite3_bind_text(st, 1, front, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 2, back, -1, SQLITE_TRANSIENT);
  const int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return db_error(db, "adding the card");
  printf("card %lld added\n", (long long)sqlite3_last_insert_rowid(db));
  return 0;
}

/* The card and its log stored together, or neither. */
static int store_review(sqlite3* db, const srs_card* card, const srs_review_log* log, int64_t undone_review) {
  if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) return db_error(db, "storing the review");
  int status = store_card(db, card);
  if (status == 0 && log) status = insert_log(db, log);
  if (status == 0 && undone_review > 0) {
    sqlite3_stmt* st = NULL;
    if (sqlite3_prepare_v2(db, "DELETE FROM reviews WHERE id = ?", -1, &st, NULL) != SQLITE_OK) {
      status = db_error(db, "removing the review");
    } else {
      sqlite3_bind_int64(st, 1, undone_review);
      if (sqlite3_step(st) != SQLITE_DONE) status = db_error(db, "removing the review");
      sqlite3_finalize(st);
    }
  }
  if (sqlite3_exec(db, status == 0 ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL) != SQLITE_OK && status == 0) {
    status = db_error(db, "storing the review");
  }
  return status;
}

static int cmd_review(sqlite3* db, int64_t id, int64_t time_ms, int64_t rating) {
  srs_card card;
  int found = 0;
  if (load_card(db, id, &card, &found) != 0) return 1;
  if (!found) {
    fprintf(stderr, "no card %lld\n", (long long)id);
    return 1;
  }
  srs_scheduler* scheduler = NULL;
  if (make_scheduler(db, &scheduler) != 0) return 1;
  srs_review_log log;
  srs_review_log_init(&log);
  /* The library checks the rating and the time (not before the card's last review). */
  const int32_t r = rating >= INT32_MIN && rating <= INT32_MAX ? (int32_t)rating : 0;
  const srs_status s = srs_scheduler_review(scheduler, &card, r, time_ms, &card, &log);
  srs_scheduler_free(scheduler);
  if (s != SRS_OK) return srs_error("review", s);
  if (store_review(db, &card, &log, 0) != 0) return 1;
  print_card("", &card, "");
  return 0;
}

static int cmd_undo(sqlite3* db, int64_t id) {
  srs_card card;
  int found = 0;
  if (load_card(db, id, &card, &found) != 0) return 1;
  if (!found) {
    fprintf(stderr, "no card %lld\n", (long long)id);
    return 1;
  }
  sqlite3_stmt* st = NULL;
  if (sqlite3_prepare_v2(db,
                         "SELECT id, time_ms, rating, elapsed_days, scheduled_days, prev_state, prev_step,"
                         " prev_stability, prev_difficulty, prev_due_ms, prev_last_review_ms, prev_scheduled_days,"
                         " prev_elapsed_days FROM reviews WHERE card_id = ? ORDER BY time_ms DESC, id DESC LIMIT 1",
                         -1, &st, NULL) != SQLITE_OK) {
    return db_error(db, "reading the reviews");
  }
  sqlite3_bind_int64(st, 1, id);
  srs_review_log log;
  srs_review_log_init(&log);
  int64_t review = 0;
  if (sqlite3_step(st) == SQLITE_ROW) {
    review = sqlite3_column_int64(st, 0);
    log.card_id = id;
    log.review_time_ms = sqlite3_column_int64(st, 1);
    log.rating = sqlite3_column_int(st, 2);
    log.elapsed_days = sqlite3_column_int(st, 3);
    log.scheduled_days = sqlite3_column_int(st, 4);
    log.state = sqlite3_column_int(st, 5);
    log.step = sqlite3_column_int(st, 6);
    log.stability = sqlite3_column_double(st, 7);
    log.difficulty = sqlite3_column_double(st, 8);
    log.due_ms = sqlite3_column_int64(st, 9);
    log.has_last_review = sqlite3_column_type(st, 10) != SQLITE_NULL;
    log.last_review_ms = sqlite3_column_int64(st, 10);
    log.last_scheduled_days = sqlite3_column_int(st, 11);
    log.last_elapsed_days = sqlite3_column_int(st, 12);
  }
  sqlite3_finalize(st);
  if (review == 0) {
    fprintf(stderr, "card %lld has no review to undo\n", (long long)id);
    return 1;
  }
  srs_scheduler* scheduler = NULL;
  if (make_scheduler(db, &scheduler) != 0) return 1;
  const srs_status s = srs_scheduler_rollback(scheduler, &card, &log, &card);
  srs_scheduler_free(scheduler);
  if (s != SRS_OK) return srs_error("undo", s);
  if (store_review(db, &card, NULL, review) != 0) return 1;
  print_card("undone: ", &card, "");
  return 0;
}

static int cmd_due(sqlite3* db, int64_t now_ms) {
  sqlite3_stmt* st = NULL;
  if (sqlite3_prepare_v2(db,
                         "SELECT id, front, state, due_ms FROM cards WHERE state = 0 OR due_ms <= ?"
                         " ORDER BY state != 0, due_ms, id",
                         -1, &st, NULL) != SQLITE_OK) {
    return db_error(db, "listing the due cards");
  }
  sqlite3_bind_int64(st, 1, now_ms);
  int count = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    ++count;
    const long long id = sqlite3_column_int64(st, 0);
    const char* front = (const char*)sqlite3_column_text(st, 1);
    const int state = sqlite3_column_int(st, 2);
    if (state == SRS_STATE_NEW) {
      printf("due: card %lld (new): %s\n", id, front);
    } else {
      char due[64];
      format_time(sqlite3_column_int64(st, 3), due);
      printf("due: card %lld (%s, since %s): %s\n", id, state_names[state & 3], due, front);
    }
  }
  sqlite3_finalize(st);
  printf("%d card(s) due\n", count);
  return 0;
}

static int cmd_cards(sqlite3* db) {
  sqlite3_stmt* st = NULL;
  if (sqlite3_prepare_v2(db,
                         "SELECT id, front, back, " CARD_COLUMNS
                         ", (SELECT count(*) FROM reviews WHERE card_id = cards.id) FROM cards ORDER BY id",
                         -1, &st, NULL) != SQLITE_OK) {
    return db_error(db, "listing the cards");
  }
  while (sqlite3_step(st) == SQLITE_ROW) {
    srs_card card;
    srs_card_init(&card);
    card.id = sqlite3_column_int64(st, 0);
    card.state = sqlite3_column_int(st, 3);
    card.step = sqlite3_column_int(st, 4);
    card.due_ms = sqlite3_column_int64(st, 5);
    card.stability = sqlite3_column_double(st, 6);
    card.difficulty = sqlite3_column_double(st, 7);
    card.scheduled_days = sqlite3_column_int(st, 11);
    char suffix[512];
    snprintf(suffix, sizeof suffix, "; %s / %s, %d review(s), %d lapse(s)", (const char*)sqlite3_column_text(st, 1),
             (const char*)sqlite3_column_text(st, 2), sqlite3_column_int(st, 13), sqlite3_column_int(st, 9));
    print_card("", &card, suffix);
  }
  sqlite3_finalize(st);
  return 0;
}

static int cmd_import(sqlite3* db, const char* path) {
  FILE* f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "%s: cannot open the file\n", path);
    return 1;
  }
  sqlite3_stmt* card_st = NULL;
  sqlite3_stmt* review_st = NULL;
  if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
    fclose(f);
    return db_error(db, "importing");
  }
  if (sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO cards(id, front, back) VALUES(?1, 'imported ' || ?1, '')", -1,
                         &card_st, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(db, "INSERT INTO reviews(card_id, time_ms, rating) VALUES(?, ?, ?)", -1, &review_st, NULL) !=
          SQLITE_OK) {
    sqlite3_finalize(card_st);
    fclose(f);
    const int failed = db_error(db, "importing");
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return failed;
  }
  char line[256];
  long number = 0, count = 0;
  int status = 0;
  while (status == 0 && fgets(line, sizeof line, f)) {
    ++number;
    long long card = 0, time = 0;
    int rating = 0;
    if (line[0] == '\n' || line[0] == '\r') continue;
    if (sscanf(line, "%lld,%lld,%d", &card, &time, &rating) != 3 || rating < 1 || rating > 4) {
      fprintf(stderr, "%s:%ld: expected card_id,time_ms,rating (rating 1..4)\n", path, number);
      status = 1;
      break;
    }
    sqlite3_bind_int64(card_st, 1, card);
    sqlite3_bind_int64(review_st, 1, card);
    sqlite3_bind_int64(review_st, 2, time);
    sqlite3_bind_int(review_st, 3, rating);
    if (sqlite3_step(card_st) != SQLITE_DONE || sqlite3_step(review_st) != SQLITE_DONE) {
      status = db_error(db, "importing");
    }
    sqlite3_reset(card_st);
    sqlite3_reset(review_st);
    ++count;
  }
  sqlite3_finalize(card_st);
  sqlite3_finalize(review_st);
  fclose(f);
  if (status == 0) status = rebuild_all(db);
  /* All or nothing: a bad line leaves the database as it was. */
  if (sqlite3_exec(db, status == 0 ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL) != SQLITE_OK && status == 0) {
    status = db_error(db, "importing");
  }
  if (status == 0) printf("imported %ld reviews\n", count);
  return status;
}

static int cmd_train(sqlite3* db) {
  sqlite3_stmt* st = NULL;
  if (sqlite3_prepare_v2(db, "SELECT card_id, time_ms, rating FROM reviews ORDER BY card_id, time_ms, id", -1, &st,
                         NULL) != SQLITE_OK) {
    return db_error(db, "reading the reviews");
  }
  int64_t *cards = NULL, *times = NULL;
  int32_t* ratings = NULL;
  size_t n = 0, capacity = 0;
  int status = 0;
  while (status == 0 && sqlite3_step(st) == SQLITE_ROW) {
    if (n == capacity) {
      capacity = capacity ? 2 * capacity : 1024;
      int64_t* c = realloc(cards, capacity * sizeof *c);
      if (c) cards = c;
      int64_t* t = realloc(times, capacity * sizeof *t);
      if (t) times = t;
      int32_t* r = realloc(ratings, capacity * sizeof *r);
      if (r) ratings = r;
      if (!c || !t || !r) {
        fprintf(stderr, "out of memory\n");
        status = 1;
        break;
      }
    }
    cards[n] = sqlite3_column_int64(st, 0);
    times[n] = sqlite3_column_int64(st, 1);
    ratings[n] = sqlite3_column_int(st, 2);
    ++n;
  }
  sqlite3_finalize(st);

  double w[SRS_FSRS6_NUM_PARAMS];
  srs_train_options options;
  srs_train_options_init(&options);
  options.rollover_hour = APP_ROLLOVER_HOUR;
  options.utc_offset_minutes = APP_UTC_OFFSET_MINUTES;
  srs_train_info info;
  srs_train_info_init(&info);
  if (status == 0) {
    const srs_status s = srs_fsrs6_train(cards, times, ratings, NULL, n, &options, w, &info);
    if (s != SRS_OK) status = srs_error("training", s);
  }
  free(cards);
  free(times);
  free(ratings);
  if (status != 0) return status;

  /* Store the parameters and reschedule every card, in one transaction. */
  if (sqlite3_exec(db, "BEGIN; DELETE FROM parameters;", NULL, NULL, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(db, "INSERT INTO parameters(k, w) VALUES(?, ?)", -1, &st, NULL) != SQLITE_OK) {
    return db_error(db, "storing the parameters");
  }
  for (int k = 0; k < SRS_FSRS6_NUM_PARAMS && status == 0; ++k) {
    sqlite3_bind_int(st, 1, k);
    sqlite3_bind_double(st, 2, w[k]);
    if (sqlite3_step(st) != SQLITE_DONE) status = db_error(db, "storing the parameters");
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  if (status == 0) status = rebuild_all(db);
  if (sqlite3_exec(db, status == 0 ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL) != SQLITE_OK && status == 0) {
    status = db_error(db, "storing the parameters");
  }
  if (status != 0) return status;
  printf("trained on %zu reviews (%zu items): %s\nparameters:", info.reviews, info.items,
         info.outcome == SRS_FIT_TRAINED                  ? "trained"
         : info.outcome == SRS_FIT_INITIAL_STABILITY_ONLY ? "initial stability only"
                                                          : "defaults (too few reviews)");
  for (int k = 0; k < SRS_FSRS6_NUM_PARAMS; ++k) printf(" %.4f", w[k]);
  printf("\n");
  return 0;
}

/* A whole number argument, or a message and -1. */
static int parse_int64(const char* text, const char* what, int64_t* out) {
  char* end = NULL;
  const long long v = strtoll(text, &end, 10);
  if (end == text || *end != '\0') {
    fprintf(stderr, "%s: expected a whole number, got '%s'\n", what, text);
    return -1;
  }
  *out = v;
  return 0;
}

static int usage(void) {
  fprintf(stderr,
          "usage: sqlite_cards DB add FRONT BACK | review CARD TIME_MS RATING | undo CARD | due TIME_MS | cards"
          " | import FILE"
          " | train\n");
  return 2;
}

int main(int argc, char** argv) {
  if (argc < 3) return usage();
  /* Built against one version of the C API: refuse a library of another major version or an older minor. */
  const uint32_t lib = srs_c_api_version();
  if (lib / 1000000 != SRS_C_API_VERSION_MAJOR || lib < SRS_C_API_VERSION) {
    fprintf(stderr, "libsrs_c has C API %u, this program needs %d.%d or a later %d.x\n", (unsigned)lib,
            SRS_C_API_VERSION_MAJOR, SRS_C_API_VERSION_MINOR, SRS_C_API_VERSION_MAJOR);
    return 1;
  }
  sqlite3* db = NULL;
  if (sqlite3_open(argv[1], &db) != SQLITE_OK) {
    const int status = db_error(db, argv[1]);
    sqlite3_close(db);
    return status;
  }
  if (sqlite3_exec(db, schema, NULL, NULL, NULL) != SQLITE_OK) {
    const int status = db_error(db, "creating the tables");
    sqlite3_close(db);
    return status;
  }
  const char* cmd = argv[2];
  int64_t a = 0, b = 0, c = 0;
  int status = 0;
  if (strcmp(cmd, "add") == 0 && argc == 5) {
    status = cmd_add(db, argv[3], argv[4]);
  } else if (strcmp(cmd, "review") == 0 && argc == 6) {
    status = parse_int64(argv[3], "CARD", &a) || parse_int64(argv[4], "TIME_MS", &b) ||
                     parse_int64(argv[5], "RATING", &c)
                 ? 1
                 : cmd_review(db, a, b, c);
  } else if (strcmp(cmd, "undo") == 0 && argc == 4) {
    status = parse_int64(argv[3], "CARD", &a) ? 1 : cmd_undo(db, a);
  } else if (strcmp(cmd, "due") == 0 && argc == 4) {
    status = parse_int64(argv[3], "TIME_MS", &a) ? 1 : cmd_due(db, a);
  } else if (strcmp(cmd, "cards") == 0 && argc == 3) {
    status = cmd_cards(db);
  } else if (strcmp(cmd, "import") == 0 && argc == 4) {
    status = cmd_import(db, argv[3]);
  } else if (strcmp(cmd, "train") == 0 && argc == 3) {
    status = cmd_train(db);
  } else {
    status = usage();
  }
  sqlite3_close(db);
  return status;
}
