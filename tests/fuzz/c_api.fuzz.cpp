// SPDX-License-Identifier: MIT
// libFuzzer harness over sequences of C API calls (include/srs/c/srs.h; see
// docs/reliability.md "Fuzzing"). The input is a small program: its first bytes
// choose the scheduler's options (valid or not: steps, maximum interval,
// retention, fuzz, rollover hour, UTC offset, a parameter set to NaN or out of
// its box, a time zone that exists or not), the rest a sequence of calls on four cards — new card, review,
// preview, retrievability, forget, rollback of the latest review (or of a stale
// one), reschedule from the card's answers, and calls with a bad struct_size,
// rating, time or NULL pointer.
//
// Every call must return SRS_OK or a documented error code with a message
// (srs_last_error); on SRS_OK the results must hold what the header promises:
//   * a card's state 0..3; a new card without memory state (S = D = 0), every
//     other with S > 0 finite and D in [1, 10]; due not before the review; reps
//     one more; retrievability in [0, 1];
//   * preview's four cards equal review's of each rating;
//   * rollback of the latest review gives back the card before it exactly;
//   * reschedule of a card's answers (those not rolled back; no forget since
//     its first review) gives the card exactly.
// A broken promise aborts with a message, so libFuzzer keeps the input.
#include <srs/c/srs.h>

#include <cmath>    // std::isfinite
#include <cstddef>  // std::size_t
#include <cstdint>  // std::uint8_t, std::int32_t, std::int64_t
#include <cstdio>   // std::fprintf, stderr
#include <cstdlib>  // std::abort
#include <cstring>  // std::memcmp, std::strlen
#include <vector>   // std::vector

namespace {

void expect(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "c_api fuzz: %s\n", what);
    std::abort();
  }
}

/// The input, read byte by byte (zeros past its end).
struct Bytes {
  const std::uint8_t* data;
  std::size_t size;
  std::size_t pos = 0;
  bool done() const { return pos >= size; }
  std::uint8_t u8() { return pos < size ? data[pos++] : 0; }
  std::int32_t i16() { return static_cast<std::int16_t>(static_cast<std::uint16_t>(u8() | (u8() << 8))); }
};

/// A failed call: a documented code and a message.
void expect_error(srs_status st) {
  expect(st == SRS_INVALID_ARGUMENT || st == SRS_INVALID_INPUT || st == SRS_ERROR, "an undocumented status");
  const char* msg = srs_last_error();
  expect(msg != nullptr && std::strlen(msg) > 0, "an error without a message");
}

bool same_card(const srs_card& a, const srs_card& b) {
  return a.state == b.state && a.id == b.id && a.stability == b.stability && a.difficulty == b.difficulty &&
         a.due_ms == b.due_ms && a.has_last_review == b.has_last_review &&
         (!a.has_last_review || a.last_review_ms == b.last_review_ms) && a.step == b.step && a.reps == b.reps &&
         a.lapses == b.lapses && a.scheduled_days == b.scheduled_days && a.elapsed_days == b.elapsed_days;
}

void check_card(const srs_card& c) {
  expect(c.state >= SRS_STATE_NEW && c.state <= SRS_STATE_RELEARNING, "a card state outside 0..3");
  if (c.state == SRS_STATE_NEW && c.reps == 0) {
    expect(c.stability == 0 && c.difficulty == 0, "a new card with a memory state");
  } else if (c.state != SRS_STATE_NEW) {
    expect(std::isfinite(c.stability) && c.stability > 0, "a stability not finite and positive");
    expect(c.difficulty >= 1 && c.difficulty <= 10, "a difficulty outside [1, 10]");
    expect(c.has_last_review != 0, "a reviewed card without its last review");
  }
  expect(c.reps >= 0 && c.lapses >= 0 && c.step >= 0, "a negative count");
}

