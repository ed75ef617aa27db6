// SPDX-License-Identifier: MIT
// Tests of srs/data/revlog_builder.hpp (the dataset builder's rules, needing no
// SQLite) on raw entries written here: the reviews of the test collections of
// tests/anki/collection.test.cpp (which checks the same rows through an Anki
// import), given to build_revlog directly:
//
//   * rule 1: rating 0 dropped, filtered reviews without rescheduling dropped
//     and with rescheduling kept (state 4); rule 2: the history before the
//     last learning start dropped (a Forget), a card without a learning start
//     dropped; rule 3: states; rules 4-5: day offsets (creation time: trunc,
//     before crt too; rollover: floor) and elapsed days and seconds; rule 6:
//     card renumbering (BuildInfo::card_ids and the drop counts); rule 7: time
//     order, whatever the input order;
//   * entries of unknown kind (an app's log): the card's first kept entry
//     starts it, so its whole history is kept, later ones are reviews (state 2);
//   * DayBoundary::day in both modes around the day's start;
//   * errors: an invalid DayBoundary (UsageError), two reviews of a card at the
//     same time and a time beyond ±max_time_ms (InputError naming the source).
#include <srs/data/revlog_builder.hpp>  // srs::data::build_revlog, RevlogEntry, DayBoundary, BuildInfo, kind_*

#include <srs/core/error.hpp>   // srs::InputError, srs::UsageError
#include <srs/data/revlog.hpp>  // srs::data::Revlog, RevlogRow

#include <doctest/doctest.h>  // TEST_CASE, SUBCASE, CHECK, REQUIRE, CAPTURE, CHECK_THROWS_AS

#include <algorithm>  // std::reverse
#include <cstddef>    // std::size_t
#include <cstdint>    // std::int32_t, std::int64_t
#include <string>     // std::string
#include <vector>     // std::vector

