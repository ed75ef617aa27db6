// SPDX-License-Identifier: MIT
/// @file srs/report/text.hpp
/// How the report writes its numbers and words, in Markdown and HTML alike:
/// thousands separators, a table cell (stats::sigdig's "mean±CI"), the
/// Parameters column (eval::result_parameter_count for the result name, else
/// the count the result lines' "parameters" fields give), the paired tests'
/// numbers and verdicts, the mark and footnote of a result whose trainings
/// fell back to other parameters.
#pragma once

#include <cmath>        // std::isnan, std::isfinite
#include <cstddef>      // std::size_t
#include <cstdio>       // std::snprintf
#include <optional>     // std::optional
#include <string>       // std::string, std::to_string
#include <string_view>  // std::string_view
#include <utility>      // std::move
#include <vector>       // std::vector

#include <srs/eval/registry.hpp>       // srs::eval::result_parameter_count
#include <srs/eval/report.hpp>         // srs::eval::fallback_text
#include <srs/report/results.hpp>      // ModelResults, lines_parameter_count, FallbackCount, fallback_count
#include <srs/report/summary.hpp>      // Cell
#include <srs/stats/format.hpp>        // srs::stats::fixed, sigdig
#include <srs/stats/significance.hpp>  // srs::stats::Effect

namespace srs::report {

/// A whole number with thousands separators: 9999 -> "9,999" (rounded to an integer first).
inline std::string with_commas(double v) {
  // Built forwards (GCC 12 warns falsely, -Wrestrict, on std::string::insert here).
  const std::string digits = stats::fixed(v, 0);
  std::string out;
  const std::size_t lead = digits[0] == '-' ? 1 : 0;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > lead && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

/// A table cell: "mean±CI" by the significant-digit rule, "—" without a value.
inline std::string cell_text(const Cell& c) {
  if (c.users == 0 || std::isnan(c.mean)) return "\u2014";
  return stats::sigdig(c.mean, c.half_width).str();
}

/// The Parameters column of a result name: its count, "—" for an unknown model.
inline std::string param_text(std::string_view result_name) {
  const auto n = eval::result_parameter_count(result_name);
  return n ? std::to_string(*n) : "\u2014";
}

/// The parameter count of a result: the registry's for its name
/// (eval::result_parameter_count), else the count its lines' "parameters"
/// fields agree on (lines_parameter_count), else nothing. A model added to
/// the registry later takes its count from there.
inline std::optional<std::size_t> parameter_count(const ModelResults& m) {
  if (const auto n = eval::result_parameter_count(m.name)) return n;
  return lines_parameter_count(m);
}

/// The Parameters column of a result: parameter_count, "—" without one.
inline std::string param_text(const ModelResults& m) {
  const auto n = parameter_count(m);
  return n ? std::to_string(*n) : "\u2014";
}

/// The mark after the name of a result some of whose users' trainings fell
/// back to other parameters (their lines' "fallbacks" fields), in every table.
inline constexpr std::string_view fallback_mark = "\u2020";  // †

/// `name` with fallback_mark when `c` counts a fallback.
inline std::string marked_name(std::string_view name, const FallbackCount& c) {
  std::string out(name);
  if (c.any()) out.append(fallback_mark);
  return out;
}

/// A result's name as the report's tables show it (marked_name).
inline std::string shown_name(const ModelResults& m) { return marked_name(m.name, fallback_count(m)); }

/// The footnote of a marked name: "† FSRS-6: 3 of 10 users fell back to
/// other parameters in 5 trainings (4 to the defaults, 1 to a user-level
/// model, 0 not finite)." (eval::fallback_text); empty without a fallback.
inline std::string fallback_footnote(std::string_view name, const FallbackCount& c) {
  if (!c.any()) return {};
  return std::string(fallback_mark) + " " + eval::fallback_text(name, c.users, c.of_users, c.trainings) + ".";
}

/// The footnotes of the results in `order` that have fallbacks.
inline std::vector<std::string> fallback_footnotes(const std::vector<ModelResults>& models,
                                                   const std::vector<std::size_t>& order) {
  std::vector<std::string> notes;
  for (std::size_t m : order)
    if (std::string note = fallback_footnote(models[m].name, fallback_count(models[m])); !note.empty())
      notes.push_back(std::move(note));
  return notes;
}

/// x with `decimals` decimals, "nan" when not finite.
inline std::string number(double x, int decimals) { return std::isfinite(x) ? stats::fixed(x, decimals) : "nan"; }

/// A p-value with 3 significant digits ("%.3g"), "nan" for NaN.
inline std::string p_text(double p) {
  if (std::isnan(p)) return "nan";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", p);
  return buf;
}

/// The verdict of a class for the row model: "better", "worse" or "n.s.".
inline std::string class_word(stats::Effect e) {
  if (e == stats::Effect::not_significant) return "n.s.";
  return static_cast<int>(e) < 3 ? "worse" : "better";
}

}  // namespace srs::report
