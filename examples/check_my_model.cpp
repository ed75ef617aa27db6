// SPDX-License-Identifier: MIT
// Checks a model of one's own (my_model.hpp) with srs's model checker, without a
// test framework: the Dual gradient against finite differences, the clamp,
// predictions in [0, 1], determinism, states on extreme histories, at the default
// parameters and 20 random in-box vectors. Prints the report; exit status 1 when
// a check fails. (In a test framework: CHECK(report.ok()) with the report as the
// message, e.g. doctest's INFO(report.to_string()).)
#include <srs/testing/check_model.hpp>  // srs::testing::check_model_all, check_model, simulate_history

#include <cstdio>    // std::printf
#include <iostream>  // std::cout, std::cerr
#include <span>      // std::span
#include <vector>    // std::vector

#include "my_model.hpp"  // my::MyModel

int main() {
  const my::MyModel model;

  // The whole battery, one call.
  const srs::testing::CheckReport all = srs::testing::check_model_all(model);
  std::cout << all;
  if (!all.ok()) return 1;

  // One check, on inputs of one's choosing: a card reviewed Good, Good after 3 days,
  // Again after 10, and the recall 7 days later.
  const auto w = model.default_params();
  const std::vector<srs::data::Step> card{{0, 3}, {3, 3}, {10, 1}};
  const srs::testing::CheckReport one = srs::testing::check_model(model, std::span<const double, 4>(w), card, 7.0);
  if (!one.ok()) {
    std::cerr << one;
    return 1;
  }
  std::printf("P(recall) after the card, 7 days later: %.4f\n", one.values.back());
  return 0;
}
