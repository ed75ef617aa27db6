// SPDX-License-Identifier: MIT
/// @file srs/data/time_zone.hpp
/// A time zone with its daylight-saving changes, from the IANA tz database's
/// compiled files (TZif, RFC 8536): the offset of local time from UTC at any
/// instant, for the day boundary of a user's reviews (data::DayBoundary,
/// sched::SchedulerOptions::time_zone).
///
///     const auto ny = srs::data::TimeZone::load("America/New_York");
///     ny.offset_seconds(1710054000);  // 2024-03-10 07:00 UTC: −14400 (EDT)
///
/// Why its own reader: C++20's time zones (std::chrono::tzdb) are not in
/// g++ 12's libstdc++ nor in libc++ before 17; Howard Hinnant's `date` reads
/// the same files but its tz part is a compiled library, which a header-only
/// library would impose on every app; `localtime_r` knows one zone per
/// process, set through the TZ environment variable, which is not
/// thread-safe. TZif is a stable, documented format, the one the tz database
/// compiles to on Linux (Debian's `tzdata`), macOS and iOS; an app whose
/// platform keeps the database elsewhere (Android) passes the zone's bytes
/// to from_tzif().
///
/// Offsets come from the file's transitions (version 2+ files: 64-bit
/// times), before the first one from its first local time type, and after the
/// last one from the POSIX TZ rule of the file's footer (e.g.
/// "EST5EDT,M3.2.0,M11.1.0", the transitions of every later year), so slim
/// files (transitions up to the last rule change only) and dates after 2037
/// are right. Leap seconds are ignored, as POSIX time does.
#pragma once

#include <algorithm>    // std::upper_bound
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int64_t, std::int32_t, std::uint8_t
#include <cstdlib>      // std::getenv
#include <filesystem>   // std::filesystem::path
#include <memory>       // std::shared_ptr, std::make_shared
#include <span>         // std::span
#include <string>       // std::string, std::to_string
#include <string_view>  // std::string_view
#include <utility>      // std::move
#include <vector>       // std::vector

#include <srs/core/error.hpp>  // srs::InputError, srs::UsageError, srs::FilePlace
#include <srs/data/csv.hpp>    // detail::read_whole_file

namespace srs::data {

namespace detail {

/// Days from 1970-01-01 to the proleptic Gregorian date y-m-d (m 1..12).
constexpr std::int64_t days_from_civil(std::int64_t y, int m, int d) {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const std::int64_t yoe = y - era * 400;                                   // 0..399
  const std::int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;  // 0..365, from March 1
  const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;           // 0..146096
  return era * 146097 + doe - 719468;
}
/// The year of a day count from 1970-01-01.
constexpr std::int64_t year_of_days(std::int64_t z) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const std::int64_t doe = z - era * 146097;
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  return yoe + era * 400 + (mp >= 10 ? 1 : 0);
}
constexpr bool is_leap(std::int64_t y) { return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0); }
constexpr std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0); }

/// A POSIX TZ rule ("std offset [dst [offset] [,start[/time],end[/time]]]",
/// with RFC 8536's extensions: hours up to ±167 in the times).
struct PosixRule {
  struct Date {
    enum class Kind { julian1, julian0, month_week_day } kind = Kind::month_week_day;
    int day = 0, week = 0, month = 0;  // Jn / n: day; Mm.w.d: month, week, day of week
    std::int64_t time = 7200;          // seconds after local midnight (may be < 0 or > 86400)
  };
  std::int32_t std_offset = 0;  // local − UTC, seconds (POSIX writes the opposite sign)
  std::int32_t dst_offset = 0;
  bool has_dst = false;
  Date start, end;

