// SPDX-License-Identifier: MIT
// Tests of srs/optim/trainer.hpp: the trainer's modes, its contract (box, rounding, errors, determinism) on a
// small simulated user, and recovery of a ground truth that differs from the
// default parameters.
#include <algorithm>  // std::sort, std::min, std::stable_sort
#include <array>      // std::array
#include <cmath>      // std::abs, std::round
#include <cstddef>    // std::size_t
#include <cstdint>    // std::uint32_t
#include <numeric>    // std::iota
#include <random>     // std::mt19937
#include <span>       // std::span
#include <utility>    // std::swap, std::pair
#include <vector>     // std::vector

#include <doctest/doctest.h>

#include <srs/core/error.hpp>       // srs::InadequateData
#include <srs/data/dataset.hpp>     // srs::data::Dataset, Item, Step
#include <srs/data/preprocess.hpp>  // srs::data::preprocess, PreprocessOptions
#include <srs/models/act_r.hpp>     // srs::models::ActR
#include <srs/models/fsrs.hpp>      // srs::models::Fsrs5, Fsrs6
#include <srs/models/fsrs7.hpp>     // srs::models::Fsrs7
#include <srs/models/fsrs_rs.hpp>   // srs::models::FsrsRs
#include <srs/optim/kernels/reverse_mode.hpp>  // srs::optim::ReverseModeKernel
#include <srs/optim/replay.hpp>     // srs::optim::predict, srs::optim::bce
#include <srs/optim/trainer.hpp>    // srs::optim::train, TrainMode, TrainOptions
#include <srs/sched/synthetic.hpp>  // srs::sched::simulate_user, SimulationOptions

namespace {

using srs::models::Fsrs6;
using srs::optim::TrainMode;
using Params = std::array<double, 21>;

/// Mean BCE of `w` on the rows `rows` of `ds`.
double log_loss(const Fsrs6& model, const srs::data::Dataset& ds, std::span<const std::size_t> rows, const Params& w) {
  const std::span<const double, 21> ws(w);
  double sum = 0;
  for (std::size_t r : rows) {
    const srs::data::Item& it = ds.items[r];
    sum += srs::optim::bce(srs::optim::predict(model, ws, ds.history(it), it.delta_t), it.y);
  }
  return sum / static_cast<double>(rows.size());
}

std::vector<std::size_t> first_rows(const srs::data::Dataset& ds, double fraction) {
  std::vector<std::size_t> rows(static_cast<std::size_t>(fraction * static_cast<double>(ds.items.size())));
  std::iota(rows.begin(), rows.end(), std::size_t{0});
  return rows;
}

/// A small simulated user, preprocessed with --short (built once). Its ground
/// truth differs from the defaults beyond w0..w3, so that gradient training
/// has something to find after the S0 fit.
const srs::data::Dataset& small_user() {
  static const srs::data::Dataset ds = [] {
    srs::sched::SimulationOptions o;
    o.seed = 2024;
    o.days = 150;
    o.new_cards_per_day = 10;
    o.params[8] = 1.5;
    o.params[20] = 0.3;
    srs::data::PreprocessOptions po;
    po.short_term = true;
    return srs::data::preprocess(srs::sched::simulate_user(o, "small"), po);
  }();
  return ds;
}

bool rounded_to_4(double x) { return std::abs(x * 1e4 - std::round(x * 1e4)) < 1e-6; }

}  // namespace

TEST_CASE("stable_sort_by_small_key: the order of std::stable_sort, counting sort and fallback alike") {
  std::mt19937 gen(7);
  for (const std::size_t top : {std::size_t{1}, std::size_t{5}, std::size_t{64}, std::size_t{100000}}) {
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{17}, std::size_t{2000}}) {
      // (key, original position): equal keys must keep their positions' order.
      std::vector<std::pair<std::size_t, std::size_t>> v(n);
      for (std::size_t k = 0; k < n; ++k) v[k] = {gen() % top, k};
      if (n > 0 && top == 100000) v[0].first = 4 * n + 64;  // forces the std::stable_sort branch
      auto expected = v;
      std::stable_sort(expected.begin(), expected.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      srs::optim::detail::stable_sort_by_small_key(v, [](const auto& x) { return x.first; });
      CHECK(v == expected);
    }
  }
}

