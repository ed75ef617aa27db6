// SPDX-License-Identifier: MIT
// Tests of srs/detail/args.hpp, the command-line reader of srs-bench and
// srs-report: arguments in order, a flag's value, integers in a range and
// counts, and usage errors that name the flag and end with the program's --help.
#include <doctest/doctest.h>

#include <srs/core/error.hpp>   // srs::UsageError
#include <srs/detail/args.hpp>  // srs::detail::Args

#include <string>  // std::string
#include <vector>  // std::vector

namespace args_test {

/// An argv of `words` (after the program name).
struct Argv {
  explicit Argv(std::vector<std::string> words) : storage(std::move(words)) {
    storage.insert(storage.begin(), "prog");
    for (std::string& w : storage) pointers.push_back(w.data());
  }
  int argc() const { return static_cast<int>(pointers.size()); }
  char** argv() { return pointers.data(); }
  std::vector<std::string> storage;
  std::vector<char*> pointers;
};

std::string error_of(std::vector<std::string> words, long long lo, long long hi) {
  Argv a(std::move(words));
  srs::detail::Args args(a.argc(), a.argv(), "prog");
  try {
    while (args.next()) {
      if (args.is("--n")) (void)args.integer(lo, hi);
      if (args.is("--count")) (void)args.count();
    }
  } catch (const srs::UsageError& e) {
    return e.what();
  }
  return "";
}

}  // namespace args_test

using namespace args_test;

TEST_CASE("detail::Args: flags, values and positional arguments in order") {
  Argv a({"DIR", "--html", "x.html", "--n", "7", "--flag"});
  srs::detail::Args args(a.argc(), a.argv(), "prog");
  std::vector<std::string> seen;
  long long n = 0;
  while (args.next()) {
    if (args.is("--html")) {
      seen.push_back("html=" + args.value());
    } else if (args.is("--n")) {
      n = args.integer(1, 10);
    } else {
      seen.push_back(args.arg());
    }
  }
  CHECK(seen == std::vector<std::string>{"DIR", "html=x.html", "--flag"});
  CHECK(n == 7);
  CHECK(args.program() == "prog");
}

TEST_CASE("detail::Args: usage errors name the flag, the range and the program's --help") {
  CHECK(error_of({"--n"}, 1, 10) == "--n needs a value (see prog --help)");
  CHECK(error_of({"--n", "11"}, 1, 10) == "--n needs an integer in [1, 10], got '11' (see prog --help)");
  CHECK(error_of({"--n", "3x"}, 1, 10) == "--n needs an integer in [1, 10], got '3x' (see prog --help)");
  CHECK(error_of({"--n", ""}, 0, 10) == "--n needs an integer in [0, 10], got '' (see prog --help)");
  CHECK(error_of({"--n", "0"}, 0, 10).empty());
  CHECK(error_of({"--count", "0"}, 0, 0) == "--count needs a positive integer, got '0' (see prog --help)");
  CHECK(error_of({"--count", "1000001"}, 0, 0) == "--count needs a positive integer, got '1000001' (see prog --help)");
  CHECK(error_of({"--count", "1000000"}, 0, 0).empty());
}

TEST_CASE("detail::Args: an empty command line has no arguments") {
  Argv a({});
  srs::detail::Args args(a.argc(), a.argv(), "prog");
  CHECK_FALSE(args.next());
  srs::detail::Args none(0, nullptr, "prog");
  CHECK_FALSE(none.next());
}