/// One card of the program and what the harness knows about it.
struct Slot {
  bool live = false;
  srs_card card{};
  srs_review_log last{};   ///< the latest review's log
  bool has_last = false;   ///< `last` is the card's latest review (rollback allowed)
  srs_card before{};       ///< the card before that review
  std::vector<std::int64_t> times;  ///< the card's answers since it was new (for reschedule)
  std::vector<std::int32_t> ratings;
  bool replayable = true;  ///< no forget since the first answer
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Bytes in{data, size};
  srs_scheduler_options o;
  expect(srs_scheduler_options_init(&o) == SRS_OK, "srs_scheduler_options_init");
  const std::uint8_t flags = in.u8();
  if (flags & 1) o.enable_fuzz = 1;
  if (flags & 2) o.rollover_hour = in.u8() % 26;                // 24, 25: invalid
  if (flags & 4) o.utc_offset_minutes = in.i16();               // beyond ±1440: invalid
  if (flags & 8) o.maximum_interval = in.i16();                 // < 1: invalid
  if (flags & 16) o.desired_retention = (in.u8() % 120) / 100.0;  // 0 and > 1: invalid
  if (flags & 32) {
    o.learning_step_count = in.u8() % 19 - 1;  // -1 and > 16: invalid
    o.relearning_step_count = in.u8() % 19 - 1;
    for (int k = 0; k < SRS_SCHEDULER_MAX_STEPS; ++k) {
      o.learning_steps_minutes[k] = in.i16() % 3000;  // <= 0: invalid
      o.relearning_steps_minutes[k] = in.i16() % 3000;
    }
  }
  if (flags & 64) {
    const std::size_t k = in.u8() % SRS_FSRS6_NUM_PARAMS;
    const std::uint8_t how = in.u8();
    o.parameters[k] = how % 4 == 0 ? NAN : how % 4 == 1 ? 1e300 : how % 4 == 2 ? -5.0 : o.parameters[k] * (how / 64.0);
  }
  if (flags & 128) {  // a zone with DST, one without, one that does not exist, one outside the database
    static const char* const zones[4] = {"America/New_York", "Asia/Kolkata", "Nowhere/Atlantis", "../zoneinfo/UTC"};
    o.time_zone = zones[in.u8() % 4];
  }
  srs_scheduler* s = nullptr;
  const srs_status created = srs_scheduler_create(&o, &s);
  if (created != SRS_OK) {
    expect_error(created);
    expect(s == nullptr, "a scheduler despite an error");
    return 0;
  }
  expect(s != nullptr, "no scheduler");

