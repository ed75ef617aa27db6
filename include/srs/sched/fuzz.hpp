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
/// between standard libraries). ts-fsrs draws f from its Alea generator seeded
/// with the review time, reps and S·D; Anki from the card id and reps; so the
/// fuzzed days of the three libraries differ, their ranges do not.
#pragma once

#include <algorithm>  // std::min, std::max
#include <cmath>      // std::floor, std::round
#include <cstdint>    // std::int32_t, std::int64_t, std::uint64_t
#include <string>     // std::to_string

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

}  // namespace srs::sched