TEST_CASE("trainer: TrainMode::defaults returns the default parameters") {
  const Fsrs6 model{};
  const auto& ds = small_user();
  const auto rows = first_rows(ds, 0.8);
  srs::optim::TrainOptions opt;
  opt.mode = TrainMode::defaults;
  CHECK(srs::optim::train(model, ds, rows, {}, opt) == Fsrs6::defaults);
  // No data needed at all.
  CHECK(srs::optim::train(model, ds, std::span<const std::size_t>{}, {}, opt) == Fsrs6::defaults);
}

TEST_CASE("trainer: TrainMode::initialize_only changes only w0..w3") {
  const Fsrs6 model{};
  const auto& ds = small_user();
  const auto rows = first_rows(ds, 0.8);
  srs::optim::TrainOptions opt;
  opt.mode = TrainMode::initialize_only;
  const Params w = srs::optim::train(model, ds, rows, {}, opt);
  for (std::size_t k = 4; k < 21; ++k) CHECK(w[k] == Fsrs6::defaults[k]);
  bool changed = false;
  for (std::size_t k = 0; k < 4; ++k) {
    CAPTURE(k);
    changed = changed || w[k] != Fsrs6::defaults[k];
    CHECK(w[k] >= model.s_min);
    CHECK(w[k] <= model.init_s_max);
    CHECK(rounded_to_4(w[k]));
  }
  CHECK(changed);
  // The S0 fit repairs monotonicity.
  CHECK(w[0] <= w[1]);
  CHECK(w[1] <= w[2]);
  CHECK(w[2] <= w[3]);
}

TEST_CASE("trainer: full training lowers the training loss, the result is boxed, rounded, deterministic") {
  const Fsrs6 model{};
  const auto& ds = small_user();
  const auto rows = first_rows(ds, 0.8);
  REQUIRE(rows.size() > 2000);

  const Params w = srs::optim::train(model, ds, rows);
  srs::optim::TrainOptions s0;
  s0.mode = TrainMode::initialize_only;
  const Params w_s0 = srs::optim::train(model, ds, rows, {}, s0);

  const double loss_default = log_loss(model, ds, rows, Fsrs6::defaults);
  const double loss_s0 = log_loss(model, ds, rows, w_s0);
  const double loss = log_loss(model, ds, rows, w);
  CAPTURE(loss_default);
  CAPTURE(loss_s0);
  CAPTURE(loss);
  CHECK(loss < loss_default);
  // The initial (post-S0) vector is a candidate of the best-epoch choice, and
  // the penalty is >= 0 (up to the 4-decimal rounding of the result).
  CHECK(loss <= loss_s0 + 1e-4);
  CHECK(w != w_s0);

  // Inside the clamp box, and rounded to 4 decimals.
  Params boxed = w;
  model.clamp(std::span<double, 21>(boxed));
  CHECK(boxed == w);
  for (std::size_t k = 0; k < 21; ++k) {
    CAPTURE(k);
    CHECK(rounded_to_4(w[k]));
  }

  // The same inputs give bit-identical outputs; explicit unit weights are no weights.
  CHECK(srs::optim::train(model, ds, rows) == w);
  const std::vector<double> ones(rows.size(), 1.0);
  CHECK(srs::optim::train(model, ds, rows, ones) == w);
  // The batch order depends on the seed (the batches are not a single one).
  srs::optim::TrainOptions other_seed;
  other_seed.seed = 7;
  CHECK(srs::optim::train(model, ds, rows, {}, other_seed) != w);
}