  /// Parses `s`; false when it is not a valid rule.
  bool parse(std::string_view s) {
    std::size_t i = 0;
    const auto name = [&]() {
      if (i < s.size() && s[i] == '<') {
        const std::size_t close = s.find('>', i);
        if (close == std::string_view::npos || close - i < 4) return false;
        i = close + 1;
        return true;
      }
      const std::size_t begin = i;
      while (i < s.size() && ((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z'))) ++i;
      return i - begin >= 3;
    };
    // [+-]hh[:mm[:ss]], hh up to max_hours.
    const auto clock = [&](std::int64_t& out, int max_hours) {
      int sign = 1;
      if (i < s.size() && (s[i] == '+' || s[i] == '-')) sign = s[i++] == '-' ? -1 : 1;
      std::int64_t parts[3] = {0, 0, 0};
      for (int p = 0; p < 3; ++p) {
        if (p > 0) {
          if (i >= s.size() || s[i] != ':') break;
          ++i;
        }
        const std::size_t begin = i;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9' && i - begin < 3) parts[p] = parts[p] * 10 + (s[i++] - '0');
        if (i == begin || (p > 0 && parts[p] > 59)) return false;
      }
      if (parts[0] > max_hours) return false;
      out = sign * (parts[0] * 3600 + parts[1] * 60 + parts[2]);
      return true;
    };
    const auto number = [&](int& out, int lo, int hi) {
      const std::size_t begin = i;
      out = 0;
      while (i < s.size() && s[i] >= '0' && s[i] <= '9' && i - begin < 3) out = out * 10 + (s[i++] - '0');
      return i > begin && out >= lo && out <= hi;
    };
    const auto date = [&](Date& d) {
      if (i < s.size() && s[i] == 'J') {
        ++i;
        d.kind = Date::Kind::julian1;
        if (!number(d.day, 1, 365)) return false;
      } else if (i < s.size() && s[i] == 'M') {
        ++i;
        d.kind = Date::Kind::month_week_day;
        if (!number(d.month, 1, 12) || i >= s.size() || s[i++] != '.' || !number(d.week, 1, 5) || i >= s.size() ||
            s[i++] != '.' || !number(d.day, 0, 6))
          return false;
      } else {
        d.kind = Date::Kind::julian0;
        if (!number(d.day, 0, 365)) return false;
      }
      d.time = 7200;
      if (i < s.size() && s[i] == '/') {
        ++i;
        if (!clock(d.time, 167)) return false;
      }
      return true;
    };
    std::int64_t off = 0;
    if (!name() || !clock(off, 24)) return false;
    std_offset = static_cast<std::int32_t>(-off);
    if (i == s.size()) return true;
    if (!name()) return false;
    has_dst = true;
    dst_offset = std_offset + 3600;
    if (i < s.size() && s[i] != ',') {
      if (!clock(off, 24)) return false;
      dst_offset = static_cast<std::int32_t>(-off);
    }
    if (i == s.size()) {  // no rule: the US rule, as the tz code assumes
      start = {Date::Kind::month_week_day, 0, 2, 3, 7200};
      end = {Date::Kind::month_week_day, 0, 1, 11, 7200};
      return true;
    }
    if (s[i++] != ',' || !date(start) || i >= s.size() || s[i++] != ',' || !date(end)) return false;
    return i == s.size();
  }

  /// The local time (seconds since 1970-01-01 local midnight) at which `d` falls in `year`.
  static std::int64_t local_time(const Date& d, std::int64_t year) {
    std::int64_t day = 0;
    switch (d.kind) {
      case Date::Kind::julian1:  // 1..365, February 29 never counted
        day = days_from_civil(year, 1, 1) + d.day - 1 + (is_leap(year) && d.day >= 60 ? 1 : 0);
        break;
      case Date::Kind::julian0:
        day = days_from_civil(year, 1, 1) + d.day;
        break;
      case Date::Kind::month_week_day: {
        const std::int64_t first = days_from_civil(year, d.month, 1);
        const std::int64_t weekday = ((first + 4) % 7 + 7) % 7;  // 1970-01-01 was a Thursday (4)
        day = first + (d.day - weekday + 7) % 7 + 7 * (d.week - 1);
        const int next_month = d.month == 12 ? 1 : d.month + 1;
        const std::int64_t month_end = days_from_civil(d.month == 12 ? year + 1 : year, next_month, 1);
        while (day >= month_end) day -= 7;  // week 5: the last one
        break;
      }
    }
    return day * 86400 + d.time;
  }

  /// Local − UTC at UTC time `t` (seconds).
  std::int32_t offset_at(std::int64_t t) const {
    if (!has_dst) return std_offset;
    const std::int64_t year = year_of_days(floor_div(t + std_offset, 86400));
    // The change of the year before, this one and the next, so that a rule
    // whose change crosses a year's end is seen.
    for (std::int64_t y = year + 1; y >= year - 1; --y) {
      const std::int64_t on = local_time(start, y) - std_offset;  // start: local standard time
      const std::int64_t off = local_time(end, y) - dst_offset;   // end: local daylight time
      if (on < off) {                                             // northern: DST inside the year
        if (t >= off) return std_offset;
        if (t >= on) return dst_offset;
      } else {  // southern: DST across the year's end
        if (t >= on) return dst_offset;
        if (t >= off) return std_offset;
      }
    }
    return std_offset;
  }
};

}  // namespace detail

/// A time zone: UTC, a fixed offset, or an IANA zone with its history and rule.
class TimeZone {
 public:
  /// No zone (DayBoundary and the scheduler then use their fixed UTC offset).
  TimeZone() = default;

  /// A zone always `offset_minutes` from UTC (local − UTC), named e.g. "UTC+01:00".
  static TimeZone fixed(std::int32_t offset_minutes) {
    if (offset_minutes < -24 * 60 || offset_minutes > 24 * 60)
      throw UsageError("a fixed UTC offset must be within ±1440 minutes, got " + std::to_string(offset_minutes));
    auto d = std::make_shared<Data>();
    const std::int32_t a = offset_minutes < 0 ? -offset_minutes : offset_minutes;
    d->name = std::string("UTC").append(offset_minutes < 0 ? "-" : "+");
    d->name.append(a / 60 < 10 ? "0" : "").append(std::to_string(a / 60)).append(":");
    d->name.append(a % 60 < 10 ? "0" : "").append(std::to_string(a % 60));
    d->initial = offset_minutes * 60;
    return TimeZone(std::move(d));
  }

  /// The zone whose TZif file (RFC 8536, version 1 to 4) is `bytes`; `name`
  /// names it in errors and name().
  /// @throws InputError naming `name`, the byte and the field for a file that
  ///         is not TZif, is cut short or is inconsistent
  static TimeZone from_tzif(std::span<const unsigned char> bytes, std::string name) {
    return read_tzif(bytes, name, name);
  }

  /// The IANA zone `name` ("Europe/Berlin", "America/New_York", "UTC") from the
  /// tz database's files under `tzdir` (empty: $TZDIR, else /usr/share/zoneinfo).
  /// @throws UsageError for a name that is empty, absolute or climbs out of the
  ///         folder ("..", which a user's setting must not reach), InputError for a
  ///         missing or malformed file
  static TimeZone load(std::string_view name, std::filesystem::path tzdir = {}) {
    if (name.empty() || name.front() == '/' || name.find("..") != std::string_view::npos || name.find('\\') != std::string_view::npos)
      throw UsageError("a time zone name is an IANA name such as \"Europe/Berlin\", got \"" + std::string(name) + "\"");
    if (tzdir.empty()) {
      const char* env = std::getenv("TZDIR");
      tzdir = env && *env ? env : "/usr/share/zoneinfo";
    }
    const std::filesystem::path file = tzdir / std::filesystem::path(std::string(name));
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec))
      throw InputError(file.string(), 0, "",
                       "no time zone \"" + std::string(name) + "\" here (is the tz database installed? Debian: tzdata)");
    const std::string bytes = srs::data::detail::read_whole_file(file);
    return read_tzif(std::span<const unsigned char>(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size()),
                     file.string(), std::string(name));
  }

