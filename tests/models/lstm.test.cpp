// SPDX-License-Identifier: MIT
// Tests of srs/models/lstm.hpp: the LSTM (8,869 parameters), docs/models.md §12.5.
//   - parameter blocks, counts and the initialisation (orthogonal LSTM weights,
//     forget-gate bias 1, LayerNorm γ = 1);
//   - the input encoding (normalised log interval and duration, one-hot rating)
//     and the three-curve head;
//   - use_durations (srs-bench --duration): the duration feature of every step
//     from its own answer time, ln clamp(ms, 100, 60000) normalised (0 ms and
//     anything below 100 ms give ln 100, above 60 s ln 60000), in encode() and
//     predict(); without it every step gets the constant, whatever the data;
//   - Reptile pretraining with use_durations: the duration buffers are the mean
//     and population std of the steps' ln durations, and the file says so;
//   - Reptile pretraining (buffers, optimiser state, determinism) and the
//     per-user fine-tuning from it (srs/optim/trainers/lstm.hpp).
// The gradient kernel (srs/optim/kernels/lstm.hpp): tests/optim/neural_kernels.test.cpp.
#include <doctest/doctest.h>

#include <algorithm>  // std::clamp
#include <array>      // std::array
#include <cmath>      // std::log, std::pow, std::exp, std::abs
#include <cstddef>    // std::size_t
#include <cstdint>    // std::int32_t
#include <map>        // std::map
#include <memory>     // std::make_unique
#include <span>       // std::span
#include <vector>     // std::vector

#include <srs/models/lstm.hpp>          // srs::models::Lstm
#include <srs/optim/trainers/lstm.hpp>  // srs::optim::pretrain, optim::train (LSTM)
#include <support/neural_check.hpp>     // srs::test::random_cards, perturbed_params, rows_loss

namespace {

using srs::models::Lstm;
using srs::models::detail::LstmOffsets;

/// The initialisation from `seed`, every entry perturbed (LayerNorm β and γ
/// away from 0 and 1, head weights larger so that all three curves matter).
std::unique_ptr<std::array<double, 8869>> random_lstm(std::uint64_t seed) {
  return srs::test::perturbed_params(Lstm{}, seed, 5, [](std::size_t) { return 0.1; });
}

}  // namespace

TEST_CASE("LSTM: parameter blocks, counts and initialisation") {
  CHECK(Lstm::num_params == 8869);
  CHECK(Lstm::name == "LSTM");
  const auto l = Lstm::layout();
  CHECK(srs::models::layout_size(l) == 8869);
  // 140 + 20 + 420 + (20 + 3360) + (40 + 3360) + 880 + 20 + 420 + 189
  CHECK(l[0].size() + l[1].size() == 140);
  CHECK(l[2].size() == 20);
  CHECK(l[3].size() + l[4].size() == 420);
  CHECK(l[6].size() + l[7].size() + l[8].size() + l[9].size() == 3360);
  CHECK(srs::models::block_offset(l, "process.5.module.1.module.weight_ih_l0") == LstmOffsets::l1);
  CHECK(srs::models::block_offset(l, "process.6.module.0.bias") == LstmOffsets::ln2b);
  CHECK(srs::models::block_offset(l, "process.6.module.1.module.weight_ih_l0") == LstmOffsets::l2);
  CHECK(srs::models::block_offset(l, "w_fc.weight") == LstmOffsets::wfc);
  CHECK(srs::models::block_offset(l, "d_fc.bias") == LstmOffsets::dfc + 60);

  const Lstm m;
  const auto w = std::make_unique<std::array<double, 8869>>(m.initial_params());
  for (std::size_t k = 0; k < 20; ++k) {
    CHECK((*w)[LstmOffsets::ln0 + k] == 1.0);
    CHECK((*w)[LstmOffsets::ln2b + k] == 0.0);
    CHECK((*w)[LstmOffsets::l1 + LstmOffsets::bih + 20 + k] == 1.0);  // forget gate of bias_ih
    CHECK((*w)[LstmOffsets::l2 + LstmOffsets::bih + 20 + k] == 1.0);
  }
  // Orthogonal weight_hh (80 x 20): orthonormal columns.
  for (std::size_t a = 0; a < 20; a += 7) {
    double dot = 0, cross = 0;
    for (std::size_t r = 0; r < 80; ++r) {
      dot +=
          (*w)[LstmOffsets::l1 + LstmOffsets::hh + r * 20 + a] * (*w)[LstmOffsets::l1 + LstmOffsets::hh + r * 20 + a];
      cross += (*w)[LstmOffsets::l1 + LstmOffsets::hh + r * 20 + a] *
               (*w)[LstmOffsets::l1 + LstmOffsets::hh + r * 20 + (a + 1) % 20];
    }
    CHECK(dot == doctest::Approx(1.0).epsilon(1e-12));
    CHECK(std::abs(cross) < 1e-12);
  }
}

