// SPDX-License-Identifier: MIT
// Tests of srs/optim/kernels/lstm_f32.hpp: the LSTM's float32 loss and gradient.
//   - the building blocks (f32/ops.inc): exp, log, sigmoid and tanh against libm
//     over their ranges, in both instances;
//   - the batch layout: every step starts on a multiple of 8, inputs and targets
//     where the double batch has them;
//   - loss and gradient against the double kernel (srs/optim/kernels/lstm.hpp)
//     on random cards, per parameter block, for both instances;
//   - determinism: the same calls twice give the same bits; a workspace kept
//     from batch to batch gives what fresh ones give;
//   - fine-tuning (NetworkTrainer<Lstm>) in float32 against float64 (the double
//     kernel): parameters and loss close.
#include <srs/models/lstm.hpp>             // srs::models::Lstm
#include <srs/optim/kernels/lstm.hpp>      // srs::optim::batch_loss (double)
#include <srs/optim/kernels/lstm_f32.hpp>  // srs::optim::batch_loss_f32, detail::to_f32
#include <srs/optim/trainers/lstm.hpp>     // srs::optim::NetworkTrainer<Lstm>

#include <doctest/doctest.h>

#include <algorithm>  // std::max
#include <array>      // std::array
#include <cmath>      // std::exp, std::log, std::tanh, std::abs, std::sqrt
#include <cstddef>    // std::size_t
#include <span>       // std::span
#include <vector>     // std::vector

#include "support/neural_check.hpp"  // srs::test::random_cards, batches_of, perturbed_params

namespace {

using srs::models::Lstm;
using srs::optim::Lanes;
namespace sd = srs::optim::detail;

std::unique_ptr<std::array<double, 8869>> lf_params(std::uint64_t seed) {
  return srs::test::perturbed_params(Lstm{}, seed, 5, [](std::size_t) { return 0.1; });
}

/// The instances this machine runs: the portable one always, AVX2 + FMA where the CPU has both.
std::vector<Lanes> lf_instances() {
  std::vector<Lanes> out{Lanes::sse2};
  if (sd::lstm_f32_uses_avx2(Lanes::automatic)) out.push_back(Lanes::avx2);
  return out;
}

/// The worst relative error of f32_unary(op) against `ref` over [lo, hi] (or the
/// absolute error where |ref| < `floor`), in the instance `lanes` chooses.
template <class G>
double lf_worst(Lanes lanes, int op, G ref, float lo, float hi, double floor = 0) {
  std::vector<float> in(20000), out(in.size());
  for (std::size_t k = 0; k < in.size(); ++k)
    in[k] = lo + (hi - lo) * static_cast<float>(k) / static_cast<float>(in.size() - 1);
  sd::f32_unary(lanes, op, in.data(), out.data(), in.size());
  double worst = 0;
  for (std::size_t k = 0; k < in.size(); ++k) {
    const double r = ref(static_cast<double>(in[k]));
    worst = std::max(worst, std::abs(out[k] - r) / std::max(std::abs(r), floor));
  }
  return worst;
}

/// Loss and gradient of the double kernel over `batches` at w.
double lf_double(const Lstm& m, const std::array<double, 8869>& w, const std::vector<Lstm::Batch>& batches,
                 std::vector<double>& grad) {
  grad.assign(8869, 0.0);
  double l = 0;
  for (const auto& b : batches) l += srs::optim::batch_loss(m, std::span<const double, 8869>(w), b, grad.data());
  return l;
}
double lf_float(const std::array<double, 8869>& w, const std::vector<sd::LstmF32Batch>& batches, Lanes lanes,
                std::vector<double>& grad) {
  grad.assign(8869, 0.0);
  sd::LstmF32Workspace ws;
  double l = 0;
  for (const auto& b : batches) l += srs::optim::batch_loss_f32(std::span<const double, 8869>(w), b, grad.data(), ws, lanes);
  return l;
}

}  // namespace

