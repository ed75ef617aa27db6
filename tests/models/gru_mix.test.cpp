// SPDX-License-Identifier: MIT
// Tests of srs/models/gru_mix.hpp: GRU-mix, the reference's 503-parameter GRU
// (docs/models.md §12.6).
//   - parameter blocks, count 503, the initialisation, the two hyper-parameter sets;
//   - the input features and a forward pass checked by hand on a tiny input;
//   - the weights file round trip (parameters and normalisation buffers);
//   - Reptile pretraining (buffers, determinism, the outer update on a toy case)
//     and the per-user fine-tuning (srs/optim/trainers/gru_mix.hpp: determinism,
//     the rows' order and batches, the training loss falls).
// The gradient kernel (srs/optim/kernels/gru_mix.hpp): tests/optim/neural_kernels.test.cpp.
#include <doctest/doctest.h>

#include <algorithm>  // std::equal, std::max, std::min, std::stable_sort
#include <array>      // std::array
#include <cmath>      // std::log, std::pow, std::exp, std::abs, std::sqrt, std::tanh
#include <cstddef>    // std::size_t
#include <cstdint>    // std::int64_t
#include <map>        // std::map
#include <span>       // std::span
#include <string>     // std::string
#include <variant>    // std::get
#include <vector>     // std::vector

#include <srs/models/gru_mix.hpp>          // srs::models::GruMix
#include <srs/optim/kernels/gru_mix.hpp>   // srs::optim::batch_loss (GRU-mix)
#include <srs/optim/randperm.hpp>          // srs::optim::numpy_permutation, torch_randperm
#include <srs/optim/replay.hpp>            // srs::optim::predict
#include <srs/optim/trainers/gru_mix.hpp>  // srs::optim::pretrain, optim::train (GRU-mix)
#include <support/common.hpp>              // srs::test::all_rows
#include <support/neural_check.hpp>        // srs::test::random_cards, perturbed_params
#include <support/temp_dir.hpp>            // srs::test::TempDir

namespace gru_mix_test {

using srs::models::GruMix;
using GmO = srs::models::detail::GruMixOffsets;
using GmParams = std::array<double, 503>;

double gm_predict(const GruMix& m, const GmParams& w, std::span<const srs::data::Step> h, double t) {
  return srs::optim::predict<double>(m, std::span<const double, 503>(w), h, t);
}

/// Σ weight·BCE through the model's step functions, row by row.
double gm_rows_loss(const GruMix& m, const GmParams& w, const srs::data::Dataset& ds) {
  double l = 0;
  for (const auto& it : ds.items) l += srs::optim::bce(gm_predict(m, w, ds.history(it), it.delta_t), it.y);
  return l;
}

/// LayerNorm (no β, γ = 1) of a 7-vector whose only non-zero entry is v at index 0.
std::array<double, 7> gm_norm_of_first(double v) {
  const double mean = v / 7.0;
  const double var = ((v - mean) * (v - mean) + 6.0 * mean * mean) / 7.0;
  std::array<double, 7> y;
  y.fill(-mean / std::sqrt(var + 1e-5));
  y[0] = (v - mean) / std::sqrt(var + 1e-5);
  return y;
}

}  // namespace gru_mix_test

