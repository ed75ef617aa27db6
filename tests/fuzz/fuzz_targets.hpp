// SPDX-License-Identifier: MIT
/// @file tests/fuzz/fuzz_targets.hpp
/// The bodies of the libFuzzer harnesses, shared by the fuzzers themselves
/// (tests/fuzz/*.fuzz.cpp built with -fsanitize=fuzzer by run_fuzz.sh) and by the
/// plain replay drivers the normal test build runs over the committed
/// regression inputs and seed corpus (tests/fuzz/replay_main.cpp).
///
/// Each target returns normally when the input was handled as the library
/// promises: a result, or one of the documented exceptions (srs::InputError for
/// bad CSV text, srs::NotEnoughData for too little data, srs::Error from the
/// equalize checks). Anything else (another exception, a broken invariant, a
/// crash or a sanitizer report) is a finding: invariants abort() with a message
/// so libFuzzer records the input.
#pragma once

#include <algorithm>    // std::min, std::count
#include <array>        // std::array
#include <cmath>        // std::isfinite
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint8_t, std::int32_t, std::int64_t
#include <cstdio>       // std::fprintf, stderr
#include <cstdlib>      // std::abort
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <srs/core/error.hpp>       // srs::InputError, srs::NotEnoughData, srs::NumericalError
#include <srs/data/csv.hpp>         // srs::data::parse_revlog_csv, format_revlog_csv
#include <srs/data/preprocess.hpp>  // srs::data::preprocess, PreprocessOptions
#include <srs/data/revlog.hpp>      // srs::data::Revlog, RevlogRow
#include <srs/data/tables.hpp>      // srs::data::parse_cards_csv, parse_decks_csv
#include <srs/eval/evaluator.hpp>   // srs::eval::StandardEvaluator
#include <srs/eval/report.hpp>      // srs::eval::result_line
#include <srs/models/avg.hpp>       // srs::models::Avg
#include <srs/models/fsrs.hpp>      // srs::models::Fsrs6

namespace srs_fuzz {

/// Stops the run with a message when an invariant does not hold (libFuzzer keeps the input).
inline void expect(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "srs fuzz invariant broken: %s\n", what);
    std::abort();
  }
}

inline bool same_rows(const srs::data::Revlog& a, const srs::data::Revlog& b) {
  if (a.rows.size() != b.rows.size()) return false;
  for (std::size_t k = 0; k < a.rows.size(); ++k) {
    const auto& x = a.rows[k];
    const auto& y = b.rows[k];
    if (x.card_id != y.card_id || x.day_offset != y.day_offset || x.rating != y.rating || x.state != y.state ||
        x.duration != y.duration || x.elapsed_days != y.elapsed_days || x.elapsed_seconds != y.elapsed_seconds)
      return false;
  }
  return true;
}

/// An InputError must point inside the text: line 0 (whole file) or an existing line.
inline void check_input_error(const srs::InputError& e, std::string_view text, const std::string& source) {
  expect(e.file() == source, "InputError names the source");
  expect(!e.message().empty(), "InputError has a message");
  const auto lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  expect(e.line() <= lines, "InputError line is within the text");
}

/// Target 1: arbitrary bytes as a revlogs CSV file (and as the cards and decks
/// tables). Valid text must survive a write/read round trip and respect the
/// reader's documented ranges and per-card consistency.
inline void csv_reader(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string source = "fuzz.csv";
  try {
    const srs::data::Revlog log = srs::data::parse_revlog_csv(text, source, "u");
    expect(!log.rows.empty(), "a parsed log has rows");
    for (std::size_t k = 0; k < log.rows.size(); ++k) {
      const auto& r = log.rows[k];
      expect(r.rating >= 0 && r.rating <= 4, "rating in 0..4");
      expect(r.state >= 0 && r.state <= 4, "state in 0..4");
      expect(r.day_offset >= 0 && r.duration >= 0, "day_offset and duration >= 0");
      expect(r.elapsed_days >= -1 && r.elapsed_seconds >= -1, "elapsed values >= -1");
      expect(k == 0 || r.day_offset >= log.rows[k - 1].day_offset, "chronological order");
    }
    const srs::data::Revlog back = srs::data::parse_revlog_csv(srs::data::format_revlog_csv(log), source, "u");
    expect(same_rows(log, back), "format_revlog_csv round trip");
  } catch (const srs::InputError& e) {
    check_input_error(e, text, source);
  }
  try {
    (void)srs::data::parse_cards_csv(text, source);
  } catch (const srs::InputError& e) {
    check_input_error(e, text, source);
  }
  try {
    (void)srs::data::parse_decks_csv(text, source);
  } catch (const srs::InputError& e) {
    check_input_error(e, text, source);
  }
}