TEST_CASE("LSTM float32: exp, log, sigmoid and tanh are within a few float ulps of libm, in every instance") {
  for (const Lanes lanes : lf_instances()) {
    INFO("instance " << (lanes == Lanes::avx2 ? "avx2" : "portable"));
    CHECK(lf_worst(lanes, 0, [](double x) { return std::exp(x); }, -87.0f, 88.0f) <= 3e-7);
    CHECK(lf_worst(lanes, 1, [](double x) { return std::log(x); }, 1e-30f, 0.999f) <= 3e-7);
    CHECK(lf_worst(lanes, 1, [](double x) { return std::log(x); }, 1.001f, 1e30f) <= 3e-7);
    CHECK(lf_worst(lanes, 2, [](double x) { return 1 / (1 + std::exp(-x)); }, -80.0f, 80.0f) <= 5e-7);
    // tanh(x) = 2σ(2x) - 1 loses relative precision near 0: absolute error there.
    CHECK(lf_worst(lanes, 3, [](double x) { return std::tanh(x); }, 0.25f, 40.0f) <= 5e-7);
    CHECK(lf_worst(lanes, 3, [](double x) { return std::tanh(x); }, -0.25f, 0.25f, 1.0) <= 2e-7);
    // Below the smallest normal float, log gives BCE's floor.
    float tiny[8] = {0.0f, 1e-39f, 1e-45f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f}, out[8];
    sd::f32_unary(lanes, 1, tiny, out, 8);
    CHECK(out[0] == -100.0f);
    CHECK(out[1] == -100.0f);
    CHECK(out[2] == -100.0f);
  }
}

TEST_CASE("LSTM float32: the batch layout starts every step on a multiple of 8, with the double batch's inputs") {
  const Lstm m;
  const auto ds = srs::test::random_cards(11, 40, 12);
  for (const auto& b : srs::test::batches_of(m, ds, 60)) {
    const sd::LstmF32Batch f = sd::to_f32(b);
    REQUIRE(f.start.size() == b.steps());
    std::size_t at = 0;
    for (std::size_t s = 0; s < f.start.size(); ++s) {
      CHECK(f.start[s] == at);
      CHECK(f.span[s] % 8 == 0);
      CHECK(f.span[s] >= b.active(s));
      CHECK(f.span[s] < b.active(s) + 8);
      for (std::size_t i = 0; i < f.span[s]; ++i)
        for (std::size_t k = 0; k < 6; ++k) {
          const float want = i < b.active(s) ? static_cast<float>(b.x(static_cast<Eigen::Index>(k),
                                                                      static_cast<Eigen::Index>(b.offset[s] + i)))
                                             : 0.0f;
          CHECK(f.x.data()[k * f.cols + f.start[s] + i] == want);
        }
      at += f.span[s];
    }
    CHECK(f.cols == at);
    REQUIRE(f.targets == b.targets.size());
    CHECK(f.targets_padded % 8 == 0);
    for (std::size_t t = f.targets; t < f.targets_padded; ++t) CHECK(f.weight.data()[t] == 0.0f);
    for (std::size_t t = 0; t < f.targets; ++t) {
      CHECK(f.delta.data()[t] == static_cast<float>(b.targets[t].delta_t));
      CHECK(f.weight.data()[t] == static_cast<float>(b.targets[t].weight));
    }
  }
}

TEST_CASE("LSTM float32: loss and gradient agree with the double kernel, block by block, in every instance") {
  const Lstm m;
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const auto ds = srs::test::random_cards(seed + 20, 60, 14);
    std::vector<double> weights(ds.items.size());
    srs::models::detail::InitRng rng(seed);
    for (double& x : weights) x = 0.5 + rng.uniform();
    const auto batches = srs::test::batches_of(m, ds, 150, weights);
    REQUIRE(batches.size() > 1);
    std::vector<sd::LstmF32Batch> fb;
    for (const auto& b : batches) fb.push_back(sd::to_f32(b));
    const auto w = lf_params(seed);
    std::vector<double> gd, gf;
    const double ld = lf_double(m, *w, batches, gd);
    for (const Lanes lanes : lf_instances()) {
      INFO("seed " << seed << ", instance " << (lanes == Lanes::avx2 ? "avx2" : "portable"));
      const double lf = lf_float(*w, fb, lanes, gf);
      CHECK(lf == doctest::Approx(ld).epsilon(2e-6));
      // Per block of the layout: ‖g_f32 - g_double‖ ≤ 1e-4 ‖g_double‖ (float sums over the batch).
      std::size_t at = 0;
      for (const auto& blk : Lstm::layout()) {
        double diff = 0, norm = 0;
        for (std::size_t k = at; k < at + blk.size(); ++k) {
          diff += (gf[k] - gd[k]) * (gf[k] - gd[k]);
          norm += gd[k] * gd[k];
        }
        INFO("block " << blk.name);
        CHECK(norm > 0);
        CHECK(std::sqrt(diff) <= 1e-4 * std::sqrt(norm));
        at += blk.size();
      }
    }
  }
}