  /// Whether this is a zone (not the default-constructed none).
  explicit operator bool() const { return data_ != nullptr; }
  /// The zone's name ("America/New_York", "UTC+01:00"); empty for none.
  const std::string& name() const {
    static const std::string none;
    return data_ ? data_->name : none;
  }

  /// Local time − UTC, in seconds, at `utc_seconds` since the epoch (0 for none).
  std::int32_t offset_seconds(std::int64_t utc_seconds) const {
    if (!data_) return 0;
    const Data& d = *data_;
    const auto it = std::upper_bound(d.transitions.begin(), d.transitions.end(), utc_seconds);
    if (it == d.transitions.begin()) return d.initial;
    if (it == d.transitions.end() && d.has_rule) return d.rule.offset_at(utc_seconds);
    return d.offsets[static_cast<std::size_t>(it - d.transitions.begin() - 1)];
  }

 private:
  struct Data {
    std::string name;
    std::vector<std::int64_t> transitions;  // UTC seconds, increasing
    std::vector<std::int32_t> offsets;      // local − UTC from each transition on
    std::int32_t initial = 0;               // before the first transition
    detail::PosixRule rule;                 // after the last one (has_rule)
    bool has_rule = false;
  };
  struct Counts {
    unsigned char version = 0;
    std::uint32_t isut = 0, isstd = 0, leap = 0, time = 0, type = 0, chars = 0;
  };
  struct Reader {
    std::span<const unsigned char> bytes;
    std::size_t at;
    const std::string& name;
    std::size_t remaining() const { return bytes.size() - at; }
    [[noreturn]] void fail(const std::string& what, long back = 0) const {
      const std::size_t byte = static_cast<std::size_t>(static_cast<long>(at) + back);
      throw InputError(name, FilePlace{"byte " + std::to_string(byte), 0}, "", what);
    }
    std::uint8_t u8(const char* field) {
      if (remaining() < 1) fail(std::string("the ") + field + " are cut short");
      return bytes[at++];
    }
    std::uint32_t u32(const char* field) {
      if (remaining() < 4) fail(std::string("the ") + field + " are cut short");
      std::uint32_t v = 0;
      for (int k = 0; k < 4; ++k) v = (v << 8) | bytes[at++];
      return v;
    }
    std::int64_t i64(const char* field) {
      if (remaining() < 8) fail(std::string("the ") + field + " are cut short");
      std::uint64_t v = 0;
      for (int k = 0; k < 8; ++k) v = (v << 8) | bytes[at++];
      return static_cast<std::int64_t>(v);
    }
  };