/// Reads bytes one at a time; zeros once the input is used up.
class ByteReader {
 public:
  ByteReader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  bool empty() const { return pos_ >= size_; }
  std::uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  std::uint16_t u16() { return static_cast<std::uint16_t>(byte() | (byte() << 8)); }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

/// One review log decoded from bytes: 4 bytes per review. Consistent by
/// construction (elapsed values derived from each card's previous review), except
/// where a "corrupt" byte asks for an arbitrary field value, so that the reader's
/// checks and everything after them are both reached.
inline srs::data::Revlog decode_log(ByteReader& in, bool unvalidated) {
  srs::data::Revlog log;
  log.user = "fuzz";
  log.source = "fuzz.csv";
  std::array<std::int64_t, 64> last_day{};
  std::array<bool, 64> seen{};
  std::int32_t day = 0;
  while (!in.empty() && log.rows.size() < 4096) {
    const std::uint8_t b0 = in.byte();  // card (6 bits), corrupt flag, big-step flag
    const std::uint8_t b1 = in.byte();  // day step
    const std::uint8_t b2 = in.byte();  // rating (3 bits), state (2 bits)
    const std::uint8_t b3 = in.byte();  // seconds within the day
    const std::size_t card = b0 & 63u;  // cards 32..63 get large ids (the reader's sparse map)
    std::int64_t step = b1 & 7u;              // mostly 0..7 days
    if (b0 & 64u) step = std::int64_t{b1} * 150;  // or up to 38,250 days (the 36,500-day cap and beyond)
    if (day + step > 2000000000) step = 0;
    day += static_cast<std::int32_t>(step);
    srs::data::RevlogRow r;
    r.card_id = card < 32 ? static_cast<std::int64_t>(card) : static_cast<std::int64_t>(card) * 1000000007;
    r.day_offset = day;
    r.rating = b2 & 7u;
    if (r.rating > 4) r.rating -= 3;  // 5, 6, 7 -> 2, 3, 4: valid ratings are likelier
    r.state = (b2 >> 3) & 3u;
    r.duration = b3 * 100;
    if (seen[card]) {
      r.elapsed_days = static_cast<std::int32_t>(day - last_day[card]);
      r.elapsed_seconds = std::int64_t{r.elapsed_days} * 86400 + b3 * 300;
    }
    if ((b0 & 128u) && unvalidated) {
      // Arbitrary values for an unvalidated Revlog handed straight to preprocess().
      const std::uint16_t v = in.u16();
      switch (b3 & 3u) {
        case 0: r.rating = static_cast<std::int16_t>(v); break;
        case 1: r.elapsed_days = static_cast<std::int16_t>(v); break;
        case 2: r.elapsed_seconds = static_cast<std::int16_t>(v) * std::int64_t{1000003}; break;
        default: r.day_offset = static_cast<std::int16_t>(v); break;
      }
    } else if (b0 & 128u) {
      // A field the CSV reader must reject (or, for a same-day repeat, cannot tell apart).
      switch (b3 & 3u) {
        case 0: r.elapsed_days = seen[card] ? -1 : 3; break;
        case 1: r.rating = 5; break;
        case 2: r.elapsed_seconds = seen[card] ? -1 : 0; break;
        default: r.day_offset = day > 0 ? day - 1 : day; break;
      }
    }
    seen[card] = true;
    last_day[card] = day;
    log.rows.push_back(r);
  }
  return log;
}

/// No NaN or infinity in a result: metrics finite or null, parameters and predictions finite.
inline void check_result(const srs::eval::UserResult& r) {
  for (const auto& [name, v] : r.metrics) expect(!v || std::isfinite(*v), "finite metric");
  for (const auto& [part, w] : r.parameters)
    for (double x : w) expect(std::isfinite(x), "finite parameter");
  for (const auto& p : r.predictions) expect(p.p >= 0 && p.p <= 1, "prediction in [0, 1]");
  const std::string line = srs::eval::result_line(r);
  expect(line.find("NaN") == std::string::npos && line.find("Infinity") == std::string::npos,
         "no NaN or Infinity in the result line");
}

/// Target 2: the whole pipeline on arbitrary rows. The first two bytes pick the
/// pipeline flags; the rest are reviews (decode_log). The log goes through CSV
/// text and the reader (or, with the "unvalidated" flag, straight to
/// preprocess() as an app's own Revlog would), then preprocess() and the
/// evaluation of AVG and FSRS-6 with the benchmark's protocol. FSRS-6 runs with
/// its default parameters, or with the "S0" flag with the initial-stability fit
/// (srs-bench --S0); full gradient training costs ~40 ms per input under the
/// sanitizers, too slow for millions of executions, and is covered by the
/// extreme-history tests instead (tests/eval/extreme_histories.test.cpp).
inline void pipeline(const std::uint8_t* data, std::size_t size) {
  ByteReader in(data, size);
  const std::uint8_t flags = in.byte();
  srs::data::PreprocessOptions po;
  po.short_term = flags & 1u;
  po.secs = flags & 2u;
  po.two_buttons = flags & 4u;
  po.equalize_test_with_non_secs = po.secs && (flags & 8u);
  po.outlier_filter = !(flags & 16u);
  const bool unvalidated = flags & 32u;
  const bool fit_s0 = flags & 64u;
  const bool float64 = flags & 128u;
  const std::uint8_t more = in.byte();
  // max_seq_len 64 (the reference's), or 1, 3 or 8 so that the per-card cap of
  // 2 * max_seq_len reviews is reached by small inputs too.
  constexpr std::size_t seq_lens[] = {64, 1, 3, 8};
  po.max_seq_len = seq_lens[more & 3u];
  const bool all_metrics = more & 4u;

  srs::data::Revlog log = decode_log(in, unvalidated);
  if (!unvalidated) {
    const std::string text = srs::data::format_revlog_csv(log);
    try {
      log = srs::data::parse_revlog_csv(text, "fuzz.csv", "fuzz");
    } catch (const srs::InputError& e) {
      check_input_error(e, text, "fuzz.csv");
      return;
    }
  }
  srs::data::Dataset ds;
  try {
    ds = srs::data::preprocess(log, po);
  } catch (const srs::NotEnoughData&) {
    return;
  } catch (const srs::NumericalError&) {
    expect(false, "preprocess threw NumericalError");
  } catch (const srs::Error&) {
    expect(po.equalize_test_with_non_secs, "only the equalize checks throw srs::Error");
    return;
  }
  expect(ds.items.size() >= po.min_rows, "at least min_rows rows");
  for (const auto& it : ds.items) {
    expect(it.hist_len > 0, "a row has a history (its card's first review comes before it)");
    expect(it.hist_begin + it.hist_len <= ds.steps.size(), "history inside the steps");
    expect(it.delta_t > 0 && std::isfinite(it.delta_t), "delta_t > 0 and finite");
    expect(it.y == 0 || it.y == 1, "y is 0 or 1");
  }

  srs::eval::EvalOptions eo;
  eo.precision = float64 ? srs::eval::Precision::float64 : srs::eval::Precision::float32;
  // AVG with two metrics, FSRS-6 with the metrics of the result files (they cost
  // more than the models here).
  try {
    check_result(srs::eval::Evaluator<srs::models::Avg, srs::eval::ReferenceSplit, srs::eval::LogLoss, srs::eval::Auc>(
                     {}, {}, eo)
                     .run(ds));
  } catch (const srs::NotEnoughData&) {
    return;
  }
  eo.train.mode = fit_s0 ? srs::optim::TrainMode::initialize_only : srs::optim::TrainMode::defaults;
  srs::models::Fsrs6 fsrs;
  fsrs.secs = po.secs;
  if (all_metrics) {
    check_result(srs::eval::StandardEvaluator<srs::models::Fsrs6>(fsrs, {}, eo).run(ds));
  } else {
    // Without ICI and the calibration graph, whose smoothing is the costliest part.
    using namespace srs::eval;
    check_result(Evaluator<srs::models::Fsrs6, ReferenceSplit, LogLoss, RmseBins, Auc, Rmse, Mbe>(fsrs, {}, eo).run(ds));
  }
}

}  // namespace srs_fuzz
