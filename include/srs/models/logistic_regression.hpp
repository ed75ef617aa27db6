// SPDX-License-Identifier: MIT
/// @file srs/models/logistic_regression.hpp
/// LogisticRegression (docs/models.md §15): the current reference's logistic
/// regression on 34 hand-built features of a card's history. P(recall) = σ(x · c), where the coefficients are a fixed
/// population mean plus the population spread times a per-user residual ρ,
/// c = μ + s ⊙ ρ. Training (optim/trainers/logistic_regression.hpp) fits ρ
/// from 0.
///
/// The features of a row depend on its interval, on the day interval, on the
/// rating of the review just before it, and on the card's earlier rows (their
/// intervals and ratings). They come from the dataset's rows, not from a
/// card's (interval, rating) history alone, so this is not a MemoryModel but
/// a FeatureModel (srs/concepts.hpp): it predicts sets of rows of a dataset at
/// once, `predict_rows`.
///
/// Everything is computed in float32, as the reference computes it with NumPy
/// and PyTorch, including their transcendental functions
/// (srs/detail/reference_float.hpp): on the reference's outputs that the
/// tests have (tests/conformance), every feature, prediction and coefficient
/// comes out bit for bit. The parameter vector (`std::array<double, 34>`) holds ρ; each value
/// is a float.
#pragma once

#include <algorithm>    // std::max
#include <array>        // std::array
#include <cmath>        // std::pow
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int32_t, std::uint32_t
#include <limits>       // std::numeric_limits
#include <numeric>      // std::iota
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::pair
#include <vector>       // std::vector

#include <srs/concepts.hpp>                // srs::FeatureModel
#include <srs/data/dataset.hpp>            // data::Dataset, data::Item, data::group_by_card
#include <srs/detail/number.hpp>           // srs::detail::round_decimal
#include <srs/detail/reference_float.hpp>  // srs::detail::numpy_logf, numpy_log1pf, torch_sigmoid

namespace srs::models {

/// LogisticRegression's training hyper-parameters (the reference's values).
struct LogisticRegressionSettings {
  int n_epoch = 10;               ///< passes over the training rows
  std::size_t batch_size = 2048;  ///< rows per AdamW step
  double lr = 0.2;                ///< learning rate at the start of the cosine schedule (to 0 at the last step)
  double beta1 = 0.0;             ///< AdamW β1
  double beta2 = 0.85;            ///< AdamW β2
  double eps = 1e-8;              ///< AdamW ε
  double weight_decay = 0.3;      ///< AdamW's decoupled weight decay (pulls ρ towards 0, c towards μ)
  /// Seed of the batch-order generator (PyTorch's global generator, seeded once
  /// per process by the reference). A user's trainings draw from it in turn:
  /// fold after fold, partition after partition.
  std::uint32_t seed = 42;
};

struct LogisticRegression {
  static constexpr std::size_t num_params = 34;
  static constexpr std::string_view name = "LogisticRegression";
  /// A user's trainings continue one random stream (the evaluator passes each
  /// training the sizes of the ones before it: optim::TrainOptions::earlier_runs).
  static constexpr bool random_stream_per_user = true;

  using Params = std::array<double, num_params>;
  /// One row's features.
  using Features = std::array<float, num_params>;

  /// The population mean μ of the coefficients, in feature order.
  static constexpr std::array<float, num_params> mean{
      -0.9012f, -0.6941f, -0.6258f, -0.4678f, 0.3926f,  0.1316f,  0.3508f, -0.3259f, -0.2125f,
      -0.1402f, 1.2775f,  0.0669f,  0.3914f,  0.5828f,  0.9292f,  1.1583f, 1.4103f,  0.9388f,
      0.9164f,  0.9797f,  -0.6411f, 0.4951f,  0.1038f,  -0.1564f, 0.4332f, 0.3287f,  0.3429f,
      0.4068f,  -0.1779f, -0.0585f, -0.1062f, -0.3521f, -0.1613f, -0.1758f};
  /// The population spread s of the coefficients (the residual's scale).
  static constexpr std::array<float, num_params> spread{
      0.2869f, 0.2811f, 0.2910f, 0.2166f, 0.1740f, 0.1612f, 0.1428f, 0.1352f, 0.1284f, 0.0331f, 0.4013f, 0.2065f,
      0.2022f, 0.1670f, 0.2454f, 0.2954f, 0.2896f, 0.3473f, 0.5685f, 0.2795f, 0.1298f, 0.0467f, 0.1200f, 0.1317f,
      0.0785f, 0.1190f, 0.0854f, 0.1634f, 0.1892f, 0.1052f, 0.0750f, 0.1913f, 0.1372f, 0.0783f};

