// SPDX-License-Identifier: MIT
// Tests of srs/data/preprocess.hpp: the per-user pipeline of docs/protocol.md §2 —
// the worked example of §2 in both modes, the 128-review cap, the rating
// filter and --two_buttons, review-day index i and lapse counts, the outlier
// filter (budget, tie order, thresholds) with the continuity rule, final-row
// selection and the minimum-size rule; secs mode (§2.7-2.14 secs branches:
// fractional intervals, same-day rows, day-based i, every earlier Again a
// lapse, the --short row filter on seconds, no outlier filter) and the
// equalize mode (§2.17: both datasets, the checks, non_secs_review_th, the
// day-based lapse count of §10.2), on the worked example and small hand-made
// logs with hand-computed expectations; each history step carries its own
// review's duration (Step::duration, for the LSTM's --duration) in every mode,
// and a Step is still 16 bytes.
#include <doctest/doctest.h>

#include <algorithm>  // std::sort
#include <cstdint>    // std::int64_t, std::uint32_t
#include <stdexcept>  // std::runtime_error
#include <string>     // std::string
#include <utility>    // std::pair
#include <vector>     // std::vector

#include <srs/core/error.hpp>       // srs::NotEnoughData
#include <srs/data/preprocess.hpp>  // srs::data::preprocess
#include <srs/sched/synthetic.hpp>  // srs::sched::simulate_user, SimulationOptions

using srs::data::Dataset;
using srs::data::Item;
using srs::data::PreprocessOptions;
using srs::data::Revlog;
using srs::data::RevlogRow;

namespace {

/// A review of a card: its day and rating; reviews of one day are seconds apart.
struct Review {
  int day;
  int rating;
};

/// Builds a chronological revlog from per-card review lists, computing the
/// elapsed columns like the dataset builder (timestamps: day*86400 + card*60 + k).
class LogBuilder {
 public:
  LogBuilder& card(std::int64_t id, std::vector<Review> reviews) {
    cards_.push_back({id, std::move(reviews)});
    return *this;
  }
  Revlog build() const {
    struct Ev {
      long long ts;
      RevlogRow row;
    };
    std::vector<Ev> evs;
    for (const auto& [id, reviews] : cards_) {
      long long prev_ts = -1;
      int prev_day = -1;
      for (std::size_t k = 0; k < reviews.size(); ++k) {
        const long long ts = reviews[k].day * 86400LL + id * 60 + static_cast<long long>(k);
        RevlogRow r;
        r.card_id = id;
        r.day_offset = reviews[k].day;
        r.rating = reviews[k].rating;
        r.state = k == 0 ? 0 : 2;
        r.duration = 1000;
        r.elapsed_days = k == 0 ? -1 : reviews[k].day - prev_day;
        r.elapsed_seconds = k == 0 ? -1 : ts - prev_ts;
        prev_ts = ts;
        prev_day = reviews[k].day;
        evs.push_back({ts, r});
      }
    }
    std::stable_sort(evs.begin(), evs.end(), [](const Ev& a, const Ev& b) { return a.ts < b.ts; });
    Revlog log;
    log.user = "test";
    for (const Ev& e : evs) log.rows.push_back(e.row);
    return log;
  }

 private:
  std::vector<std::pair<std::int64_t, std::vector<Review>>> cards_;
};

PreprocessOptions no_filter(bool short_term) {
  PreprocessOptions o;
  o.short_term = short_term;
  o.outlier_filter = false;
  o.min_rows = 1;
  return o;
}

std::vector<std::pair<double, int>> history(const Dataset& ds, const Item& it) {
  std::vector<std::pair<double, int>> h;
  for (const auto& s : ds.history(it)) h.emplace_back(s.t, s.rating);
  return h;
}

using H = std::vector<std::pair<double, int>>;

/// The worked example of docs/protocol.md §2: one card reviewed on days 0 (Again,
/// Good, Good), 2 (Good), 7 (Again, Good) and 15 (Good).
Revlog worked_example() {
  return LogBuilder().card(0, {{0, 1}, {0, 3}, {0, 3}, {2, 3}, {7, 1}, {7, 3}, {15, 3}}).build();
}

/// `n` cards of first rating `first` whose first long-term review comes
/// `delta_t` days later with rating `second`, then (optionally) a third review.
void add_cards(LogBuilder& b, std::int64_t& next_id, int n, int first, int delta_t, int second = 3, int third_gap = 0) {
  for (int k = 0; k < n; ++k) {
    std::vector<Review> r{{0, first}, {delta_t, second}};
    if (third_gap > 0) r.push_back({delta_t + third_gap, 3});
    b.card(next_id++, r);
  }
}

}  // namespace

