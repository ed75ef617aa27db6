// SPDX-License-Identifier: MIT
// scheduler_replay: the C++ side of bench/scheduler_crosscheck.sh. Replays
// every card of a revlogs CSV through srs's scheduler API (srs/sched/
// scheduler.hpp) with three FSRS-6 models, srs::models::Fsrs6 (the
// benchmark's, double: "srs"), sched::compat::FsrsRsF32 (fsrs-rs's f32
// arithmetic: "rs") and sched::compat::TsFsrs (ts-fsrs's: "ts"), and prints,
// as JSON lines, what bench/scheduler_crosscheck.mjs compares with fsrs-rs and
// ts-fsrs:
//
//   scheduler_replay revlogs.csv [--retention 0.7,0.8,0.9,0.95]
//
// Line 1: {"dataset", "retentions", "params": {"defaults": w, "fitted": w},
//          "fit": {outcome, items, clipped}}
//   "fitted" is srs::sched::fit on the whole log (FSRS-6, benchmark rules),
//   then clipped to the bounds all three libraries accept as given (w0..w3 >=
//   0.1: ts-fsrs floors the initial stability there; w19 >= 0.01: ts-fsrs's
//   clip with short-term scheduling on), "clipped" naming what moved.
// Then one line per card (cards in id order):
//   {"c": card, "t": [days since previous review ...], "g": [ratings ...],
//    "v": {"defaults": {"srs": rows, "rs": rows, "ts": rows}, "fitted": {...}}}
//   where row k, for review k of the card given the state the model left after
//   reviews 0..k-1 (none for k = 0), is
//     [R, S1, D1, S2, D2, S3, D3, S4, D4, I(r0, 1..4), I(r1, 1..4), ...]
//   R = retrievability at t_k (null for k = 0), (Si, Di) = next_states' state
//   for rating i, I(r, i) = its interval at desired retention r (max 36500).
//   The state carried to review k+1 is the one of the actual rating g_k; the
//   tool checks that it equals memory_state of the history 0..k (exit 1 if not).
//
// Intervals are the card's elapsed_days (whole days between day offsets); the
// first review's is 0. All rows of the card are used (same-day reviews too).
#include <srs/data/csv.hpp>         // srs::data::read_revlog_csv
#include <srs/data/dataset.hpp>     // srs::data::Step
#include <srs/detail/json.hpp>      // srs::detail::json::Value, Array, Object, dump
#include <srs/models/fsrs.hpp>      // srs::models::Fsrs6
#include <srs/sched/compat.hpp>     // srs::sched::compat::FsrsRsF32, TsFsrs
#include <srs/sched/fit.hpp>        // srs::sched::fit
#include <srs/sched/scheduler.hpp>  // srs::sched::next_states, memory_state, retrievability

#include <algorithm>  // std::max, std::stable_sort
#include <array>      // std::array
#include <cstdio>     // std::printf, std::fprintf, std::fputs
#include <cstdlib>    // std::strtod
#include <map>        // std::map
#include <optional>   // std::optional
#include <sstream>    // std::istringstream
#include <string>     // std::string
#include <vector>     // std::vector

namespace {

namespace json = srs::detail::json;
using srs::models::Fsrs6;
using State = srs::sched::MemoryState<Fsrs6>;  // the same FsrsState<double> for the three models

std::vector<double> parse_list(const std::string& s) {
  std::vector<double> out;
  std::istringstream in(s);
  for (std::string item; std::getline(in, item, ',');) out.push_back(std::strtod(item.c_str(), nullptr));
  return out;
}

json::Array to_array(const std::array<double, 21>& w) {
  json::Array a;
  for (double x : w) a.emplace_back(x);
  return a;
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 2) {
    std::fprintf(stderr, "usage: scheduler_replay revlogs.csv [--retention 0.7,0.8,0.9,0.95]\n");
    return 2;
  }
  std::vector<double> retentions{0.7, 0.8, 0.9, 0.95};
  for (int k = 2; k + 1 < argc; k += 2)
    if (std::string(argv[k]) == "--retention") retentions = parse_list(argv[k + 1]);

  const srs::data::Revlog log = srs::data::read_revlog_csv(argv[1]);
  const Fsrs6 fsrs;

