// SPDX-License-Identifier: MIT
// A minimal flashcard-app loop with srs: load the app's review log, train the
// user's FSRS-6 parameters on it in-process (with progress and a cancel flag),
// then schedule: each card's memory state, its recall probability today, its
// next due day, and the four outcomes of the most overdue card.
//
//   flashcard_app                # a review log simulated here (60 days, 20 cards a day)
//   flashcard_app reviews.csv    # the app's log: card_id,time_ms,rating[,...] (header line, rows in any order)
//
// The day boundary is the app's: a new day starts at 04:00 local time, here UTC+1.
#include <srs/sched/fit.hpp>        // srs::sched::fit, FitOptions, Review, revlog_from_reviews
#include <srs/sched/scheduler.hpp>  // srs::sched::memory_state, retrievability, next_interval, next_states

#include <srs/core/error.hpp>  // srs::InputError
#include <srs/data/revlog.hpp>  // srs::data::Revlog
#include <srs/models/fsrs.hpp>  // srs::models::Fsrs6

#include <algorithm>  // std::sort, std::min
#include <atomic>     // std::atomic
#include <cstddef>    // std::size_t
#include <cstdint>    // std::int64_t, std::uint64_t
#include <cstdio>     // std::printf, std::fprintf
#include <fstream>    // std::ifstream
#include <map>        // std::map
#include <optional>   // std::nullopt
#include <sstream>    // std::istringstream
#include <string>     // std::string, std::getline, std::char_traits
#include <vector>     // std::vector

