/* SPDX-License-Identifier: MIT */
/* A flashcard app in C that keeps its cards and its review log in SQLite and
 * schedules them with the C API (include/srs/c/srs.h, library srs_c):
 *
 *   sqlite_cards DB add FRONT BACK             add a card (prints its id)
 *   sqlite_cards DB review CARD TIME_MS RATING record an answer (1 Again .. 4 Easy) at TIME_MS
 *                                              (ms since the Unix epoch); prints the card's
 *                                              memory state and due date
 *   sqlite_cards DB due TIME_MS                the cards due at TIME_MS (new cards first)
 *   sqlite_cards DB cards                      every card with its state
 *   sqlite_cards DB import FILE                append a review log, card_id,time_ms,rating lines
 *                                              (cards missing are created)
 *   sqlite_cards DB train                      train FSRS-6 on the stored log, store the parameters,
 *                                              reschedule every card with them
 *
 * The database is created on first use: table cards (id, front, back and the
 * schedule: stability, difficulty, due_ms), table reviews (card_id, time_ms,
 * rating) and table parameters (the 21 trained FSRS-6 parameters; empty: the
 * defaults). A card's memory state is always recomputed from its whole log, so
 * training changes every schedule. Days: a new day starts at 04:00 UTC
 * (APP_ROLLOVER_HOUR, APP_UTC_OFFSET_MINUTES); a card is due from the start of
 * its due day. Desired retention 0.9. */
#include <srs/c/srs.h>

#include <sqlite3.h>

#include <stdint.h> /* int32_t, int64_t */
#include <stdio.h>  /* printf, fprintf, fopen, fgets, sscanf */
#include <stdlib.h> /* strtoll, realloc, free */
#include <string.h> /* strcmp */

#define APP_ROLLOVER_HOUR 4
#define APP_UTC_OFFSET_MINUTES 0
#define APP_RETENTION 0.9
#define APP_MAX_INTERVAL 36500

static const int64_t day_ms = 86400000;

static const char* const schema =
    "CREATE TABLE IF NOT EXISTS cards(id INTEGER PRIMARY KEY, front TEXT NOT NULL, back TEXT NOT NULL,"
    " stability REAL, difficulty REAL, due_ms INTEGER);"
    "CREATE TABLE IF NOT EXISTS reviews(id INTEGER PRIMARY KEY, card_id INTEGER NOT NULL REFERENCES cards(id),"
    " time_ms INTEGER NOT NULL, rating INTEGER NOT NULL CHECK(rating BETWEEN 1 AND 4));"
    "CREATE INDEX IF NOT EXISTS reviews_by_card ON reviews(card_id, time_ms);"
    "CREATE TABLE IF NOT EXISTS parameters(k INTEGER PRIMARY KEY, w REAL NOT NULL);";

/* The app's day of a time: days start at APP_ROLLOVER_HOUR local time. */
static int64_t day_of(int64_t time_ms) {
  const int64_t shifted = time_ms + (int64_t)APP_UTC_OFFSET_MINUTES * 60000 - (int64_t)APP_ROLLOVER_HOUR * 3600000;
  return shifted >= 0 ? shifted / day_ms : -((-shifted + day_ms - 1) / day_ms);
}

/* The time (ms) the app's day `day` starts. */
static int64_t day_start(int64_t day) {
  return day * day_ms - (int64_t)APP_UTC_OFFSET_MINUTES * 60000 + (int64_t)APP_ROLLOVER_HOUR * 3600000;
}