TEST_CASE("GRU-mix: parameter blocks, count 503 and initialisation") {
  using namespace gru_mix_test;
  CHECK(GruMix::num_params == 503);
  CHECK(GruMix::name == "GRU-mix");
  CHECK(GruMix::result_stem == "GRU");
  const auto l = GruMix::layout();
  CHECK(l.size() == 17);
  CHECK(srs::models::layout_size(l) == 503);
  // 35 + 7 + 7 + (147 + 147 + 21 + 21) + 7 + 49 + 7 + 7 + 3 × 16
  CHECK(l[0].size() + l[1].size() == 42);
  CHECK(l[3].size() + l[4].size() + l[5].size() + l[6].size() == 336);
  CHECK(srs::models::block_offset(l, "process.3.module.weight_ih_l0") == GmO::ih);
  CHECK(srs::models::block_offset(l, "process.3.module.bias_hh_l0") == GmO::bhh);
  CHECK(srs::models::block_offset(l, "process.4.weight") == GmO::ln1);
  CHECK(srs::models::block_offset(l, "process.5.weight") == GmO::w5);
  CHECK(srs::models::block_offset(l, "process.7.weight") == GmO::ln2);
  CHECK(srs::models::block_offset(l, "w_fc.weight") == GmO::wfc);
  CHECK(srs::models::block_offset(l, "s_fc.weight") == GmO::sfc);
  CHECK(srs::models::block_offset(l, "d_fc.bias") == GmO::dfc + 14);
  CHECK(GruMix::hard_easy_params.size() == 14);
  CHECK(GruMix::hard_easy_params[0] == 2);  // unit 0's weight of the rating-2 feature
  CHECK(GruMix::hard_easy_params[13] == 34);

  const GruMix m;
  const GmParams w = m.initial_params();
  for (std::size_t k = 0; k < 7; ++k) {
    CHECK(w[GmO::ln0 + k] == 1.0);
    CHECK(w[GmO::ln1 + k] == 1.0);
    CHECK(w[GmO::ln2 + k] == 1.0);
  }
  // P1's code sets bias_ih[5, 10) to 1, P2's the update gate [7, 14).
  for (std::size_t k = 0; k < 21; ++k) {
    const bool one = k >= 5 && k < 10;
    CHECK((w[GmO::bih + k] == 1.0) == one);
    if (!one) CHECK(std::abs(w[GmO::bih + k]) <= 1.0 / std::sqrt(7.0));
  }
  const GmParams w2 = GruMix::with(srs::models::GruMixHyper::p2).initial_params();
  for (std::size_t k = 0; k < 21; ++k) CHECK((w2[GmO::bih + k] == 1.0) == (k >= 7 && k < 14));
  // Orthogonal weight_hh (21 x 7): orthonormal columns.
  for (std::size_t a = 0; a < 7; ++a) {
    double dot = 0, cross = 0;
    for (std::size_t r = 0; r < 21; ++r) {
      dot += w[GmO::hh + r * 7 + a] * w[GmO::hh + r * 7 + a];
      cross += w[GmO::hh + r * 7 + a] * w[GmO::hh + r * 7 + (a + 1) % 7];
    }
    CHECK(dot == doctest::Approx(1.0).epsilon(1e-12));
    CHECK(std::abs(cross) < 1e-12);
  }
  // nn.Linear's bound 1/√fan_in.
  for (std::size_t k = 0; k < 42; ++k) CHECK(std::abs(w[GmO::w0 + k]) <= 1.0 / std::sqrt(5.0));
  for (std::size_t k = 0; k < 16; ++k) CHECK(std::abs(w[GmO::dfc + k]) <= 1.0 / std::sqrt(7.0));
}