TEST_CASE("preprocess: the worked example of docs/protocol.md §2 with --short") {
  const Dataset ds = srs::data::preprocess(worked_example(), no_filter(true));
  // Evaluated rows: R4, R5, R7 (R1 is the first review; R2, R3, R6 are same-day).
  REQUIRE(ds.items.size() == 3);
  const Item& r4 = ds.items[0];
  const Item& r5 = ds.items[1];
  const Item& r7 = ds.items[2];
  CHECK(r4.review_th == 4);
  CHECK(r5.review_th == 5);
  CHECK(r7.review_th == 7);
  // i values of the rows after 2.11 are 1 (R1), 2, 3, 4.
  CHECK(r4.i == 2);
  CHECK(r5.i == 3);
  CHECK(r7.i == 4);
  // R4's tensor is [(0,1),(0,3),(0,3)], target interval 2, y = 1, first_rating 1.
  CHECK(history(ds, r4) == H{{0, 1}, {0, 3}, {0, 3}});
  CHECK(r4.delta_t == 2);
  CHECK(r4.y == 1);
  CHECK(r4.first_rating == 1);
  CHECK(r5.delta_t == 5);
  CHECK(r5.y == 0);
  // R7's history: t "0,0,0,2,5,0", r "1,3,3,3,1,3".
  CHECK(history(ds, r7) == H{{0, 1}, {0, 3}, {0, 3}, {2, 3}, {5, 1}, {0, 3}});
  CHECK(r7.delta_t == 8);
  // rmse_bins_lapse: R4 = 0 (R1's Again is on interval 0), R5 = 0, R7 = 1 (R5 counts).
  CHECK(r4.lapses == 0);
  CHECK(r5.lapses == 0);
  CHECK(r7.lapses == 1);
  CHECK(r7.elapsed_days == 8);
}

TEST_CASE("preprocess: the worked example without --short drops same-day reviews entirely") {
  const Dataset ds = srs::data::preprocess(worked_example(), no_filter(false));
  REQUIRE(ds.items.size() == 3);
  // R4's tensor becomes [(0,1)] and i is unchanged.
  CHECK(history(ds, ds.items[0]) == H{{0, 1}});
  CHECK(ds.items[0].i == 2);
  CHECK(history(ds, ds.items[1]) == H{{0, 1}, {2, 3}});
  CHECK(ds.items[1].i == 3);
  CHECK(history(ds, ds.items[2]) == H{{0, 1}, {2, 3}, {5, 1}});
  CHECK(ds.items[2].i == 4);
  CHECK(ds.items[2].lapses == 1);
}

TEST_CASE("preprocess: items are in global time order and point at their own card") {
  LogBuilder b;
  b.card(7, {{0, 3}, {3, 3}, {10, 3}});
  b.card(2, {{1, 4}, {2, 3}, {9, 1}});
  const Dataset ds = srs::data::preprocess(b.build(), no_filter(false));
  REQUIRE(ds.items.size() == 4);
  std::vector<std::int64_t> cards, review_th;
  for (const Item& it : ds.items) {
    cards.push_back(it.card_id);
    review_th.push_back(it.review_th);
  }
  // Chronological rows: c7 d0, c2 d1, c2 d2, c7 d3, c2 d9, c7 d10.
  CHECK(cards == std::vector<std::int64_t>{2, 7, 2, 7});
  CHECK(review_th == std::vector<std::int64_t>{3, 4, 5, 6});
  CHECK(history(ds, ds.items[2]) == H{{0, 4}, {1, 3}});
  CHECK(ds.items[2].first_rating == 4);
  CHECK(ds.items[2].lapses == 0);
}

TEST_CASE("preprocess: the card order and the rows do not depend on how card ids are spelled") {
  // Numbered cards (0..n-1) take a counting sort, millisecond ids (a span far
  // above 4 n) and negative ids std::stable_sort; the datasets must be equal
  // but for card_id.
  srs::sched::SimulationOptions so;
  so.seed = 5;
  so.days = 40;
  so.new_cards_per_day = 8;
  const Revlog numbered = srs::sched::simulate_user(so, "ids");
  Revlog millis = numbered, negative = numbered, shuffled = numbered;
  for (RevlogRow& r : millis.rows) r.card_id = 1'600'000'000'000 + 7'919 * r.card_id;
  for (RevlogRow& r : negative.rows) r.card_id = -3 * r.card_id - 1;        // reversed card order
  for (RevlogRow& r : shuffled.rows) r.card_id = (r.card_id * 37) % 1'000;  // 1000 > number of cards: a permutation
  PreprocessOptions o;
  o.short_term = true;
  const Dataset a = srs::data::preprocess(numbered, o);
  REQUIRE(a.size() > 100);
  for (const Revlog* other : {&millis, &negative, &shuffled}) {
    const Dataset b = srs::data::preprocess(*other, o);
    REQUIRE(b.size() == a.size());
    std::size_t differ = 0;
    for (std::size_t k = 0; k < a.size(); ++k) {
      const Item &x = a.items[k], &y = b.items[k];
      differ += x.review_th != y.review_th || x.delta_t != y.delta_t || x.i != y.i || x.lapses != y.lapses ||
                x.y != y.y || x.hist_len != y.hist_len || history(a, x) != history(b, y);
    }
    CHECK(differ == 0);
  }
}

