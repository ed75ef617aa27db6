// SPDX-License-Identifier: MIT
/// @file srs/models/neural.hpp
/// What the neural memory models (docs/models.md §12: GRU, GRU-P, LSTM, Transformer,
/// NN-17) share: parameter layouts, the pretrained-weights file, seeded
/// PyTorch-style initialisation, their activations, and the batches they are
/// trained on. Their hand-written gradients are in srs/optim/kernels/ (rnn.hpp,
/// lstm.hpp, transformer.hpp, nn17.hpp, with neural.hpp for what those share),
/// the training loops that fine-tune and pretrain them in
/// srs/optim/trainers/neural.hpp.
///
/// **Batching over cards.** A row's input is its card's history, and the
/// histories of one card's rows are prefixes of each other. The recurrent
/// networks (GRU, GRU-P, LSTM, NN-17) are causal, so one pass over a card's
/// longest training history yields the hidden state every other row of that
/// card needs: a training row costs one recurrent step instead of a whole
/// replay of its history. A batch is a set of cards, packed like PyTorch's
/// PackedSequence (cards sorted by length, longest first; at step s the first
/// n_s cards are active), so that every step is one matrix product over all
/// active cards. The Transformer attends over each row's whole history and
/// gets one sequence per row.
///
/// **Pretrained weights** are a JSON file (format "srs-neural-weights",
/// version 1), one parameter block per line in PyTorch state_dict order:
///
///     {"format": "srs-neural-weights", "version": 1, "model": "GRU-P", "num_params": 297,
///      "parameters": [
///       {"name": "rnn.weight_ih_l0", "shape": [24, 2], "values": [0.1, ...]},
///       ...],
///      "buffers": [{"name": "input_mean", "shape": [2], "values": [...]}],     (LSTM only)
///      "optimizer": {"name": "AdamW", "step": 1200, "exp_avg_sq": [...]},    (LSTM only)
///      "pretraining": {"users": ["a", "b"], "rows": 12000, "epochs": 32, ...}}
///
/// Matrices are row-major (as PyTorch stores them), numbers are the shortest
/// decimal that reads back to the same double (Python's repr), so a file
/// round-trips exactly. Readers check the format, version, model name and
/// every block's name and shape.
#pragma once

#include <algorithm>    // std::stable_sort, std::copy
#include <array>        // std::array
#include <cmath>        // std::log, std::sqrt, std::tanh, std::cos, std::isfinite
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint64_t, std::uint32_t, std::int64_t
#include <filesystem>   // std::filesystem::path
#include <fstream>      // std::ifstream, std::ofstream
#include <functional>   // std::hash
#include <iterator>     // std::istreambuf_iterator
#include <memory>       // std::shared_ptr, std::make_shared
#include <span>         // std::span
#include <string>       // std::string, std::to_string
#include <string_view>  // std::string_view
#include <type_traits>  // std::is_same_v, std::decay_t
#include <unordered_map>  // std::unordered_map
#include <utility>        // std::pair, std::move
#include <variant>      // std::variant, std::visit
#include <vector>       // std::vector

#include <Eigen/Core>  // Eigen::Matrix, Eigen::Map, Eigen::MatrixXd

#include <srs/core/dual.hpp>     // core::sigmoid, core::softplus
#include <srs/core/error.hpp>    // srs::Error, srs::UsageError
#include <srs/data/dataset.hpp>  // data::Dataset, data::Item, data::Step
#include <srs/detail/json.hpp>   // detail::json::Value, parse, dump

