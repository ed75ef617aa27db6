// SPDX-License-Identifier: MIT
// Tests of srs/optim/kernels/f32.hpp: what the float32 training kernels share.
//   - the building blocks (f32/ops.inc): exp, log, sigmoid and tanh against libm
//     over their ranges, in both instances;
//   - the batch layout (to_f32): every step starts on a multiple of 8, inputs
//     and targets where the double batch has them, for the LSTM's 6 features
//     and the GRU's 2.
#include <srs/models/lstm.hpp>        // srs::models::Lstm
#include <srs/models/rnn.hpp>         // srs::models::GruP
#include <srs/optim/kernels/f32.hpp>  // srs::optim::detail::to_f32, f32_unary, f32_uses_avx2

#include <doctest/doctest.h>

#include <algorithm>  // std::max
#include <cmath>      // std::exp, std::log, std::tanh, std::abs
#include <cstddef>    // std::size_t
#include <vector>     // std::vector

#include "support/neural_check.hpp"  // srs::test::random_cards, batches_of, f32_instances

namespace {

using srs::optim::Lanes;
namespace sd = srs::optim::detail;

/// The worst relative error of f32_unary(op) against `ref` over [lo, hi] (or the
/// absolute error where |ref| < `floor`), in the instance `lanes` chooses.
template <class G>
double ff_worst(Lanes lanes, int op, G ref, float lo, float hi, double floor = 0) {
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

/// to_f32(b) lays b out as documented (F features).
template <class Batch>
void ff_check_layout(const Batch& b, std::size_t features) {
  const sd::F32Batch f = sd::to_f32(b);
  CHECK(f.features == features);
  REQUIRE(f.start.size() == b.steps());
  std::size_t at = 0;
  for (std::size_t s = 0; s < f.start.size(); ++s) {
    CHECK(f.start[s] == at);
    CHECK(f.span[s] % 8 == 0);
    CHECK(f.span[s] >= b.active(s));
    CHECK(f.span[s] < b.active(s) + 8);
    for (std::size_t i = 0; i < f.span[s]; ++i)
      for (std::size_t k = 0; k < features; ++k) {
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
    CHECK(f.y.data()[t] == static_cast<float>(b.targets[t].y));
    // The target's column is the double batch's column, moved to its step's start.
    std::size_t s = 0;
    while (b.offset[s + 1] <= b.targets[t].col) ++s;
    CHECK(f.target_col[t] == f.start[s] + (b.targets[t].col - b.offset[s]));
  }
}

}  // namespace

TEST_CASE("float32 kernels: exp, log, sigmoid and tanh are within a few float ulps of libm, in every instance") {
  for (const Lanes lanes : srs::test::f32_instances()) {
    INFO("instance " << (lanes == Lanes::avx2 ? "avx2" : "portable"));
    CHECK(ff_worst(lanes, 0, [](double x) { return std::exp(x); }, -87.0f, 88.0f) <= 3e-7);
    CHECK(ff_worst(lanes, 1, [](double x) { return std::log(x); }, 1e-30f, 0.999f) <= 3e-7);
    CHECK(ff_worst(lanes, 1, [](double x) { return std::log(x); }, 1.001f, 1e30f) <= 3e-7);
    CHECK(ff_worst(lanes, 2, [](double x) { return 1 / (1 + std::exp(-x)); }, -80.0f, 80.0f) <= 5e-7);
    // tanh(x) = 2σ(2x) - 1 loses relative precision near 0: absolute error there.
    CHECK(ff_worst(lanes, 3, [](double x) { return std::tanh(x); }, 0.25f, 40.0f) <= 5e-7);
    CHECK(ff_worst(lanes, 3, [](double x) { return std::tanh(x); }, -0.25f, 0.25f, 1.0) <= 2e-7);
    // Below the smallest normal float, log gives BCE's floor.
    float tiny[8] = {0.0f, 1e-39f, 1e-45f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f}, out[8];
    sd::f32_unary(lanes, 1, tiny, out, 8);
    CHECK(out[0] == -100.0f);
    CHECK(out[1] == -100.0f);
    CHECK(out[2] == -100.0f);
  }
}

TEST_CASE("float32 kernels: the batch layout starts every step on a multiple of 8, with the double batch's inputs") {
  const auto ds = srs::test::random_cards(11, 40, 12);
  for (const auto& b : srs::test::batches_of(srs::models::Lstm{}, ds, 60)) ff_check_layout(b, 6);
  for (const auto& b : srs::test::batches_of(srs::models::GruP{}, ds, 60)) ff_check_layout(b, 2);
}