TEST_CASE("GRU-mix: the two hyper-parameter sets") {
  using namespace gru_mix_test;
  const GruMix p1;
  const GruMix p2 = GruMix::with(srs::models::GruMixHyper::p2);
  const GruMix p1b = GruMix::with(srs::models::GruMixHyper::p1);
  CHECK(p1.fine_tune.passes == 14);
  CHECK(p1.fine_tune.warmup_passes == 7);
  CHECK(p1.fine_tune.recency_weight == 5.242);
  CHECK(p1.reptile.inner_steps == 29);
  CHECK(p1.fine_tune.beta1 == p1.reptile.inner_beta1);
  CHECK(p1b.fine_tune.lr_middle == p1.fine_tune.lr_middle);
  CHECK(p2.fine_tune.passes == 21);
  CHECK(p2.fine_tune.weight_decay == 0.2975369763258536);
  CHECK(p2.reptile.inner_steps == 18);
  CHECK(p2.reptile.outer_beta2 == 0.917963391344383);
  CHECK(p2.fine_tune.beta2 == p2.reptile.inner_beta2);
  CHECK(p1.pretraining().epochs == 1000);
  CHECK(p1.pretraining().batch_size == 8192);
  CHECK(p1.pretraining().lr == 0.02);
  CHECK(p2.pretraining().weight_decay == 0.004897254413931353);
  // P1's per-pass fine-tuning rates (16000^(1 - 1.155) × the piecewise-linear rule).
  const auto& f = p1.fine_tune;
  const double scale = std::pow(16000.0, 1.0 - f.batch_size_exp);
  CHECK(scale == doctest::Approx(0.22302903366504112).epsilon(1e-12));
  const double first = scale * srs::optim::detail::piecewise_linear_rate(f.lr_start, f.lr_middle, f.lr_end, 7, 14, 0);
  const double peak = scale * srs::optim::detail::piecewise_linear_rate(f.lr_start, f.lr_middle, f.lr_end, 7, 14, 7);
  const double last = scale * srs::optim::detail::piecewise_linear_rate(f.lr_start, f.lr_middle, f.lr_end, 7, 14, 13);
  CHECK(first == doctest::Approx(0.000550882).epsilon(1e-5));
  CHECK(peak == doctest::Approx(0.00130294).epsilon(1e-5));
  CHECK(last == doctest::Approx(0.000420696).epsilon(1e-5));
}