  LogisticRegressionSettings settings{};

  /// ρ = 0: the coefficients are the population mean.
  Params default_params() const { return {}; }

  /// c = μ + s ⊙ ρ, in float32: the product rounded, then the sum (ρ as
  /// floats, or as the parameter vector of doubles holding floats).
  template <class T>
  static std::array<float, num_params> coefficients(const std::array<T, num_params>& residual) {
    std::array<float, num_params> c{};
    for (std::size_t k = 0; k < num_params; ++k) {
      // Two statements: clang contracts a·b + c within one expression into a
      // fused multiply-add where the target has one (-ffp-contract=on).
      const float product = static_cast<float>(residual[k]) * spread[k];
      c[k] = product + mean[k];
    }
    return c;
  }

  /// x · c summed in feature order, each product rounded (as netlib BLAS's sgemv).
  static float logit(const Features& x, const std::array<float, num_params>& c) {
    float z = 0.0f;
    for (std::size_t k = 0; k < num_params; ++k) z = z + x[k] * c[k];
    return z;
  }

  /// The log-interval transform T(t) = (log(t + 1e-5) + 1.3) / 5 of an interval
  /// t in days, in float32 with NumPy's log.
  static float log_interval(double t) { return (srs::detail::numpy_logf(static_cast<float>(t) + 1e-5f) + 1.3f) / 5.0f; }

  /// The training weight of each of n rows in time order: 0.1 + 0.9 x⁴, x from
  /// 0 (oldest) to 1 (newest) as NumPy's linspace(0, 1, n), rounded to float.
  /// The model always trains with these (its own rule, whatever --recency says).
  static std::vector<float> row_weights(std::size_t n) {
    std::vector<float> w(n);
    const double step = n > 1 ? 1.0 / static_cast<double>(n - 1) : 0.0;
    for (std::size_t k = 0; k < n; ++k) {
      const double x = (n > 1 && k + 1 == n) ? 1.0 : static_cast<double>(k) * step;
      w[k] = static_cast<float>(0.1 + 0.9 * std::pow(x, 4.0));
    }
    return w;
  }

  /// The features of `rows` (indices into ds.items), in their order. Each
  /// row's features use its own interval and its card's earlier rows in
  /// ds.items, whichever rows are asked for (docs/models.md §15).
  std::vector<Features> features(const data::Dataset& ds, std::span<const std::size_t> rows) const {
    constexpr std::size_t none = std::numeric_limits<std::size_t>::max();
    std::vector<std::size_t> slot(ds.items.size(), none);  // item -> its first position in rows
    for (std::size_t k = 0; k < rows.size(); ++k)
      if (slot[rows[k]] == none) slot[rows[k]] = k;
    std::vector<Features> out(rows.size());
    std::vector<std::size_t> all(ds.items.size());
    std::iota(all.begin(), all.end(), std::size_t{0});
    const data::CardGroups cards = data::group_by_card(ds, all);  // each card's rows in time order
    for (std::size_t c = 0; c < cards.size(); ++c) {
      CardHistory card;
      for (const std::size_t item : cards.card(c)) {
        const Row row = card.next(ds, ds.items[item]);
        if (slot[item] != none) out[slot[item]] = row_features(row);
      }
    }
    for (std::size_t k = 0; k < rows.size(); ++k)
      if (slot[rows[k]] != k) out[k] = out[slot[rows[k]]];
    return out;
  }