TEST_CASE("preprocess: Item::card numbers the cards in the order of their histories in Dataset::steps") {
  srs::sched::SimulationOptions so;
  so.seed = 9;
  so.days = 30;
  so.new_cards_per_day = 6;
  PreprocessOptions o;
  o.short_term = true;
  const Dataset ds = srs::data::preprocess(srs::sched::simulate_user(so, "cards"), o);
  REQUIRE(ds.size() > 100);
  // One number per card: the same for rows of one card (one card_id, one
  // hist_begin), different for different cards; increasing with hist_begin.
  std::vector<std::pair<std::size_t, std::uint32_t>> by_start;  // (hist_begin, card) of each item
  for (const Item& it : ds.items) {
    REQUIRE(it.card != Item::no_card);
    by_start.emplace_back(it.hist_begin, it.card);
  }
  std::sort(by_start.begin(), by_start.end());
  std::size_t cards = 0;
  for (std::size_t k = 0; k < by_start.size(); ++k) {
    if (k > 0 && by_start[k].first == by_start[k - 1].first) {
      CHECK(by_start[k].second == by_start[k - 1].second);
      continue;
    }
    ++cards;
    if (k > 0) CHECK(by_start[k].second > by_start[k - 1].second);
  }
  for (const Item& a : ds.items)
    for (const Item& b : ds.items)
      if (a.card == b.card) REQUIRE(a.card_id == b.card_id);
  CHECK(cards > 10);
  CHECK(by_start.back().second < ds.steps.size());
}

TEST_CASE("preprocess: each card keeps only its first 2*max_seq_len reviews") {
  std::vector<Review> many;
  for (int d = 0; d < 140; ++d) many.push_back({d * 2, 3});
  const Revlog log = LogBuilder().card(0, many).build();
  SUBCASE("default cap 128") {
    const Dataset ds = srs::data::preprocess(log, no_filter(false));
    REQUIRE(ds.items.size() == 127);  // reviews 2..128
    CHECK(ds.items.back().i == 128);
    CHECK(ds.items.back().hist_len == 127);
  }
  SUBCASE("max_seq_len = 3 keeps 6 reviews") {
    PreprocessOptions o = no_filter(false);
    o.max_seq_len = 3;
    const Dataset ds = srs::data::preprocess(log, o);
    CHECK(ds.items.size() == 5);
  }
}

TEST_CASE("preprocess: ratings outside 1..4 are dropped before the cap and everything else") {
  Revlog log = LogBuilder().card(0, {{0, 3}, {1, 3}, {5, 3}, {9, 3}}).build();
  // A manual entry (rating 0) between day 1 and day 5 reviews.
  RevlogRow manual = log.rows[1];
  manual.rating = 0;
  manual.day_offset = 3;
  log.rows.insert(log.rows.begin() + 2, manual);
  const Dataset ds = srs::data::preprocess(log, no_filter(false));
  REQUIRE(ds.items.size() == 3);
  CHECK(history(ds, ds.items[2]) == H{{0, 3}, {1, 3}, {4, 3}});
  CHECK(ds.items[1].i == 3);
  CHECK(ds.items[1].review_th == 4);  // review_th counts the raw file rows
}

TEST_CASE("preprocess: --two_buttons maps Hard and Easy to Good everywhere") {
  const Revlog log = LogBuilder().card(0, {{0, 4}, {0, 2}, {3, 2}, {8, 1}, {20, 4}}).build();
  PreprocessOptions o = no_filter(true);
  o.two_buttons = true;
  const Dataset ds = srs::data::preprocess(log, o);
  REQUIRE(ds.items.size() == 3);
  CHECK(ds.items[0].first_rating == 3);
  CHECK(ds.items[0].rating == 3);
  CHECK(ds.items[0].y == 1);
  CHECK(history(ds, ds.items[2]) == H{{0, 3}, {0, 3}, {3, 3}, {5, 1}});
  CHECK(ds.items[2].rating == 3);
}

TEST_CASE("preprocess: i counts review days, lapses count earlier Agains on a later day") {
  // Days: 0 (Again, Again), 1 (Again), 1 (Good, same day), 4 (Again), 9 (Good).
  const Revlog log = LogBuilder().card(0, {{0, 1}, {0, 1}, {1, 1}, {1, 3}, {4, 1}, {9, 3}}).build();
  const Dataset ds = srs::data::preprocess(log, no_filter(true));
  REQUIRE(ds.items.size() == 3);
  CHECK(ds.items[0].i == 2);
  CHECK(ds.items[0].lapses == 0);  // same-day Agains on day 0 are not lapses
  CHECK(ds.items[1].i == 3);
  CHECK(ds.items[1].lapses == 1);  // day 1 Again
  CHECK(ds.items[2].i == 4);
  CHECK(ds.items[2].lapses == 2);  // + day 4 Again
  CHECK(ds.items[2].hist_len == 5);
}