TEST_CASE("GRU-mix: input features and a forward pass checked by hand") {
  using namespace gru_mix_test;
  GruMix m;
  // Features: the normalised log interval, one-hot rating.
  srs::models::NeuralWeights nw;
  nw.model = "GRU-mix";
  const GmParams init = m.initial_params();
  nw.params.assign(init.begin(), init.end());
  nw.buffers = {{"input_mean", {-1.5}}, {"input_std", {4.0}}};
  m.set_weights(nw);
  CHECK(m.input_mean() == -1.5);
  CHECK(m.input_std() == 4.0);
  const auto u = m.features({0.25, 3});
  CHECK(u[0] == doctest::Approx((std::log(1e-5 + 0.25) + 1.5) / 4.0).epsilon(1e-15));
  CHECK((std::array<double, 4>{u[1], u[2], u[3], u[4]} == std::array<double, 4>{0, 0, 1, 0}));
  CHECK(m.features({0.0, 1})[0] == doctest::Approx((std::log(1e-5) + 1.5) / 4.0));

  // A network whose every layer is simple: unit 0 of the first layer reads the
  // rating-1 feature, the GRU passes unit 0 through its n gate only (r = z =
  // ½), W5 = identity, and the heads read c_0.
  GruMix plain;  // no buffers: mean 0, std 1
  GmParams w{};
  for (std::size_t k = 0; k < 7; ++k) w[GmO::ln0 + k] = w[GmO::ln1 + k] = w[GmO::ln2 + k] = 1.0;
  w[GmO::w0 + 1] = 1.0;               // W0[0][rating 1]
  w[GmO::ih + 14 * 7 + 0] = 1.0;      // W_in[0][0]
  for (std::size_t k = 0; k < 7; ++k) w[GmO::w5 + k * 7 + k] = 1.0;
  w[GmO::wfc + 14] = std::log(3.0);   // mixture weights (3/4, 1/4)
  w[GmO::sfc + 0] = 0.5;              // s_1 = exp(0.5 c_0 + ln 2)
  w[GmO::sfc + 14] = std::log(2.0);
  w[GmO::sfc + 15] = std::log(10.0);  // s_2 = 10
  w[GmO::dfc + 7] = -0.25;            // d_2 = exp(-0.25 c_0)
  w[GmO::dfc + 14] = 0.0;             // d_1 = 1
  const std::vector<srs::data::Step> h{{0.0, 1}};
  const double delta = 3.0;
  // By hand: a = LN(SiLU(1), 0, ...) ; h = ½ tanh(a_0) e_0 ; c = LN(SiLU(LN(h)))
  const double s1 = 1.0 / (1.0 + std::exp(-1.0));
  const auto a = gm_norm_of_first(s1);
  const double h0 = 0.5 * std::tanh(a[0]);
  const auto y = gm_norm_of_first(h0);
  std::array<double, 7> sy;
  for (std::size_t k = 0; k < 7; ++k) sy[k] = y[k] / (1.0 + std::exp(-y[k]));
  double mean = 0, var = 0;
  for (double x : sy) mean += x / 7.0;
  for (double x : sy) var += (x - mean) * (x - mean) / 7.0;
  const double c0 = (sy[0] - mean) / std::sqrt(var + 1e-5);
  const double st1 = 2.0 * std::exp(0.5 * c0), st2 = 10.0;
  const double d1 = 1.0, d2 = std::exp(-0.25 * c0);
  const double want = (1.0 - 1e-7) * (0.75 * std::pow(1.0 + delta / (1e-7 + st1), -d1) +
                                       0.25 * std::pow(1.0 + delta / (1e-7 + st2), -d2));
  CHECK(gm_predict(plain, w, h, delta) == doctest::Approx(want).epsilon(1e-14));
  // A second review rated Again after 2 days: h' = ½ n + ½ h (r = z = ½), n =
  // tanh(a'_0 + ½ · 0): the same first-layer output (same rating), so h'_0 = ½
  // tanh(a_0) + ½ h_0.
  const std::vector<srs::data::Step> h2{{0.0, 1}, {2.0, 1}};
  const double h1 = 0.5 * std::tanh(a[0]) + 0.5 * h0;
  const auto y2 = gm_norm_of_first(h1);
  for (std::size_t k = 0; k < 7; ++k) sy[k] = y2[k] / (1.0 + std::exp(-y2[k]));
  mean = var = 0;
  for (double x : sy) mean += x / 7.0;
  for (double x : sy) var += (x - mean) * (x - mean) / 7.0;
  const double c0b = (sy[0] - mean) / std::sqrt(var + 1e-5);
  const double want2 =
      (1.0 - 1e-7) * (0.75 * std::pow(1.0 + delta / (1e-7 + 2.0 * std::exp(0.5 * c0b)), -1.0) +
                      0.25 * std::pow(1.0 + delta / (1e-7 + 10.0), -std::exp(-0.25 * c0b)));
  CHECK(gm_predict(plain, w, h2, delta) == doctest::Approx(want2).epsilon(1e-14));
  // p(Δ = 0) = 1 - 1e-7; p falls with Δ.
  CHECK(gm_predict(plain, w, h2, 0.0) == doctest::Approx(1.0 - 1e-7).epsilon(1e-15));
  double prev = 1.0;
  for (double dt : {0.01, 1.0, 30.0, 365.0}) {
    const double p = gm_predict(plain, w, h2, dt);
    CHECK(p < prev);
    prev = p;
  }
  // The stabilities' and decays' logits are clamped to [-25, 25].
  GmParams big = w;
  big[GmO::sfc + 14] = 40.0;  // s_1 = e^25
  const double pc = gm_predict(plain, big, h, 1e6);
  big[GmO::sfc + 14] = 30.0;
  CHECK(gm_predict(plain, big, h, 1e6) == pc);
}