namespace srs::models {

/// One named parameter block of a network (a PyTorch state_dict entry).
struct ParamBlock {
  std::string_view name;  ///< state_dict key, e.g. "rnn.weight_ih_l0"
  std::size_t rows = 0;   ///< first dimension
  std::size_t cols = 0;   ///< second dimension; 0 for a vector
  constexpr std::size_t size() const noexcept { return cols == 0 ? rows : rows * cols; }
};

/// Sum of the block sizes of a layout.
template <std::size_t B>
constexpr std::size_t layout_size(const std::array<ParamBlock, B>& layout) {
  std::size_t n = 0;
  for (const ParamBlock& b : layout) n += b.size();
  return n;
}

/// Offset of the block named `name` in a layout (the layout's size if absent).
template <std::size_t B>
constexpr std::size_t block_offset(const std::array<ParamBlock, B>& layout, std::string_view name) {
  std::size_t n = 0;
  for (const ParamBlock& b : layout) {
    if (b.name == name) return n;
    n += b.size();
  }
  return n;
}

/// Hyper-parameters of one neural training run (per-user fine-tuning, or the
/// pooled pretraining): the reference Trainer's AdamW + cosine schedule.
struct NeuralTraining {
  double lr = 0.04;              ///< initial learning rate of the cosine schedule
  double weight_decay = 1e-5;    ///< AdamW's decoupled weight decay
  bool adamw = true;             ///< AdamW (decay applied) or plain Adam (NN-17: no decay)
  int n_epoch = 5;               ///< passes over the training rows
  std::size_t batch_size = 512;  ///< rows per optimiser step (at least; whole cards)
  std::size_t max_seq_len = 64;  ///< rows with longer histories are not trained on
  bool keep_best_epoch = false;  ///< the reference returns the last epoch's weights (see file comment)
  std::uint32_t seed = 2023;     ///< seed of the batch order
};

/// Pretraining settings of the reference's pretrain.py (commit 3993541): the
/// users' rows pooled, 32 epochs, lr 0.04, weight decay 1e-4, batches of 65,536.
struct PretrainOptions {
  int epochs = 32;                 ///< passes over the pooled rows (LSTM/Reptile: cycles over the users)
  std::size_t batch_size = 65536;  ///< rows per optimiser step (LSTM/Reptile: 16,384)
  double lr = 0.04;                ///< initial learning rate
  double weight_decay = 1e-4;      ///< AdamW weight decay (NN-17: unused, Adam)
  bool verbose = false;            ///< progress on stderr
};

/// A value of NeuralWeights::info: a text, an integer, a number, or a list of
/// texts (the pretraining users' names).
using InfoValue = std::variant<std::string, std::int64_t, double, std::vector<std::string>>;

/// The state a neural model starts from: pretrained parameters plus what the
/// model keeps besides them (the LSTM's input normalisation buffers and its
/// inner optimiser's second moments).
struct NeuralWeights {
  std::string model;           ///< the model's name ("GRU-P")
  std::vector<double> params;  ///< the parameter vector, in the model's layout
  /// Non-trained state by name (LSTM: input_mean, input_std).
  std::vector<std::pair<std::string, std::vector<double>>> buffers;
  long optimizer_step = 0;                   ///< AdamW steps taken by the saved optimiser (LSTM)
  std::vector<double> optimizer_exp_avg_sq;  ///< its second moments (empty: none saved)
  /// How the weights were made, in order (pretraining: method, users, rows,
  /// epochs, ...), written as the file's "pretraining" object. Reading a file
  /// keeps its entries of these kinds and skips others (true, false, null,
  /// objects, arrays of non-texts).
  std::vector<std::pair<std::string, InfoValue>> info;

