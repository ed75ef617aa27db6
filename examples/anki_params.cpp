// SPDX-License-Identifier: MIT
// Import my Anki collection and print my FSRS-6 parameters and calibration:
// the collection's reviews go through the dataset builder's rules
// (srs::anki::read_collection), FSRS-6 is trained on all of them
// (srs::sched::fit), and the benchmark's time-series protocol gives
// out-of-sample predictions whose metrics and calibration graph are printed.
// Built only with the anki component (SQLite 3).
//
//   anki_params collection.anki2 [--rollover H] [--utc-offset MINUTES]
//
// Without --rollover/--utc-offset the day boundary is the collection's creation
// time (as ../shared/data/real was built); with either, the local day starting
// at the rollover hour (default: the collection's) in the given UTC offset
// (default: the one at creation).
#include <srs/anki/collection.hpp>  // srs::anki::read_collection, CollectionOptions
#include <srs/sched/fit.hpp>        // srs::sched::fit

#include <srs/core/error.hpp>           // srs::UsageError
#include <srs/data/preprocess.hpp>      // srs::data::preprocess
#include <srs/data/revlog_builder.hpp>  // srs::data::DayBoundary
#include <srs/eval/calibration.hpp>     // srs::eval::CalibrationGraph
#include <srs/eval/evaluator.hpp>       // srs::eval::StandardEvaluator
#include <srs/models/fsrs.hpp>          // srs::models::Fsrs6

#include <cstdint>  // std::int32_t
#include <cstdio>   // std::printf, std::fprintf
#include <cstdlib>  // std::strtol
#include <string>   // std::string

int main(int argc, char** argv) try {
  if (argc < 2) {
    std::fprintf(stderr, "usage: anki_params collection.anki2 [--rollover H] [--utc-offset MINUTES]\n");
    return 2;
  }
  srs::anki::CollectionOptions options;
  for (int k = 2; k < argc; k += 2) {
    const std::string flag = argv[k];
    if (flag != "--rollover" && flag != "--utc-offset") throw srs::UsageError("unknown argument '" + flag + "'");
    if (k + 1 == argc) throw srs::UsageError(flag + " needs a value");
    char* end = nullptr;
    const long value = std::strtol(argv[k + 1], &end, 10);
    if (end == argv[k + 1] || *end != '\0' || value < -1440 || value > 1440)
      throw srs::UsageError(flag + ": '" + argv[k + 1] + "' is not a whole number of hours / minutes");
    options.day_mode = srs::data::DayBoundary::Mode::rollover;  // checked by read_collection
    (flag == "--rollover" ? options.rollover_hour : options.utc_offset_minutes) = static_cast<std::int32_t>(value);
  }

  // [anki]
  const srs::anki::Collection c = srs::anki::read_collection(argv[1], options);
  const srs::sched::FitResult<21> fitted = srs::sched::fit(c.revlog);
  // [anki]
  const bool from_creation = c.days.mode == srs::data::DayBoundary::Mode::creation_time;
  std::printf("%s: schema %d, %zu reviews of %zu cards; days start at %d h, UTC%+d min (%s)\n", argv[1],
              c.schema_version, c.revlog.rows.size(), c.info.card_ids.size(),
              from_creation ? c.rollover_hour : c.days.rollover_hour,
              from_creation ? c.creation_offset_minutes : c.days.utc_offset_minutes,
              from_creation ? "the collection's creation time" : "given");
  std::printf("FSRS-6 parameters (%s, %zu items):\n ", srs::sched::outcome_name(fitted.outcome), fitted.items);
  for (double x : fitted.params) std::printf(" %.4f", x);
  std::printf("\n");

  // Out-of-sample predictions of the benchmark's protocol (5-fold time series).
  const srs::data::Dataset ds = srs::data::preprocess(c.revlog, {.short_term = true});
  const srs::eval::StandardEvaluator<srs::models::Fsrs6> evaluator;
  const srs::eval::UserResult r = evaluator.run(ds);
  std::printf("%zu evaluated reviews: LogLoss %.4f, RMSE(bins) %.4f, AUC %.4f\n", r.size,
              r.metric("LogLoss").value_or(0), r.metric("RMSE(bins)").value_or(0), r.metric("AUC").value_or(0));
  srs::eval::CalibrationGraph<> graph;
  for (const srs::Prediction& p : r.predictions) graph.add(p.p, p.y);
  const srs::eval::CalibrationData cal = graph.data();
  std::printf("calibration (predicted vs observed recall; MAE %.4f):\n", cal.mae().value_or(0));
  std::printf("  %-13s %7s %9s %9s\n", "predicted", "reviews", "mean p", "observed");
  const double width = 1.0 / static_cast<double>(cal.bins.size());
  for (std::size_t b = 0; b < cal.bins.size(); ++b) {
    if (cal.bins[b].count == 0) continue;
    std::printf("  [%.3f,%.3f) %7zu %9.4f %9.4f\n", b * width, (b + 1) * width, cal.bins[b].count, cal.bins[b].mean_p,
                cal.bins[b].mean_y);
  }
  return 0;
} catch (const srs::UsageError& e) {
  std::fprintf(stderr, "anki_params: %s\nusage: anki_params collection.anki2 [--rollover H] [--utc-offset MINUTES]\n",
               e.what());
  return 2;
} catch (const std::exception& e) {
  std::fprintf(stderr, "anki_params: %s\n", e.what());
  return 1;
}