namespace {

/// The app's log from a CSV file whose first three columns are card_id,time_ms,rating
/// (a header line; more columns are ignored, so an Anki export revlog_anki.csv
/// -- card_id,review_time,review_rating,... -- reads as it is).
/// @throws srs::InputError naming the file and line of the first bad row
std::vector<srs::sched::Review> load_reviews(const char* path) {
  std::ifstream in(path);
  if (!in) throw srs::InputError(path, 0, "", "cannot open the file");
  std::vector<srs::sched::Review> out;
  std::string line;
  std::getline(in, line);  // header
  for (std::size_t number = 2; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    srs::sched::Review r;
    char comma1 = 0, comma2 = 0;
    std::istringstream f(line);
    if (!(f >> r.card_id >> comma1 >> r.time_ms >> comma2 >> r.rating) || comma1 != ',' || comma2 != ',' ||
        (f.peek() != ',' && f.peek() != std::char_traits<char>::eof()))
      throw srs::InputError(path, number, "", "expected card_id,time_ms,rating, got '" + line + "'");
    out.push_back(r);
  }
  return out;
}

/// A learner simulated with FSRS-6 at made-up "true" parameters: 20 new cards a
/// day for 60 days, each reviewed between 0.5 and 1.5 times its interval after
/// the previous review, recalled with the true probability.
std::vector<srs::sched::Review> simulate_reviews() {
  const srs::models::Fsrs6 fsrs;
  auto truth = fsrs.default_params();
  truth[20] = 0.3;  // this learner forgets a bit faster than the defaults say
  std::uint64_t seed = 12345;
  auto uniform = [&seed] {  // splitmix64
    std::uint64_t z = (seed += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return static_cast<double>((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
  };
  const std::int64_t start_ms = 1'704'099'600'000;  // 2024-01-01 09:00 UTC
  std::vector<srs::sched::Review> out;
  for (int card = 0; card < 1200; ++card) {
    int day = card / 20;
    auto next = srs::sched::next_states(fsrs, truth, std::nullopt, srs::sched::DesiredRetention{0.9}, srs::sched::ElapsedDays{0});
    int rating = uniform() < 0.3 ? 1 : 3;
    while (day < 60) {
      out.push_back({card, start_ms + day * 86'400'000LL + card * 1000LL, rating});
      const auto& now = next[rating];
      const int interval = std::max(1, static_cast<int>(now.interval * (0.5 + uniform())));
      const double p = srs::sched::retrievability(fsrs, truth, now.memory, interval);
      const double u = uniform();
      rating = u >= p ? 1 : u < 0.15 * p ? 2 : u > 0.9 * p ? 4 : 3;
      next = srs::sched::next_states(fsrs, truth, now.memory, srs::sched::DesiredRetention{0.9},
                                     srs::sched::ElapsedDays{double(interval)});
      day += interval;
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) try {
  // 1. The app's review log (card, time, rating) and its revlog table.
  const std::vector<srs::sched::Review> reviews = argc > 1 ? load_reviews(argv[1]) : simulate_reviews();
  const srs::data::Revlog log = srs::sched::revlog_from_reviews(reviews, {.rollover_hour = 4, .utc_offset_minutes = 60});

  // 2. Train the user's parameters in-process. Another thread may set `stop`.
  // [fit]
  std::atomic<bool> stop{false};
  srs::sched::FitOptions options;
  options.cancel = &stop;
  options.progress = [](const srs::sched::FitProgress& p) {
    if (p.total > 0 && p.step % 10 == 0) std::fprintf(stderr, "\rtraining %zu/%zu", p.step, p.total);
    return true;  // false cancels
  };
  const srs::sched::FitResult<21> fitted = srs::sched::fit(log, options);
  const auto& w = fitted.params;
  // [fit]
  std::fprintf(stderr, "\n");
  std::printf("%zu reviews, %zu training items: %s\nparameters:", reviews.size(), fitted.items,
              srs::sched::outcome_name(fitted.outcome));
  for (double x : w) std::printf(" %.4f", x);
  std::printf("\n");

  // 3. Schedule every card from its history: {days since previous review, rating}.
  // [schedule]
  const srs::models::Fsrs6 fsrs;
  std::map<std::int64_t, std::vector<srs::data::Step>> history;  // card -> its reviews
  std::map<std::int64_t, int> last_day;                             // card -> day of its last review
  int today = 0;
  for (const srs::data::RevlogRow& r : log.rows) {
    history[r.card_id].push_back({r.elapsed_days < 0 ? 0.0 : double(r.elapsed_days), r.rating});
    last_day[r.card_id] = r.day_offset;
    today = std::max(today, r.day_offset);
  }
  struct Due {
    std::int64_t card;
    int due_day;
    double recall_now;
  };
  std::vector<Due> due;
  for (const auto& [card, steps] : history) {
    const auto state = srs::sched::memory_state(fsrs, w, steps);
    const int interval = srs::sched::next_interval(fsrs, w, state, 0.9);  // desired retention 90%
    const double r = srs::sched::retrievability(fsrs, w, state, today - last_day[card]);
    due.push_back({card, last_day[card] + interval, r});
  }
  // [schedule]
  std::sort(due.begin(), due.end(), [](const Due& a, const Due& b) { return a.due_day < b.due_day; });
  std::printf("today is day %d; the first due cards, most overdue first:\n", today);
  for (std::size_t k = 0; k < std::min<std::size_t>(5, due.size()); ++k)
    std::printf("  card %lld due on day %d, P(recall) today %.3f\n", static_cast<long long>(due[k].card),
                due[k].due_day, due[k].recall_now);

  // 4. The four outcomes of reviewing the first due card today.
  // [next_states]
  const std::int64_t card = due.front().card;
  const auto state = srs::sched::memory_state(fsrs, w, history[card]);
  const auto next = srs::sched::next_states(fsrs, w, state, srs::sched::DesiredRetention{0.9},
                                             srs::sched::ElapsedDays{double(today - last_day[card])});
  for (int rating = 1; rating <= 4; ++rating)
    std::printf("  rating %d -> stability %.2f, difficulty %.2f, next review in %d days\n", rating,
                next[rating].memory.s, next[rating].memory.d, next[rating].interval);
  // [next_states]
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "flashcard_app: %s\n", e.what());
  return 1;
}