TEST_CASE("preprocess: outlier filter budget, thresholds and continuity") {
  // First rating 3, i == 2 buckets: delta_t 1 ×30, 2 ×10, 5 ×3, 200 ×7 (total 50,
  // budget max(2.5, 20) = 20). Visit order by count: 5 (3), 200 (7), 2 (10), 1 (30):
  // 3 < 20 remove; 10 < 20 remove; 20 >= 20 and count 10 >= 6, delta_t 2 <= 100: keep;
  // keep delta_t 1.
  LogBuilder b;
  std::int64_t id = 0;
  add_cards(b, id, 30, 3, 1, 3, 3);
  add_cards(b, id, 10, 3, 2, 3, 3);
  add_cards(b, id, 3, 3, 5, 3, 3);
  add_cards(b, id, 7, 3, 200, 3, 3);
  PreprocessOptions o;
  o.min_rows = 1;
  const Dataset ds = srs::data::preprocess(b.build(), o);
  std::size_t i2 = 0, i3 = 0;
  for (const Item& it : ds.items) {
    CHECK(it.card_id < 40);  // cards with a removed i == 2 row lose all their rows
    i2 += it.i == 2;
    i3 += it.i == 3;
  }
  CHECK(i2 == 40);
  CHECK(i3 == 40);

  SUBCASE("without the filter every card stays") {
    o.outlier_filter = false;
    CHECK(srs::data::preprocess(b.build(), o).items.size() == 100);
  }
}

TEST_CASE("preprocess: intervals above 100 days are outliers beyond the budget, above 365 for first rating 4") {
  for (int first : {3, 4}) {
    CAPTURE(first);
    LogBuilder b;
    std::int64_t id = 0;
    add_cards(b, id, 40, first, 1);
    add_cards(b, id, 25, first, 200);  // over budget after nothing removed: 25 >= 20
    PreprocessOptions o;
    o.min_rows = 1;
    const Dataset ds = srs::data::preprocess(b.build(), o);
    // Sorted by count: 200 (25) first; 0 + 25 >= max(3.25, 20): removed only if 200 > threshold.
    CHECK(ds.items.size() == (first == 4 ? 65u : 40u));
  }
}

TEST_CASE("preprocess: buckets of equal count are visited longest interval first") {
  // delta_t 3 ×12, 4 ×12, 1 ×40 (budget 20): 4 goes first (0 + 12 < 20: removed),
  // then 3 (12 + 12 >= 20, count 12 >= 6, 3 <= 100: kept).
  LogBuilder b;
  std::int64_t id = 0;
  add_cards(b, id, 40, 2, 1);
  add_cards(b, id, 12, 2, 3);
  add_cards(b, id, 12, 2, 4);
  PreprocessOptions o;
  o.min_rows = 1;
  const Dataset ds = srs::data::preprocess(b.build(), o);
  std::size_t d3 = 0, d4 = 0;
  for (const Item& it : ds.items) {
    d3 += it.delta_t == 3;
    d4 += it.delta_t == 4;
  }
  CHECK(d3 == 12);
  CHECK(d4 == 0);
}

TEST_CASE("preprocess: first ratings are filtered separately") {
  // Rating-1 cards: 30 at delta_t 1; rating-4 cards: 5 at delta_t 2 (a whole
  // group under budget: removed), so only the rating-1 cards remain.
  LogBuilder b;
  std::int64_t id = 0;
  add_cards(b, id, 30, 1, 1);
  add_cards(b, id, 5, 4, 2);
  PreprocessOptions o;
  o.min_rows = 1;
  const Dataset ds = srs::data::preprocess(b.build(), o);
  CHECK(ds.items.size() == 30);
  for (const Item& it : ds.items) CHECK(it.first_rating == 1);
}

TEST_CASE("preprocess: users with too little data raise NotEnoughData") {
  SUBCASE("fewer than 6 final rows") {
    CHECK_THROWS_AS(srs::data::preprocess(worked_example(),
                                          [] {
                                            PreprocessOptions o;
                                            o.outlier_filter = false;
                                            return o;
                                          }()),
                    srs::NotEnoughData);
  }
  SUBCASE("nothing left after the outlier filter") {
    // A single small group is entirely under budget.
    LogBuilder b;
    std::int64_t id = 0;
    add_cards(b, id, 10, 3, 2, 3, 5);
    CHECK_THROWS_AS(srs::data::preprocess(b.build()), srs::NotEnoughData);
  }
  SUBCASE("no second review day at all") {
    const Revlog log = LogBuilder().card(0, {{0, 3}, {0, 3}}).card(1, {{0, 1}}).build();
    CHECK_THROWS_AS(srs::data::preprocess(log), srs::NotEnoughData);
  }
}

// ---------------------------------------------------------------------------
// Secs mode (docs/protocol.md §2.7-2.14, secs branches)
// ---------------------------------------------------------------------------