  /// The buffer named `name`, or null.
  const std::vector<double>* buffer(std::string_view name) const {
    for (const auto& [k, v] : buffers)
      if (k == name) return &v;
    return nullptr;
  }
  /// The info entry named `key`, or null.
  const InfoValue* find_info(std::string_view key) const {
    for (const auto& [k, v] : info)
      if (k == key) return &v;
    return nullptr;
  }
};

namespace detail {

// ---------------------------------------------------------------------------
// Activations (double); their derivatives are the kernels' (optim/kernels/neural.hpp)
// ---------------------------------------------------------------------------

inline double sigmoid(double x) { return core::sigmoid(x); }
inline double softplus(double x) { return core::softplus(x); }
/// Mish(x) = x tanh(softplus(x)).
inline double mish(double x) { return x * std::tanh(softplus(x)); }

// ---------------------------------------------------------------------------
// Seeded initialisation with PyTorch's distributions
// ---------------------------------------------------------------------------

/// A small seeded generator (splitmix64) for weight initialisation: uniform
/// and normal draws that are the same on every platform.
class InitRng {
 public:
  explicit InitRng(std::uint64_t seed) noexcept : state_(seed) {}
  std::uint64_t next() noexcept {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1).
  double uniform() noexcept { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  /// Uniform in [-bound, bound).
  double uniform(double bound) noexcept { return (2.0 * uniform() - 1.0) * bound; }
  /// Standard normal (Box-Muller).
  double normal() noexcept {
    constexpr double two_pi = 6.283185307179586;
    const double u1 = 1.0 - uniform();  // (0, 1]
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(two_pi * u2);
  }

 private:
  std::uint64_t state_;
};

/// nn.Linear's default: weight and bias uniform in ±1/√fan_in.
inline void init_uniform(std::span<double> out, double bound, InitRng& rng) {
  for (double& x : out) x = rng.uniform(bound);
}

/// nn.init.xavier_uniform_: uniform in ±√(6 / (fan_in + fan_out)) for a rows × cols matrix.
inline void init_xavier_uniform(std::span<double> out, std::size_t rows, std::size_t cols, InitRng& rng) {
  init_uniform(out, std::sqrt(6.0 / static_cast<double>(rows + cols)), rng);
}

/// nn.init.orthogonal_ for a rows × cols matrix stored row-major: a normal
/// matrix (transposed when wide) whose QR factorisation gives Q with the
/// signs of R's diagonal, transposed back. With R's diagonal made positive, Q
/// is the Gram-Schmidt orthonormalisation of the columns, computed here by
/// modified Gram-Schmidt with one re-orthogonalisation pass.
inline void init_orthogonal(std::span<double> out, std::size_t rows, std::size_t cols, InitRng& rng) {
  const bool wide = rows < cols;
  const auto m = static_cast<Eigen::Index>(wide ? cols : rows);
  const auto k = static_cast<Eigen::Index>(wide ? rows : cols);
  Eigen::MatrixXd q(m, k);
  for (Eigen::Index i = 0; i < m; ++i)
    for (Eigen::Index j = 0; j < k; ++j) q(i, j) = rng.normal();
  for (Eigen::Index j = 0; j < k; ++j) {
    for (int pass = 0; pass < 2; ++pass)
      for (Eigen::Index i = 0; i < j; ++i) q.col(j) -= q.col(i).dot(q.col(j)) * q.col(i);
    q.col(j) /= q.col(j).norm();
  }
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t j = 0; j < cols; ++j) {
      out[i * cols + j] = wide ? q(static_cast<Eigen::Index>(j), static_cast<Eigen::Index>(i))
                               : q(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j));
    }
  }
}

/// The block of `w` at `offset` as a fixed-size row-major matrix (rows × cols).
template <int R, int C>
using RowMajor = Eigen::Matrix<double, R, C, (C == 1 ? Eigen::ColMajor : Eigen::RowMajor)>;
template <int R, int C>
Eigen::Map<const RowMajor<R, C>> block(const double* w, std::size_t offset) {
  return Eigen::Map<const RowMajor<R, C>>(w + offset);
}
template <int R, int C>
Eigen::Map<RowMajor<R, C>> block(double* w, std::size_t offset) {
  return Eigen::Map<RowMajor<R, C>>(w + offset);
}

// ---------------------------------------------------------------------------
// Training rows, card sequences and packed batches
// ---------------------------------------------------------------------------

/// One training row of any of several datasets (pretraining pools users).
struct RowRef {
  const data::Dataset* ds = nullptr;
  std::size_t item = 0;  ///< index into ds->items
  double weight = 1.0;   ///< loss weight
};

/// A row predicted from a sequence: after step `pos` (0-based) at interval delta_t.
struct SeqTarget {
  std::size_t pos = 0;
  double delta_t = 0;
  int y = 0;
  double weight = 1.0;
};

/// A sequence a network runs over: the first `len` steps of a card's history
/// (`last_delta` = the interval of the row whose history ends at step len-1,
/// for encodings that pair a step with the interval that follows it), with
/// the rows read off it.
struct SeqSource {
  const data::Dataset* ds = nullptr;
  std::size_t hist_begin = 0;
  std::size_t len = 0;
  double last_delta = 0;
  std::vector<SeqTarget> targets;

  std::span<const data::Step> steps() const { return {ds->steps.data() + hist_begin, len}; }
};

/// The rows of `ds` with their weights (empty = all 1) as RowRefs.
inline std::vector<RowRef> row_refs(const data::Dataset& ds, std::span<const std::size_t> rows,
                                    std::span<const double> weights) {
  std::vector<RowRef> out;
  out.reserve(rows.size());
  for (std::size_t k = 0; k < rows.size(); ++k) out.push_back({&ds, rows[k], weights.empty() ? 1.0 : weights[k]});
  return out;
}

