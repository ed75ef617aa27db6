// SPDX-License-Identifier: MIT
/// @file srs/models/neural_shapes.hpp
/// The shapes of the neural models — names, parameter layouts (block offsets)
/// and parameter counts — without their networks: no Eigen, no arithmetic.
/// The model headers (rnn.hpp, gru_mix.hpp, nn17.hpp, transformer.hpp, lstm.hpp; the
/// optional component `neural`) take their declarations from here, so that the
/// model registry (srs/eval/registry.hpp) and the report know every model's
/// parameter count from the models' own definitions while needing only srs::srs.
/// Each shape names its model class (`Shape::model`, declared here and defined
/// in the model's header): srs-bench's model tables run that class.
#pragma once

#include <array>        // std::array
#include <cstddef>      // std::size_t
#include <string_view>  // std::string_view

namespace srs::models {

// The neural model classes, defined in their headers (component `neural`).
struct Gru;
struct GruP;
struct GruMix;
struct Lstm;
struct Transformer;
struct Nn17;

namespace detail {

/// Offsets of a GRU(2 → H) + Linear(H → 1) parameter vector, PyTorch's state_dict order.
template <int H>
struct GruOffsets {
  static constexpr std::size_t g = 3 * static_cast<std::size_t>(H);
  static constexpr std::size_t w_ih = 0;
  static constexpr std::size_t w_hh = w_ih + g * 2;
  static constexpr std::size_t b_ih = w_hh + g * H;
  static constexpr std::size_t b_hh = b_ih + g;
  static constexpr std::size_t fc_w = b_hh + g;
  static constexpr std::size_t fc_b = fc_w + H;
  static constexpr std::size_t size = fc_b + 1;
};

/// Offsets of NN-17's parameter blocks.
struct Nn17Offsets {
  static constexpr std::size_t s0 = 0, d0 = 4, sinc_w = 8;
  static constexpr std::size_t rw = 11, next_d = 17, pls = 23, sinc = 28, best = 34, size = 39;
};

/// Offsets of the LSTM network's blocks.
struct LstmOffsets {
  static constexpr std::size_t w0 = 0, b0 = 120, ln0 = 140, w3 = 160, b3 = 560, ln1 = 580;
  static constexpr std::size_t l1 = 600;  // weight_ih 1600, weight_hh 1600, bias_ih 80, bias_hh 80
  static constexpr std::size_t ln2 = 3960, ln2b = 3980;
  static constexpr std::size_t l2 = 4000;
  static constexpr std::size_t ln3 = 7360, w71 = 7380, b71 = 7780, ln4 = 7800, w74 = 7820, b74 = 8220;
  static constexpr std::size_t ln5 = 8240, w9 = 8260, b9 = 8660;
  static constexpr std::size_t wfc = 8680, sfc = 8743, dfc = 8806, size = 8869;
  static constexpr std::size_t ih = 0, hh = 1600, bih = 3200, bhh = 3280;  // within an LSTM block
};

/// Offsets of the GRU-mix network's blocks (the reference's 503-parameter GRU).
struct GruMixOffsets {
  static constexpr std::size_t w0 = 0, b0 = 35, ln0 = 42;                     // Linear(5 → 7), LayerNorm γ
  static constexpr std::size_t ih = 49, hh = 196, bih = 343, bhh = 364;       // GRU(7 → 7)
  static constexpr std::size_t ln1 = 385, w5 = 392, b5 = 441, ln2 = 448;      // LayerNorm γ, Linear(7 → 7), γ
  static constexpr std::size_t wfc = 455, sfc = 471, dfc = 487, size = 503;  // heads 7 → 2 (weight 14, bias 2)
};

}  // namespace detail

/// GRU: GRU(2 → 2), Linear(2 → 1).
struct GruShape {
  using model = Gru;  ///< the model class (its header: the component neural)
  static constexpr std::string_view name = "GRU";
  static constexpr std::size_t num_params = detail::GruOffsets<2>::size;
};

/// GRU-P: GRU(2 → 8), Linear(8 → 1).
struct GruPShape {
  using model = GruP;  ///< the model class (its header: the component neural)
  static constexpr std::string_view name = "GRU-P";
  static constexpr std::size_t num_params = detail::GruOffsets<8>::size;
};

/// GRU-mix: the reference's 503-parameter GRU (the network of its README's "GRU" row):
/// Linear/SiLU/LayerNorm, GRU(7), a mixture of two power curves. Its result files
/// are named "GRU…-secs…", as the reference names them (result_stem).
struct GruMixShape {
  using model = GruMix;  ///< the model class (its header: the component neural)
  static constexpr std::string_view name = "GRU-mix";
  static constexpr std::string_view result_stem = "GRU";
  static constexpr std::size_t num_params = detail::GruMixOffsets::size;
  /// The parameters only Hard and Easy ratings reach: the first layer's weights of the one-hot
  /// features of rating 2 (feature 2) and rating 4 (feature 4), 2 per hidden unit.
  static constexpr std::array<std::size_t, 14> hard_easy_params = [] {
    std::array<std::size_t, 14> a{};
    for (std::size_t o = 0; o < 7; ++o) {
      a[2 * o] = detail::GruMixOffsets::w0 + 5 * o + 2;
      a[2 * o + 1] = detail::GruMixOffsets::w0 + 5 * o + 4;
    }
    return a;
  }();
};

/// NN-17: tables S0, D0, sinc_w and five small MLPs.
struct Nn17Shape {
  using model = Nn17;  ///< the model class (its header: the component neural)
  static constexpr std::string_view name = "NN-17";
  static constexpr std::size_t num_params = detail::Nn17Offsets::size;
  /// The parameters only Hard and Easy ratings reach (the S0 and D0 table entries of ratings 2
  /// and 4): with --two_buttons they get no gradient (the benchmark's "-binary" count is
  /// num_params minus these).
  static constexpr std::array<std::size_t, 4> hard_easy_params{detail::Nn17Offsets::s0 + 1, detail::Nn17Offsets::s0 + 3,
                                                               detail::Nn17Offsets::d0 + 1,
                                                               detail::Nn17Offsets::d0 + 3};
};

/// Transformer: nn.Transformer(d_model 2, 2 heads, 1 + 1 layers, ff 2) and a head.
struct TransformerShape {
  using model = Transformer;  ///< the model class (its header: the component neural)
  static constexpr std::string_view name = "Transformer";
  static constexpr std::size_t num_params = 127;
};

/// LSTM: the reference's residual LSTM(20) network.
struct LstmShape {
  using model = Lstm;  ///< the model class (its header: the component neural)
  static constexpr std::string_view name = "LSTM";
  static constexpr std::size_t num_params = detail::LstmOffsets::size;
  /// The parameters only Hard and Easy ratings reach: the first layer's weights of the one-hot
  /// features of rating 2 (feature 3) and rating 4 (feature 5), 2 per hidden unit. With
  /// --two_buttons those features are 0 and these weights get no gradient (the benchmark's
  /// "-binary" count is num_params minus these).
  static constexpr std::array<std::size_t, 40> hard_easy_params = [] {
    std::array<std::size_t, 40> a{};
    for (std::size_t o = 0; o < 20; ++o) {
      a[2 * o] = detail::LstmOffsets::w0 + 6 * o + 3;
      a[2 * o + 1] = detail::LstmOffsets::w0 + 6 * o + 5;
    }
    return a;
  }();
};

}  // namespace srs::models