namespace {

PreprocessOptions secs_options(bool short_term) {
  PreprocessOptions o = no_filter(short_term);
  o.secs = true;
  return o;
}

/// Seconds as fractional days, the way the pipeline computes them.
double days_of(long long seconds) { return static_cast<double>(seconds) / 86400.0; }

}  // namespace

// LogBuilder's clock for the worked example (card 0, review k at day*86400 + k s):
// R1 0, R2 1, R3 2, R4 172803, R5 604804, R6 604805, R7 1296006, so the
// elapsed_seconds are R2 1, R3 1, R4 172801, R5 432001, R6 1, R7 691201.

TEST_CASE("preprocess secs: the worked example with --short evaluates same-day reviews too") {
  const Dataset ds = srs::data::preprocess(worked_example(), secs_options(true));
  // Every review but the card's first has elapsed_seconds > 0: R2..R7 are rows.
  REQUIRE(ds.items.size() == 6);
  std::vector<std::int64_t> review_th;
  for (const Item& it : ds.items) review_th.push_back(it.review_th);
  CHECK(review_th == std::vector<std::int64_t>{2, 3, 4, 5, 6, 7});
  // delta_t = elapsed_seconds / 86400; elapsed_days stays the day value.
  const long long secs[] = {1, 1, 172801, 432001, 1, 691201};
  const std::int32_t days[] = {0, 0, 2, 5, 0, 8};
  // i is day-based: same-day reviews keep the i of their day (R1 has i = 1).
  const std::int32_t is[] = {1, 1, 2, 3, 3, 4};
  // Every earlier Again is a lapse, R1's (on the first review) included: R1 before R2..R5, R1 and R5 before R6, R7.
  const std::int32_t lapses[] = {1, 1, 1, 1, 2, 2};
  const std::int32_t ys[] = {1, 1, 1, 0, 1, 1};
  for (std::size_t k = 0; k < 6; ++k) {
    CAPTURE(k);
    CHECK(ds.items[k].delta_t == days_of(secs[k]));
    CHECK(ds.items[k].elapsed_days == days[k]);
    CHECK(ds.items[k].i == is[k]);
    CHECK(ds.items[k].lapses == lapses[k]);
    CHECK(ds.items[k].y == ys[k]);
    CHECK(ds.items[k].first_rating == 1);
    CHECK(ds.items[k].hist_len == k + 1);
  }
  // Histories use the secs intervals (the first review's is 0).
  CHECK(history(ds, ds.items[2]) == H{{0, 1}, {days_of(1), 3}, {days_of(1), 3}});
  CHECK(history(ds, ds.items[5]) ==
        H{{0, 1}, {days_of(1), 3}, {days_of(1), 3}, {days_of(172801), 3}, {days_of(432001), 1}, {days_of(1), 3}});
}

TEST_CASE("preprocess secs: without --short same-day reviews vanish, as in non-secs mode") {
  const Dataset ds = srs::data::preprocess(worked_example(), secs_options(false));
  // 2.8 is day-based: R2, R3 and R6 (elapsed_days 0) are dropped entirely.
  REQUIRE(ds.items.size() == 3);
  CHECK(ds.items[0].review_th == 4);
  CHECK(ds.items[1].review_th == 5);
  CHECK(ds.items[2].review_th == 7);
  // The intervals are the raw elapsed_seconds, measured to the previous review
  // in the log: R7's is 691201 s (to the dropped R6), not 691202 (to R5).
  CHECK(ds.items[0].delta_t == days_of(172801));
  CHECK(ds.items[1].delta_t == days_of(432001));
  CHECK(ds.items[2].delta_t == days_of(691201));
  CHECK(history(ds, ds.items[2]) == H{{0, 1}, {days_of(172801), 3}, {days_of(432001), 1}});
  CHECK(ds.items[0].i == 2);
  CHECK(ds.items[1].i == 3);
  CHECK(ds.items[2].i == 4);
  // Lapses: R1's Again counts in secs mode (non-secs: 0, 0, 1).
  CHECK(ds.items[0].lapses == 1);
  CHECK(ds.items[1].lapses == 1);
  CHECK(ds.items[2].lapses == 2);
  const Dataset day = srs::data::preprocess(worked_example(), no_filter(false));
  CHECK(day.items[0].lapses == 0);
  CHECK(day.items[1].lapses == 0);
  CHECK(day.items[2].lapses == 1);
}

