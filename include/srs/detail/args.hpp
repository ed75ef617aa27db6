// SPDX-License-Identifier: MIT
/// @file srs/detail/args.hpp
/// The command-line reader srs-bench (srs/bench/options.hpp) and srs-report
/// (examples/srs_report.cpp) share: arguments one by one, a flag's value, a
/// number in a range, and usage errors that end "(see PROGRAM --help)".
///
///     detail::Args args(argc, argv, "srs-report");
///     while (args.next()) {
///       if (args.is("--threads")) threads = args.integer(1, 1024);
///       else if (args.is("--html")) html = args.value();
///       else args.error("unknown option '" + args.arg() + "'");
///     }
#pragma once

#include <srs/core/error.hpp>  // srs::UsageError

#include <cstdlib>      // std::strtoll
#include <string>       // std::string, std::to_string
#include <string_view>  // std::string_view
#include <utility>      // std::move
#include <vector>       // std::vector

namespace srs::detail {

/// The arguments of a command line (argv[1..]), read one at a time.
class Args {
 public:
  Args(int argc, char** argv, std::string program)
      : args_(argv + (argc > 0 ? 1 : 0), argv + (argc > 0 ? argc : 0)), program_(std::move(program)) {}

  /// Moves to the next argument; false when there is none.
  bool next() { return ++at_ < args_.size(); }
  /// The current argument.
  const std::string& arg() const { return args_[at_]; }
  /// Whether the current argument is `flag`.
  bool is(std::string_view flag) const { return arg() == flag; }
  /// The current flag's value (the next argument); a usage error "FLAG needs a value" without one.
  const std::string& value() {
    if (at_ + 1 >= args_.size()) error(arg() + " needs a value");
    return args_[++at_];
  }
  /// The current flag's value as an integer in [lo, hi]; a usage error naming the range otherwise.
  long long integer(long long lo, long long hi) {
    const std::string& flag = arg();
    const std::string& v = value();
    const long long n = parse(v);
    if (v.empty() || bad_ || n < lo || n > hi)
      error(flag + " needs an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got '" + v + "'");
    return n;
  }
  /// The current flag's value as a count in [1, max]; "FLAG needs a positive integer" otherwise.
  std::size_t count(long long max = 1000000) {
    const std::string& flag = arg();  // (before value() moves on)
    const std::string& v = value();
    return count_of(flag, v, max);
  }
  /// `v` as a count in [1, max] for `flag` (a part of a flag's value, e.g. --shard I/N's I).
  std::size_t count_of(const std::string& flag, const std::string& v, long long max = 1000000) {
    const long long n = parse(v);
    if (v.empty() || bad_ || n < 1 || n > max) error(flag + " needs a positive integer, got '" + v + "'");
    return static_cast<std::size_t>(n);
  }
  /// Throws UsageError(msg + " (see PROGRAM --help)").
  [[noreturn]] void error(const std::string& msg) const { throw UsageError(msg + " (see " + program_ + " --help)"); }
  const std::string& program() const { return program_; }

 private:
  long long parse(const std::string& v) {
    char* end = nullptr;
    const long long n = std::strtoll(v.c_str(), &end, 10);
    bad_ = *end != '\0';
    return n;
  }

  std::vector<std::string> args_;
  std::string program_;
  std::size_t at_ = static_cast<std::size_t>(-1);
  bool bad_ = false;
};

}  // namespace srs::detail