TEST_CASE("trainer: inadequate data throws InadequateData") {
  const Fsrs6 model{};
  SUBCASE("no rows") {
    const auto& ds = small_user();
    const std::vector<std::size_t> none;
    CHECK_THROWS_AS(srs::optim::train(model, ds, none), srs::InadequateData);
    srs::optim::TrainOptions s0;
    s0.mode = TrainMode::initialize_only;
    CHECK_THROWS_AS(srs::optim::train(model, ds, none, {}, s0), srs::InadequateData);
  }
  SUBCASE("every row has a history longer than 64 steps") {
    // One card: a first Good and 69 same-day Goods, then reviews 2, 3, ... days
    // apart whose histories hold 70.. steps. The first of them has i = 2, so
    // the S0 fit succeeds and the trainer's own check is what throws.
    srs::data::Dataset ds;
    ds.user = "long";
    ds.steps.assign(70, srs::data::Step{0.0, 3});
    for (int k = 0; k < 6; ++k) {
      ds.steps.push_back({static_cast<double>(2 + k), 3});
      srs::data::Item it;
      it.review_th = 71 + k;
      it.card_id = 0;
      it.delta_t = 2 + k;
      it.elapsed_days = 2 + k;
      it.i = 2 + k;
      it.rating = 3;
      it.y = 1;
      it.first_rating = 3;
      it.hist_begin = 0;
      it.hist_len = static_cast<std::size_t>(70 + k);
      ds.items.push_back(it);
    }
    const std::vector<std::size_t> rows{0, 1, 2, 3, 4, 5};
    CHECK_THROWS_WITH_AS(srs::optim::train(model, ds, rows), doctest::Contains("inadequate"), srs::InadequateData);
    // The S0 fit alone still works on these rows.
    srs::optim::TrainOptions s0;
    s0.mode = TrainMode::initialize_only;
    CHECK_NOTHROW(srs::optim::train(model, ds, rows, {}, s0));
  }
}

TEST_CASE("trainer: recovers a ground truth away from the defaults") {
  // Truth: slower-than-default forgetting-curve flattening (w20 = 0.3), a
  // smaller success gain (w8 = 1.5), twice the default initial stabilities.
  // A daily review limit leaves cards overdue, which spreads t / S and makes
  // the curve's shape (w20) identifiable.
  srs::sched::SimulationOptions o;
  o.seed = 1;
  o.days = 365;
  o.new_cards_per_day = 10;
  o.max_reviews_per_day = 60;
  o.params[20] = 0.3;
  o.params[8] = 1.5;
  for (std::size_t k = 0; k < 4; ++k) o.params[k] *= 2;
  const srs::data::Revlog log = srs::sched::simulate_user(o, "truth");
  REQUIRE(log.rows.size() > 20000);
  srs::data::PreprocessOptions po;
  po.short_term = true;
  const auto ds = srs::data::preprocess(log, po);
  const auto rows = first_rows(ds, 1.0);

  const Fsrs6 model{};
  const Params w = srs::optim::train(model, ds, rows);
  const double loss_default = log_loss(model, ds, rows, Fsrs6::defaults);
  const double loss_truth = log_loss(model, ds, rows, o.params);
  const double loss = log_loss(model, ds, rows, w);
  CAPTURE(loss_default);
  CAPTURE(loss_truth);
  CAPTURE(loss);
  CAPTURE(w[20]);
  CAPTURE(w[8]);
  CAPTURE(w[2]);
  CHECK(loss < loss_default);
  CHECK(std::abs(loss - loss_truth) < 0.005);
  // Well-identified parameters move toward the truth.
  auto closer = [&](std::size_t k) {
    return std::abs(w[k] - o.params[k]) < std::abs(Fsrs6::defaults[k] - o.params[k]);
  };
  CHECK(closer(20));  // curve flatness
  CHECK(w[20] > 0.2);
  CHECK(closer(8));  // success gain
  // S0 of the most frequent first rating (Good: 55 % of first reviews).
  CHECK(closer(2));
  CHECK(std::abs(w[2] - o.params[2]) < 0.25 * o.params[2]);
}

