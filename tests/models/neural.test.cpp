// SPDX-License-Identifier: MIT
// Tests of srs/models/neural.hpp: what the neural models share.
//   - the weights file ("srs-neural-weights" v1): exact round trip of every
//     double, buffers, optimiser state and pretraining info; clear errors naming
//     the source for a wrong format, version, model, block name, shape or size;
//   - sequences and packed batches over cards (max_seq_len, sharing, packing order);
//   - the seeded initialisers (uniform, Xavier, orthogonal), AdamW, clip_grad_norm;
//   - the training loop: deterministic, InadequateData without usable rows,
//     TrainMode::defaults, pooled pretraining recorded in the file.
#include <doctest/doctest.h>

#include <array>       // std::array
#include <cmath>       // std::sqrt, std::abs, std::nextafter
#include <cstddef>     // std::size_t
#include <cstdint>     // std::int64_t
#include <filesystem>  // std::filesystem
#include <fstream>     // std::ofstream
#include <limits>      // std::numeric_limits
#include <string>      // std::string
#include <variant>     // std::get
#include <vector>      // std::vector

#include <srs/core/error.hpp>           // srs::Error, srs::InadequateData
#include <srs/models/lstm.hpp>          // srs::models::Lstm
#include <srs/models/neural.hpp>        // srs::models::format_weights, parse_weights, ...
#include <srs/models/nn17.hpp>          // srs::models::Nn17
#include <srs/models/rnn.hpp>           // srs::models::Gru, GruP
#include <srs/optim/trainers/lstm.hpp>  // srs::optim::pretrain, detail::adamw_step, clip_grad_norm (all networks)
#include <support/neural_check.hpp>     // srs::test::random_cards, all_rows, simulated_user

namespace {

namespace fs = std::filesystem;
using srs::models::Gru;
using srs::models::GruP;
using srs::models::NeuralWeights;

/// GRU weights full of awkward doubles (shortest repr needs 17 digits,
/// subnormals, huge and tiny magnitudes, negative zero).
NeuralWeights awkward_gru() {
  NeuralWeights w;
  w.model = "GRU";
  const std::array<double, 8> odd{0.1 + 0.2, 1e-310,      -1.7976931348623157e308, 5e-324, -0.0,
                                  1.0 / 3.0, 123456789.0, std::nextafter(1.0, 2.0)};
  for (std::size_t k = 0; k < 39; ++k) w.params.push_back(odd[k % odd.size()] * (k < 8 ? 1.0 : 0.5 + 0.01 * k));
  w.info = {{"method", std::string("pooled")},
            {"users", std::vector<std::string>{"a", "b"}},
            {"rows", std::int64_t{12}},
            {"lr", 0.1 + 0.2}};
  return w;
}

/// The error message of `f()` (empty if it does not throw srs::Error).
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const srs::Error& e) {
    return e.what();
  }
  return {};
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("weights file: exact round trip of parameters, buffers, optimiser state and info") {
  const NeuralWeights w = awkward_gru();
  const std::string text = srs::models::format_weights(w, Gru::layout());
  CHECK(has(text, "\"format\": \"srs-neural-weights\""));
  CHECK(has(text, "\"version\": 1"));
  CHECK(has(text, "\"name\": \"rnn.weight_hh_l0\", \"shape\": [6, 2]"));
  CHECK(has(text, "\"name\": \"fc.bias\", \"shape\": [1]"));
  CHECK(has(text, "0.30000000000000004"));
  const NeuralWeights r = srs::models::parse_weights(text, "GRU", Gru::layout(), "w.json");
  CHECK(r.model == "GRU");
  REQUIRE(r.params.size() == 39);
  for (std::size_t k = 0; k < 39; ++k) {
    INFO("parameter " << k);
    CHECK(r.params[k] == w.params[k]);
    CHECK(std::signbit(r.params[k]) == std::signbit(w.params[k]));
  }
  CHECK(has(text,
            "\"pretraining\": {\"method\": \"pooled\", \"users\": [\"a\", \"b\"], \"rows\": 12, \"lr\": "
            "0.30000000000000004}"));
  CHECK(r.info == w.info);
  CHECK(srs::models::format_weights(r, Gru::layout()) == text);  // a fixed point
  // Info entries of other kinds are skipped when reading.
  std::string other = text;
  other.replace(other.find("\"pretraining\": {"), 16, "\"pretraining\": {\"flag\": true, \"sizes\": [1, 2], ");
  const NeuralWeights o = srs::models::parse_weights(other, "GRU", Gru::layout(), "w.json");
  CHECK(o.info == w.info);
  REQUIRE(o.find_info("rows") != nullptr);
  CHECK(std::get<std::int64_t>(*o.find_info("rows")) == 12);
  CHECK(o.find_info("flag") == nullptr);

  // Buffers and optimiser state (the LSTM's), through a file.
  NeuralWeights l;
  l.model = "LSTM";
  l.params.assign(8869, 0.0);
  for (std::size_t k = 0; k < l.params.size(); ++k) l.params[k] = 1.0 / (1.0 + static_cast<double>(k));
  l.buffers = {{"input_mean", {0.25, 9.1}}, {"input_std", {1.5, 1.0}}};
  l.optimizer_step = 1234;
  l.optimizer_exp_avg_sq.assign(8869, 1e-9);
  const fs::path path = fs::path(SRS_TEST_BINARY_DIR) / "lstm_weights_roundtrip.json";
  srs::models::Lstm::save_weights(path, l);
  srs::models::Lstm m;
  m.load_weights(path);
  REQUIRE(m.pretrained);
  CHECK(m.pretrained->params == l.params);
  CHECK(m.pretrained->buffers == l.buffers);
  CHECK(m.pretrained->optimizer_step == 1234);
  CHECK(m.pretrained->optimizer_exp_avg_sq == l.optimizer_exp_avg_sq);
  CHECK((m.input_mean() == std::array<double, 2>{0.25, 9.1}));
  const auto dp = m.default_params();
  CHECK(std::equal(dp.begin(), dp.end(), l.params.begin()));
  fs::remove(path);
}

