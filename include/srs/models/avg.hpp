// SPDX-License-Identifier: MIT
/// @file srs/models/avg.hpp
/// AVG (docs/models.md §10): the baseline that predicts, for every test row of a
/// fold, the mean recall of that fold's training rows. No parameters.
#pragma once

#include <cstddef>      // std::size_t
#include <span>         // std::span
#include <string_view>  // std::string_view

#include <srs/concepts.hpp>      // srs::FittableModel
#include <srs/data/dataset.hpp>  // data::Dataset, data::Item

namespace srs::models {

struct Avg {
  static constexpr std::string_view name = "AVG";
  static constexpr std::size_t num_params = 0;

  /// The fitted constant.
  struct Params {
    double p = 0.5;
  };

  /// Mean of y over the training rows (0.5 when there are none).
  Params fit(const data::Dataset& d, std::span<const std::size_t> rows) const {
    if (rows.empty()) return {};
    double sum = 0;
    for (std::size_t r : rows) sum += d.items[r].y;
    return {sum / static_cast<double>(rows.size())};
  }

  double predict(const Params& p, const data::Dataset&, const data::Item&) const { return p.p; }
};

static_assert(FittableModel<Avg>);

}  // namespace srs::models