  /// from_tzif() with errors naming `where` (the file) and the zone named `name`.
  static TimeZone read_tzif(std::span<const unsigned char> bytes, const std::string& where, std::string name) {
    auto d = std::make_shared<Data>();
    d->name = std::move(name);
    Reader r{bytes, 0, where};
    const auto header = [&](const char* which) {
      if (r.remaining() < 44) r.fail(std::string("the ") + which + " header is cut short (44 bytes)");
      if (!(bytes[r.at] == 'T' && bytes[r.at + 1] == 'Z' && bytes[r.at + 2] == 'i' && bytes[r.at + 3] == 'f'))
        r.fail(std::string("the ") + which + " header does not start with \"TZif\": not a TZif file");
      Counts c;
      c.version = bytes[r.at + 4];
      r.at += 20;
      c.isut = r.u32("isutcnt");
      c.isstd = r.u32("isstdcnt");
      c.leap = r.u32("leapcnt");
      c.time = r.u32("timecnt");
      c.type = r.u32("typecnt");
      c.chars = r.u32("charcnt");
      if (c.type == 0) r.fail("typecnt is 0: a zone needs at least one local time type");
      if ((c.isut != 0 && c.isut != c.type) || (c.isstd != 0 && c.isstd != c.type))
        r.fail("isutcnt and isstdcnt must be 0 or typecnt");
      return c;
    };
    const Counts v1 = header("first");
    const bool v2 = v1.version >= '2';
    if (v2) {  // skip the 32-bit block
      const std::size_t skip = std::size_t{v1.time} * 5 + std::size_t{v1.type} * 6 + v1.chars + std::size_t{v1.leap} * 8 +
                               v1.isstd + v1.isut;
      if (r.remaining() < skip) r.fail("the version 1 data block is cut short");
      r.at += skip;
    }
    const Counts c = v2 ? header("second") : v1;
    const std::size_t time_size = v2 ? 8 : 4;
    d->transitions.resize(c.time);
    for (std::size_t k = 0; k < c.time; ++k) {
      d->transitions[k] = v2 ? r.i64("transition times") : static_cast<std::int32_t>(r.u32("transition times"));
      if (k > 0 && d->transitions[k] <= d->transitions[k - 1]) r.fail("the transition times are not increasing", -8);
    }
    std::vector<std::uint8_t> index(c.time);
    for (std::size_t k = 0; k < c.time; ++k) {
      index[k] = r.u8("transition types");
      if (index[k] >= c.type) r.fail("a transition type is not below typecnt", -1);
    }
    std::vector<std::int32_t> utoff(c.type);
    for (std::size_t k = 0; k < c.type; ++k) {
      utoff[k] = static_cast<std::int32_t>(r.u32("local time types"));
      if (utoff[k] < -89999 || utoff[k] > 93599) r.fail("a UT offset is outside -89999..93599 seconds", -4);
      r.u8("local time types");  // isdst
      r.u8("local time types");  // desigidx
    }
    const std::size_t rest = c.chars + std::size_t{c.leap} * (time_size + 4) + c.isstd + c.isut;
    if (r.remaining() < rest) r.fail("the designations, leap seconds or indicators are cut short");
    r.at += rest;
    d->initial = utoff[0];
    d->offsets.resize(c.time);
    for (std::size_t k = 0; k < c.time; ++k) d->offsets[k] = utoff[index[k]];
    if (v2) {
      if (r.remaining() < 2 || bytes[r.at] != '\n') r.fail("the footer does not start with a newline");
      const std::size_t begin = ++r.at;
      while (r.at < bytes.size() && bytes[r.at] != '\n') ++r.at;
      if (r.at == bytes.size()) r.fail("the footer does not end with a newline");
      const std::string rule(reinterpret_cast<const char*>(bytes.data()) + begin, r.at - begin);
      if (!rule.empty()) {
        if (!d->rule.parse(rule)) r.fail("the footer's TZ rule \"" + rule + "\" is not a POSIX TZ string");
        d->has_rule = true;
      }
    }
    return TimeZone(std::move(d));
  }

  explicit TimeZone(std::shared_ptr<const Data> d) : data_(std::move(d)) {}
  std::shared_ptr<const Data> data_;
};

}  // namespace srs::data