  /// P(recall) of `rows` with residual w: σ(x · c) as PyTorch computes it over
  /// the vector of these rows (so in the reference's last bit only for the
  /// same set of rows: a fold's test rows of one partition, in order).
  std::vector<double> predict_rows(const Params& w, const data::Dataset& ds, std::span<const std::size_t> rows) const {
    const std::array<float, num_params> c = coefficients(w);
    const std::vector<Features> x = features(ds, rows);
    std::vector<float> z(rows.size()), p(rows.size());
    for (std::size_t k = 0; k < rows.size(); ++k) z[k] = logit(x[k], c);
    srs::detail::torch_sigmoid(z, p);
    return {p.begin(), p.end()};
  }

  /// The result line's fields for residual w, as the reference writes them:
  /// "parameters", the coefficients c, and "state", the residual ρ, each a flat
  /// list rounded to 4 decimals.
  std::vector<std::pair<std::string, std::vector<double>>> result_fields(const Params& w) const {
    const std::array<float, num_params> c = coefficients(w);
    std::vector<double> coefs(num_params), state(num_params);
    for (std::size_t k = 0; k < num_params; ++k) {
      coefs[k] = srs::detail::round_decimal(static_cast<double>(c[k]), 4);
      state[k] = srs::detail::round_decimal(w[k], 4);
    }
    return {{"parameters", std::move(coefs)}, {"state", std::move(state)}};
  }

  /// What a row's features are made of (docs/models.md §15):
  /// its card's running counts and times up to and including the row.
  struct Row {
    double interval = 0;             ///< Δ: the row's interval (days; fractional in secs mode)
    bool label_same_day = false;     ///< L: the row's day interval is 0
    int rating = 0;                  ///< r: the rating of the review just before the row (0 if none)
    bool first = false;              ///< F: the card's first row
    int first_rating = 0;            ///< f: r of the card's first row
    double previous_interval = 0;    ///< e: the previous row's Δ (0 on the first row)
    std::size_t same_day_fail = 0;   ///< Again after a same-day interval, rows after the first
    std::size_t other_day_fail = 0;  ///< Again after a longer interval, rows after the first
    std::size_t same_day_pass = 0;   ///< Hard/Good/Easy after a same-day interval, rows after the first
    std::size_t other_day_pass = 0;  ///< Hard/Good/Easy after a longer interval, rows after the first
    std::size_t passes = 0;          ///< Hard/Good/Easy, all rows
    std::size_t same_day = 0;        ///< same-day previous intervals (the first row counts)
    std::size_t other_day = 0;       ///< rows − same_day
    float time = 0;                  ///< τ: days from the card's first row's previous review to this row's
    float since_lapse = 0;           ///< σ: τ minus τ at the last row that followed an Again (or the first row)
  };

  /// Walks one card's rows in time order.
  class CardHistory {
   public:
    /// The next row of the card (`item`), with the counts updated.
    Row next(const data::Dataset& ds, const data::Item& item) {
      Row r;
      r.interval = item.delta_t;
      const std::int32_t days = std::max<std::int32_t>(0, item.elapsed_days);
      r.label_same_day = days == 0;
      r.rating = item.hist_len > 0 ? ds.steps[item.hist_begin + item.hist_len - 1].rating : 0;
      r.first = rows_ == 0;
      if (r.first) first_rating_ = r.rating;
      r.first_rating = first_rating_;
      r.previous_interval = r.first ? 0.0 : previous_interval_;
      const bool same = r.first || previous_days_ == 0;
      const bool pass = r.rating > 1;
      const bool fail = r.rating == 1;
      if (!r.first) {
        (same ? same_day_fail_ : other_day_fail_) += fail ? 1 : 0;
        (same ? same_day_pass_ : other_day_pass_) += pass ? 1 : 0;
      }
      passes_ += pass ? 1 : 0;
      same_day_ += same ? 1 : 0;
      ++rows_;
      // τ: pandas' grouped cumsum of e, Kahan-compensated in double, then rounded to float.
      const double y = r.previous_interval - compensation_;
      const double t = time_sum_ + y;
      compensation_ = (t - time_sum_) - y;
      time_sum_ = t;
      r.time = static_cast<float>(time_sum_);
      const float marked = (r.first || !pass) ? r.time : 0.0f;
      last_lapse_ = r.first ? marked : std::max(last_lapse_, marked);
      r.since_lapse = r.time - last_lapse_;
      r.same_day_fail = same_day_fail_;
      r.other_day_fail = other_day_fail_;
      r.same_day_pass = same_day_pass_;
      r.other_day_pass = other_day_pass_;
      r.passes = passes_;
      r.same_day = same_day_;
      r.other_day = rows_ - same_day_;
      previous_interval_ = item.delta_t;
      previous_days_ = days;
      return r;
    }

