// SPDX-License-Identifier: MIT
/// @file srs/sched/fuzz.hpp
/// Interval fuzz for the card scheduler (namespace srs::sched): a review
/// interval of d >= 3 days is replaced by a day drawn uniformly from a range
/// around d, so that cards learned together do not stay due together.
///
/// The range is Anki's (rslib's `fuzz_delta`, also ts-fsrs's `get_fuzz_range`):
///   delta(d) = 1 + 0.15·(part of d in [2.5, 7)) + 0.10·(part in [7, 20))
///                + 0.05·(part in [20, ∞))
///   lower    = max(2, round(d − delta)),  upper = min(round(d + delta), max_interval)
///   lower    = max(lower, elapsed_days + 1) when d > elapsed_days (a successful
///              review never gets an interval shorter than the last one)
///   lower    = min(lower, upper)
/// with d first capped at max_interval; intervals under 2.5 days are not
/// fuzzed. The pick is floor(lower + f·(upper − lower + 1)) for a factor f in
/// [0, 1) (Anki's `with_review_fuzz`, ts-fsrs's `apply_fuzz`).
///
/// The factor is not random but a hash of the card id and its review count
/// (fuzz_factor below): the same card at the same review gets the same
/// interval on every platform and every run, and a replay (reschedule) of a
/// fuzzed history reproduces it. The hash is SplitMix64 (Steele, Lea, Flood
/// 2014), written out here, not a std:: distribution (whose output differs
/// between standard libraries). Anki draws f from the card id and reps; so
/// the fuzzed days of the two differ, their ranges do not.
///
/// ts-fsrs (5.4) draws f as the first output of Johannes Baagøe's Alea
/// generator seeded with the string "TIME_REPS_MUL" (review time in ms, the
/// card's reps including this review, its D·S before the review, each as
/// JavaScript prints a number). ts_fsrs_fuzz_factor below computes the same
/// f, bit for bit: Alea and its Mash hash are written out here in double
/// arithmetic as JavaScript evaluates them (each product rounded on its own,
/// never fused into a multiply-add), and js_number_string prints a double as
/// JavaScript's Number.prototype.toString does. compat::TsFsrs::ts_fsrs_fuzz
/// makes Scheduler<compat::TsFsrs> fuzz with it, so fuzzed due dates equal
/// ts-fsrs's.
#pragma once

#include <algorithm>     // std::min, std::max
#include <charconv>      // std::to_chars, std::chars_format
#include <cmath>         // std::floor, std::round, std::fmod, std::isfinite
#include <cstdint>       // std::int32_t, std::int64_t, std::uint64_t
#include <string>        // std::string, std::to_string
#include <string_view>   // std::string_view
#include <system_error>  // std::errc

#include <srs/core/error.hpp>  // srs::UsageError