  // The parameter sets: the defaults, and srs's fit on the whole log, clipped to the common bounds.
  const auto fitted = srs::sched::fit(log);
  std::array<double, 21> common = fitted.params;
  json::Array clipped;
  for (std::size_t k = 0; k < 4; ++k)
    if (common[k] < 0.1) {
      clipped.emplace_back("w" + std::to_string(k) + " " + std::to_string(common[k]) + " -> 0.1");
      common[k] = 0.1;
    }
  if (common[19] < 0.01) {
    clipped.emplace_back("w19 " + std::to_string(common[19]) + " -> 0.01");
    common[19] = 0.01;
  }
  const std::vector<std::pair<std::string, std::array<double, 21>>> sets{{"defaults", Fsrs6::defaults},
                                                                         {"fitted", common}};
  {
    json::Object head;
    head.emplace_back("dataset", log.source);
    json::Array rs;
    for (double r : retentions) rs.emplace_back(r);
    head.emplace_back("retentions", rs);
    json::Object params;
    for (const auto& [name, w] : sets) params.emplace_back(name, to_array(w));
    head.emplace_back("params", params);
    head.emplace_back("fit", json::Object{{"outcome", srs::sched::outcome_name(fitted.outcome)},
                                          {"items", static_cast<std::int64_t>(fitted.items)},
                                          {"clipped", clipped}});
    std::puts(json::dump(json::Value(head)).c_str());
  }

  // Cards in id order, each with its rows in time order.
  std::map<std::int64_t, std::vector<srs::data::Step>> cards;
  for (const auto& r : log.rows)
    cards[r.card_id].push_back({r.elapsed_days < 0 ? 0.0 : static_cast<double>(r.elapsed_days), r.rating});

  std::size_t mismatches = 0;
  // The rows of one card for one model and parameter vector (see the file comment).
  auto replay = [&](const auto& model, const std::array<double, 21>& w, const std::vector<srs::data::Step>& history) {
    json::Array rows;
    std::optional<State> state;
    for (std::size_t k = 0; k < history.size(); ++k) {
      const double t = k == 0 ? 0.0 : history[k].t;
      json::Array row;
      if (state) {
        row.emplace_back(srs::sched::retrievability(model, w, *state, t));
      } else {
        row.emplace_back(nullptr);
      }
      std::vector<srs::sched::NextStates<State>> by_r;
      for (double r : retentions) by_r.push_back(srs::sched::next_states(model, w, state, srs::sched::DesiredRetention{r}, srs::sched::ElapsedDays{t}));
      for (int g = 1; g <= 4; ++g) {
        row.emplace_back(by_r[0][g].memory.s);
        row.emplace_back(by_r[0][g].memory.d);
      }
      for (const auto& n : by_r)
        for (int g = 1; g <= 4; ++g) row.emplace_back(n[g].interval);
      rows.emplace_back(row);
      state = by_r[0][history[k].rating].memory;
      const State ref = srs::sched::memory_state(model, w, std::span<const srs::data::Step>(history.data(), k + 1));
      if (ref.s != state->s || ref.d != state->d) ++mismatches;
    }
    return rows;
  };
  const srs::sched::compat::FsrsRsF32 rs;
  const srs::sched::compat::TsFsrs ts;
  for (const auto& [card, history] : cards) {
    json::Object line;
    line.emplace_back("c", card);
    json::Array ts_, gs;
    for (const auto& s : history) {
      ts_.emplace_back(s.t);
      gs.emplace_back(s.rating);
    }
    line.emplace_back("t", ts_);
    line.emplace_back("g", gs);
    json::Object values;
    for (const auto& [name, w] : sets) {
      values.emplace_back(name, json::Object{{"srs", replay(fsrs, w, history)},
                                             {"rs", replay(rs, w, history)},
                                             {"ts", replay(ts, w, history)}});
    }
    line.emplace_back("v", values);
    std::puts(json::dump(json::Value(line)).c_str());
  }
  if (mismatches) {
    std::fprintf(stderr, "scheduler_replay: %zu states of next_states differ from memory_state\n", mismatches);
    return 1;
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "scheduler_replay: %s\n", e.what());
  return 1;
}
