// SPDX-License-Identifier: MIT
/// @file srs/eval/result.hpp
/// A user's evaluation result (UserResult: metrics, parameters, pooled
/// predictions, calibration bins, fallbacks) and the arithmetic of predictions
/// (Precision): what the evaluator (eval/evaluator.hpp) produces and the result
/// lines and the report (eval/report.hpp, report/) read, in a header that
/// pulls in neither the trainer nor the gradient kernels (ctest
/// layering.light_result_headers keeps it so).
#pragma once

#include <srs/concepts.hpp>          // srs::Prediction
#include <srs/eval/calibration.hpp>  // eval::CalibrationData

#include <cstddef>      // std::size_t
#include <cstdint>      // std::int32_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::pair
#include <vector>       // std::vector

namespace srs::eval {

/// Arithmetic of test-time predictions.
enum class Precision {
  float32,  ///< as the reference (PyTorch float32): reproduces its predictions to ~1e-7
  float64,  ///< double: more accurate; differs from the reference by up to a few 1e-6
};

/// One user's result: what srs-bench writes as a JSON line, plus the pooled
/// predictions (for --raw output and conformance checks).
struct UserResult {
  std::string user;
  std::size_t size = 0;  ///< number of pooled (evaluated) predictions
  std::vector<std::pair<std::string, std::optional<double>>> metrics;
  /// Last fold's parameters per partition (empty for models without a parameter vector;
  /// an empty list per partition for a model evaluated untrained, srs::EvaluatedUntrained).
  std::vector<std::pair<std::int32_t, std::vector<double>>> parameters;
  /// The result line's fields that the model writes itself in place of
  /// "parameters" (a model with a `result_fields(w)` member, for the parameters
  /// of the last fold's last test partition: LogisticRegression's flat
  /// "parameters" and "state"); empty otherwise.
  std::vector<std::pair<std::string, std::vector<double>>> fields;
  std::vector<Prediction> predictions;  ///< pooled, in pooled order
  std::vector<std::size_t> rows;        ///< Dataset::items index of each pooled prediction
  /// The calibration graph's bins, when a metric draws one (CalibrationGraph);
  /// the result line's "calibration" field (eval::result_line).
  std::optional<CalibrationData> calibration;
  std::size_t fallbacks = 0;            ///< trainings that fell back to the defaults (InadequateData)
  std::size_t numerical_fallbacks = 0;  ///< trainings that fell back to the defaults (NumericalError)
  std::size_t user_fallbacks = 0;       ///< partition trainings that fell back to the fold's user-level model

  /// Value of a metric by name (empty if absent or undefined).
  std::optional<double> metric(std::string_view name) const {
    for (const auto& [k, v] : metrics)
      if (k == name) return v;
    return std::nullopt;
  }
};

}  // namespace srs::eval