namespace {
/// FSRS-6 as another type: kernels are chosen by exact type, so training it
/// takes the generic forward-mode kernel (the route of every other model),
/// with nothing to delete.
struct Fsrs6Forward : srs::models::Fsrs6 {};
static_assert(!srs::optim::GradientKernel<srs::models::Fsrs6>::generic);
static_assert(srs::optim::GradientKernel<Fsrs6Forward>::generic);

/// FSRS-7 trained through the tape (ReverseModeKernel), its kernel before the hand-written one.
struct Fsrs7Tape : srs::models::Fsrs7 {};
}  // namespace
template <>
class srs::optim::GradientKernel<Fsrs7Tape> : public srs::optim::ReverseModeKernel<Fsrs7Tape> {
 public:
  using ReverseModeKernel<Fsrs7Tape>::ReverseModeKernel;
};
namespace {

/// A simulated user preprocessed as for --short, with the indices of all its rows.
struct ShortUser {
  srs::data::Dataset ds;
  std::vector<std::size_t> rows;
};
ShortUser short_user(std::uint64_t seed, int days, const char* name) {
  srs::sched::SimulationOptions so;
  so.seed = seed;
  so.days = days;
  srs::data::PreprocessOptions po;
  po.short_term = true;
  ShortUser u{srs::data::preprocess(srs::sched::simulate_user(so, name), po), {}};
  u.rows.resize(u.ds.items.size());
  std::iota(u.rows.begin(), u.rows.end(), std::size_t{0});
  return u;
}
}  // namespace

TEST_CASE("train: FSRS-6's reverse-mode pass matches forward mode, in both batchings") {
  const ShortUser u = short_user(9, 120, "adjoint");
  const srs::data::Dataset& ds = u.ds;
  const std::vector<std::size_t>& rows = u.rows;
  srs::optim::TrainOptions fast;
  fast.batching = srs::optim::Batching::card_window;
  const std::span<const std::size_t> all(rows);
  // The gradients agree to rounding; after 5 epochs of Adam and rounding to 4
  // decimals the parameters agree to the last decimal.
  auto check_close = [](const std::array<double, 21>& a, const std::array<double, 21>& b) {
    for (std::size_t k = 0; k < 21; ++k) {
      CAPTURE(k);
      CHECK(std::abs(a[k] - b[k]) <= 1.5e-4);
    }
    CHECK(a != srs::models::Fsrs6{}.default_params());
  };
  SUBCASE("card-window batches (one card at a time)") {
    check_close(srs::optim::train(srs::models::Fsrs6{}, ds, all, {}, fast),
                srs::optim::train(Fsrs6Forward{}, ds, all, {}, fast));
  }
  SUBCASE("reference batches (one row at a time)") {
    check_close(srs::optim::train(srs::models::Fsrs6{}, ds, all), srs::optim::train(Fsrs6Forward{}, ds, all));
  }
}