/// Sequences for `rows`: rows with an empty history or one longer than
/// `max_seq_len` are left out. With `share`, the rows of one card are targets
/// of a single sequence over the card's longest kept history (causal
/// networks), unless `next_interval` (GRU-P pairs each step with the interval
/// that follows it) and the row's own interval differs from the card's next
/// step's, in which case the row gets its own sequence. Without `share`, one
/// sequence per row. Sequences come in order of their first row.
inline std::vector<SeqSource> make_sources(std::span<const RowRef> rows, std::size_t max_seq_len, bool share,
                                           bool next_interval) {
  std::vector<SeqSource> out;
  // (ds, hist_begin) -> out index: a card's rows share their history's first step.
  struct CardKey {
    const data::Dataset* ds;
    std::size_t begin;
    bool operator==(const CardKey&) const = default;
  };
  struct CardHash {
    std::size_t operator()(const CardKey& k) const noexcept {
      return std::hash<const void*>{}(k.ds) ^ (k.begin * 0x9E3779B97F4A7C15ull);
    }
  };
  std::unordered_map<CardKey, std::size_t, CardHash> card_index;
  if (share) card_index.reserve(rows.size());
  for (const RowRef& r : rows) {
    const data::Item& it = r.ds->items[r.item];
    if (it.hist_len == 0 || it.hist_len > max_seq_len) continue;
    const SeqTarget t{it.hist_len - 1, it.delta_t, it.y, r.weight};
    if (!share) {
      out.push_back({r.ds, it.hist_begin, it.hist_len, it.delta_t, {t}});
      continue;
    }
    auto [pos, fresh] = card_index.try_emplace(CardKey{r.ds, it.hist_begin}, out.size());
    if (fresh) out.push_back({r.ds, it.hist_begin, 0, 0.0, {}});
    SeqSource& s = out[pos->second];
    s.targets.push_back(t);
    if (it.hist_len > s.len) {
      s.len = it.hist_len;
      s.last_delta = it.delta_t;
    }
  }
  if (share && next_interval) {
    // A row whose interval is not the next step's interval of its card's
    // sequence cannot read its output off that sequence.
    std::vector<SeqSource> extra;
    for (SeqSource& s : out) {
      std::vector<SeqTarget> kept;
      for (const SeqTarget& t : s.targets) {
        const bool last = t.pos + 1 == s.len;
        const double next = last ? s.last_delta : s.ds->steps[s.hist_begin + t.pos + 1].t;
        if (next == t.delta_t) {
          kept.push_back(t);
        } else {
          SeqTarget own_t = t;
          extra.push_back({s.ds, s.hist_begin, t.pos + 1, t.delta_t, {own_t}});
        }
      }
      s.targets = std::move(kept);
    }
    for (SeqSource& e : extra) out.push_back(std::move(e));
  }
  return out;
}

/// Sequences stably sorted by length and cut into groups of at least
/// `batch_size` targets (the last group may be smaller).
inline std::vector<std::vector<SeqSource>> group_sources(std::vector<SeqSource> sources, std::size_t batch_size) {
  std::stable_sort(sources.begin(), sources.end(),
                   [](const SeqSource& a, const SeqSource& b) { return a.len < b.len; });
  std::vector<std::vector<SeqSource>> groups;
  std::size_t count = 0;
  for (SeqSource& s : sources) {
    if (s.targets.empty()) continue;
    if (groups.empty() || count >= batch_size) {
      groups.emplace_back();
      count = 0;
    }
    count += s.targets.size();
    groups.back().push_back(std::move(s));
  }
  return groups;
}

/// A prediction read off a packed batch: at packed column `col`.
struct PackedTarget {
  std::size_t col = 0;
  double delta_t = 0;
  int y = 0;
  double weight = 1.0;
};

/// Sequences packed step-major (PyTorch's PackedSequence): sequences sorted
/// by length, longest first; column offset[s] + i holds step s of the i-th
/// sequence, which exists for i < active(s); active(s) never grows with s, so
/// the predecessor of column offset[s] + i is column offset[s-1] + i.
template <int F>
struct PackedBatch {
  std::vector<std::size_t> offset{0};          ///< first column of each step; size steps() + 1
  Eigen::Matrix<double, F, Eigen::Dynamic> x;  ///< inputs, one column per (sequence, step)
  std::vector<PackedTarget> targets;           ///< the rows predicted
  std::size_t rows = 0;                        ///< number of targets (rows of the loss)