TEST_CASE("preprocess secs: --short keeps rows with elapsed_seconds != 0 (and the first review)") {
  // One card: first review, a second review in the same second (elapsed 0 days, 0 s),
  // one 30 s later (0 days), one a day later.
  Revlog log;
  log.user = "zero";
  auto row = [](int day, int rating, int ed, long long es) {
    RevlogRow r;
    r.card_id = 5;
    r.day_offset = day;
    r.rating = rating;
    r.state = ed < 0 ? 0 : 1;
    r.duration = 1000;
    r.elapsed_days = ed;
    r.elapsed_seconds = es;
    return r;
  };
  log.rows = {row(0, 1, -1, -1), row(0, 3, 0, 0), row(0, 3, 0, 30), row(1, 3, 1, 86000)};
  SUBCASE("with --short") {
    const Dataset ds = srs::data::preprocess(log, secs_options(true));
    // The 0-second review is history only; the 30-second one is a row.
    REQUIRE(ds.items.size() == 2);
    CHECK(ds.items[0].review_th == 3);
    CHECK(ds.items[0].delta_t == days_of(30));
    CHECK(ds.items[0].i == 1);
    CHECK(ds.items[0].lapses == 1);
    CHECK(history(ds, ds.items[0]) == H{{0, 1}, {0, 3}});
    CHECK(ds.items[1].review_th == 4);
    CHECK(ds.items[1].delta_t == days_of(86000));
    CHECK(ds.items[1].i == 2);
    CHECK(history(ds, ds.items[1]) == H{{0, 1}, {0, 3}, {days_of(30), 3}});
  }
  SUBCASE("without --short") {
    const Dataset ds = srs::data::preprocess(log, secs_options(false));
    REQUIRE(ds.items.size() == 1);
    CHECK(ds.items[0].review_th == 4);
    CHECK(history(ds, ds.items[0]) == H{{0, 1}});
  }
  SUBCASE("non-secs --short, for comparison: only the next day's review is a row") {
    const Dataset ds = srs::data::preprocess(log, no_filter(true));
    REQUIRE(ds.items.size() == 1);
    CHECK(ds.items[0].review_th == 4);
    CHECK(ds.items[0].lapses == 0);
    CHECK(history(ds, ds.items[0]) == H{{0, 1}, {0, 3}, {0, 3}});
  }
}

TEST_CASE("preprocess secs: no outlier filter and no continuity cut") {
  // The data of the non-secs threshold test: 40 cards at 1 day, 25 at 200 days
  // (first rating 3): non-secs drops the 200-day cards, secs keeps them.
  LogBuilder b;
  std::int64_t id = 0;
  add_cards(b, id, 40, 3, 1);
  add_cards(b, id, 25, 3, 200);
  PreprocessOptions o;  // outlier_filter on, as in the reference
  o.min_rows = 1;
  CHECK(srs::data::preprocess(b.build(), o).items.size() == 40);
  o.secs = true;
  CHECK(srs::data::preprocess(b.build(), o).items.size() == 65);
  SUBCASE("a group entirely under budget is no error in secs mode") {
    LogBuilder small;
    std::int64_t next = 0;
    add_cards(small, next, 10, 3, 2, 3, 5);
    PreprocessOptions so;
    CHECK_THROWS_AS(srs::data::preprocess(small.build(), so), srs::NotEnoughData);
    so.secs = true;
    CHECK(srs::data::preprocess(small.build(), so).items.size() == 20);
  }
}

TEST_CASE("preprocess secs: final rows have delta_t > 0, the minimum size counts secs rows") {
  // The worked example: 6 secs rows with --short (enough), 3 without (too few).
  PreprocessOptions o;
  o.secs = true;
  o.short_term = true;
  CHECK(srs::data::preprocess(worked_example(), o).items.size() == 6);
  o.short_term = false;
  CHECK_THROWS_AS(srs::data::preprocess(worked_example(), o), srs::NotEnoughData);
  // Cards reviewed once produce no rows at all.
  const Revlog once = LogBuilder().card(0, {{0, 3}}).card(1, {{0, 1}}).build();
  CHECK_THROWS_AS(srs::data::preprocess(once, secs_options(true)), srs::NotEnoughData);
}

TEST_CASE("preprocess secs: --two_buttons and the 128-review cap apply as in non-secs mode") {
  std::vector<Review> many;
  for (int d = 0; d < 140; ++d) many.push_back({d, d % 3 == 0 ? 2 : 4});
  PreprocessOptions o = secs_options(false);
  o.two_buttons = true;
  const Dataset ds = srs::data::preprocess(LogBuilder().card(0, many).build(), o);
  REQUIRE(ds.items.size() == 127);
  for (const Item& it : ds.items) CHECK(it.rating == 3);
  CHECK(ds.items.back().hist_len == 127);
  CHECK(ds.items.back().lapses == 0);
}

// ---------------------------------------------------------------------------
// Equalize mode (docs/protocol.md §2.17)
// ---------------------------------------------------------------------------

