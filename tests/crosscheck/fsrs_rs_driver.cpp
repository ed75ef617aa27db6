// SPDX-License-Identifier: MIT
// The srs half of the fsrs-rs cross-checks (tests/crosscheck/fsrs_rs.mjs drives
// it; ctest crosscheck.fsrs_rs_*): reads commands from stdin, one a line, and
// answers each with one line computed by srs::sched with compat::FsrsRsF32
// ("rs") and models::Fsrs6 ("f6"), numbers printed with 17 significant digits.
//
//   params P w0 .. w20          parameter set P (FsrsRsF32 gets it clipped as fsrs-rs's FSRS::new)
//   sm2 P ease interval r       -> rs S D f6 S D     memory_state_from_sm2 (or "error <message>")
//   next P S D days dr          -> rs (S D I)x4 f6 (S D I)x4   next_states from state (S, D)
//   chain P S D t1 g1 t2 g2 ... -> rs S D f6 S D     memory_state from the starting state (S, D)
//   eval P recency n t,g;t,g;... -> rs LL RMSE f6 LL RMSE   evaluate over n items (items separated by '|')
#include <srs/sched/compat.hpp>     // srs::sched::compat::FsrsRsF32
#include <srs/sched/evaluate.hpp>   // srs::sched::evaluate
#include <srs/sched/scheduler.hpp>  // srs::sched::memory_state_from_sm2, next_states, memory_state

#include <srs/core/error.hpp>    // srs::Error
#include <srs/data/dataset.hpp>  // srs::data::Step
#include <srs/models/fsrs.hpp>   // srs::models::Fsrs6

#include <array>     // std::array
#include <cstdio>    // std::printf, std::fflush
#include <iostream>  // std::cin
#include <map>       // std::map
#include <sstream>   // std::istringstream
#include <string>    // std::string, std::getline
#include <vector>    // std::vector

namespace {

using W = std::array<double, 21>;

struct ParamSet {
  W rs{};  // clipped as fsrs-rs
  W f6{};  // as given
};

template <class M>
void print_next(const char* label, const M& m, const W& w, const srs::sched::MemoryState<M>& st, double days, double dr) {
  const auto n = srs::sched::next_states(m, w, st, srs::sched::DesiredRetention{dr}, srs::sched::ElapsedDays{days});
  std::printf(" %s", label);
  for (int g = 1; g <= 4; ++g) std::printf(" %.17g %.17g %d", n[g].memory.s, n[g].memory.d, n[g].interval);
}

std::vector<std::vector<srs::data::Step>> parse_items(const std::string& text) {
  std::vector<std::vector<srs::data::Step>> items;
  std::istringstream all(text);
  std::string item;
  while (std::getline(all, item, '|')) {
    std::vector<srs::data::Step> reviews;
    std::istringstream is(item);
    std::string review;
    while (std::getline(is, review, ';')) {
      const auto comma = review.find(',');
      reviews.push_back({std::stod(review.substr(0, comma)), std::stoi(review.substr(comma + 1))});
    }
    items.push_back(std::move(reviews));
  }
  return items;
}

}  // namespace

int main() {
  const srs::sched::compat::FsrsRsF32 rs;
  const srs::models::Fsrs6 f6;
  std::map<int, ParamSet> sets;
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream in(line);
    std::string cmd;
    int p = 0;
    in >> cmd >> p;
    try {
      if (cmd == "params") {
        ParamSet ps;
        for (double& x : ps.f6) in >> x;
        ps.rs = ps.f6;
        rs.clamp(ps.rs);
        sets[p] = ps;
        std::printf("ok");
      } else if (cmd == "sm2") {
        double ease = 0, interval = 0, r = 0;
        in >> ease >> interval >> r;
        const srs::sched::Sm2Card card{.ease_factor = ease, .interval = interval};
        const auto a = srs::sched::memory_state_from_sm2(rs, sets.at(p).rs, card, srs::sched::Sm2Retention{r});
        const auto b = srs::sched::memory_state_from_sm2(f6, sets.at(p).f6, card, srs::sched::Sm2Retention{r});
        std::printf("rs %.17g %.17g f6 %.17g %.17g", a.s, a.d, b.s, b.d);
      } else if (cmd == "next") {
        double s = 0, d = 0, days = 0, dr = 0;
        in >> s >> d >> days >> dr;
        print_next("rs", rs, sets.at(p).rs, {s, d}, days, dr);
        print_next("f6", f6, sets.at(p).f6, {s, d}, days, dr);
      } else if (cmd == "chain") {
        double s = 0, d = 0;
        in >> s >> d;
        std::vector<srs::data::Step> h;
        srs::data::Step step;
        while (in >> step.t >> step.rating) h.push_back(step);
        const auto a = srs::sched::memory_state(rs, sets.at(p).rs, h, {s, d});
        const auto b = srs::sched::memory_state(f6, sets.at(p).f6, h, {s, d});
        std::printf("rs %.17g %.17g f6 %.17g %.17g", a.s, a.d, b.s, b.d);
      } else if (cmd == "eval") {
        int recency = 0;
        std::string text;
        in >> recency >> text;
        const auto items = parse_items(text);
        srs::sched::EvaluateOptions opt;
        opt.recency = recency != 0;
        const auto a = srs::sched::evaluate(rs, sets.at(p).rs, items, opt);
        const auto b = srs::sched::evaluate(f6, sets.at(p).f6, items, opt);
        std::printf("rs %.17g %.17g f6 %.17g %.17g", a.log_loss, a.rmse_bins, b.log_loss, b.rmse_bins);
      } else {
        std::printf("error unknown command '%s'", cmd.c_str());
      }
    } catch (const std::exception& e) {
      std::printf("error %s", e.what());
    }
    std::printf("\n");
  }
  std::fflush(stdout);
  return 0;
}
