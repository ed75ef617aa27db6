// SPDX-License-Identifier: MIT
/// @file srs/core/error.hpp
/// The exceptions srs throws. Every error about user input names the file, the
/// 1-based line and the column (field) it concerns, so a bad row in a
/// 10,000-user run can be found and fixed.
#pragma once

#include <cmath>      // std::isfinite
#include <cstddef>    // std::size_t
#include <cstdint>    // std::int64_t
#include <cstdio>     // std::snprintf
#include <stdexcept>  // std::runtime_error
#include <string>     // std::string, std::to_string
#include <utility>    // std::move

namespace srs {

/// Base class of every srs exception.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Where in a file without lines (a Parquet file) a problem is: a text such as
/// "row group 2 of 3, row 17 of the file" or "file metadata", and the 1-based
/// row of the file it concerns (0 = no single row).
struct FilePlace {
  std::string text;
  std::size_t row = 0;
};

/// Malformed or inconsistent input data. For a text file what() reads
/// "<file>:<line>: column '<column>': <message>" (line 0 = the whole file,
/// an empty column = the whole line); for a file without lines (Parquet) it
/// reads "<file>: <place>: column '<column>': <message>", and line() is the
/// 1-based row of the file (0 = no single row).
class InputError : public Error {
 public:
  InputError(std::string file, std::size_t line, std::string column, std::string message)
      : Error(format(file, line > 0 ? std::string(":").append(std::to_string(line)) : std::string(), column, message)),
        file_(std::move(file)),
        line_(line),
        column_(std::move(column)),
        message_(std::move(message)) {}

  InputError(std::string file, FilePlace place, std::string column, std::string message)
      : Error(format(file, place.text.empty() ? std::string() : std::string(": ").append(place.text), column, message)),
        file_(std::move(file)),
        line_(place.row),
        place_(std::move(place.text)),
        column_(std::move(column)),
        message_(std::move(message)) {}

  const std::string& file() const noexcept { return file_; }
  /// The 1-based line of a text file, or row of a Parquet file; 0 = the whole file.
  std::size_t line() const noexcept { return line_; }
  /// The place in a file without lines ("row group 1 of 1, row 5 of the file"); empty for text files.
  const std::string& place() const noexcept { return place_; }
  const std::string& column() const noexcept { return column_; }
  const std::string& message() const noexcept { return message_; }

 private:
  // Built with append(): GCC 12 warns falsely (-Wrestrict) on "literal" + std::string at -O2.
  // `where` is ":<line>", ": <place>" or empty.
  static std::string format(const std::string& file, const std::string& where, const std::string& column,
                            const std::string& message) {
    std::string s = file.empty() ? std::string("<input>") : file;
    s.append(where).append(": ");
    if (!column.empty()) s.append("column '").append(column).append("': ");
    return s.append(message);
  }
  std::string file_;
  std::size_t line_;
  std::string place_;
  std::string column_;
  std::string message_;
};

/// A user whose data yields too few evaluation rows (fewer than 6 after the
/// preprocessing of docs/protocol.md §2, or nothing left after the outlier filter).
/// The reference benchmark skips such users; so does srs-bench.
class NotEnoughData : public Error {
 public:
  using Error::Error;
};

/// A training set a model cannot learn from (empty, every history longer than
/// the limit, no first-long-term reviews for the S0 fit). The trainer answers it
/// by falling back to the model's default parameters for that fold, as the
/// reference does.
class InadequateData : public Error {
 public:
  using Error::Error;
};

/// Training produced a non-finite loss, gradient or parameter (an extreme
/// history overflowing a model's arithmetic). The evaluator answers it like
/// InadequateData — the fold falls back to the default parameters — and
/// records it in the result line, so no NaN or infinity ever reaches a result.
class NumericalError : public Error {
 public:
  using Error::Error;
};

/// A model's prediction that is not a probability: outside [0, 1], or not
/// finite (NaN, infinity). The evaluator checks every prediction where it is
/// made and throws this, naming the model, the user, the row of the user's
/// dataset (index into Dataset::items), that review's position in the user's
/// log (Item::review_th, 1-based: line review_th + 1 of a CSV file with its
/// header) and card, and the value; the user's evaluation fails (srs-bench
/// reports it as a failed user) rather than scoring a clipped or NaN
/// prediction. Unlike NumericalError it is never answered by a fallback.
class PredictionError : public Error {
 public:
  PredictionError(std::string model, std::string user, std::size_t row, std::int64_t review_th, std::int64_t card,
                  double value)
      : Error(format(model, user, row, review_th, card, value)),
        model_(std::move(model)),
        user_(std::move(user)),
        row_(row),
        review_th_(review_th),
        card_(card),
        value_(value) {}

  const std::string& model() const noexcept { return model_; }
  const std::string& user() const noexcept { return user_; }
  /// The row: index into the user's Dataset::items.
  std::size_t row() const noexcept { return row_; }
  /// The review's 1-based position in the user's log (Item::review_th).
  std::int64_t review_th() const noexcept { return review_th_; }
  /// The card id, as in the input.
  std::int64_t card() const noexcept { return card_; }
  double value() const noexcept { return value_; }

 private:
  // Built with append(): GCC 12 warns falsely (-Wrestrict) on "literal" + std::string at -O2.
  static std::string format(const std::string& model, const std::string& user, std::size_t row, std::int64_t review_th,
                            std::int64_t card, double value) {
    char number[40];
    std::snprintf(number, sizeof number, "%.17g", value);
    std::string s = model;
    s.append(": user ").append(user).append(": prediction ").append(number);
    s.append(!std::isfinite(value) ? " is not finite" : " is outside [0, 1]");
    s.append(" for row ").append(std::to_string(row)).append(" of the dataset (review ");
    s.append(std::to_string(review_th)).append(" of the user's log, card ").append(std::to_string(card)).append(")");
    return s;
  }
  std::string model_;
  std::string user_;
  std::size_t row_;
  std::int64_t review_th_;
  std::int64_t card_;
  double value_;
};

/// Bad arguments given to an srs API or to srs-bench.
class UsageError : public Error {
 public:
  using Error::Error;
};

}  // namespace srs