TEST_CASE("preprocess equalize: the secs rows plus the review_th of the non-secs rows") {
  LogBuilder b;
  b.card(0, {{0, 1}, {0, 3}, {0, 3}, {2, 3}, {7, 1}, {7, 3}, {15, 3}});  // the worked example
  b.card(1, {{1, 3}, {1, 1}, {1, 3}, {4, 3}, {4, 3}, {12, 1}, {13, 3}});
  for (bool short_term : {true, false}) {
    CAPTURE(short_term);
    PreprocessOptions o = no_filter(short_term);
    o.secs = true;
    o.equalize_test_with_non_secs = true;
    const Dataset eq = srs::data::preprocess(b.build(), o);
    o.equalize_test_with_non_secs = false;
    const Dataset secs = srs::data::preprocess(b.build(), o);
    o.secs = false;
    const Dataset day = srs::data::preprocess(b.build(), o);
    // The items and histories are the secs dataset's (the lapses are day-based, below) ...
    REQUIRE(eq.items.size() == secs.items.size());
    CHECK(eq.steps.size() == secs.steps.size());
    for (std::size_t k = 0; k < eq.items.size(); ++k) {
      CAPTURE(k);
      CHECK(eq.items[k].review_th == secs.items[k].review_th);
      CHECK(eq.items[k].delta_t == secs.items[k].delta_t);
      CHECK(history(eq, eq.items[k]) == history(secs, secs.items[k]));
    }
    // ... and non_secs_review_th lists the non-secs rows, whose lapses are the non-secs run's.
    std::vector<std::int64_t> expected;
    for (const Item& it : day.items) expected.push_back(it.review_th);
    CHECK(eq.non_secs_review_th == expected);
    for (const Item& a : day.items)
      for (const Item& b : eq.items)
        if (b.review_th == a.review_th) CHECK(b.lapses == a.lapses);
    CHECK(secs.non_secs_review_th.empty());
    CHECK(day.non_secs_review_th.empty());
  }
  // By hand, with --short: in time order card 0's days 0 0 0 are review_th 1-3,
  // card 1's days 1 1 1 are 4-6, then c0 d2 (7), c1 d4 d4 (8, 9), c0 d7 d7
  // (10, 11), c1 d12 (12), c1 d13 (13), c0 d15 (14). Non-secs rows: the first
  // review of each later day; secs rows: every review but the cards' first.
  PreprocessOptions o = no_filter(true);
  o.secs = true;
  o.equalize_test_with_non_secs = true;
  const Dataset eq = srs::data::preprocess(b.build(), o);
  CHECK(eq.non_secs_review_th == std::vector<std::int64_t>{7, 8, 10, 12, 13, 14});
  CHECK(eq.items.size() == 12);
}

TEST_CASE("preprocess equalize: lapses are counted on day intervals, as in the non-secs run") {
  // docs/protocol.md §10.2: an equalize run's rmse_bins_lapse counts the earlier
  // Agains whose day interval is > 0. Card 0 of the worked example: R4 and R5 have
  // 0 lapses (R1's Again is the first review), R7 has 1 (R5); a plain secs run
  // counts R1's Again too (1, 1, 2).
  for (bool short_term : {true, false}) {
    CAPTURE(short_term);
    PreprocessOptions o = no_filter(short_term);
    o.secs = true;
    o.equalize_test_with_non_secs = true;
    const Dataset eq = srs::data::preprocess(worked_example(), o);
    REQUIRE(eq.non_secs_review_th == std::vector<std::int64_t>{4, 5, 7});
    o.equalize_test_with_non_secs = false;
    const Dataset secs = srs::data::preprocess(worked_example(), o);
    const std::int32_t expected[] = {0, 0, 1};  // R4, R5, R7
    const std::int32_t plain_secs[] = {1, 1, 2};
    std::size_t seen = 0;
    for (std::size_t k = 0; k < eq.items.size(); ++k) {
      const Item& it = eq.items[k];
      for (std::size_t j = 0; j < 3; ++j) {
        if (it.review_th != eq.non_secs_review_th[j]) continue;
        CHECK(it.lapses == expected[j]);
        CHECK(secs.items[k].review_th == it.review_th);
        CHECK(secs.items[k].lapses == plain_secs[j]);
        ++seen;
      }
    }
    CHECK(seen == 3);
  }
  // Same-day Agains on later days do not count either: Again, then Again and Good
  // two days later (the second Again at 0 days), then Good: R4 has 1 lapse (R2).
  PreprocessOptions o = no_filter(true);
  o.secs = true;
  o.equalize_test_with_non_secs = true;
  const Dataset eq = srs::data::preprocess(LogBuilder().card(0, {{0, 3}, {2, 1}, {2, 1}, {5, 3}, {9, 3}}).build(), o);
  for (const Item& it : eq.items) {
    if (it.review_th == 4) CHECK(it.lapses == 1);
    if (it.review_th == 5) CHECK(it.lapses == 1);
  }
  o.equalize_test_with_non_secs = false;
  const Dataset secs = srs::data::preprocess(LogBuilder().card(0, {{0, 3}, {2, 1}, {2, 1}, {5, 3}, {9, 3}}).build(), o);
  for (const Item& it : secs.items) {
    if (it.review_th == 4) CHECK(it.lapses == 2);
    if (it.review_th == 5) CHECK(it.lapses == 2);
  }
}