  Slot slots[4];
  std::int64_t now = 1'700'000'000'000 + static_cast<std::int64_t>(in.u8()) * 86'400'000;
  for (int ops = 0; ops < 64 && !in.done(); ++ops) {
    const std::uint8_t op = in.u8();
    Slot& sl = slots[op >> 6];
    const std::uint8_t arg = in.u8();
    // The clock moves on by minutes to months, now and then backwards.
    const std::int64_t step = static_cast<std::int64_t>(arg & 0x3f) * (arg & 0x40 ? 86'400'000 : 60'000);
    const std::int64_t at = arg & 0x80 && (op & 7) == 1 && (arg & 3) == 3 ? now - 3'600'000 : now + step;
    switch (op & 7) {
      case 0: {  // a new card
        srs_card c;
        srs_card_init(&c);
        const srs_status st = srs_scheduler_new_card(s, static_cast<std::int64_t>(op >> 6) + 1, at, &c);
        expect(st == SRS_OK, "srs_scheduler_new_card failed");
        expect(c.state == SRS_STATE_NEW && c.due_ms == at && c.reps == 0, "a new card's fields");
        sl = Slot{};
        sl.live = true;
        sl.card = c;
        now = at;
        break;
      }
      case 1: {  // review
        if (!sl.live) break;
        const std::int32_t rating = arg & 0x80 ? static_cast<std::int32_t>(arg % 7) - 1 : 1 + (arg >> 4) % 4;
        srs_card next;
        srs_card_init(&next);
        srs_review_log log;
        srs_review_log_init(&log);
        const srs_status st = srs_scheduler_review(s, &sl.card, rating, at, &next, &log);
        // (A new card, forgotten ones included, has no time limit: its last review is kept but not counted.)
        const bool valid = rating >= 1 && rating <= 4 &&
                           (sl.card.state == SRS_STATE_NEW || !sl.card.has_last_review || at >= sl.card.last_review_ms);
        if (!valid) {
          expect(st != SRS_OK, "an invalid review accepted");
          expect_error(st);
          break;
        }
        expect(st == SRS_OK, "a valid review refused");
        check_card(next);
        expect(next.reps == sl.card.reps + 1, "reps not one more");
        expect(next.due_ms >= at, "due before the review");
        expect(next.has_last_review && next.last_review_ms == at, "the last review is not this one");
        expect(log.rating == rating && log.review_time_ms == at && log.card_id == sl.card.id, "the log's fields");
        // preview's card for this rating equals review's
        srs_card four[4];
        for (srs_card& c : four) srs_card_init(&c);
        expect(srs_scheduler_preview(s, &sl.card, at, four, nullptr) == SRS_OK, "preview refused a valid review");
        expect(same_card(four[rating - 1], next), "preview differs from review");
        sl.before = sl.card;
        sl.card = next;
        sl.last = log;
        sl.has_last = true;
        sl.times.push_back(at);
        sl.ratings.push_back(rating);
        now = at;
        break;
      }
      case 2: {  // retrievability
        if (!sl.live) break;
        double r = -1;
        const srs_status st = srs_scheduler_retrievability(s, &sl.card, at, &r);
        expect(st == SRS_OK, "retrievability refused");
        expect(r >= 0 && r <= 1, "retrievability outside [0, 1]");
        if (sl.card.state == SRS_STATE_NEW) expect(r == 0, "a new card's retrievability is not 0");
        break;
      }
      case 3: {  // forget
        if (!sl.live) break;
        srs_card f;
        srs_card_init(&f);
        const srs_status st = srs_scheduler_forget(s, &sl.card, at, arg & 1, &f);
        expect(st == SRS_OK, "forget refused");
        expect(f.state == SRS_STATE_NEW && f.stability == 0 && f.due_ms == at && f.step == 0, "forget's card");
        if (arg & 1) expect(f.reps == 0 && f.lapses == 0, "forget did not reset the counts");
        sl.card = f;
        sl.has_last = false;
        sl.replayable = false;
        now = at > now ? at : now;
        break;
      }
      case 4: {  // rollback of the latest review, or of a stale log
        if (!sl.live || sl.times.empty()) break;
        srs_card back;
        srs_card_init(&back);
        const srs_status st = srs_scheduler_rollback(s, &sl.card, &sl.last, &back);
        if (!sl.has_last) {
          if (st != SRS_OK) expect_error(st);  // a stale log: refused unless it happens to fit
          break;
        }
        expect(st == SRS_OK, "rollback of the latest review refused");
        expect(same_card(back, sl.before), "rollback is not the card before the review");
        sl.card = back;
        sl.has_last = false;
        sl.times.pop_back();  // the answers are the card's history again
        sl.ratings.pop_back();
        break;
      }
      case 5: {  // reschedule from the card's answers
        if (!sl.live || sl.times.empty()) break;
        srs_card re;
        srs_card_init(&re);
        std::vector<srs_review_log> logs(sl.times.size());
        for (srs_review_log& l : logs) srs_review_log_init(&l);
        const srs_status st = srs_scheduler_reschedule(s, sl.card.id, sl.times.data(), sl.ratings.data(),
                                                       sl.times.size(), &re, logs.data());
        bool in_order = true;  // (a forgotten card may be answered before its earlier answers)
        for (std::size_t k = 1; k < sl.times.size(); ++k) in_order = in_order && sl.times[k] >= sl.times[k - 1];
        if (!in_order) {
          expect_error(st);
          break;
        }
        expect(st == SRS_OK, "reschedule of valid answers refused");
        check_card(re);
        if (sl.replayable) expect(same_card(re, sl.card), "reschedule differs from the reviews");
        break;
      }
      case 6: {  // a bad struct_size, a NULL pointer
        srs_card c = sl.card;
        c.struct_size = arg % 8;  // smaller than any version of the struct
        srs_card out;
        srs_card_init(&out);
        expect_error(srs_scheduler_review(s, &c, 3, now, &out, nullptr));
        expect_error(srs_scheduler_review(s, nullptr, 3, now, &out, nullptr));
        expect_error(srs_scheduler_retrievability(s, &sl.card, now, nullptr));
        break;
      }
      default: {  // reschedule of invalid answers (a rating outside 1..4 or times out of order)
        const std::int64_t times[2] = {now, arg & 1 ? now - 1 : now};
        const std::int32_t ratings[2] = {3, arg & 1 ? 3 : static_cast<std::int32_t>(arg % 3) * 5};
        srs_card re;
        srs_card_init(&re);
        const srs_status st = srs_scheduler_reschedule(s, 9, times, ratings, 2, &re, nullptr);
        if ((arg & 1) || ratings[1] < 1 || ratings[1] > 4) expect_error(st);
        break;
      }
    }
  }
  srs_scheduler_free(s);
  return 0;
}
