// SPDX-License-Identifier: MIT
/// @file srs/models/online.hpp
/// Baselines that learn online, row by row in time order, instead of from the
/// folds' training blocks (docs/protocol.md §3 "Models outside this loop"). They see
/// every row up to the one they predict; predictions are recorded from the
/// first test row (the start of fold 0's test block) on, so they pool with the
/// other models' test rows.
///
///   MOVING-AVG          a logistic filter: logit x = 1.2; p = σ(x); after each row
///                       x += 0.3 (1 − σ(x)) if recalled, else x −= 0.3 σ(x); all rows update it.
///   RMSE-BINS-EXPLOIT   per RMSE(bins) bin (interval, review-day index, lapses):
///                       sums of predictions P and outcomes Y; over the rows from the
///                       first test row on: p = 0.5 before any row was seen, else
///                       clamp(Y + G_y/G_n − P, 0, 1) with G the global sums; then the
///                       row is observed. It drives every bin's mean prediction to its
///                       mean outcome: a good RMSE(bins) with a terrible log loss, by
///                       design (docs/models.md §11).
#pragma once

#include <algorithm>    // std::clamp
#include <cmath>        // std::exp
#include <cstddef>      // std::size_t
#include <map>          // std::map
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <srs/concepts.hpp>      // srs::OnlineModel
#include <srs/core/dual.hpp>     // core::sigmoid
#include <srs/data/bins.hpp>     // data::BinKey, data::bin_key
#include <srs/data/dataset.hpp>  // data::Dataset

namespace srs::models {

struct MovingAvg {
  static constexpr std::string_view name = "MOVING-AVG";
  static constexpr std::size_t num_params = 0;
  double initial_logit = 1.2;
  double step = 0.3;

  std::vector<double> run_online(const data::Dataset& d, std::size_t first_test) const {
    std::vector<double> p;
    double x = initial_logit;
    for (std::size_t r = 0; r < d.items.size(); ++r) {
      const double s = core::sigmoid(x);
      if (r >= first_test) p.push_back(s);
      x += d.items[r].y ? step * (1 - s) : -step * s;
    }
    return p;
  }
};

struct RmseBinsExploit {
  static constexpr std::string_view name = "RMSE-BINS-EXPLOIT";
  static constexpr std::size_t num_params = 0;

  std::vector<double> run_online(const data::Dataset& d, std::size_t first_test) const {
    struct Cell {
      double pred = 0;
      double truth = 0;
    };
    std::map<data::BinKey, Cell> bins;
    double global_y = 0, global_n = 0;
    std::vector<double> out;
    for (std::size_t r = first_test; r < d.items.size(); ++r) {
      const data::Item& it = d.items[r];
      Cell& c = bins[data::bin_key(it.elapsed_days, it.i, it.lapses)];
      double p = 0.5;
      if (global_n > 0) {
        p = std::clamp(c.truth + global_y / global_n - c.pred, 0.0, 1.0);
        c.pred += p;
      }
      out.push_back(p);
      c.truth += it.y;
      global_y += it.y;
      global_n += 1;
    }
    return out;
  }
};

static_assert(OnlineModel<MovingAvg> && OnlineModel<RmseBinsExploit>);

}  // namespace srs::models