TEST_CASE("train: reference batching's shared replays give the parameters and losses of each row replayed alone") {
  // TrainOptions::share_histories: history trees (rows share the reviews
  // their histories begin with; FSRS-6's kernel and the generic one for
  // stepwise models) and the generic kernel's shared rows for models that
  // predict from the whole history (the same history and interval; ACT-R),
  // and FSRS-rs's own trainer, against every row replayed alone: the same
  // operations in the same order, so equal to the last bit, with and without
  // recency weights. (FSRS-7's trees without vector lanes: Lanes::scalar;
  // its lanes are the next test's.)
  const ShortUser u = short_user(4, 150, "shared");
  const std::span<const std::size_t> all(u.rows);
  std::vector<double> recency(u.rows.size());
  for (std::size_t i = 0; i < recency.size(); ++i)
    recency[i] = 0.25 + 0.75 * static_cast<double>(i) / static_cast<double>(recency.size());
  const auto check_same = [&](const auto& model, std::span<const double> weights, std::size_t reports = 6) {
    srs::optim::TrainOptions opt;
    opt.lanes = srs::optim::Lanes::scalar;
    std::vector<double> shared_loss, alone_loss;
    opt.on_epoch = [&](int, double loss) { shared_loss.push_back(loss); };
    const auto shared = srs::optim::train(model, u.ds, all, weights, opt);
    opt.share_histories = false;
    opt.on_epoch = [&](int, double loss) { alone_loss.push_back(loss); };
    const auto alone = srs::optim::train(model, u.ds, all, weights, opt);
    CHECK(shared == alone);
    CHECK(shared != model.default_params());
    REQUIRE(shared_loss.size() == reports);
    CHECK(shared_loss == alone_loss);  // bit for bit, every epoch
  };
  check_same(srs::models::Fsrs6{}, {});
  check_same(srs::models::Fsrs6{}, recency);
  check_same(srs::models::Fsrs5{}, {});
  check_same(srs::models::Fsrs5{}, recency);
  check_same(srs::models::ActR{}, {});
  check_same(srs::models::ActR{}, recency);
  check_same(srs::models::Fsrs7{}, {}, 10);
  check_same(srs::models::Fsrs7{}, recency, 10);
  check_same(srs::models::FsrsRs{}, {}, 0);  // its own trainer (fsrs-rs's batches, no on_epoch)
}

TEST_CASE("train: FSRS-7's reference batches in vector lanes and one row at a time agree to rounding") {
  // TrainOptions::lanes: automatic (the widest vector lanes here: each
  // batch's tree forward depth by depth and back once,
  // optim/kernels/fsrs7_lanes.hpp) against scalar (each row's pass over the
  // tree): the same arithmetic with glibc's vector exp, log and log1p, sums in
  // another order. Where the build has no such lanes, automatic is scalar:
  // then the same bits.
  const bool lanes = srs::optim::detail::resolve_lanes_log1p(srs::optim::Lanes::automatic) != srs::optim::Lanes::scalar;
  for (const bool secs : {true, false}) {
    CAPTURE(secs);
    const ShortUser u = short_user(5, 150, "fsrs7 lanes");
    const std::span<const std::size_t> all(u.rows);
    std::vector<double> recency(u.rows.size());
    for (std::size_t i = 0; i < recency.size(); ++i)
      recency[i] = 0.0667 + 0.9333 * static_cast<double>(i) / static_cast<double>(recency.size());
    srs::models::Fsrs7 m;
    m.secs = secs;
    for (const bool weighted : {false, true}) {
      CAPTURE(weighted);
      const std::span<const double> weights = weighted ? std::span<const double>(recency) : std::span<const double>();
      srs::optim::TrainOptions opt;
      std::vector<double> loss_lanes, loss_scalar;
      opt.on_epoch = [&](int, double loss) { loss_lanes.push_back(loss); };
      const auto w_lanes = srs::optim::train(m, u.ds, all, weights, opt);
      opt.lanes = srs::optim::Lanes::scalar;
      opt.on_epoch = [&](int, double loss) { loss_scalar.push_back(loss); };
      const auto w_scalar = srs::optim::train(m, u.ds, all, weights, opt);
      REQUIRE(loss_lanes.size() == 10);
      REQUIRE(loss_scalar.size() == 10);
      CHECK(loss_lanes[0] == loss_scalar[0]);  // the initial parameters: the loss pass is scalar either way
      for (std::size_t e = 1; e < 10; ++e) CHECK(loss_lanes[e] == doctest::Approx(loss_scalar[e]).epsilon(1e-9));
      for (std::size_t k = 0; k < 34; ++k) CHECK(std::abs(w_lanes[k] - w_scalar[k]) <= 1e-4);  // 4 decimals
      if (!lanes) CHECK(w_lanes == w_scalar);
      CHECK(w_lanes != m.default_params());
    }
  }
}