namespace srs::sched {

/// The inclusive range [lower, upper] a fuzzed interval is drawn from.
struct FuzzRange {
  std::int32_t lower = 0;
  std::int32_t upper = 0;
};

/// One round of SplitMix64 (its output function applied to x + golden gamma).
constexpr std::uint64_t splitmix64(std::uint64_t x) noexcept {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

/// The fuzz factor of a card's review, in [0, 1): the top 53 bits of
/// splitmix64(splitmix64(card_id) XOR reps) as a double, where reps counts the
/// card's reviews including this one. Exact and identical on every platform.
constexpr double fuzz_factor(std::int64_t card_id, std::int32_t reps) noexcept {
  const std::uint64_t h =
      splitmix64(splitmix64(static_cast<std::uint64_t>(card_id)) ^ static_cast<std::uint64_t>(static_cast<std::int64_t>(reps)));
  return static_cast<double>(h >> 11) * 0x1.0p-53;
}

/// Anki's fuzz delta: 1 day plus each band's share of `interval` times its
/// factor (15 % in [2.5, 7), 10 % in [7, 20), 5 % from 20 days); 0 under 2.5 days.
inline double fuzz_delta(double interval) noexcept {
  if (interval < 2.5) return 0.0;
  struct Band {
    double start, end, factor;
  };
  constexpr Band bands[] = {{2.5, 7.0, 0.15}, {7.0, 20.0, 0.10}, {20.0, 1e300, 0.05}};
  double delta = 1.0;
  for (const Band& b : bands) delta += b.factor * std::max(std::min(interval, b.end) - b.start, 0.0);
  return delta;
}

/// The fuzz range of a rounded interval (days >= 1) after `elapsed_days`
/// days, capped at max_interval (see the file comment).
/// @throws UsageError for interval < 1, elapsed_days < 0 or max_interval < 1
inline FuzzRange fuzz_range(std::int32_t interval, std::int32_t elapsed_days, std::int32_t max_interval) {
  if (interval < 1) throw UsageError("fuzz_range: interval must be at least 1 day, got " + std::to_string(interval));
  if (elapsed_days < 0) throw UsageError("fuzz_range: elapsed_days must be >= 0, got " + std::to_string(elapsed_days));
  if (max_interval < 1)
    throw UsageError("fuzz_range: max_interval must be at least 1 day, got " + std::to_string(max_interval));
  const double delta = fuzz_delta(static_cast<double>(interval));
  const double d = static_cast<double>(std::min(interval, max_interval));
  // round() of a positive value: halves away from zero, as JavaScript's Math.round for positives.
  std::int32_t lower = std::max<std::int32_t>(2, static_cast<std::int32_t>(std::round(d - delta)));
  const std::int32_t upper = std::min(static_cast<std::int32_t>(std::round(d + delta)), max_interval);
  if (d > elapsed_days) lower = std::max(lower, elapsed_days + 1);
  lower = std::min(lower, upper);
  return {lower, upper};
}

/// The fuzzed interval: `interval` itself under 2.5 days, otherwise
/// floor(lower + factor·(upper − lower + 1)) in fuzz_range(interval, elapsed_days, max_interval).
/// @throws UsageError for a factor outside [0, 1) or the arguments fuzz_range rejects
inline std::int32_t fuzz_interval(std::int32_t interval, std::int32_t elapsed_days, std::int32_t max_interval,
                                  double factor) {
  if (!(factor >= 0.0 && factor < 1.0)) throw UsageError("fuzz factor must be in [0, 1), got " + std::to_string(factor));
  const FuzzRange range = fuzz_range(interval, elapsed_days, max_interval);
  if (interval < 2.5) return interval;
  const double span = static_cast<double>(range.upper - range.lower + 1);
  const auto picked = static_cast<std::int32_t>(std::floor(factor * span + static_cast<double>(range.lower)));
  return std::min(picked, range.upper);  // factor < 1 keeps it inside; the min guards rounding
}

/// A double as JavaScript's Number.prototype.toString prints it (ECMAScript
/// Number::toString, radix 10): the shortest digits that read back to the
/// same double; plain decimal for 1e-7 <= |x| < 1e21 ("0.000001",
/// "123.456", "100"), otherwise exponent form ("1e-7", "1.5e+21"); "0" for
/// ±0, "NaN", "Infinity", "-Infinity".
inline std::string js_number_string(double x) {
  if (x != x) return "NaN";
  if (x == 0) return "0";
  if (!std::isfinite(x)) return x < 0 ? "-Infinity" : "Infinity";
  std::string out = x < 0 ? "-" : "";
  // The shortest round-trip digits in scientific form: "d.ddde±XX".
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x < 0 ? -x : x, std::chars_format::scientific);
  if (ec != std::errc{}) throw UsageError("js_number_string: cannot print the number");
  const std::string_view sci(buf, static_cast<std::size_t>(end - buf));
  const std::size_t e_at = sci.find('e');
  std::string digits(1, sci[0]);
  if (e_at > 1) digits.append(sci.substr(2, e_at - 2));  // the digits after the point
  const int exponent = std::stoi(std::string(sci.substr(e_at + 1)));
  const int k = static_cast<int>(digits.size());
  const int n = exponent + 1;  // x = 0.digits × 10^n
  if (k <= n && n <= 21) {
    out += digits;
    out.append(static_cast<std::size_t>(n - k), '0');
  } else if (0 < n && n <= 21) {
    out += digits.substr(0, static_cast<std::size_t>(n));
    out += '.';
    out += digits.substr(static_cast<std::size_t>(n));
  } else if (-6 < n && n <= 0) {
    out += "0.";
    out.append(static_cast<std::size_t>(-n), '0');
    out += digits;
  } else {
    out += digits[0];
    if (k > 1) {
      out += '.';
      out += digits.substr(1);
    }
    out += 'e';
    out += n - 1 < 0 ? '-' : '+';
    out += std::to_string(n - 1 < 0 ? 1 - n : n - 1);
  }
  return out;
}

namespace detail {

/// A product rounded to double on its own: the volatile store keeps a
/// compiler from fusing it with a following addition (-ffp-contract=fast with
/// FMA), which JavaScript never does.
inline double rounded(double x) noexcept {
  volatile double v = x;
  return v;
}

/// ECMAScript ToUint32 of a finite non-negative double.
inline double to_uint32(double x) noexcept { return std::fmod(std::floor(x), 4294967296.0); }

/// Baagøe's Mash hash, with its running state (one Mash serves a whole Alea seeding).
class Mash {
 public:
  double operator()(std::string_view data) noexcept {
    for (const char ch : data) {
      n_ += static_cast<double>(static_cast<unsigned char>(ch));
      double h = rounded(0.02519603282416938 * n_);
      n_ = to_uint32(h);
      h -= n_;
      h = rounded(h * n_);
      n_ = to_uint32(h);
      h -= n_;
      n_ += h * 4294967296.0;  // a power of two: exact, fused or not
    }
    return to_uint32(n_) * 2.3283064365386963e-10;
  }

