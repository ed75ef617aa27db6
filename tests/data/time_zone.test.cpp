// SPDX-License-Identifier: MIT
// Tests of srs/data/time_zone.hpp: time zones from the tz database's TZif files.
//
//   * the zones of the system's tz database (Debian's tzdata, which CI
//     installs): offsets on both sides of the 2024 daylight-saving changes in
//     both directions (New York, Berlin, Sydney in the southern hemisphere),
//     before the first transition (local mean time), after the last one (the
//     footer's rule: 2090, 2100), a zone without DST (Kolkata, +5:30), a rule
//     with a change at 26:00 (Jerusalem); expected values from Python's
//     zoneinfo, an independent reader of the same files;
//   * the POSIX TZ rules against the transition tables: for each zone, every
//     hour of 2008–2037 (where both exist) gives the same offset from the rule
//     alone as from the file; rule strings parsed or refused;
//   * a version 1 file (32-bit times, no footer) read from the same data;
//   * errors: a name outside the folder, a missing zone, a file that is not
//     TZif, every truncation of a real file (an InputError naming the byte,
//     never a crash);
//   * DayBoundary and the scheduler's day index across both DST changes: a
//     new day at 04:00 local, which a fixed UTC offset misplaces by an hour
//     half of the year.
#include <srs/data/time_zone.hpp>  // srs::data::TimeZone, detail::PosixRule

#include <srs/core/error.hpp>           // srs::InputError, srs::UsageError
#include <srs/data/csv.hpp>             // srs::data::detail::read_whole_file
#include <srs/data/revlog_builder.hpp>  // srs::data::DayBoundary
#include <srs/models/fsrs.hpp>          // srs::models::Fsrs6
#include <srs/sched/card_scheduler.hpp>  // srs::sched::Scheduler, SchedulerOptions, Time

#include <doctest/doctest.h>  // TEST_CASE, CHECK, REQUIRE, CAPTURE

#include <chrono>      // std::chrono::milliseconds
#include <cstdint>     // std::int64_t, std::int32_t
#include <filesystem>  // std::filesystem::exists
#include <span>        // std::span
#include <string>      // std::string
#include <vector>      // std::vector

namespace {

using srs::data::TimeZone;

const char* const tz_root = "/usr/share/zoneinfo";

/// A zone of the system's database; fails the test (with what to install) when it is missing.
TimeZone system_zone(const std::string& name) {
  INFO("the tests need the tz database (Debian: apt-get install tzdata), zone " << name);
  REQUIRE(std::filesystem::exists(std::string(tz_root) + "/" + name));
  return TimeZone::load(name, tz_root);
}

std::vector<unsigned char> zone_bytes(const std::string& name) {
  const std::string s = srs::data::detail::read_whole_file(std::string(tz_root) + "/" + name);
  return {s.begin(), s.end()};
}

struct Expect {
  std::int64_t t;
  std::int32_t offset;
};

}  // namespace