  std::size_t steps() const noexcept { return offset.size() - 1; }
  std::size_t active(std::size_t s) const noexcept { return offset[s + 1] - offset[s]; }
  Eigen::Index cols() const noexcept { return x.cols(); }
};

/// Packs `seqs`; `encode(source, out)` writes a source's F × len input matrix.
template <int F, class Encode>
PackedBatch<F> pack(std::span<const SeqSource> seqs, Encode encode) {
  std::vector<std::size_t> order(seqs.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return seqs[a].len > seqs[b].len; });
  PackedBatch<F> b;
  const std::size_t steps = order.empty() ? 0 : seqs[order[0]].len;
  std::size_t total = 0;
  for (std::size_t s = 0; s < steps; ++s) {
    std::size_t n = 0;
    while (n < order.size() && seqs[order[n]].len > s) ++n;
    total += n;
    b.offset.push_back(total);
  }
  b.x.resize(F, static_cast<Eigen::Index>(total));
  Eigen::Matrix<double, F, Eigen::Dynamic> one;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const SeqSource& src = seqs[order[i]];
    one.resize(F, static_cast<Eigen::Index>(src.len));
    encode(src, one);
    for (std::size_t s = 0; s < src.len; ++s)
      b.x.col(static_cast<Eigen::Index>(b.offset[s] + i)) = one.col(static_cast<Eigen::Index>(s));
    for (const SeqTarget& t : src.targets) b.targets.push_back({b.offset[t.pos] + i, t.delta_t, t.y, t.weight});
  }
  b.rows = b.targets.size();
  return b;
}

// ---------------------------------------------------------------------------
// The weights file
// ---------------------------------------------------------------------------

inline srs::detail::json::Value number_array(std::span<const double> values) {
  srs::detail::json::Array a;
  a.reserve(values.size());
  for (double x : values) a.emplace_back(x);
  return srs::detail::json::Value(std::move(a));
}

inline srs::detail::json::Value shape_array(std::size_t rows, std::size_t cols) {
  srs::detail::json::Array a{srs::detail::json::Value(static_cast<std::int64_t>(rows))};
  if (cols != 0) a.emplace_back(static_cast<std::int64_t>(cols));
  return srs::detail::json::Value(std::move(a));
}

/// NeuralWeights::info as the file's "pretraining" object (same order).
inline srs::detail::json::Value info_json(const std::vector<std::pair<std::string, InfoValue>>& info) {
  namespace json = srs::detail::json;
  json::Object o;
  for (const auto& [key, value] : info) {
    o.emplace_back(key, std::visit(
                            [](const auto& x) {
                              if constexpr (std::is_same_v<std::decay_t<decltype(x)>, std::vector<std::string>>) {
                                json::Array a;
                                for (const std::string& text : x) a.emplace_back(text);
                                return json::Value(std::move(a));
                              } else {
                                return json::Value(x);
                              }
                            },
                            value));
  }
  return json::Value(std::move(o));
}

/// NeuralWeights::info from a file's "pretraining" object: its texts, integers,
/// numbers and arrays of texts, in order; entries of other kinds are skipped.
inline std::vector<std::pair<std::string, InfoValue>> info_from_json(const srs::detail::json::Value& v) {
  std::vector<std::pair<std::string, InfoValue>> info;
  for (const auto& [key, x] : v.as_object()) {
    if (x.is_string()) {
      info.emplace_back(key, x.as_string());
    } else if (x.is_integer()) {
      info.emplace_back(key, x.as_int());
    } else if (x.is_number()) {
      info.emplace_back(key, x.as_double());
    } else if (x.is_array()) {
      std::vector<std::string> texts;
      for (const auto& e : x) {
        if (!e.is_string()) break;
        texts.push_back(e.as_string());
      }
      if (texts.size() == x.size()) info.emplace_back(key, std::move(texts));
    }
  }
  return info;
}

inline std::vector<double> read_numbers(const srs::detail::json::Value& v, const std::string& what) {
  if (!v.is_array()) throw Error(what + " is not an array");
  std::vector<double> out;
  out.reserve(v.size());
  for (const auto& x : v) {
    if (!x.is_number()) throw Error(what + " holds a non-number");
    out.push_back(x.as_double());
    if (!std::isfinite(out.back())) throw Error(what + " holds a non-finite number");
  }
  return out;
}

}  // namespace detail