   private:
    std::size_t rows_ = 0;
    int first_rating_ = 0;
    double previous_interval_ = 0;
    std::int32_t previous_days_ = 0;
    std::size_t same_day_fail_ = 0, other_day_fail_ = 0, same_day_pass_ = 0, other_day_pass_ = 0;
    std::size_t passes_ = 0, same_day_ = 0;
    double time_sum_ = 0, compensation_ = 0;
    float last_lapse_ = 0;
  };

  /// The 34 features of a row (the table of docs/models.md §15).
  static Features row_features(const Row& r) {
    const auto ind = [](bool b) { return b ? 1.0f : 0.0f; };
    const auto l1p = [](std::size_t n) { return srs::detail::numpy_log1pf(n); };
    const float v = log_interval(r.interval);
    const float first = ind(r.first);
    const float first_above_again = ind(r.first_rating > 1);
    const std::array<float, 3> rated{ind(r.rating == 2), ind(r.rating == 3), ind(r.rating == 4)};
    const std::array<float, 3> first_rated{ind(r.first_rating == 2), ind(r.first_rating == 3),
                                           ind(r.first_rating == 4)};
    const float same_fail = l1p(r.same_day_fail);
    const float other_pass_next_day = l1p(r.other_day_pass * (r.label_same_day ? 0 : 1));
    const float other_fail_next_day = l1p(r.other_day_fail * (r.label_same_day ? 0 : 1));
    const float same_pass = l1p(r.same_day_pass);
    const float other_fail = l1p(r.other_day_fail);
    const std::array<float, 10> slope{1.0f,
                                      rated[0],
                                      rated[1],
                                      rated[2],
                                      ind(r.rating == 2) * first,
                                      ind(r.rating > 2) * first,
                                      same_fail,
                                      other_pass_next_day,
                                      other_fail_next_day,
                                      same_pass};
    Features x{};
    for (std::size_t k = 0; k < slope.size(); ++k) x[k] = slope[k] * v;
    x[10] = 1.0f;
    x[11] = rated[0];
    x[12] = rated[1];
    x[13] = rated[2];
    x[14] = first_rated[0];
    x[15] = first_rated[1];
    x[16] = first_rated[2];
    x[17] = first_rated[0] * first;
    x[18] = first_rated[1] * first;
    x[19] = first_rated[2] * first;
    x[20] = same_fail;
    x[21] = other_pass_next_day;
    x[22] = log_interval(r.previous_interval);
    x[23] = other_fail;
    x[24] = l1p(r.other_day_pass);
    x[25] = l1p(r.same_day_pass * (r.label_same_day ? 1 : 0));
    x[26] = ind(r.passes > 0);
    x[27] = log_interval(r.since_lapse);
    x[28] = ind(r.label_same_day);
    x[29] = log_interval(r.time);
    x[30] = first_above_again * same_fail;
    x[31] = first_above_again * other_fail;
    x[32] = first_above_again * l1p(r.same_day);
    x[33] = first_above_again * l1p(r.other_day);
    return x;
  }
};

static_assert(FeatureModel<LogisticRegression>);

}  // namespace srs::models