TEST_CASE("TimeZone: offsets across daylight-saving changes in both directions (Python's zoneinfo values)") {
  const auto check = [](const std::string& name, std::vector<Expect> cases) {
    const TimeZone z = system_zone(name);
    CHECK(z.name() == name);
    for (const Expect& e : cases) {
      CAPTURE(name);
      CAPTURE(e.t);
      CHECK(z.offset_seconds(e.t) == e.offset);
    }
  };
  check("America/New_York", {{1710053999, -18000},   // 2024-03-10 06:59:59 UTC: 01:59:59 EST
                             {1710054000, -14400},   // 07:00:00 UTC: 03:00 EDT
                             {1730613599, -14400},   // 2024-11-03 05:59:59 UTC: 01:59:59 EDT
                             {1730613600, -18000},   // 06:00:00 UTC: 01:00 EST
                             {-5364662400, -17762},  // 1800: local mean time, before the first transition
                             {1899356399, -18000},   // 2030, from the transitions
                             {1899356400, -14400},
                             {4102444800, -18000},    // 2100-01-01: from the footer's rule
                             {4118083200, -14400}});  // 2100-07-01
  check("Europe/Berlin", {{1711846799, 3600}, {1711846800, 7200}, {1729990799, 7200}, {1729990800, 3600}});
  check("Australia/Sydney", {{1712419199, 39600},  // 2024-04-06 15:59:59 UTC: DST ends at 03:00 AEDT
                             {1712419200, 36000},
                             {1728143999, 36000},  // 2024-10-05 15:59:59 UTC: DST starts at 02:00 AEST
                             {1728144000, 39600},
                             {3788121600, 39600},    // 2090-01-15: the rule, DST across the year's end
                             {3801168000, 36000}});  // 2090-06-15
  check("Asia/Jerusalem", {{2531692800, 7200},     // 2050-03-24 00:00 UTC
                           {2531779199, 7200},     // the Thursday of the 4th week at 26:00 (Friday 02:00)
                           {2531779200, 10800},    // 2050-03-25 00:00 UTC
                           {2550700800, 7200}});   // 2050-10-30
  check("Asia/Kolkata", {{1717200000, 19800}});
  check("UTC", {{0, 0}, {4102444800, 0}});
}

TEST_CASE("TimeZone: the footer's POSIX rule gives every hour of 2008-2037 as the transition table does") {
  std::size_t hours = 0;
  for (const std::string name : {"America/New_York", "Europe/Berlin", "Australia/Sydney", "America/Los_Angeles",
                                 "Pacific/Auckland", "Asia/Tokyo", "Europe/London", "Asia/Kolkata"}) {
    CAPTURE(name);
    const TimeZone z = system_zone(name);
    const std::vector<unsigned char> b = zone_bytes(name);
    // The footer: the text between the file's last two newlines.
    std::size_t end = b.size() - 1, begin = end;
    while (begin > 0 && b[begin - 1] != '\n') --begin;
    const std::string footer(b.begin() + static_cast<std::ptrdiff_t>(begin), b.begin() + static_cast<std::ptrdiff_t>(end));
    srs::data::detail::PosixRule rule;
    REQUIRE(rule.parse(footer));
    // The US rule since 2007, the EU's since 1996; 2010 for the others.
    const bool since_2008 = name == "America/New_York" || name == "America/Los_Angeles" || name == "Europe/London" ||
                            name == "Europe/Berlin";
    const std::int64_t from = since_2008 ? 1199145600 : 1262304000;
    for (std::int64_t t = from; t < 2145916800; t += 3600) {  // to 2038-01-01
      if (rule.offset_at(t) != z.offset_seconds(t)) {
        CAPTURE(t);
        CHECK(rule.offset_at(t) == z.offset_seconds(t));
        break;
      }
      ++hours;
    }
  }
  CHECK(hours > 1'500'000);
}

TEST_CASE("TimeZone: POSIX TZ rules parsed and refused") {
  srs::data::detail::PosixRule r;
  REQUIRE(r.parse("<+0330>-3:30"));
  CHECK(!r.has_dst);
  CHECK(r.offset_at(0) == 12600);
  REQUIRE(r.parse("EST5EDT"));  // no dates: the US rule
  CHECK(r.offset_at(1899356399) == -18000);
  CHECK(r.offset_at(1899356400) == -14400);
  REQUIRE(r.parse("XXX3YYY,J60/0,J300/0"));  // J60: March 1 in every year
  CHECK(r.dst_offset == -7200);
  // 2024 (leap): March 1 00:00 local (−3 h) = 03:00 UTC.
  CHECK(r.offset_at(1709262000 - 1) == -10800);
  CHECK(r.offset_at(1709262000) == -7200);
  REQUIRE(r.parse("AAA-1BBB-3,60/-1,200/+30:15"));  // zero-based days, negative and long times
  CHECK(r.std_offset == 3600);
  CHECK(r.dst_offset == 10800);
  for (const char* bad : {"", "E5", "EST", "EST5EDT,M13.1.0,M11.1.0", "EST5EDT,M3.2.0", "EST5EDT,M3.6.0,M11.1.0",
                          "EST25", "<+03", "EST5EDT,M3.2.0,M11.1.0x", "EST5EDT,J0,J100", "EST5:60"}) {
    CAPTURE(bad);
    CHECK(!r.parse(bad));
  }
}

