// SPDX-License-Identifier: MIT
// The C++ half of the ctest crosscheck.ts_fsrs_lifecycle (tests/tools/ts_fsrs_lifecycle.sh):
// replays the reviews that tests/tools/ts_fsrs_lifecycle.mjs scripted through ts-fsrs, with
// srs::sched::Scheduler<compat::TsFsrs> and Scheduler<models::Fsrs6> under the same options
// (learning steps 1 min and 10 min, rollover 0, offset 0, and each parameter set's options:
// relearning steps (10 min, or 10 and 30 min, where ts-fsrs's clipParameters lowers w17 and w18),
// maximum interval (where ts-fsrs caps before its Hard < Good < Easy ordering), enable_short_term
// (off: ts-fsrs's long-term scheduler, TsFsrs::enable_short_term) and fuzz (ts-fsrs's Alea draw,
// TsFsrs::ts_fsrs_fuzz)), and compares after every review (and every repeat() outcome the
// script wrote):
//   * Scheduler<compat::TsFsrs>: due (ms), state, step, reps, lapses, S, D, scheduled and elapsed
//     days and the retrievability before the review, all exactly; the card rollback() restores
//     (every 5th review of a card that was not new) and the card forget() gives, exactly;
//   * Scheduler<models::Fsrs6>, on the sets with short-term on and fuzz off (its own life cycle
//     and fuzz differ by design): state, step, reps, lapses and elapsed days exactly, S and D within
//     1e-6 relative or 1e-6 absolute (ts-fsrs rounds S to 8 decimals after every review: on a
//     card whose S has fallen to 0.004 days that alone is 1e-6 relative, and the roundings
//     accumulate), the retrievability within 1e-6 absolute; its dues and scheduled days are
//     counted where they differ (ts-fsrs rounds to 8 decimals, a half-day interval may round the
//     other way; under a maximum interval FSRS-6 caps after the ordering) and the count reported.
// Exit status 0 when everything agrees, 1 on the first 20 mismatches (each named by parameter
// set, card and review), 2 for bad input.
//
//   ts_fsrs_lifecycle FILE
#include <srs/models/fsrs.hpp>            // srs::models::Fsrs6
#include <srs/sched/card_scheduler.hpp>  // srs::sched::Scheduler, Card, Rating, CardState, Time
#include <srs/sched/compat.hpp>          // srs::sched::compat::TsFsrs

#include <algorithm>  // std::max
#include <array>      // std::array
#include <chrono>     // std::chrono::milliseconds, minutes
#include <cmath>      // std::abs
#include <cstdint>    // std::int64_t
#include <fstream>    // std::ifstream
#include <iostream>   // std::cout, std::cerr
#include <map>        // std::map
#include <sstream>    // std::istringstream, std::ostringstream
#include <string>     // std::string, std::getline
#include <utility>    // std::move
#include <vector>     // std::vector

