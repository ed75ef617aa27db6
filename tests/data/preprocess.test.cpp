// SPDX-License-Identifier: MIT
// Tests of srs/data/preprocess.hpp: the per-user pipeline of pipeline.md §2 —
// the worked example of §2 in both modes, the 128-review cap, the rating
// filter and --two_buttons, review-day index i and lapse counts, the outlier
// filter (budget, tie order, thresholds) with the continuity rule, final-row
// selection and the minimum-size rule.
#include <doctest/doctest.h>

#include <algorithm>  // std::sort
#include <cstdint>    // std::int64_t
#include <string>     // std::string
#include <utility>    // std::pair
#include <vector>     // std::vector

#include <srs/core/error.hpp>       // srs::NotEnoughData
#include <srs/data/preprocess.hpp>  // srs::data::preprocess

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

/// The worked example of pipeline.md §2: one card reviewed on days 0 (Again,
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

TEST_CASE("preprocess: the worked example of pipeline.md §2 with --short") {
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

TEST_CASE("preprocess: i counts review days; lapses count earlier Agains on a later day") {
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

TEST_CASE("preprocess: secs mode is reported as not implemented") {
  PreprocessOptions o;
  o.secs = true;
  CHECK_THROWS_AS(srs::data::preprocess(worked_example(), o), srs::UsageError);
}