TEST_CASE("TimeZone: fixed offsets and the zone none") {
  CHECK(TimeZone::fixed(60).offset_seconds(123) == 3600);
  CHECK(TimeZone::fixed(60).name() == "UTC+01:00");
  CHECK(TimeZone::fixed(-330).name() == "UTC-05:30");
  CHECK(TimeZone::fixed(-330).offset_seconds(-99999999) == -19800);
  CHECK_THROWS_AS(TimeZone::fixed(1441), srs::UsageError);
  const TimeZone none;
  CHECK(!none);
  CHECK(none.name().empty());
  CHECK(none.offset_seconds(1710054000) == 0);
}

TEST_CASE("TimeZone: a version 1 file (32-bit times, no footer)") {
  std::vector<unsigned char> b = zone_bytes("America/New_York");
  REQUIRE(b.size() > 44);
  b[4] = 0;  // version 1: the reader stops after the first data block
  const TimeZone v1 = TimeZone::from_tzif(b, "v1");
  const TimeZone v2 = system_zone("America/New_York");
  for (const std::int64_t t : {std::int64_t{1710053999}, std::int64_t{1710054000}, std::int64_t{1730613600},
                               std::int64_t{0}, std::int64_t{-1000000000}}) {
    CAPTURE(t);
    CHECK(v1.offset_seconds(t) == v2.offset_seconds(t));
  }
}

TEST_CASE("TimeZone: errors name the zone and the byte, and no truncation crashes") {
  CHECK_THROWS_AS(TimeZone::load("../../etc/passwd", tz_root), srs::UsageError);
  CHECK_THROWS_AS(TimeZone::load("/etc/localtime", tz_root), srs::UsageError);
  CHECK_THROWS_AS(TimeZone::load("", tz_root), srs::UsageError);
  try {
    TimeZone::load("Nowhere/Atlantis", tz_root);
    FAIL("loaded a zone that does not exist");
  } catch (const srs::InputError& e) {
    CHECK(std::string(e.what()).find("no time zone \"Nowhere/Atlantis\"") != std::string::npos);
    CHECK(std::string(e.what()).find("tzdata") != std::string::npos);
  }
  const std::vector<unsigned char> text{'h', 'e', 'l', 'l', 'o'};
  const std::vector<unsigned char> not_tzif(60, 'x');
  for (const auto* bytes : {&text, &not_tzif}) {
    try {
      TimeZone::from_tzif(*bytes, "zone.bin");
      FAIL("read a file that is not TZif");
    } catch (const srs::InputError& e) {
      CHECK(e.file() == "zone.bin");
      CHECK(e.place() == "byte 0");
    }
  }
  const std::vector<unsigned char> b = zone_bytes("America/New_York");
  std::size_t refused = 0;
  for (std::size_t n = 0; n < b.size(); ++n) {
    CAPTURE(n);
    try {
      TimeZone::from_tzif(std::span<const unsigned char>(b.data(), n), "cut");
      FAIL("read a truncated file");
    } catch (const srs::InputError& e) {
      CHECK(e.file() == "cut");
      CHECK(e.place().rfind("byte ", 0) == 0);
      ++refused;
    }
  }
  CHECK(refused == b.size());
  // A transition type beyond typecnt.
  std::vector<unsigned char> bad = b;
  bad[4] = 0;
  const std::size_t timecnt = (std::size_t{bad[32]} << 24) | (std::size_t{bad[33]} << 16) | (std::size_t{bad[34]} << 8) | bad[35];
  REQUIRE(timecnt > 0);
  bad[44 + timecnt * 4] = 200;
  CHECK_THROWS_AS(TimeZone::from_tzif(bad, "bad"), srs::InputError);
}