TEST_CASE("weights file: clear errors for a wrong format, version, model, block, shape or size") {
  const std::string good = srs::models::format_weights(awkward_gru(), Gru::layout());
  auto parse = [&](const std::string& text) {
    return error_of([&] { srs::models::parse_weights(text, "GRU", Gru::layout(), "my.json"); });
  };
  auto edit = [&](const std::string& from, const std::string& to) {
    std::string t = good;
    const auto at = t.find(from);
    REQUIRE(at != std::string::npos);
    t.replace(at, from.size(), to);
    return t;
  };
  CHECK(parse(good).empty());
  std::string e = parse(edit("srs-neural-weights", "pytorch"));
  CHECK(has(e, "my.json"));
  CHECK(has(e, "not an srs-neural-weights file"));
  CHECK(has(parse(edit("\"version\": 1", "\"version\": 2")), "unsupported version"));
  e = error_of([&] { srs::models::parse_weights(good, "GRU-P", GruP::layout(), "my.json"); });
  CHECK(has(e, "weights of model GRU, not GRU-P"));
  CHECK(has(parse(edit("rnn.bias_ih_l0", "rnn.bias_ih")), "parameter block 2 should be rnn.bias_ih_l0"));
  CHECK(has(parse(edit("\"shape\": [6, 2]", "\"shape\": [2, 6]")), "block rnn.weight_ih_l0 has the wrong shape"));
  CHECK(has(parse(edit("\"shape\": [1], \"values\": [", "\"shape\": [1], \"values\": [1, ")),
            "block fc.bias has 2 values"));
  CHECK(has(parse(edit("0.30000000000000004", "\"x\"")), "holds a non-number"));
  CHECK(has(parse("[1, 2]"), "not a JSON object"));
  CHECK(has(parse("{\"format\": "), "my.json"));  // a JSON syntax error names the source
  e = error_of([] { srs::models::load_weights(fs::path("/nonexistent/dir/w.json"), "GRU", Gru::layout()); });
  CHECK(has(e, "cannot read /nonexistent/dir/w.json"));
  // A weights object of another model or size is refused by set_weights.
  Gru g;
  NeuralWeights other = awkward_gru();
  other.model = "GRU-P";
  CHECK(has(error_of([&] { g.set_weights(other); }), "weights of model GRU-P, not GRU"));
  other.model = "GRU";
  other.params.pop_back();
  CHECK(has(error_of([&] { g.set_weights(other); }), "have 38 parameters, not 39"));
  CHECK(has(error_of([&] { (void)srs::models::format_weights(other, Gru::layout()); }), "38 parameters"));
}

