// SPDX-License-Identifier: MIT
// Built against an *installed* srs by package.find_package_consumer, linking srs::srs alone:
// <srs/srs.hpp> (everything but the components' headers) compiles without Eigen, and so does the
// model checker <srs/testing/check_model.hpp>.
#include <srs/srs.hpp>                  // srs::models::Fsrs6
#include <srs/testing/check_model.hpp>  // srs::testing::check_model, simulate_history

#include <cmath>     // std::abs
#include <cstdio>    // std::printf
#include <iostream>  // std::cerr
#include <span>      // std::span

int main() {
  // Recall after 3 days of a card with stability 5 under the default FSRS-6 curve.
  const srs::models::Fsrs6 model;
  const auto w = model.default_params();
  const double r = srs::models::Fsrs6::forgetting_curve(3.0, 5.0, w[20]);
  std::printf("R(3, 5) = %.7f\n", r);
  // The installed checker on one random history.
  const auto report =
      srs::testing::check_model(model, std::span<const double, 21>(w), srs::testing::simulate_history(1), 10.0);
  if (!report.ok()) std::cerr << report;
  return std::abs(r - 0.9392) < 0.01 && report.ok() ? 0 : 1;
}