TEST_CASE("LSTM: input encoding and the three-curve head") {
  Lstm m;
  srs::models::NeuralWeights nw;
  nw.model = "LSTM";
  const auto w0 = random_lstm(1);
  nw.params.assign(w0->begin(), w0->end());
  nw.buffers = {{"input_mean", {0.5, 9.0}}, {"input_std", {2.0, 0.5}}};
  m.set_weights(nw);
  CHECK((m.input_mean() == std::array<double, 2>{0.5, 9.0}));
  CHECK((m.input_std() == std::array<double, 2>{2.0, 0.5}));
  const std::vector<srs::data::Step> h{{0.0, 3}, {3.0, 1}, {0.5, 4}};
  Eigen::Matrix<double, 6, Eigen::Dynamic> x(6, 3);
  m.encode(h, x);
  for (std::size_t j = 0; j < 3; ++j) {
    const auto c = static_cast<Eigen::Index>(j);
    CHECK(x(0, c) == doctest::Approx((std::log(1e-5 + h[j].t) - 0.5) / 2.0));
    CHECK(x(1, c) == doctest::Approx((std::log(10000.0) - 9.0) / 0.5));  // the constant 10 s duration
    for (int r = 1; r <= 4; ++r) CHECK(x(1 + r, c) == (h[j].rating == r ? 1.0 : 0.0));
  }
  // The head: p = (1 - 1e-7) Σ w_k (1 + Δ/(1e-7 + s_k))^(-d_k); p(0) = 1 - 1e-7,
  // and p falls with Δ.
  const auto ws = std::span<const double, 8869>(*w0);
  CHECK(m.predict(ws, h, 0.0) == doctest::Approx(1.0 - 1e-7).epsilon(1e-15));
  double prev = 1.0;
  for (double dt : {1.0, 5.0, 30.0, 365.0}) {
    const double p = m.predict(ws, h, dt);
    CHECK(p < prev);
    CHECK(p > 0.0);
    prev = p;
  }
}

TEST_CASE("LSTM: Reptile pretraining saves buffers and optimiser state, fine-tuning starts from them") {
  const std::vector<srs::data::Dataset> users{srs::test::random_cards(31, 60, 12), srs::test::random_cards(32, 60, 12)};
  Lstm m;
  m.reptile.inner_steps = 3;
  const srs::models::PretrainOptions po{.epochs = 2, .batch_size = 64};
  const auto a = srs::optim::pretrain(m, users, po);
  const auto b = srs::optim::pretrain(m, users, po);
  CHECK(a.params == b.params);  // deterministic
  CHECK(a.model == "LSTM");
  REQUIRE(a.buffer("input_mean"));
  REQUIRE(a.buffer("input_std"));
  CHECK(a.buffer("input_mean")->size() == 2);
  CHECK((*a.buffer("input_std"))[0] > 0);
  CHECK(a.optimizer_step == 2 * 2 * 3);  // cycles x users x inner steps
  CHECK(a.optimizer_exp_avg_sq.size() == 8869);
  const auto init = std::make_unique<std::array<double, 8869>>(m.initial_params());
  CHECK(!std::equal(a.params.begin(), a.params.end(), init->begin()));

  // Fine-tuning from the pretrained state: deterministic, moves the weights,
  // and lowers the (recency-weighted) training loss.
  Lstm f;
  f.set_weights(a);
  const auto& ds = users[0];
  const auto rows = srs::test::all_rows(ds);
  f.fine_tune.passes = 4;
  f.fine_tune.batch_size = 64;
  const auto t1 = std::make_unique<std::array<double, 8869>>(
      srs::optim::train(f, ds, rows, {}, {.mode = srs::optim::TrainMode::full}));
  const auto t2 = std::make_unique<std::array<double, 8869>>(
      srs::optim::train(f, ds, rows, {}, {.mode = srs::optim::TrainMode::full}));
  CHECK(*t1 == *t2);
  const auto start = std::make_unique<std::array<double, 8869>>(f.default_params());
  CHECK(*t1 != *start);
  CHECK(srs::test::rows_loss(f, std::span<const double, 8869>(*t1), ds, rows) <
        srs::test::rows_loss(f, std::span<const double, 8869>(*start), ds, rows));
  CHECK(srs::optim::train(f, ds, rows, {}, {.mode = srs::optim::TrainMode::defaults}) == *start);
}