TEST_CASE("train: FSRS-7's hand-written kernel gives the tape's parameters, in both batchings") {
  // GradientKernel<Fsrs7> against ReverseModeKernel<Fsrs7> (Fsrs7Tape): the
  // gradients agree to rounding; after 9 epochs and rounding to 4 decimals the
  // parameters agree to the last decimal.
  const ShortUser u = short_user(9, 120, "fsrs7");
  const std::span<const std::size_t> all(u.rows);
  srs::models::Fsrs7 secs;
  secs.secs = true;
  Fsrs7Tape secs_tape;
  secs_tape.secs = true;
  srs::optim::TrainOptions fast;
  fast.batching = srs::optim::Batching::card_window;
  for (const srs::optim::TrainOptions& opt : {srs::optim::TrainOptions{}, fast}) {
    for (const bool in_secs : {false, true}) {
      const auto a = in_secs ? srs::optim::train(secs, u.ds, all, {}, opt) : srs::optim::train(srs::models::Fsrs7{}, u.ds, all, {}, opt);
      const auto b = in_secs ? srs::optim::train(secs_tape, u.ds, all, {}, opt) : srs::optim::train(Fsrs7Tape{}, u.ds, all, {}, opt);
      for (std::size_t k = 0; k < a.size(); ++k) {
        CAPTURE(k);
        CHECK(std::abs(a[k] - b[k]) <= 1.5e-4);
      }
      CHECK(a != srs::models::Fsrs7{}.default_params());
    }
  }
}

TEST_CASE("train: on_epoch reports the best-epoch losses, from FSRS-6's loss pass in card-window batches") {
  // FSRS-6 in card-window batches computes the loss of the parameters after
  // epoch e with its kernel's loss pass over all cards in vector lanes where
  // they run (e^(y ln x) powers with glibc's vector exp and log); without
  // lanes, partly in epoch e + 1's first batch (its kernel's reverse mode) and
  // the rest with the kernel's predict<true> (the same powers, libm's exp and
  // log). Fsrs6Forward (the generic kernel) evaluates them in a separate pass
  // with std::pow. Both ways: TrainOptions::lanes automatic and scalar.
  for (const auto& [days_b, want_b] :
       {std::pair{20, srs::optim::Lanes::automatic}, std::pair{150, srs::optim::Lanes::automatic},
        std::pair{20, srs::optim::Lanes::scalar}, std::pair{150, srs::optim::Lanes::scalar}}) {
    // (clang 14 cannot capture structured bindings: named copies of them)
    const auto& days = days_b;
    const auto& want = want_b;
    // (20 days: one batch per epoch; 150: several)
    CAPTURE(days);
    CAPTURE(static_cast<int>(want));
    const bool lanes = srs::optim::detail::resolve_lanes(want) != srs::optim::Lanes::scalar;
    const ShortUser u = short_user(4, days, "epochs");
    const std::span<const std::size_t> all(u.rows);
    srs::optim::TrainOptions fast;
    fast.batching = srs::optim::Batching::card_window;
    fast.lanes = want;
    std::vector<std::pair<int, double>> fused, separate;
    fast.on_epoch = [&](int e, double loss) { fused.emplace_back(e, loss); };
    const auto w = srs::optim::train(srs::models::Fsrs6{}, u.ds, all, {}, fast);
    fast.on_epoch = [&](int e, double loss) { separate.emplace_back(e, loss); };
    const auto w_fwd = srs::optim::train(Fsrs6Forward{}, u.ds, all, {}, fast);
    REQUIRE(fused.size() == 6);
    REQUIRE(separate.size() == 6);
    for (int e = 0; e <= 5; ++e) {
      CAPTURE(e);
      CHECK(fused[static_cast<std::size_t>(e)].first == e);
      CHECK(separate[static_cast<std::size_t>(e)].first == e);
    }
    // The initial parameters are the same: the same loss, up to the powers' last bits.
    CHECK(fused[0].second == doctest::Approx(separate[0].second).epsilon(1e-13));
    // Its value: Σ BCE over the rows in order of history length (stable), / N,
    // each row predicted alone with predict<true> (std::pow: separate[0]); no penalty at w0.
    const srs::models::Fsrs6 m;
    std::array<double, 21> w0 = m.default_params();
    m.initialize(std::span<double, 21>(w0), u.ds, all);
    srs::optim::GradientKernel<srs::models::Fsrs6> kernel(m);
    kernel.reset(std::span<const double, 21>(w0));
    std::vector<std::size_t> by_len(u.rows);
    std::stable_sort(by_len.begin(), by_len.end(),
                     [&](std::size_t a, std::size_t b) { return u.ds.items[a].hist_len < u.ds.items[b].hist_len; });
    double sum = 0, sum_std = 0;
    for (const std::size_t r : by_len) {
      const srs::data::Item& it = u.ds.items[r];
      double p = -1;
      kernel.predict<true>(
          u.ds.history(it), 1, [&](std::size_t) { return it.hist_len; }, [&](std::size_t) { return it.delta_t; },
          [&](std::size_t, double v) { p = v; });
      sum += srs::optim::bce(p, it.y);
      sum_std +=
          srs::optim::bce(srs::optim::predict(m, std::span<const double, 21>(w0), u.ds.history(it), it.delta_t), it.y);
    }
    if (lanes) {
      CHECK(fused[0].second == doctest::Approx(sum / static_cast<double>(u.rows.size())).epsilon(1e-13));
    } else {
      CHECK(fused[0].second == sum / static_cast<double>(u.rows.size()));
    }
    CHECK(separate[0].second == sum_std / static_cast<double>(u.rows.size()));
    // Later epochs: parameters equal to rounding (gradients to rounding), so losses too.
    for (std::size_t e = 1; e <= 5; ++e) {
      CAPTURE(e);
      CHECK(fused[e].second == doctest::Approx(separate[e].second).epsilon(1e-9));
    }
    // The returned parameters are those of the lowest loss.
    std::size_t best = 0;
    for (std::size_t e = 1; e <= 5; ++e)
      if (fused[e].second < fused[best].second) best = e;
    CHECK(best > 0);
    for (std::size_t k = 0; k < 21; ++k) CHECK(std::abs(w[k] - w_fwd[k]) <= 1.5e-4);
  }
}