TEST_CASE("LSTM float32: deterministic, and a workspace kept from batch to batch changes nothing") {
  const Lstm m;
  const auto ds = srs::test::random_cards(31, 80, 16);
  const auto batches = srs::test::batches_of(m, ds, 200);
  REQUIRE(batches.size() > 2);
  std::vector<sd::LstmF32Batch> fb;
  for (const auto& b : batches) fb.push_back(sd::to_f32(b));
  const auto w = lf_params(4);
  for (const Lanes lanes : lf_instances()) {
    std::vector<double> once, again;
    const double l1 = lf_float(*w, fb, lanes, once);  // one workspace for all batches
    const double l2 = lf_float(*w, fb, lanes, again);
    CHECK(l1 == l2);
    CHECK(once == again);
    // Each batch in a fresh workspace, largest first (the kept one only grows).
    std::vector<double> fresh(8869, 0.0);
    double l3 = 0;
    for (std::size_t k = fb.size(); k-- > 0;) {
      sd::LstmF32Workspace ws;
      std::vector<double> g(8869, 0.0);
      l3 += srs::optim::batch_loss_f32(std::span<const double, 8869>(*w), fb[k], g.data(), ws, lanes);
      for (std::size_t i = 0; i < g.size(); ++i) fresh[i] += g[i];
    }
    CHECK(l3 == doctest::Approx(l1).epsilon(1e-12));
    for (std::size_t i = 0; i < fresh.size(); ++i) CHECK(fresh[i] == doctest::Approx(once[i]).epsilon(1e-12).scale(1e-9));
    // Without a gradient: the same loss.
    sd::LstmF32Workspace ws;
    double l4 = 0;
    for (const auto& b : fb) l4 += srs::optim::batch_loss_f32(std::span<const double, 8869>(*w), b, nullptr, ws, lanes);
    CHECK(l4 == l1);
  }
}

TEST_CASE("LSTM float32: fine-tuning in float32 follows the double fine-tuning, and float64 is the double kernel") {
  Lstm m;
  m.fine_tune.passes = 6;
  m.fine_tune.batch_size = 300;
  const auto ds = srs::test::random_cards(41, 120, 12);
  const auto rows = srs::test::all_rows(ds);
  srs::optim::TrainOptions f32, f64;
  f64.neural_precision = srs::optim::NeuralPrecision::float64;
  const auto a = srs::optim::NetworkTrainer<Lstm>::train(m, ds, rows, {}, f32);
  const auto b = srs::optim::NetworkTrainer<Lstm>::train(m, ds, rows, {}, f64);
  const auto init = m.default_params();
  double moved = 0, diff = 0;
  for (std::size_t k = 0; k < 8869; ++k) {
    moved = std::max(moved, std::abs(b[k] - init[k]));
    diff = std::max(diff, std::abs(a[k] - b[k]));
  }
  CHECK(moved > 1e-3);          // the training moved the parameters ...
  CHECK(diff <= 1e-3 * moved);  // ... and float32 moved them the same way
  // The rows' loss at both results agrees to 1e-5 relative.
  const double la = srs::test::rows_loss(m, std::span<const double, 8869>(a), ds, rows);
  const double lb = srs::test::rows_loss(m, std::span<const double, 8869>(b), ds, rows);
  CHECK(la == doctest::Approx(lb).epsilon(1e-5));
}