namespace lstm_durations_test {

/// The encoded duration feature (row 1) of each step of `h`.
std::vector<double> duration_feature(const Lstm& m, const std::vector<srs::data::Step>& h) {
  Eigen::Matrix<double, 6, Eigen::Dynamic> x(6, static_cast<Eigen::Index>(h.size()));
  m.encode(h, x);
  std::vector<double> out;
  for (Eigen::Index c = 0; c < x.cols(); ++c) out.push_back(x(1, c));
  return out;
}

}  // namespace lstm_durations_test

TEST_CASE("LSTM: use_durations feeds each step's own duration, ln clamp(ms, 100, 60000) normalised") {
  using lstm_durations_test::duration_feature;
  // The transform: a zero (unknown) duration and anything below 100 ms count
  // as 100 ms, anything above 60 s as 60 s.
  CHECK(Lstm::log_duration(0) == std::log(100.0));
  CHECK(Lstm::log_duration(1) == std::log(100.0));
  CHECK(Lstm::log_duration(99) == std::log(100.0));
  CHECK(Lstm::log_duration(100) == std::log(100.0));
  CHECK(Lstm::log_duration(6765) == std::log(6765.0));
  CHECK(Lstm::log_duration(60000) == std::log(60000.0));
  CHECK(Lstm::log_duration(60001) == std::log(60000.0));
  CHECK(Lstm::log_duration(2000000) == std::log(60000.0));

  // Steps {t, rating, duration ms}: 0, < 100, in range, > 60000.
  const std::vector<srs::data::Step> h{{0.0, 3, 0}, {1.0, 1, 42}, {2.5, 3, 6765}, {0.1, 4, 75000}, {7.0, 2, 60000}};
  const double expected_log[] = {std::log(100.0), std::log(100.0), std::log(6765.0), std::log(60000.0),
                                 std::log(60000.0)};
  Lstm m;
  m.use_durations = true;
  // Without weights: the buffers are mean 0 and std 1 (the reference's module
  // without its file), so the feature is the logarithm itself.
  std::vector<double> f = duration_feature(m, h);
  for (std::size_t j = 0; j < h.size(); ++j) {
    CAPTURE(j);
    CHECK(f[j] == expected_log[j]);
  }
  // With the pretrained buffers of the reference's file (docs/models.md §12.5).
  srs::models::NeuralWeights nw;
  nw.model = "LSTM";
  const auto w0 = random_lstm(3);
  nw.params.assign(w0->begin(), w0->end());
  nw.buffers = {{"input_mean", {-2.0706503, 8.8249998}}, {"input_std", {5.1999154, 1.1053879}}};
  m.set_weights(nw);
  f = duration_feature(m, h);
  for (std::size_t j = 0; j < h.size(); ++j) {
    CAPTURE(j);
    CHECK(f[j] == doctest::Approx((expected_log[j] - 8.8249998) / 1.1053879).epsilon(1e-15));
  }
  CHECK(f[2] == doctest::Approx(-0.0049596).epsilon(1e-4));  // (ln 6765 - 8.8249998) / 1.1053879, by hand
  // The other features do not depend on the durations.
  Eigen::Matrix<double, 6, Eigen::Dynamic> with(6, 5), without(6, 5);
  m.encode(h, with);
  Lstm c = m;
  c.use_durations = false;
  c.encode(h, without);
  CHECK(with.row(0) == without.row(0));
  CHECK(with.bottomRows(4) == without.bottomRows(4));
  // Without use_durations every step gets the constant duration_ms (10 s),
  // whatever the data say.
  for (double x : duration_feature(c, h)) CHECK(x == doctest::Approx((std::log(10000.0) - 8.8249998) / 1.1053879));

  // predict() reads them: the same history with other durations predicts
  // otherwise with use_durations, identically without.
  std::vector<srs::data::Step> other = h;
  for (srs::data::Step& s : other) s.duration = 10000;
  const auto ws = std::span<const double, 8869>(*w0);
  CHECK(m.predict(ws, h, 3.0) != m.predict(ws, other, 3.0));
  CHECK(c.predict(ws, h, 3.0) == c.predict(ws, other, 3.0));
  // Durations of exactly duration_ms make use_durations change nothing.
  CHECK(m.predict(ws, other, 3.0) == c.predict(ws, other, 3.0));

  // The training batches (make_batch) encode the same per-step durations as
  // predict(): the packed loss equals the row-by-row one, and differs from
  // the constant's.
  srs::data::Dataset ds = srs::test::random_cards(9, 25, 8);
  for (std::size_t k = 0; k < ds.steps.size(); ++k)
    ds.steps[k].duration = static_cast<std::int32_t>((k * 4111) % 70000);
  double packed = 0, packed_constant = 0;
  for (const auto& b : srs::test::batches_of(m, ds, 16)) packed += srs::optim::batch_loss(m, ws, b, nullptr);
  for (const auto& b : srs::test::batches_of(c, ds, 16)) packed_constant += srs::optim::batch_loss(c, ws, b, nullptr);
  // 1e-10: the packed batch multiplies matrices (Eigen's GEMM) where a row alone multiplies a
  // vector (GEMV); their sums run in another order, and the recurrence carries the last bits on
  // (about 1e-15 on libstdc++'s random cards, a few 1e-12 on libc++'s, whose std distributions draw
  // others).
  CHECK(packed == doctest::Approx(srs::test::rows_loss(m, ws, ds, srs::test::all_rows(ds))).epsilon(1e-10));
  CHECK(packed != doctest::Approx(packed_constant).epsilon(1e-6));
}