TEST_CASE("sequences and packed batches: max_seq_len, one sequence per card, longest first") {
  const auto ds = srs::test::random_cards(9, 25, 10);
  const auto rows = srs::test::all_rows(ds);
  const auto refs = srs::models::detail::row_refs(ds, rows, {});
  // Causal models: one sequence per card (GRU), every row a target once.
  const auto shared = srs::models::detail::make_sources(refs, 64, true, false);
  CHECK(shared.size() == 25);
  std::size_t targets = 0;
  for (const auto& s : shared) {
    targets += s.targets.size();
    for (const auto& t : s.targets) CHECK(t.pos < s.len);
  }
  CHECK(targets == rows.size());
  // Rows with a history longer than max_seq_len are left out.
  std::size_t short_rows = 0;
  for (const auto& it : ds.items) short_rows += it.hist_len <= 3 ? 1 : 0;
  std::size_t kept = 0;
  for (const auto& s : srs::models::detail::make_sources(refs, 3, true, false)) {
    kept += s.targets.size();
    CHECK(s.len <= 3);
  }
  CHECK(kept == short_rows);
  // Without sharing (Transformer): one sequence per row.
  CHECK(srs::models::detail::make_sources(refs, 64, false, false).size() == rows.size());
  // Batches of at least batch_size rows (the last may be smaller), sorted by length.
  const auto groups = srs::models::detail::group_sources(shared, 10);
  std::size_t prev_len = 0;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    std::size_t n = 0;
    for (const auto& s : groups[g]) {
      n += s.targets.size();
      CHECK(s.len >= prev_len);
      prev_len = s.len;
    }
    if (g + 1 < groups.size()) CHECK(n >= 10);
  }
  // Packing: step-major, the active sequences never grow with the step.
  const Gru m;
  const auto b = m.make_batch(groups.back());
  for (std::size_t s = 1; s < b.steps(); ++s) CHECK(b.active(s) <= b.active(s - 1));
  CHECK(b.offset.back() == static_cast<std::size_t>(b.cols()));
  for (const auto& t : b.targets) CHECK(t.col < static_cast<std::size_t>(b.cols()));
}

TEST_CASE("initialisers: seeded uniform, Xavier and orthogonal, AdamW decay, clip_grad_norm") {
  srs::models::detail::InitRng a(5), b(5), c(6);
  CHECK(a.next() == b.next());
  CHECK(a.next() != c.next());
  double mean = 0, sq = 0;
  for (int k = 0; k < 20000; ++k) {
    const double x = a.normal();
    mean += x;
    sq += x * x;
    const double u = a.uniform(0.5);
    CHECK((u >= -0.5 && u < 0.5));
  }
  CHECK(std::abs(mean / 20000) < 0.03);
  CHECK(std::abs(sq / 20000 - 1.0) < 0.05);
  // Orthogonal, wide (3 x 7): orthonormal rows.
  std::vector<double> q(21);
  srs::models::detail::init_orthogonal(q, 3, 7, a);
  for (std::size_t i = 0; i < 3; ++i) {
    for (std::size_t j = 0; j < 3; ++j) {
      double dot = 0;
      for (std::size_t k = 0; k < 7; ++k) dot += q[i * 7 + k] * q[j * 7 + k];
      CHECK(dot == doctest::Approx(i == j ? 1.0 : 0.0).epsilon(1e-12));
    }
  }
  std::vector<double> x(12);
  srs::models::detail::init_xavier_uniform(x, 6, 2, a);
  for (double v : x) CHECK(std::abs(v) <= std::sqrt(6.0 / 8.0));
  // AdamW: decoupled decay w (1 - lr wd) before the Adam step (zero gradient: decay only).
  const srs::optim::Adam adam{0.9, 0.999, 1e-8};
  srs::optim::Adam::State<2> st;
  std::array<double, 2> w{1.0, -2.0};
  const std::array<double, 2> g0{0.0, 0.0};
  srs::optim::detail::adamw_step<2>(adam, st, w, g0, 0.1, 0.5);
  CHECK(w[0] == doctest::Approx(0.95));
  CHECK(w[1] == doctest::Approx(-1.9));
  // clip_grad_norm: scaled to max_norm / (|g| + 1e-6) when larger.
  std::vector<double> g{3.0, 4.0};
  srs::optim::detail::clip_grad_norm(g, 1.0);
  CHECK(g[0] == doctest::Approx(0.6 / (1.0 + 0.2e-6)));
  CHECK(g[1] == doctest::Approx(0.8 / (1.0 + 0.2e-6)));
  std::vector<double> small{0.3, 0.4};
  srs::optim::detail::clip_grad_norm(small, 1.0);
  CHECK(small == std::vector<double>{0.3, 0.4});
}