TEST_CASE("GRU-mix: the weights file round trip (parameters and normalisation buffers)") {
  using namespace gru_mix_test;
  srs::test::TempDir tmp;
  const auto w = srs::test::perturbed_params(GruMix{}, 3, 11, [](std::size_t) { return 0.3; });
  srs::models::NeuralWeights nw;
  nw.model = "GRU-mix";
  nw.params.assign(w->begin(), w->end());
  nw.buffers = {{"input_mean", {-2.0706503}}, {"input_std", {5.1999154}}};
  nw.info = {{"method", std::string("Reptile")}, {"epochs", std::int64_t{3}}};
  const auto path = tmp.path / "gru-mix.json";
  GruMix::save_weights(path, nw);
  GruMix m;
  m.load_weights(path);
  REQUIRE(m.pretrained);
  CHECK(m.pretrained->params == nw.params);  // exact: shortest round-trip decimals
  CHECK(m.input_mean() == -2.0706503);
  CHECK(m.input_std() == 5.1999154);
  CHECK(m.default_params() == *w);
  const auto* method = m.pretrained->find_info("method");
  REQUIRE(method);
  CHECK(std::get<std::string>(*method) == "Reptile");
  // Another model's file is refused.
  srs::models::NeuralWeights other = nw;
  other.model = "GRU";
  CHECK_THROWS_WITH_AS(m.set_weights(other), doctest::Contains("weights of model GRU, not GRU-mix"), srs::Error);
}

TEST_CASE("GRU-mix: per-user fine-tuning is deterministic, follows the reference's row order, lowers the loss") {
  using namespace gru_mix_test;
  const auto ds = srs::test::random_cards(41, 80, 12);
  const auto rows = srs::test::all_rows(ds);
  GruMix m;
  srs::models::NeuralWeights nw;
  nw.model = "GRU-mix";
  const auto w0 = srs::test::perturbed_params(GruMix{}, 5, 13, [](std::size_t) { return 0.2; });
  nw.params.assign(w0->begin(), w0->end());
  m.set_weights(nw);
  m.fine_tune.passes = 6;
  m.fine_tune.warmup_passes = 2;
  m.fine_tune.batch_size = 64;
  const srs::optim::TrainOptions full{.mode = srs::optim::TrainMode::full};
  const GmParams a = srs::optim::train(m, ds, rows, {}, full);
  const GmParams b = srs::optim::train(m, ds, rows, {}, full);
  CHECK(a == b);
  CHECK(a != *w0);
  CHECK(gm_rows_loss(m, a, ds) < gm_rows_loss(m, *w0, ds));
  // Not full training: the pretrained weights.
  CHECK(srs::optim::train(m, ds, rows, {}, {.mode = srs::optim::TrainMode::defaults}) == *w0);
  // Another shuffle seed gives other batches, hence other weights.
  GruMix s = m;
  s.fine_tune.seed = 7;
  CHECK(srs::optim::train(s, ds, rows, {}, full) != a);

  // The recency weights: 1 + rw x^rd over linspace(0, 1), mean 1.
  const auto rw = srs::optim::detail::gru_mix_recency(5, 5.242, 2.518);
  double total = 0;
  for (double x : rw) total += x;
  CHECK(total == doctest::Approx(5.0).epsilon(1e-14));
  CHECK(rw[4] / rw[0] == doctest::Approx(1.0 + 5.242).epsilon(1e-14));
  CHECK(rw[2] / rw[0] == doctest::Approx(1.0 + 5.242 * std::pow(0.5, 2.518)).epsilon(1e-14));

  // One pass, one batch holding every row: the result is one AdamW step from
  // the pretrained weights on the gradient of mean(w·BCE)·B^bse (+ the pull, 0
  // at the start), clipped, with the first pass's rate.
  GruMix one = m;
  one.fine_tune.passes = 1;
  one.fine_tune.warmup_passes = 1;
  one.fine_tune.batch_size = 100000;
  const GmParams got = srs::optim::train(one, ds, rows, {}, full);
  const auto weights = srs::optim::detail::gru_mix_recency(rows.size(), 5.242, 2.518);
  const auto refs = srs::models::detail::row_refs(ds, rows, weights);
  const auto batch = one.make_batch(srs::models::detail::make_sources(refs, 64, true, false));
  std::vector<double> g(503, 0.0);
  srs::optim::batch_loss(one, std::span<const double, 503>(*w0), batch, g.data());
  const double n = static_cast<double>(batch.rows);
  double norm = 0;
  for (double& x : g) {
    x *= std::pow(n, one.fine_tune.batch_size_exp) / n;
    norm += x * x;
  }
  norm = std::sqrt(norm);
  const double clip = std::min(1.0, one.fine_tune.clip_norm / (norm + 1e-6));
  const double lr = std::pow(16000.0, 1.0 - one.fine_tune.batch_size_exp) * one.fine_tune.lr_start;
  for (std::size_t k = 0; k < 503; k += 17) {
    const double gk = g[k] * clip;
    // AdamW's first step (bias-corrected moments (1 - β1) g and (1 - β2) g²): w (1 - lr wd) - lr g / (|g| + eps)
    const double want = (*w0)[k] * (1.0 - lr * one.fine_tune.weight_decay) - lr * gk / (std::abs(gk) + 1e-8);
    CHECK(got[k] == doctest::Approx(want).epsilon(1e-9));
  }
}