namespace {

constexpr std::int64_t builder_crt = 1699934400;  // 2023-11-14 04:00:00 UTC
constexpr std::int64_t builder_h = 3'600'000;
constexpr std::int64_t builder_d = 24 * builder_h;
constexpr std::int64_t builder_t0 = builder_crt * 1000;

/// One entry: time (ms), card, rating, kind, factor; duration_ms = 1000 + its index.
struct BuilderEntry {
  std::int64_t time_ms, card_id;
  std::int32_t rating, kind, factor;
};

/// The reviews of tests/anki/collection.test.cpp's collections. Cards: 1000 (D),
/// 1001 (A), 1002 (B, forgotten and relearned), 1003 (C, no learning start),
/// 1004 (E, first review before crt).
const std::vector<BuilderEntry> builder_reviews{
    {builder_t0 + 3 * builder_h, 1000, 3, 0, 0},                  // D learning start
    {builder_t0 + 1 * builder_d + 7 * builder_h, 1000, 3, 3, 0},  // D filtered without rescheduling: dropped
    {builder_t0 + 4 * builder_d, 1000, 3, 3, 2500},               // D filtered with rescheduling: state 4
    {builder_t0 + 1 * builder_h, 1001, 3, 0, 0},                  // A learning start
    {builder_t0 + 1 * builder_h + 600'000, 1001, 3, 0, 0},        // A learning
    {builder_t0 + 2 * builder_d + 5 * builder_h, 1001, 3, 1, 2500},
    {builder_t0 + 3 * builder_d, 1001, 0, 4, 0},  // A manual entry: dropped
    {builder_t0 + 6 * builder_d, 1001, 2, 1, 2500},
    {builder_t0 + 2 * builder_h, 1002, 1, 0, 0},  // B: this history is discarded by the Forget
    {builder_t0 + 2 * builder_h + 300'000, 1002, 3, 0, 0},
    {builder_t0 + 1 * builder_d, 1002, 1, 1, 2500},
    {builder_t0 + 1 * builder_d + 600'000, 1002, 3, 2, 2500},
    {builder_t0 + 5 * builder_d, 1002, 3, 0, 0},  // B: the last learning start
    {builder_t0 + 8 * builder_d, 1002, 4, 1, 2500},
    {builder_t0 + 2 * builder_d + builder_h, 1003, 3, 1, 2500},  // C: reviews only, dropped
    {builder_t0 + 3 * builder_d + builder_h, 1003, 3, 1, 2500},
    {builder_t0 - 2 * builder_h, 1004, 3, 0, 0},  // E: before crt
    {builder_t0 + 1 * builder_h + 1'800'000, 1004, 3, 1, 2500},
};

std::vector<srs::data::RevlogEntry> builder_entries(const std::vector<BuilderEntry>& in) {
  std::vector<srs::data::RevlogEntry> out;
  for (std::size_t k = 0; k < in.size(); ++k) {
    srs::data::RevlogEntry e;
    e.time_ms = in[k].time_ms;
    e.card_id = in[k].card_id;
    e.rating = in[k].rating;
    e.kind = in[k].kind;
    e.factor = in[k].factor;
    e.duration_ms = static_cast<std::int32_t>(1000 + k);
    out.push_back(e);
  }
  return out;
}

/// The expected revlog in creation-time mode: card, day, rating, state, duration, elapsed days, seconds.
const std::vector<srs::data::RevlogRow> builder_expected{
    {3, 0, 3, 0, 1016, -1, -1},    {1, 0, 3, 0, 1003, -1, -1}, {1, 0, 3, 1, 1004, 0, 600},
    {3, 0, 3, 2, 1017, 0, 12600},  {0, 0, 3, 0, 1000, -1, -1}, {1, 2, 3, 2, 1005, 2, 186600},
    {0, 4, 3, 4, 1002, 4, 334800}, {2, 5, 3, 0, 1012, -1, -1}, {1, 6, 2, 2, 1007, 4, 327600},
    {2, 8, 4, 2, 1013, 3, 259200},
};

void check_builder_rows(const srs::data::Revlog& got, const std::vector<srs::data::RevlogRow>& want) {
  REQUIRE(got.rows.size() == want.size());
  for (std::size_t k = 0; k < want.size(); ++k) {
    CAPTURE(k);
    const srs::data::RevlogRow& a = got.rows[k];
    const srs::data::RevlogRow& b = want[k];
    CHECK(a.card_id == b.card_id);
    CHECK(a.day_offset == b.day_offset);
    CHECK(a.rating == b.rating);
    CHECK(a.state == b.state);
    CHECK(a.duration == b.duration);
    CHECK(a.elapsed_days == b.elapsed_days);
    CHECK(a.elapsed_seconds == b.elapsed_seconds);
  }
}

srs::data::DayBoundary creation_boundary() {
  srs::data::DayBoundary b;
  b.mode = srs::data::DayBoundary::Mode::creation_time;
  b.creation_time = builder_crt;
  return b;
}

}  // namespace

TEST_CASE("build_revlog: the builder's rules on raw entries, creation-time days") {
  srs::data::BuildInfo info;
  const srs::data::Revlog log =
      srs::data::build_revlog(builder_entries(builder_reviews), creation_boundary(), "u1", "entries", &info);
  CHECK(log.user == "u1");
  CHECK(log.source == "entries");
  check_builder_rows(log, builder_expected);
  CHECK(info.card_ids == std::vector<std::int64_t>{1000, 1001, 1002, 1004});
  CHECK(info.dropped_rating == 1);
  CHECK(info.dropped_filtered == 1);
  CHECK(info.dropped_cards == 1);
  CHECK(info.dropped_history == 2 + 4);  // C's two reviews, B's first four

  SUBCASE("the input order does not matter") {
    std::vector<srs::data::RevlogEntry> reversed = builder_entries(builder_reviews);
    std::reverse(reversed.begin(), reversed.end());
    check_builder_rows(srs::data::build_revlog(reversed, creation_boundary(), "u1", "entries"), builder_expected);
  }
  SUBCASE("rollover days: floor before crt") {
    srs::data::DayBoundary b;  // rollover 4 in UTC: crt (04:00 UTC) starts a day
    b.mode = srs::data::DayBoundary::Mode::rollover;
    b.rollover_hour = 4;
    std::vector<srs::data::RevlogRow> want = builder_expected;
    for (srs::data::RevlogRow& row : want) row.day_offset += 1;  // E's first review is now on the day before crt
    want[0].day_offset = 0;
    want[3].elapsed_days = 1;
    check_builder_rows(srs::data::build_revlog(builder_entries(builder_reviews), b, "u1", "entries"), want);
  }
  SUBCASE("rollover days in another hour and offset") {
    srs::data::DayBoundary b;
    b.mode = srs::data::DayBoundary::Mode::rollover;
    b.rollover_hour = 0;
    b.utc_offset_minutes = -300;  // midnight in UTC-5 = 05:00 UTC = crt + 1 h
    const srs::data::Revlog r = srs::data::build_revlog(builder_entries(builder_reviews), b, "u1", "entries");
    // A's first two reviews (crt + 1 h, + 1 h 10 min) are on the first local day; E's at crt + 1.5 h
    // too, E's first (crt - 2 h) the day before.
    CHECK(r.rows[0].day_offset == 0);
    CHECK(r.rows[1].day_offset == 1);
    CHECK(r.rows[3].elapsed_days == 1);
  }
}

TEST_CASE("build_revlog: entries of unknown kind keep the card's whole history") {
  const std::int64_t t = builder_t0;
  const std::vector<srs::data::RevlogEntry> entries =
      builder_entries({{t, 5, 1, srs::data::kind_unknown, 0},
                       {t + 2 * builder_d, 5, 3, srs::data::kind_unknown, 0},
                       {t + 5 * builder_d, 5, 0, srs::data::kind_unknown, 0},  // a manual entry: dropped
                       {t + 9 * builder_d, 5, 1, srs::data::kind_unknown, 0},
                       {t + builder_h, 6, 3, srs::data::kind_review, 2500},     // a review first, then learning:
                       {t + 3 * builder_d, 6, 3, srs::data::kind_learning, 0},  // history from the learning start
                       {t + 4 * builder_d, 6, 2, srs::data::kind_unknown, 0}});
  srs::data::BuildInfo info;
  const srs::data::Revlog log = srs::data::build_revlog(entries, creation_boundary(), "app", "reviews", &info);
  const std::vector<srs::data::RevlogRow> want{
      {0, 0, 1, 0, 1000, -1, -1},   {0, 2, 3, 2, 1001, 2, 172800}, {1, 3, 3, 0, 1005, -1, -1},
      {1, 4, 2, 2, 1006, 1, 86400}, {0, 9, 1, 2, 1003, 7, 604800},
  };
  check_builder_rows(log, want);
  CHECK(info.card_ids == std::vector<std::int64_t>{5, 6});
  CHECK(info.dropped_rating == 1);
  CHECK(info.dropped_history == 1);
  CHECK(info.dropped_cards == 0);
  CHECK(srs::data::build_revlog({}, creation_boundary(), "none", "reviews").rows.empty());
}

TEST_CASE("DayBoundary: creation-time days truncate toward zero, rollover days floor") {
  const srs::data::DayBoundary c = creation_boundary();
  CHECK(c.day(builder_t0) == 0);
  CHECK(c.day(builder_t0 + builder_d - 1) == 0);
  CHECK(c.day(builder_t0 + builder_d) == 1);
  CHECK(c.day(builder_t0 - 1) == 0);  // trunc: the day before crt is day 0 too
  CHECK(c.day(builder_t0 - builder_d - 1) == -1);
  srs::data::DayBoundary r;
  r.mode = srs::data::DayBoundary::Mode::rollover;
  r.rollover_hour = 4;
  r.utc_offset_minutes = 60;  // a new day at 03:00 UTC
  CHECK(r.day(3 * builder_h) == 0);
  CHECK(r.day(3 * builder_h - 1) == -1);
  CHECK(r.day(-builder_d + 3 * builder_h - 1) == -2);
}

TEST_CASE("build_revlog: an invalid day boundary, a duplicate time or a time out of range is an error") {
  const std::vector<srs::data::RevlogEntry> ok = builder_entries(builder_reviews);
  auto bad_boundary = [&](auto change) {
    srs::data::DayBoundary b;
    change(b);
    CHECK_THROWS_AS(srs::data::build_revlog(ok, b, "u", "entries"), srs::UsageError);
  };
  bad_boundary([](srs::data::DayBoundary& b) { b.rollover_hour = 24; });
  bad_boundary([](srs::data::DayBoundary& b) { b.rollover_hour = -1; });
  bad_boundary([](srs::data::DayBoundary& b) { b.utc_offset_minutes = 24 * 60 + 1; });
  bad_boundary([](srs::data::DayBoundary& b) {
    b.mode = srs::data::DayBoundary::Mode::creation_time;
    b.creation_time = srs::data::max_time_ms / 1000 + 1;
  });
  auto input_error = [](const std::vector<srs::data::RevlogEntry>& entries) -> std::string {
    try {
      (void)srs::data::build_revlog(entries, creation_boundary(), "u", "my-log");
    } catch (const srs::InputError& e) {
      CHECK(e.file() == "my-log");
      return e.what();
    }
    FAIL("no InputError");
    return "";
  };
  std::vector<srs::data::RevlogEntry> twice = ok;
  twice.push_back(twice[4]);  // A's second review again
  CHECK(input_error(twice).find("card 1001 has two reviews at the same time") != std::string::npos);
  std::vector<srs::data::RevlogEntry> far = ok;
  far[0].time_ms = srs::data::max_time_ms + 1;
  CHECK(input_error(far).find("out of range") != std::string::npos);
  far[0].time_ms = -srs::data::max_time_ms - 1;
  CHECK(input_error(far).find("out of range") != std::string::npos);
  far[0].time_ms = srs::data::max_time_ms;  // the limit itself is in range
  CHECK_NOTHROW((void)srs::data::build_revlog(far, creation_boundary(), "u", "my-log"));
}