TEST_CASE("DayBoundary and the scheduler: a day starts at 04:00 local on both sides of a DST change") {
  using namespace std::chrono_literals;
  const TimeZone ny = system_zone("America/New_York");
  srs::data::DayBoundary zone, fixed;
  zone.rollover_hour = fixed.rollover_hour = 4;
  zone.time_zone = ny;
  fixed.utc_offset_minutes = -300;  // EST all year
  // Spring: 2024-03-11 04:00 EDT = 08:00 UTC starts a day; a fixed EST offset says 09:00 UTC.
  const std::int64_t mar11_0800 = 1710144000'000;
  CHECK(zone.day(mar11_0800) == zone.day(mar11_0800 - 1) + 1);
  CHECK(fixed.day(mar11_0800) == fixed.day(mar11_0800 - 1));
  CHECK(zone.day(mar11_0800 + 3'600'000) == fixed.day(mar11_0800 + 3'600'000));
  // The day of the change is 23 hours long: from 2024-03-09 04:00 EST (09:00 UTC) to
  // 2024-03-10 04:00 EDT (08:00 UTC, after the change at 02:00).
  const std::int64_t mar9_0900 = 1709974800'000, mar10_0800 = 1710057600'000;
  CHECK(zone.day(mar9_0900) == zone.day(mar9_0900 - 1) + 1);
  CHECK(zone.day(mar10_0800) == zone.day(mar10_0800 - 1) + 1);
  CHECK(zone.day(mar10_0800 - 1) == zone.day(mar9_0900));
  CHECK(zone.day(mar11_0800) - zone.day(mar10_0800) == 1);
  // Autumn: 2024-11-04 04:00 EST = 09:00 UTC; a fixed EDT offset (−240) says 08:00 UTC.
  srs::data::DayBoundary summer = fixed;
  summer.utc_offset_minutes = -240;
  const std::int64_t nov4_0900 = 1730710800'000;
  CHECK(zone.day(nov4_0900) == zone.day(nov4_0900 - 1) + 1);
  CHECK(zone.day(nov4_0900 - 3'600'000) == zone.day(nov4_0900 - 1));
  CHECK(summer.day(nov4_0900 - 3'600'000) == summer.day(nov4_0900 - 3'600'001) + 1);

  // The scheduler: days between an evening review and one at 04:30 local the next morning.
  srs::sched::SchedulerOptions<srs::models::Fsrs6> o;
  o.rollover_hour = 4;
  o.time_zone = ny;
  const srs::sched::Scheduler<srs::models::Fsrs6> s{o};
  o.time_zone = TimeZone();
  o.utc_offset_minutes = -300;
  const srs::sched::Scheduler<srs::models::Fsrs6> est{o};
  o.utc_offset_minutes = -240;
  const srs::sched::Scheduler<srs::models::Fsrs6> edt{o};
  using srs::sched::Time;
  const Time mar10_evening{std::chrono::milliseconds(1710108000'000)};  // 2024-03-10 18:00 EDT
  const Time mar11_0430{std::chrono::milliseconds(1710145800'000)};     // 2024-03-11 04:30 EDT
  CHECK(s.days_between(mar10_evening, mar11_0430) == 1);
  CHECK(est.days_between(mar10_evening, mar11_0430) == 0);  // 03:30 "EST": still the day before
  const Time nov3_evening{std::chrono::milliseconds(1730674800'000)};  // 2024-11-03 18:00 EST
  const Time nov4_0330{std::chrono::milliseconds(1730709000'000)};     // 2024-11-04 03:30 EST
  CHECK(s.days_between(nov3_evening, nov4_0330) == 0);
  CHECK(edt.days_between(nov3_evening, nov4_0330) == 1);  // 04:30 "EDT": a new day too early
  const srs::sched::Card<srs::models::Fsrs6> c = s.review(s.new_card(1, mar10_evening), srs::sched::Rating::good, mar10_evening).card;
  const auto log = s.review(c, srs::sched::Rating::good, mar11_0430).log;
  CHECK(log.elapsed_days == 1);
}