TEST_CASE("GRU-mix: the rows' shuffle is NumPy's RandomState(seed).permutation") {
  // numpy.random.RandomState(0).permutation(10), RandomState(2025).permutation(12)
  const std::vector<std::size_t> p0{2, 8, 4, 9, 1, 6, 7, 3, 0, 5};
  const std::vector<std::size_t> p2025{10, 5, 1, 7, 11, 6, 0, 4, 9, 3, 8, 2};
  CHECK(srs::optim::numpy_permutation(10, 0) == p0);
  CHECK(srs::optim::numpy_permutation(12, 2025) == p2025);
  CHECK(srs::optim::numpy_permutation(5, 7) == std::vector<std::size_t>{0, 3, 2, 1, 4});
  CHECK(srs::optim::numpy_permutation(1, 1) == std::vector<std::size_t>{0});
  CHECK(srs::optim::numpy_permutation(0, 1).empty());
  // RandomState(2030).permutation(70000)[:8] and RandomState(7).permutation(100000)[-5:]
  const auto big = srs::optim::numpy_permutation(70000, 2030);
  CHECK((std::vector<std::size_t>(big.begin(), big.begin() + 8) ==
         std::vector<std::size_t>{26325, 19110, 3758, 999, 58181, 49495, 53934, 65251}));
  const auto big7 = srs::optim::numpy_permutation(100000, 7);
  CHECK((std::vector<std::size_t>(big7.end() - 5, big7.end()) ==
         std::vector<std::size_t>{53459, 10742, 49689, 58564, 61615}));
}

TEST_CASE("GRU-mix: Reptile pretraining sets the buffers, is deterministic, and moves θ by the outer step") {
  using namespace gru_mix_test;
  const std::vector<srs::data::Dataset> users{srs::test::random_cards(51, 60, 12), srs::test::random_cards(52, 60, 12)};
  GruMix m;
  m.reptile.inner_steps = 3;
  const srs::models::PretrainOptions po{.epochs = 2, .batch_size = 48, .lr = 0.02, .weight_decay = 0.05376};
  const auto a = srs::optim::pretrain(m, users, po);
  const auto b = srs::optim::pretrain(m, users, po);
  CHECK(a.params == b.params);
  CHECK(a.model == "GRU-mix");
  REQUIRE(a.buffer("input_mean"));
  REQUIRE(a.buffer("input_std"));
  CHECK(a.buffer("input_mean")->size() == 1);
  CHECK(a.optimizer_exp_avg_sq.empty());  // no optimiser state: fine-tuning starts a fresh AdamW
  // The buffers: mean and population std of ln(1e-5 + t) over each card's last history.
  double sum = 0, sq = 0, n = 0;
  for (const auto& u : users) {
    std::map<std::size_t, std::size_t> last;
    for (const auto& it : u.items) last[it.hist_begin] = std::max(last[it.hist_begin], it.hist_len);
    for (const auto& [begin, len] : last)
      for (std::size_t j = 0; j < len; ++j) {
        const double x = std::log(1e-5 + u.steps[begin + j].t);
        sum += x;
        sq += x * x;
        n += 1;
      }
  }
  const double mean = sum / n;
  CHECK((*a.buffer("input_mean"))[0] == doctest::Approx(mean).epsilon(1e-12));
  CHECK((*a.buffer("input_std"))[0] == doctest::Approx(std::sqrt(sq / n - mean * mean)).epsilon(1e-9));
  const GmParams init = m.initial_params();
  CHECK(!std::equal(a.params.begin(), a.params.end(), init.begin()));
}