TEST_CASE("training loop: InadequateData without usable rows, defaults mode, pooled pretraining record") {
  const GruP m;
  // Every row's history longer than max_seq_len: nothing to train on.
  GruP tiny = m;
  tiny.fine_tune.max_seq_len = 0;
  const auto ds = srs::test::random_cards(1, 10);
  const auto rows = srs::test::all_rows(ds);
  CHECK_THROWS_AS(srs::optim::train(tiny, ds, rows, {}, {.mode = srs::optim::TrainMode::full}), srs::InadequateData);
  CHECK(srs::optim::train(tiny, ds, rows, {}, {.mode = srs::optim::TrainMode::defaults}) == m.default_params());
  // Row weights enter the loss: zero weights leave the start unchanged except for the decay.
  const std::vector<double> zero(rows.size(), 0.0);
  GruP nodecay = m;
  nodecay.fine_tune.weight_decay = 0.0;
  CHECK(srs::optim::train(nodecay, ds, rows, zero, {.mode = srs::optim::TrainMode::full}) == m.default_params());
  CHECK(srs::optim::train(nodecay, ds, rows, {}, {.mode = srs::optim::TrainMode::full}) != m.default_params());

  // Pooled pretraining: deterministic, recorded, loadable.
  const std::vector<srs::data::Dataset> users{srs::test::random_cards(2, 40), srs::test::random_cards(3, 40)};
  const srs::models::PretrainOptions po{.epochs = 3, .batch_size = 64};
  const NeuralWeights a = srs::optim::pretrain(m, users, po);
  CHECK(a.params == srs::optim::pretrain(m, users, po).params);
  auto info = [](const NeuralWeights& nw, const char* key) -> const srs::models::InfoValue& {
    const srs::models::InfoValue* v = nw.find_info(key);
    REQUIRE(v != nullptr);
    return *v;
  };
  CHECK(std::get<std::string>(info(a, "method")) == "pooled");
  CHECK(std::get<std::vector<std::string>>(info(a, "users")).size() == 2);
  CHECK(std::get<std::int64_t>(info(a, "epochs")) == 3);
  CHECK(std::get<std::string>(info(a, "optimizer")) == "AdamW");
  CHECK(std::get<double>(info(a, "train_loss")) > 0);
  const NeuralWeights nn17 = srs::optim::pretrain(srs::models::Nn17{}, users, po);
  CHECK(std::get<std::string>(info(nn17, "optimizer")) == "Adam");
  // Without options: the model's own pretraining settings (pretrain.py's: 32 epochs).
  const srs::models::Gru gru;
  const NeuralWeights g = srs::optim::pretrain(gru, users);
  CHECK(std::get<std::int64_t>(info(g, "epochs")) == 32);
  CHECK(g.params == srs::optim::pretrain(gru, users, gru.pretraining()).params);
  const fs::path path = fs::path(SRS_TEST_BINARY_DIR) / "grup_weights_pretrain.json";
  GruP::save_weights(path, a);
  GruP loaded;
  loaded.load_weights(path);
  const auto dp = loaded.default_params();
  CHECK(std::equal(dp.begin(), dp.end(), a.params.begin()));
  CHECK(loaded.pretrained->info == a.info);
  fs::remove(path);
  const std::vector<srs::data::Dataset> none;
  CHECK_THROWS_AS(srs::optim::pretrain(m, none, po), srs::InadequateData);
}