TEST_CASE("train: FSRS-6 card-window batches in vector lanes and one card at a time agree to rounding") {
  // TrainOptions::lanes: automatic (the widest vector lanes here) against
  // scalar (the per-card kernel passes, the loss partly fused): the same
  // arithmetic with glibc's vector exp and log, sums in another order.
  for (const int days : {20, 150}) {
    CAPTURE(days);
    const ShortUser u = short_user(6, days, "lanes");
    const std::span<const std::size_t> all(u.rows);
    srs::optim::TrainOptions opt;
    opt.batching = srs::optim::Batching::card_window;
    std::vector<double> loss_lanes, loss_scalar;
    opt.on_epoch = [&](int, double loss) { loss_lanes.push_back(loss); };
    const auto w_lanes = srs::optim::train(srs::models::Fsrs6{}, u.ds, all, {}, opt);
    opt.lanes = srs::optim::Lanes::scalar;
    opt.on_epoch = [&](int, double loss) { loss_scalar.push_back(loss); };
    const auto w_scalar = srs::optim::train(srs::models::Fsrs6{}, u.ds, all, {}, opt);
    REQUIRE(loss_lanes.size() == 6);
    REQUIRE(loss_scalar.size() == 6);
    CHECK(loss_lanes[0] == doctest::Approx(loss_scalar[0]).epsilon(1e-13));
    for (std::size_t e = 1; e < 6; ++e) CHECK(loss_lanes[e] == doctest::Approx(loss_scalar[e]).epsilon(1e-9));
    for (std::size_t k = 0; k < 21; ++k) CHECK(std::abs(w_lanes[k] - w_scalar[k]) <= 1e-4);
  }
}