namespace {

namespace sched = srs::sched;

/// A card's fields after a review, as ts-fsrs reported them.
struct Expected {
  std::int64_t due = 0;
  int state = 0, step = 0, reps = 0, lapses = 0;
  double s = 0, d = 0;
  int scheduled = 0, elapsed = 0;
};

std::istream& operator>>(std::istream& in, Expected& e) {
  return in >> e.due >> e.state >> e.step >> e.reps >> e.lapses >> e.s >> e.d >> e.scheduled >> e.elapsed;
}

struct Tally {
  long compared = 0;
  long mismatches = 0;
  long fsrs6_due_differs = 0;
  long fsrs6_compared = 0;
  double fsrs6_max_rel = 0;  ///< the largest relative difference of S or D
};

double rel_diff(double a, double b) { return a == b ? 0.0 : std::abs(a - b) / std::max(std::abs(a), std::abs(b)); }
bool close_fsrs6(double a, double b) { return std::abs(a - b) <= 1e-6 * std::max(std::abs(a), std::abs(b)) + 1e-6; }

/// Compares a card with ts-fsrs's fields; `exact`: compat::TsFsrs (all exact), else FSRS-6 (tolerances).
template <class M>
void compare(const sched::Card<M>& got, const Expected& want, bool exact, const std::string& where, Tally& tally) {
  std::ostringstream bad;
  bad.precision(17);
  auto mismatch = [&](const char* field, auto ours, auto theirs) {
    bad << "\n  " << field << ": srs " << ours << ", ts-fsrs " << theirs;
  };
  if (static_cast<int>(got.state) != want.state) mismatch("state", static_cast<int>(got.state), want.state);
  if (got.step != want.step) mismatch("step", got.step, want.step);
  if (got.reps != want.reps) mismatch("reps", got.reps, want.reps);
  if (got.lapses != want.lapses) mismatch("lapses", got.lapses, want.lapses);
  if (got.elapsed_days != want.elapsed) mismatch("elapsed_days", got.elapsed_days, want.elapsed);
  if (want.state == 0 && want.s == 0 && want.d == 0) {  // ts-fsrs's empty memory (new, forgotten)
    if (got.memory) mismatch("memory", got.memory->s, "none (S = D = 0)");
  } else if (!got.memory) {
    mismatch("memory", "none", want.s);
  } else if (exact) {
    if (got.memory->s != want.s) mismatch("S", got.memory->s, want.s);
    if (got.memory->d != want.d) mismatch("D", got.memory->d, want.d);
  } else {
    if (!close_fsrs6(got.memory->s, want.s)) mismatch("S", got.memory->s, want.s);
    if (!close_fsrs6(got.memory->d, want.d)) mismatch("D", got.memory->d, want.d);
    tally.fsrs6_max_rel =
        std::max({tally.fsrs6_max_rel, rel_diff(got.memory->s, want.s), rel_diff(got.memory->d, want.d)});
  }
  const std::int64_t due = got.due.time_since_epoch().count();
  if (exact) {
    if (due != want.due) mismatch("due (ms)", due, want.due);
    if (got.scheduled_days != want.scheduled) mismatch("scheduled_days", got.scheduled_days, want.scheduled);
  } else {
    ++tally.fsrs6_compared;
    if (due != want.due || got.scheduled_days != want.scheduled) ++tally.fsrs6_due_differs;
  }
  ++tally.compared;
  if (!bad.str().empty()) {
    if (++tally.mismatches <= 20) std::cerr << where << (exact ? " [compat::TsFsrs]" : " [models::Fsrs6]") << bad.str() << '\n';
  }
}

void compare_r(double got, double want, bool exact, const std::string& where, Tally& tally) {
  const bool ok = exact ? got == want : std::abs(got - want) <= 1e-6;
  ++tally.compared;
  if (!ok && ++tally.mismatches <= 20) {
    std::ostringstream msg;
    msg.precision(17);
    msg << where << (exact ? " [compat::TsFsrs]" : " [models::Fsrs6]") << "\n  retrievability before: srs " << got
        << ", ts-fsrs " << want;
    std::cerr << msg.str() << '\n';
  }
}

template <class M>
struct Side {
  sched::Scheduler<M> scheduler;
  std::map<int, sched::Card<M>> cards;
  std::map<int, sched::ReviewLog<M>> logs;  ///< each card's latest review
  bool compared = true;                     ///< false: this side is not compared on this set
};

template <class M>
sched::SchedulerOptions<M> options_of(const std::array<double, 21>& w, double retention,
                                      const std::vector<std::chrono::minutes>& relearning, std::int32_t max_ivl,
                                      bool fuzz) {
  sched::SchedulerOptions<M> o;
  o.parameters = w;
  o.desired_retention = sched::DesiredRetention{retention};
  o.relearning_steps = relearning;
  o.maximum_interval = max_ivl;
  o.enable_fuzz = fuzz;
  return o;  // the other options: the defaults, ts-fsrs's
}

/// "10,30" -> {10 min, 30 min}; empty on a malformed list.
std::vector<std::chrono::minutes> minutes_of(const std::string& list) {
  std::vector<std::chrono::minutes> out;
  std::istringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    std::size_t used = 0;
    long m = 0;
    try {
      m = std::stol(item, &used);
    } catch (...) {
      return {};
    }
    if (used != item.size() || m <= 0) return {};
    out.emplace_back(m);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: ts_fsrs_lifecycle FILE (written by tests/tools/ts_fsrs_lifecycle.mjs)\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::cerr << "ts_fsrs_lifecycle: cannot read " << argv[1] << '\n';
    return 2;
  }
  std::map<int, Side<sched::compat::TsFsrs>> ts;
  std::map<int, Side<srs::models::Fsrs6>> f6;
  Tally tally;
  long reviews = 0, previews = 0, rollbacks = 0, forgets = 0;
  std::string line;
  std::size_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string kind;
    fields >> kind;
    if (kind == "set") {
      int k = 0;
      double retention = 0;
      std::string relearning_list;
      std::int32_t max_ivl = 0;
      int short_term = 0, fuzz = 0;
      std::array<double, 21> w{};
      fields >> k >> retention >> relearning_list >> max_ivl >> short_term >> fuzz;
      for (double& x : w) fields >> x;
      const std::vector<std::chrono::minutes> relearning = minutes_of(relearning_list);
      if (!fields || relearning.empty() || max_ivl < 1 || (short_term != 0 && short_term != 1) ||
          (fuzz != 0 && fuzz != 1)) {
        std::cerr << argv[1] << ":" << line_no << ": bad set line\n";
        return 2;
      }
      sched::compat::TsFsrs model;
      model.enable_short_term = short_term == 1;
      sched::Scheduler<sched::compat::TsFsrs> ts_scheduler{
          options_of<sched::compat::TsFsrs>(w, retention, relearning, max_ivl, fuzz == 1), model};
      // FSRS-6 (srs's own arithmetic, which does not clip) gets the parameters ts-fsrs schedules
      // with: clipped for the relearning steps, as Scheduler<TsFsrs> clips them.
      const std::array<double, 21> clipped = ts_scheduler.parameters();
      ts.emplace(k, Side<sched::compat::TsFsrs>{std::move(ts_scheduler), {}, {}, true});
      f6.emplace(k, Side<srs::models::Fsrs6>{sched::Scheduler<srs::models::Fsrs6>{options_of<srs::models::Fsrs6>(
                                                 clipped, retention, relearning, max_ivl, false)},
                                             {},
                                             {},
                                             short_term == 1 && fuzz == 0});
      continue;
    }
    if (kind == "f") {  // forget(card, TIME, RESET): compat::TsFsrs exactly, on both sides the card goes on
      int k = 0, card = 0, idx = 0, reset = 0;
      std::int64_t time_ms = 0;
      std::string bar;
      Expected want;
      fields >> k >> card >> idx >> time_ms >> reset >> bar >> want;
      if (!fields || bar != "|" || !ts.count(k) || !ts.at(k).cards.count(card) || (reset != 0 && reset != 1)) {
        std::cerr << argv[1] << ":" << line_no << ": bad line: " << line << '\n';
        return 2;
      }
      const sched::Time at{std::chrono::milliseconds(time_ms)};
      std::ostringstream where;
      where << "parameter set " << k << ", card " << card << ", review " << idx << " (forget at " << time_ms
            << " ms, reset " << reset << ")";
      auto forget = [&](auto& side, bool exact) {
        auto result = side.scheduler.forget(side.cards.at(card), at, reset == 1);
        side.cards.at(card) = result.card;
        side.logs.insert_or_assign(card, result.log);
        if (side.compared) compare(result.card, want, exact, where.str(), tally);
      };
      forget(ts.at(k), true);
      forget(f6.at(k), false);
      ++forgets;
      continue;
    }
    if (kind == "b") {  // rollback() of the card's latest review: compat::TsFsrs exactly
      int k = 0, card = 0, idx = 0;
      std::string bar;
      Expected want;
      fields >> k >> card >> idx >> bar >> want;
      if (!fields || bar != "|" || !ts.count(k) || !ts.at(k).logs.count(card)) {
        std::cerr << argv[1] << ":" << line_no << ": bad line: " << line << '\n';
        return 2;
      }
      Side<sched::compat::TsFsrs>& side = ts.at(k);
      std::ostringstream where;
      where << "parameter set " << k << ", card " << card << ", review " << idx << " (rollback)";
      compare(side.scheduler.rollback(side.cards.at(card), side.logs.at(card)), want, true, where.str(), tally);
      ++rollbacks;
      continue;
    }
    int k = 0, card = 0, idx = 0, rating = 0;
    std::int64_t time_ms = 0;
    double r_before = 0;
    std::string bar;
    Expected want;
    fields >> k >> card >> idx >> time_ms >> rating;
    if (kind == "r") fields >> r_before;
    fields >> bar >> want;
    if (!fields || bar != "|" || (kind != "r" && kind != "p") || !ts.count(k)) {
      std::cerr << argv[1] << ":" << line_no << ": bad line: " << line << '\n';
      return 2;
    }
    const sched::Time now{std::chrono::milliseconds(time_ms)};
    const auto g = sched::rating_from_int(rating);
    std::ostringstream where;
    where << "parameter set " << k << ", card " << card << ", review " << idx << " (time " << time_ms
          << " ms, rating " << rating << (kind == "p" ? ", preview" : "") << ")";
    auto run = [&](auto& side, bool exact) {
      auto it = side.cards.find(card);
      if (it == side.cards.end()) it = side.cards.emplace(card, side.scheduler.new_card(card, now)).first;
      if (kind == "p") {
        if (side.compared) compare(side.scheduler.preview(it->second, now)[g].card, want, exact, where.str(), tally);
      } else {
        if (side.compared)
          compare_r(side.scheduler.retrievability(it->second, now), r_before, exact, where.str(), tally);
        auto result = side.scheduler.review(it->second, g, now);
        it->second = result.card;
        side.logs.insert_or_assign(card, result.log);
        if (side.compared) compare(it->second, want, exact, where.str(), tally);
      }
    };
    run(ts.at(k), true);
    run(f6.at(k), false);
    (kind == "r" ? reviews : previews) += 1;
  }
  std::cout << "ts_fsrs_lifecycle: " << reviews << " reviews, " << previews << " preview outcomes, " << rollbacks
            << " rollbacks and " << forgets << " forgets of "
            << ts.size() << " parameter sets compared (" << tally.compared << " comparisons): "
            << tally.mismatches << " mismatches; models::Fsrs6's due differs from ts-fsrs's on "
            << tally.fsrs6_due_differs << " of " << tally.fsrs6_compared
            << " outcomes, its S and D by at most " << tally.fsrs6_max_rel << " (relative)\n";
  if (reviews == 0 || rollbacks == 0 || forgets == 0) {
    std::cerr << "ts_fsrs_lifecycle: no reviews, rollbacks or forgets in " << argv[1] << '\n';
    return 1;
  }
  return tally.mismatches == 0 ? 0 : 1;
}
