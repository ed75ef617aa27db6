// SPDX-License-Identifier: MIT
/// @file srs/report/colors.hpp
/// The colours of the report's heatmaps (docs/protocol.md §6): presentation, not
/// statistics. The statistics they colour are in srs/stats/ (the superiority
/// shares of stats/superiority.hpp, the effect classes of
/// stats/significance.hpp).
///
/// **Superiority.** The reference's colormap runs from red (255, 0, 0) to
/// green (45, 180, 0), mixing the squares of the channels ("brighter than
/// linear"): c(pos) = sqrt(pos end^2 + (1 - pos) start^2) per channel, with
/// pos = clip(P, 0.005, 1). (The reference samples this formula at 256
/// points; srs evaluates it directly.)
///
/// **Effect classes** (Wilcoxon r and Cohen's d): the reference's colours
/// darkred, red, coral, silver, limegreen, #199819, darkgreen, in the order
/// of stats::Effect.
#pragma once

#include <algorithm>  // std::clamp
#include <array>      // std::array
#include <cmath>      // std::sqrt, std::nearbyint, std::isnan
#include <cstddef>    // std::size_t
#include <cstdio>     // std::snprintf
#include <string>     // std::string

#include <srs/stats/significance.hpp>  // srs::stats::Effect

namespace srs::report {

/// An sRGB colour.
struct Rgb {
  int r = 0, g = 0, b = 0;
  /// "#rrggbb".
  std::string hex() const {
    char buf[8];
    std::snprintf(buf, sizeof buf, "#%02x%02x%02x", r & 0xFF, g & 0xFF, b & 0xFF);
    return std::string(buf, 7);
  }
  friend bool operator==(const Rgb&, const Rgb&) = default;
};

/// The heatmap colour of a superiority share P in [0, 1] (see the file comment;
/// NaN is coloured as 0).
inline Rgb superiority_color(double p) {
  const double pos = std::isnan(p) ? 0.005 : std::clamp(p, 0.005, 1.0);
  constexpr double start[3] = {255, 0, 0}, end[3] = {45, 180, 0};
  int c[3];
  for (int k = 0; k < 3; ++k)
    c[k] = static_cast<int>(std::nearbyint(std::sqrt(pos * end[k] * end[k] + (1.0 - pos) * start[k] * start[k])));
  return {c[0], c[1], c[2]};
}

/// The reference's colour of an effect class: darkred, red, coral, silver,
/// limegreen, #199819, darkgreen.
inline Rgb effect_color(stats::Effect e) {
  static constexpr std::array<Rgb, 7> colors{
      {{139, 0, 0}, {255, 0, 0}, {255, 127, 80}, {192, 192, 192}, {50, 205, 50}, {25, 152, 25}, {0, 100, 0}}};
  return colors[static_cast<std::size_t>(e)];
}

/// Black or white text, whichever reads better on the colour (luma 0.299 R +
/// 0.587 G + 0.114 B above 150: black).
inline std::string text_on(const Rgb& c) {
  const double lum = 0.299 * c.r + 0.587 * c.g + 0.114 * c.b;
  return lum > 150 ? "#000000" : "#ffffff";
}

}  // namespace srs::report