TEST_CASE("train: card-window batching (--fast) trains, is deterministic, and lands near reference batching") {
  const ShortUser u = short_user(5, 90, "fast");
  const srs::data::Dataset& ds = u.ds;
  const std::vector<std::size_t>& rows = u.rows;
  const srs::models::Fsrs6 m;
  srs::optim::TrainOptions fast;
  fast.batching = srs::optim::Batching::card_window;
  const auto a = srs::optim::train(m, ds, std::span<const std::size_t>(rows), {}, fast);
  const auto b = srs::optim::train(m, ds, std::span<const std::size_t>(rows), {}, fast);
  CHECK(a == b);
  const auto ref = srs::optim::train(m, ds, std::span<const std::size_t>(rows));
  CHECK(a != ref);  // a different batch composition
  // Both improve on the defaults by about the same amount on these rows.
  auto loss = [&](const std::array<double, 21>& w) {
    double l = 0;
    for (const auto& it : ds.items)
      l += srs::optim::bce(srs::optim::predict(m, std::span<const double, 21>(w), ds.history(it), it.delta_t), it.y);
    return l / static_cast<double>(ds.items.size());
  };
  const double l_def = loss(m.default_params()), l_fast = loss(a), l_ref = loss(ref);
  CHECK(l_fast < l_def);
  CHECK(l_ref < l_def);
  CHECK(std::abs(l_fast - l_ref) < 0.003);
  // The result is in the box and rounded like the reference's.
  auto boxed = a;
  m.clamp(std::span<double, 21>(boxed));
  CHECK(boxed == a);
}

namespace {
/// FSRS-6 trained with a learning rate far too large, so that training makes
/// the loss worse than the initial parameters', keeping the best epoch or
/// (KeepFinal) the last.
template <bool KeepFinal>
struct Fsrs6Overshoot : srs::models::Fsrs6 {
  srs::optim::TrainingSettings training() const {
    return {.lr = 3.0, .n_epoch = 3, .batch_size = 512, .keep_final = KeepFinal};
  }
};
}  // namespace

TEST_CASE("train: keep_final returns the last epoch's parameters, with or without on_epoch") {
  const ShortUser u = short_user(9, 60, "keep_final");
  const std::span<const std::size_t> all(u.rows);
  srs::optim::TrainOptions opt;
  opt.mode = TrainMode::full;
  // Best-epoch choice: every epoch is worse than the initial vector (after the S0 fit), which wins.
  std::vector<double> losses;
  opt.on_epoch = [&](int, double loss) { losses.push_back(loss); };
  const auto best = srs::optim::train(Fsrs6Overshoot<false>{}, u.ds, all, {}, opt);
  REQUIRE(losses.size() == 4);
  for (std::size_t e = 1; e < 4; ++e) CHECK(losses[e] > losses[0]);
  std::array<double, 21> initial = srs::models::Fsrs6{}.default_params();
  srs::models::Fsrs6{}.initialize(std::span<double, 21>(initial), u.ds, all);
  srs::models::Fsrs6{}.round_params(std::span<double, 21>(initial));
  CHECK(best == initial);
  // keep_final: the last epoch's parameters, the same with the losses asked for and without.
  std::vector<double> final_losses;
  opt.on_epoch = [&](int, double loss) { final_losses.push_back(loss); };
  const auto last = srs::optim::train(Fsrs6Overshoot<true>{}, u.ds, all, {}, opt);
  CHECK(final_losses == losses);  // the same trajectory
  CHECK(last != initial);
  opt.on_epoch = {};
  std::size_t steps = 0;
  opt.on_step = [&](std::size_t, std::size_t) { ++steps; };
  CHECK(srs::optim::train(Fsrs6Overshoot<true>{}, u.ds, all, {}, opt) == last);
  CHECK(steps > 0);
  // ... and in card-window batches.
  opt.batching = srs::optim::Batching::card_window;
  const auto last_fast = srs::optim::train(Fsrs6Overshoot<true>{}, u.ds, all, {}, opt);
  opt.on_epoch = [&](int, double) {};
  CHECK(srs::optim::train(Fsrs6Overshoot<true>{}, u.ds, all, {}, opt) == last_fast);
}