/* "YYYY-MM-DD" (room for any int64 year) of the app's day `day` (days since 1970-01-01, proleptic Gregorian calendar). */
static void format_day(int64_t day, char out[48]) {
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
  snprintf(out, 48, "%04lld-%02lld-%02lld", (long long)y, (long long)m, (long long)d);
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

/* Recomputes a card's memory state and due time from its reviews and stores them. */
static int schedule_card(sqlite3* db, const double* w, int64_t card, int print) {
  sqlite3_stmt* st = NULL;
  if (sqlite3_prepare_v2(db, "SELECT time_ms, rating FROM reviews WHERE card_id = ? ORDER BY time_ms, id", -1, &st,
                         NULL) != SQLITE_OK) {
    return db_error(db, "reading the reviews");
  }
  sqlite3_bind_int64(st, 1, card);
  double* days = NULL;
  int32_t* ratings = NULL;
  size_t n = 0, capacity = 0;
  int64_t previous_day = 0;
  int status = 0;
  while (status == 0 && sqlite3_step(st) == SQLITE_ROW) {
    if (n == capacity) {
      capacity = capacity ? 2 * capacity : 16;
      double* d = realloc(days, capacity * sizeof *d);
      if (d) days = d;
      int32_t* r = realloc(ratings, capacity * sizeof *r);
      if (r) ratings = r;
      if (!d || !r) {
        fprintf(stderr, "out of memory\n");
        status = 1;
        break;
      }
    }
    const int64_t day = day_of(sqlite3_column_int64(st, 0));
    days[n] = n == 0 ? 0.0 : (double)(day - previous_day); /* whole days since the previous review */
    ratings[n] = sqlite3_column_int(st, 1);
    previous_day = day;
    ++n;
  }
  sqlite3_finalize(st);
  srs_memory_state state = {0, 0};
  int32_t interval = 0;
  srs_status s = SRS_OK;
  if (status == 0 && n > 0) {
    s = srs_fsrs6_memory_state(w, days, ratings, n, &state);
    if (s == SRS_OK) s = srs_fsrs6_next_interval(w, state, APP_RETENTION, APP_MAX_INTERVAL, &interval);
    if (s != SRS_OK) status = srs_error("scheduling", s);
  }
  free(days);
  free(ratings);
  if (status != 0 || n == 0) return status;

  const int64_t due_day = previous_day + interval;
  if (sqlite3_prepare_v2(db, "UPDATE cards SET stability = ?, difficulty = ?, due_ms = ? WHERE id = ?", -1, &st,
                         NULL) != SQLITE_OK) {
    return db_error(db, "updating the card");
  }
  sqlite3_bind_double(st, 1, state.stability);
  sqlite3_bind_double(st, 2, state.difficulty);
  sqlite3_bind_int64(st, 3, day_start(due_day));
  sqlite3_bind_int64(st, 4, card);
  const int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return db_error(db, "updating the card");
  if (print) {
    char date[48];
    format_day(due_day, date);
    printf("card %lld: stability %.4f, difficulty %.4f, next review in %d day(s), due %s\n", (long long)card,
           state.stability, state.difficulty, (int)interval, date);
  }
  return 0;
}

/* Reschedules every card that has reviews with the stored (or default) parameters. */
static int schedule_all(sqlite3* db) {
  double w[SRS_FSRS6_NUM_PARAMS];
  int have = 0;
  if (load_parameters(db, w, &have) != 0) return 1;
  sqlite3_stmt* st = NULL;
  if (sqlite3_prepare_v2(db, "SELECT DISTINCT card_id FROM reviews ORDER BY card_id", -1, &st, NULL) != SQLITE_OK) {
    return db_error(db, "reading the cards");
  }
  int status = 0;
  while (status == 0 && sqlite3_step(st) == SQLITE_ROW) {
    status = schedule_card(db, have ? w : NULL, sqlite3_column_int64(st, 0), 0);
  }
  sqlite3_finalize(st);
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

static int cmd_review(sqlite3* db, int64_t card, int64_t time_ms, int64_t rating) {
  if (rating < SRS_RATING_AGAIN || rating > SRS_RATING_EASY) {
    fprintf(stderr, "rating %lld: the ratings are 1 (Again) to 4 (Easy)\n", (long long)rating);
    return 1;
  }
  sqlite3_stmt* st = NULL;
  if (sqlite3_prepare_v2(db, "SELECT (SELECT max(time_ms) FROM reviews WHERE card_id = cards.id) FROM cards WHERE id = ?",
                         -1, &st, NULL) != SQLITE_OK) {
    return db_error(db, "reading the card");
  }
  sqlite3_bind_int64(st, 1, card);
  int rc = sqlite3_step(st);
  const int found = rc == SQLITE_ROW;
  const int reviewed = found && sqlite3_column_type(st, 0) != SQLITE_NULL;
  const int64_t last = reviewed ? sqlite3_column_int64(st, 0) : 0;
  sqlite3_finalize(st);
  if (!found) {
    fprintf(stderr, "no card %lld\n", (long long)card);
    return 1;
  }
  if (reviewed && time_ms <= last) {
    fprintf(stderr, "card %lld: review time %lld is not after its last review (%lld)\n", (long long)card,
            (long long)time_ms, (long long)last);
    return 1;
  }
  if (sqlite3_prepare_v2(db, "INSERT INTO reviews(card_id, time_ms, rating) VALUES(?, ?, ?)", -1, &st, NULL) !=
      SQLITE_OK) {
    return db_error(db, "recording the review");
  }
  sqlite3_bind_int64(st, 1, card);
  sqlite3_bind_int64(st, 2, time_ms);
  sqlite3_bind_int(st, 3, (int)rating);
  rc = sqlite3_step(st);
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return db_error(db, "recording the review");
  double w[SRS_FSRS6_NUM_PARAMS];
  int have = 0;
  if (load_parameters(db, w, &have) != 0) return 1;
  return schedule_card(db, have ? w : NULL, card, 1);
}

static int cmd_due(sqlite3* db, int64_t now_ms) {
  sqlite3_stmt* st = NULL;
  if (sqlite3_prepare_v2(db,
                         "SELECT id, front, due_ms FROM cards WHERE due_ms IS NULL OR due_ms <= ?"
                         " ORDER BY due_ms IS NOT NULL, due_ms, id",
                         -1, &st, NULL) != SQLITE_OK) {
    return db_error(db, "listing the due cards");
  }
  sqlite3_bind_int64(st, 1, now_ms);
  int count = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    ++count;
    const long long id = sqlite3_column_int64(st, 0);
    const char* front = (const char*)sqlite3_column_text(st, 1);
    if (sqlite3_column_type(st, 2) == SQLITE_NULL) {
      printf("due: card %lld (new): %s\n", id, front);
    } else {
      char date[48];
      format_day(day_of(sqlite3_column_int64(st, 2)), date);
      printf("due: card %lld (since %s): %s\n", id, date, front);
    }
  }
  sqlite3_finalize(st);
  printf("%d card(s) due\n", count);
  return 0;
}

static int cmd_cards(sqlite3* db) {
  sqlite3_stmt* st = NULL;
  if (sqlite3_prepare_v2(db,
                         "SELECT id, front, back, stability, difficulty, due_ms,"
                         " (SELECT count(*) FROM reviews WHERE card_id = cards.id) FROM cards ORDER BY id",
                         -1, &st, NULL) != SQLITE_OK) {
    return db_error(db, "listing the cards");
  }
  while (sqlite3_step(st) == SQLITE_ROW) {
    printf("card %lld: %s / %s, %d review(s)", (long long)sqlite3_column_int64(st, 0),
           (const char*)sqlite3_column_text(st, 1), (const char*)sqlite3_column_text(st, 2), sqlite3_column_int(st, 6));
    if (sqlite3_column_type(st, 5) != SQLITE_NULL) {
      char date[48];
      format_day(day_of(sqlite3_column_int64(st, 5)), date);
      printf(", stability %.4f, difficulty %.4f, due %s", sqlite3_column_double(st, 3), sqlite3_column_double(st, 4),
             date);
    }
    printf("\n");
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
  if (status == 0) status = schedule_all(db);
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
  if (status == 0) status = schedule_all(db);
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
          "usage: sqlite_cards DB add FRONT BACK | review CARD TIME_MS RATING | due TIME_MS | cards | import FILE"
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