/// The text of a weights file for `w` with the parameter layout `layout`
/// (see the file comment for the format).
template <std::size_t B>
std::string format_weights(const NeuralWeights& w, const std::array<ParamBlock, B>& layout) {
  namespace json = srs::detail::json;
  if (w.params.size() != layout_size(layout))
    throw Error("weights for " + w.model + ": " + std::to_string(w.params.size()) + " parameters, the layout has " +
                std::to_string(layout_size(layout)));
  std::string out =
      "{\"format\": \"srs-neural-weights\", \"version\": 1, \"model\": " + json::dump(json::Value(w.model)) +
      ", \"num_params\": " + std::to_string(w.params.size()) + ",\n \"parameters\": [\n";
  std::size_t off = 0;
  for (std::size_t k = 0; k < B; ++k) {
    const ParamBlock& b = layout[k];
    json::Value v(
        json::Object{{"name", json::Value(b.name)},
                     {"shape", detail::shape_array(b.rows, b.cols)},
                     {"values", detail::number_array(std::span<const double>(w.params).subspan(off, b.size()))}});
    off += b.size();
    out += "  " + json::dump(v) + (k + 1 < B ? ",\n" : "\n");
  }
  out += " ]";
  if (!w.buffers.empty()) {
    out += ",\n \"buffers\": [\n";
    for (std::size_t k = 0; k < w.buffers.size(); ++k) {
      const auto& [name, values] = w.buffers[k];
      json::Value v(json::Object{{"name", json::Value(name)},
                                 {"shape", detail::shape_array(values.size(), 0)},
                                 {"values", detail::number_array(values)}});
      out += "  " + json::dump(v) + (k + 1 < w.buffers.size() ? ",\n" : "\n");
    }
    out += " ]";
  }
  if (!w.optimizer_exp_avg_sq.empty()) {
    json::Value v(json::Object{{"name", json::Value("AdamW")},
                               {"step", json::Value(static_cast<std::int64_t>(w.optimizer_step))},
                               {"exp_avg_sq", detail::number_array(w.optimizer_exp_avg_sq)}});
    out += ",\n \"optimizer\": " + json::dump(v);
  }
  if (!w.info.empty()) out += ",\n \"pretraining\": " + json::dump(detail::info_json(w.info));
  out += "}\n";
  return out;
}

/// Parses a weights file's text for the model `model` with `layout`.
/// @throws srs::Error naming `source` on any mismatch (format, version, model,
///         block names and shapes, sizes, non-finite numbers)
template <std::size_t B>
NeuralWeights parse_weights(std::string_view text, std::string_view model, const std::array<ParamBlock, B>& layout,
                            const std::string& source = "weights") {
  namespace json = srs::detail::json;
  const json::Value v = json::parse(text, source);
  auto fail = [&](const std::string& msg) -> Error { return Error(source + ": " + msg); };
  if (!v.is_object()) throw fail("not a JSON object");
  const json::Value* fmt = v.find("format");
  if (!fmt || !fmt->is_string() || fmt->as_string() != "srs-neural-weights")
    throw fail("not an srs-neural-weights file (\"format\" missing or different)");
  const json::Value* version = v.find("version");
  if (!version || !version->is_integer() || version->as_int() != 1) throw fail("unsupported version (1 expected)");
  const json::Value* name = v.find("model");
  if (!name || !name->is_string()) throw fail("\"model\" missing");
  if (name->as_string() != model) throw fail("weights of model " + name->as_string() + ", not " + std::string(model));
  NeuralWeights w;
  w.model = name->as_string();
  const json::Value* params = v.find("parameters");
  if (!params || !params->is_array()) throw fail("\"parameters\" missing");
  if (params->size() != B)
    throw fail(std::to_string(params->size()) + " parameter blocks, " + std::string(model) + " has " +
               std::to_string(B));
  for (std::size_t k = 0; k < B; ++k) {
    const json::Value& blk = params->at(k);
    const ParamBlock& want = layout[k];
    if (!blk.is_object() || !blk.contains("name") || !blk.at("name").is_string() ||
        blk.at("name").as_string() != want.name)
      throw fail("parameter block " + std::to_string(k) + " should be " + std::string(want.name));
    const std::string what = "block " + std::string(want.name);
    if (!blk.contains("shape") || !(blk.at("shape") == detail::shape_array(want.rows, want.cols)))
      throw fail(what + " has the wrong shape");
    const std::vector<double> values =
        detail::read_numbers(blk.contains("values") ? blk.at("values") : json::Value(), what);
    if (values.size() != want.size()) throw fail(what + " has " + std::to_string(values.size()) + " values");
    w.params.insert(w.params.end(), values.begin(), values.end());
  }
  if (const json::Value* bufs = v.find("buffers")) {
    if (!bufs->is_array()) throw fail("\"buffers\" is not an array");
    for (const json::Value& b : *bufs) {
      if (!b.is_object() || !b.contains("name") || !b.at("name").is_string()) throw fail("a buffer without a name");
      w.buffers.emplace_back(b.at("name").as_string(),
                             detail::read_numbers(b.contains("values") ? b.at("values") : json::Value(),
                                                  "buffer " + b.at("name").as_string()));
    }
  }
  if (const json::Value* opt = v.find("optimizer")) {
    if (!opt->is_object() || !opt->contains("step") || !opt->at("step").is_integer())
      throw fail("\"optimizer\" needs an integer \"step\"");
    w.optimizer_step = static_cast<long>(opt->at("step").as_int());
    w.optimizer_exp_avg_sq = detail::read_numbers(opt->contains("exp_avg_sq") ? opt->at("exp_avg_sq") : json::Value(),
                                                  "optimizer exp_avg_sq");
    if (w.optimizer_exp_avg_sq.size() != w.params.size()) throw fail("optimizer state has the wrong size");
  }
  if (const json::Value* info = v.find("pretraining")) {
    if (info->is_object()) w.info = detail::info_from_json(*info);
  }
  return w;
}