TEST_CASE("preprocess equalize: needs secs, a failed check names the user and the row") {
  PreprocessOptions o = no_filter(true);
  o.equalize_test_with_non_secs = true;
  CHECK_THROWS_AS(srs::data::preprocess(worked_example(), o), srs::UsageError);

  // A review a day later but 0 seconds later: a non-secs row, not a secs row.
  Revlog log = LogBuilder().card(3, {{0, 3}, {2, 3}, {5, 3}}).build();
  log.user = "u42";
  log.rows[1].elapsed_seconds = 0;
  o.secs = true;
  try {
    (void)srs::data::preprocess(log, o);
    FAIL("expected srs::Error");
  } catch (const srs::UsageError&) {
    FAIL("expected a data error, not a usage error");
  } catch (const srs::Error& e) {
    const std::string what = e.what();
    CAPTURE(what);
    CHECK(what.find("user u42") != std::string::npos);
    CHECK(what.find("review_th 2") != std::string::npos);
    CHECK(what.find("card 3") != std::string::npos);
    CHECK(what.find("not among the secs rows") != std::string::npos);
  }
  // Too few rows in either dataset: NotEnoughData, as the reference skips the user.
  PreprocessOptions strict;
  strict.secs = true;
  strict.short_term = true;
  strict.equalize_test_with_non_secs = true;
  CHECK_THROWS_AS(srs::data::preprocess(worked_example(), strict), srs::NotEnoughData);
}

TEST_CASE("preprocess: each history step carries its own review's duration, in every mode") {
  // A Step holds the duration in what was padding: still 16 bytes.
  CHECK(sizeof(srs::data::Step) == 16);
  // The worked example, durations 110, 120, ..., 170 ms on R1..R7 (the log has one card).
  Revlog log = worked_example();
  for (std::size_t k = 0; k < log.rows.size(); ++k) log.rows[k].duration = 110 + 10 * static_cast<std::int32_t>(k);
  auto durations = [](const Dataset& ds, const Item& it) {
    std::vector<int> d;
    for (const auto& s : ds.history(it)) d.push_back(s.duration);
    return d;
  };
  {
    // --short: R7's history is R1..R6 (same-day reviews included).
    const Dataset ds = srs::data::preprocess(log, no_filter(true));
    REQUIRE(ds.items.size() == 3);
    CHECK(durations(ds, ds.items[0]) == std::vector<int>{110, 120, 130});
    CHECK(durations(ds, ds.items[2]) == std::vector<int>{110, 120, 130, 140, 150, 160});
  }
  {
    // Without --short the same-day reviews R2, R3, R6 leave the histories, with their durations.
    const Dataset ds = srs::data::preprocess(log, no_filter(false));
    REQUIRE(ds.items.size() == 3);
    CHECK(durations(ds, ds.items[0]) == std::vector<int>{110});
    CHECK(durations(ds, ds.items[2]) == std::vector<int>{110, 140, 150});
  }
  {
    // Secs and equalize: the secs histories, durations alongside.
    PreprocessOptions o = no_filter(true);
    o.secs = true;
    const Dataset secs = srs::data::preprocess(log, o);
    o.equalize_test_with_non_secs = true;
    const Dataset eq = srs::data::preprocess(log, o);
    for (const Dataset* ds : {&secs, &eq}) {
      REQUIRE(ds->items.back().review_th == 7);
      CHECK(durations(*ds, ds->items.back()) == std::vector<int>{110, 120, 130, 140, 150, 160});
    }
  }
  // Many cards, ratings 0 dropped: each step's duration names its own raw row
  // (duration = 10 x row + 7), a row of the item's card before the item, in order.
  LogBuilder b;
  b.card(0, {{0, 3}, {0, 0}, {1, 3}, {3, 1}, {3, 3}, {9, 3}});
  b.card(1, {{0, 1}, {2, 3}, {2, 0}, {5, 3}, {11, 2}});
  b.card(2, {{1, 4}, {4, 3}, {4, 3}, {10, 3}});
  Revlog many = b.build();
  for (std::size_t k = 0; k < many.rows.size(); ++k) many.rows[k].duration = 10 * static_cast<std::int32_t>(k) + 7;
  for (bool secs : {false, true}) {
    CAPTURE(secs);
    PreprocessOptions o = no_filter(true);
    o.secs = secs;
    const Dataset ds = srs::data::preprocess(many, o);
    REQUIRE(!ds.items.empty());
    for (const Item& it : ds.items) {
      CAPTURE(it.review_th);
      long previous = -1;
      for (const auto& s : ds.history(it)) {
        const long raw = (s.duration - 7) / 10;
        CHECK((s.duration - 7) % 10 == 0);
        REQUIRE(raw >= 0);
        REQUIRE(raw < static_cast<long>(many.rows.size()));
        const RevlogRow& r = many.rows[static_cast<std::size_t>(raw)];
        CHECK(r.card_id == it.card_id);
        CHECK(r.rating == s.rating);  // never a dropped rating-0 row
        CHECK(raw > previous);
        CHECK(raw + 1 < it.review_th);
        previous = raw;
      }
    }
  }
}