TEST_CASE("LSTM: Reptile pretraining with use_durations normalises the real durations") {
  std::vector<srs::data::Dataset> users{srs::test::random_cards(41, 20, 6), srs::test::random_cards(42, 20, 6)};
  // Durations 0, 50, 100..59,000 and 90,000 ms over the steps.
  int k = 0;
  for (srs::data::Dataset& ds : users)
    for (srs::data::Step& s : ds.steps) {
      ++k;
      s.duration = k % 17 == 0 ? 0 : k % 13 == 0 ? 50 : k % 11 == 0 ? 90000 : 100 + (k * 7919) % 59000;
    }
  // The steps the statistics use: each card's last (longest) history.
  std::vector<double> logs;
  for (const srs::data::Dataset& ds : users) {
    std::map<std::size_t, std::size_t> last;
    for (const srs::data::Item& it : ds.items) last[it.hist_begin] = std::max(last[it.hist_begin], it.hist_len);
    for (const auto& [begin, len] : last)
      for (std::size_t j = 0; j < len; ++j)
        logs.push_back(std::log(std::clamp(static_cast<double>(ds.steps[begin + j].duration), 100.0, 60000.0)));
  }
  double mean = 0, var = 0;
  for (double x : logs) mean += x;
  mean /= static_cast<double>(logs.size());
  for (double x : logs) var += (x - mean) * (x - mean);
  const double sd = std::sqrt(var / static_cast<double>(logs.size()));

  Lstm m;
  m.reptile.inner_steps = 2;
  const srs::models::PretrainOptions po{.epochs = 1, .batch_size = 64};
  const auto constant = srs::optim::pretrain(m, users, po);
  m.use_durations = true;
  const auto real = srs::optim::pretrain(m, users, po);
  REQUIRE(real.buffer("input_mean"));
  REQUIRE(real.buffer("input_std"));
  CHECK((*real.buffer("input_mean"))[1] == doctest::Approx(mean).epsilon(1e-12));
  CHECK((*real.buffer("input_std"))[1] == doctest::Approx(sd).epsilon(1e-12));
  CHECK(sd > 0.5);
  // The interval's statistics are the same either way; without durations the
  // duration buffers are the constant's logarithm and 1.
  CHECK((*real.buffer("input_mean"))[0] == (*constant.buffer("input_mean"))[0]);
  CHECK((*real.buffer("input_std"))[0] == (*constant.buffer("input_std"))[0]);
  CHECK((*constant.buffer("input_mean"))[1] == std::log(10000.0));
  CHECK((*constant.buffer("input_std"))[1] == 1.0);
  CHECK(real.params != constant.params);  // the network saw other inputs
  // The file says which: "durations" with them, "duration_ms" without.
  CHECK(real.find_info("durations") != nullptr);
  CHECK(real.find_info("duration_ms") == nullptr);
  CHECK(constant.find_info("durations") == nullptr);
  REQUIRE(constant.find_info("duration_ms") != nullptr);
}