TEST_CASE("GRU-mix: Reptile's outer update on a toy case (one user, one batch, one inner step)") {
  using namespace gru_mix_test;
  const std::vector<srs::data::Dataset> users{srs::test::random_cards(61, 20, 8)};
  GruMix m;
  m.reptile.inner_steps = 1;
  const srs::models::PretrainOptions po{.epochs = 1, .batch_size = 100000, .lr = 0.02, .weight_decay = 0.05376};
  const auto out = srs::optim::pretrain(m, users, po);
  // By hand: θ = the initialisation; the learner takes one AdamW step on the
  // user's single batch (outer warm-up factor min(1, 1/1) = 1; inner rate
  // lr_start × 16000^(1 - bse)); then θ takes one outer AdamW step along θ -
  // learner at 0.02 × 1e-4 (the warm-up's first step).
  GruMix net = m;
  srs::models::NeuralWeights init;
  init.model = "GRU-mix";
  const GmParams theta = m.initial_params();
  init.params.assign(theta.begin(), theta.end());
  init.buffers = out.buffers;
  net.set_weights(init);
  std::vector<srs::models::detail::RowRef> refs;
  for (const std::size_t k : srs::optim::numpy_permutation(users[0].items.size(), 2030))
    refs.push_back({&users[0], k, 1.0});
  std::stable_sort(refs.begin(), refs.end(), [&](const auto& x, const auto& y) {
    return users[0].items[x.item].hist_len < users[0].items[y.item].hist_len;
  });
  const auto batch = net.make_batch(srs::models::detail::make_sources(refs, 64, true, false));
  std::vector<double> g(503, 0.0);
  srs::optim::batch_loss(net, std::span<const double, 503>(theta), batch, g.data());
  const auto& r = m.reptile;
  const double nb = static_cast<double>(batch.rows);
  double norm = 0;
  for (double& x : g) {
    x *= std::pow(nb, r.batch_size_exp) / nb;
    norm += x * x;
  }
  const double clip = std::min(1.0, r.clip_norm / (std::sqrt(norm) + 1e-6));
  const double lr_in = std::pow(16000.0, 1.0 - r.batch_size_exp) * r.lr_start;
  const double lr_out = 0.02 * 1e-4;
  std::size_t moved = 0;
  for (std::size_t k = 0; k < 503; ++k) {
    const double gk = g[k] * clip;
    const double learner = theta[k] * (1.0 - lr_in * r.inner_weight_decay) - lr_in * gk / (std::abs(gk) + 1e-8);
    const double go = theta[k] - learner;
    const double want = theta[k] * (1.0 - lr_out * 0.05376) - lr_out * go / (std::abs(go) + 1e-8);
    CHECK(out.params[k] == doctest::Approx(want).epsilon(1e-10));
    moved += out.params[k] != theta[k] ? 1 : 0;
  }
  CHECK(moved == 503);
  // The outer schedule: linear warm-up from 1e-4 × lr, then cosine to 0.
  namespace T = srs::optim::detail;
  CHECK(T::reptile_outer_rate(0.02, 0, 10, 100) == doctest::Approx(0.02 * 1e-4));
  CHECK(T::reptile_outer_rate(0.02, 5, 10, 100) == doctest::Approx(0.02 * (1e-4 + (1 - 1e-4) * 0.5)));
  CHECK(T::reptile_outer_rate(0.02, 10, 10, 100) == doctest::Approx(0.02));
  CHECK(T::reptile_outer_rate(0.02, 55, 10, 100) == doctest::Approx(0.01));
}
