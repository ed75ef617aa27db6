// SPDX-License-Identifier: MIT
// Tests of srs/report/colors.hpp, the heatmaps' colours (docs/protocol.md §6):
//   * Rgb's "#rrggbb";
//   * the superiority colour: red (254, 13, 0) at 0.5% and below (and NaN),
//     green (45, 180, 0) at 100%, the squares mixed halfway;
//   * the reference's colour of each effect class (darkred ... darkgreen);
//   * black text on light colours, white on dark ones.
#include <cmath>  // std::nan

#include <doctest/doctest.h>  // TEST_CASE, CHECK

#include <srs/report/colors.hpp>       // srs::report::Rgb, superiority_color, effect_color, text_on
#include <srs/stats/significance.hpp>  // srs::stats::Effect

namespace report = srs::report;

TEST_CASE("report: Rgb as #rrggbb") {
  CHECK(report::Rgb{25, 152, 25}.hex() == "#199819");
  CHECK(report::Rgb{0, 0, 0}.hex() == "#000000");
  CHECK(report::Rgb{255, 255, 255}.hex() == "#ffffff");
}

TEST_CASE("report: superiority colour from red to green") {
  // Clipped at 0.5%: sqrt(0.005 * 45^2 + 0.995 * 255^2) = 254.4, sqrt(0.005 * 180^2) = 12.7.
  CHECK(report::superiority_color(0.0) == report::Rgb{254, 13, 0});
  CHECK(report::superiority_color(0.005) == report::Rgb{254, 13, 0});
  CHECK(report::superiority_color(std::nan("")) == report::Rgb{254, 13, 0});
  CHECK(report::superiority_color(1.0) == report::Rgb{45, 180, 0});
  // Halfway: sqrt(0.5 (45^2 + 255^2)) = 183.1, sqrt(0.5 * 180^2) = 127.3.
  CHECK(report::superiority_color(0.5) == report::Rgb{183, 127, 0});
  CHECK(report::superiority_color(1.0).hex() == "#2db400");
}

TEST_CASE("report: colours of the effect classes") {
  using E = srs::stats::Effect;
  CHECK(report::effect_color(E::worse_large).hex() == "#8b0000");      // darkred
  CHECK(report::effect_color(E::worse_medium).hex() == "#ff0000");     // red
  CHECK(report::effect_color(E::worse_small).hex() == "#ff7f50");      // coral
  CHECK(report::effect_color(E::not_significant).hex() == "#c0c0c0");  // silver
  CHECK(report::effect_color(E::better_small).hex() == "#32cd32");     // limegreen
  CHECK(report::effect_color(E::better_medium).hex() == "#199819");
  CHECK(report::effect_color(E::better_large).hex() == "#006400");  // darkgreen
}

TEST_CASE("report: text colour on a cell") {
  CHECK(report::text_on(report::Rgb{192, 192, 192}) == "#000000");  // silver: black text
  CHECK(report::text_on(report::Rgb{0, 100, 0}) == "#ffffff");      // darkgreen: white text
  CHECK(report::text_on(report::superiority_color(1.0)) == "#ffffff");
  CHECK(report::text_on(report::effect_color(srs::stats::Effect::worse_small)) == "#000000");   // coral
  CHECK(report::text_on(report::effect_color(srs::stats::Effect::better_small)) == "#ffffff");  // limegreen
}