 private:
  double n_ = 4022871197.0;
};

}  // namespace detail

/// Baagøe's Alea generator (as ts-fsrs's alea(seed)), seeded with a string.
class Alea {
 public:
  explicit Alea(std::string_view seed) noexcept {
    detail::Mash mash;
    s0_ = mash(" ");
    s1_ = mash(" ");
    s2_ = mash(" ");
    s0_ -= mash(seed);
    if (s0_ < 0) s0_ += 1;
    s1_ -= mash(seed);
    if (s1_ < 0) s1_ += 1;
    s2_ -= mash(seed);
    if (s2_ < 0) s2_ += 1;
  }

  /// The next output, in [0, 1).
  double next() noexcept {
    const double t = detail::rounded(2091639.0 * s0_) + detail::rounded(c_ * 2.3283064365386963e-10);
    s0_ = s1_;
    s1_ = s2_;
    c_ = std::floor(t);  // JavaScript's t | 0 for 0 <= t < 2^31
    s2_ = t - c_;
    return s2_;
  }

 private:
  double c_ = 1, s0_ = 0, s1_ = 0, s2_ = 0;
};

/// ts-fsrs's fuzz seed (its DefaultInitSeedStrategy): "TIME_REPS_MUL" with
/// the review time in ms, the card's reps including this review and the
/// card's D·S before it (0 for a new card), each printed as JavaScript does.
inline std::string ts_fsrs_fuzz_seed(std::int64_t review_time_ms, std::int32_t reps, double d_times_s) {
  return std::to_string(review_time_ms) + "_" + std::to_string(reps) + "_" + js_number_string(d_times_s);
}

/// ts-fsrs's fuzz factor of a review: the first output of Alea(ts_fsrs_fuzz_seed(...)), in [0, 1).
inline double ts_fsrs_fuzz_factor(std::int64_t review_time_ms, std::int32_t reps, double d_times_s) {
  return Alea(ts_fsrs_fuzz_seed(review_time_ms, reps, d_times_s)).next();
}

}  // namespace srs::sched