/// Writes `w` to `path` (format_weights).
template <std::size_t B>
void save_weights(const std::filesystem::path& path, const NeuralWeights& w, const std::array<ParamBlock, B>& layout) {
  const std::string text = format_weights(w, layout);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw Error("cannot write " + path.string());
  out << text;
  out.close();
  if (!out) throw Error("write error on " + path.string());
}

/// Reads a weights file (parse_weights).
template <std::size_t B>
NeuralWeights load_weights(const std::filesystem::path& path, std::string_view model,
                           const std::array<ParamBlock, B>& layout) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read " + path.string());
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parse_weights(text, model, layout, path.string());
}

/// The members every neural model shares: the seeded initialisation, the
/// pretrained weights (default_params() returns them when loaded, as the
/// reference's constructors load ./pretrain/<name>_pretrain.pth), loading and
/// saving. `Derived` provides `layout()` and `initialize(InitRng&, std::span<double, N>)`.
template <class Derived, std::size_t N>
struct NeuralBase {
  std::uint64_t init_seed = 42;                     ///< seed of the default initialisation
  std::shared_ptr<const NeuralWeights> pretrained;  ///< loaded weights (null: the seeded initialisation)

  /// The seeded initialisation (PyTorch's initialisers' distributions).
  std::array<double, N> initial_params() const {
    std::array<double, N> w{};
    detail::InitRng rng(init_seed);
    static_cast<const Derived&>(*this).initialize(rng, std::span<double, N>(w));
    return w;
  }
  /// The parameters training starts from: the pretrained ones when loaded,
  /// otherwise initial_params().
  std::array<double, N> default_params() const {
    if (pretrained) {
      std::array<double, N> w{};
      std::copy(pretrained->params.begin(), pretrained->params.end(), w.begin());
      return w;
    }
    return initial_params();
  }
  /// Use `w` as the pretrained state (its model name and size are checked).
  void set_weights(NeuralWeights w) {
    if (w.model != Derived::name) throw Error("weights of model " + w.model + ", not " + std::string(Derived::name));
    if (w.params.size() != N)
      throw Error("weights for " + w.model + " have " + std::to_string(w.params.size()) + " parameters, not " +
                  std::to_string(N));
    pretrained = std::make_shared<const NeuralWeights>(std::move(w));
  }
  /// Load a weights file written by save_weights / srs-bench --save-weights.
  void load_weights(const std::filesystem::path& path) {
    set_weights(models::load_weights(path, Derived::name, Derived::layout()));
  }
  /// The pretraining settings (pretrain.py's; the LSTM has its own).
  PretrainOptions pretraining() const { return {}; }
  /// Write `w` as a weights file of this model.
  static void save_weights(const std::filesystem::path& path, const NeuralWeights& w) {
    models::save_weights(path, w, Derived::layout());
  }
};

}  // namespace srs::models
