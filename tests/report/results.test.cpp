// SPDX-License-Identifier: MIT
// Tests of srs/report/results.hpp, reading result files:
//
//   * a file written as srs-bench writes it (support/report_support.hpp):
//     users in order, sizes, metrics (a null AUC left out), the metric names
//     in order of first appearance, the calibration field (or none);
//   * bad input is an srs::InputError naming the file, the line and the field
//     (not an object, missing user/size/metrics, a bad size, a string metric,
//     a repeated user, a bad calibration field, no result lines), CRLF and
//     blank lines are accepted, string user ids are kept;
//   * read_result_dir: every *.jsonl in name order, or the given names in
//     their order; a missing name, a missing folder and an empty folder are
//     errors;
//   * from_user_results: the same ModelResults as the file eval::result_line
//     writes (rounding included);
//   * restrict_to_common_users keeps the shared users (an error if none),
//     keep_users those of a list;
//   * the "parameters" field: parameter_count_of (a list, an object of lists
//     per partition; nothing for anything else) and lines_parameter_count
//     (the count every line that has one agrees on);
//   * the "fallbacks" field: each line's counts (0 without one; null
//     accepted), fallback_count over the users (kept users only), from
//     in-memory results too; a malformed one names the file, line and field.
#include <cstddef>     // std::size_t
#include <cstdint>     // std::int64_t
#include <filesystem>  // std::filesystem::path, create_directory
#include <sstream>     // std::istringstream
#include <string>      // std::string
#include <variant>     // std::holds_alternative
#include <vector>      // std::vector

#include <doctest/doctest.h>  // TEST_CASE, CHECK, REQUIRE, CAPTURE, CHECK_THROWS_WITH_AS

#include <srs/core/error.hpp>        // srs::InputError, srs::Error
#include <srs/detail/json.hpp>       // srs::detail::json::dump, parse, Value
#include <srs/eval/calibration.hpp>  // srs::eval::CalibrationGraph
#include <srs/eval/evaluator.hpp>    // srs::eval::UserResult
#include <srs/eval/report.hpp>       // srs::eval::result_line
#include <srs/report/results.hpp>    // srs::report::read_results, read_result_dir, from_user_results, ...

#include "support/report_support.hpp"

namespace {

namespace report = srs::report;

/// The error message of reading `text` as the file `dir`/M.jsonl.
std::string results_error(const report_test::fs::path& dir, const std::string& text) {
  report_test::write_file(dir / "M.jsonl", text);
  try {
    (void)report::read_results(dir / "M.jsonl");
  } catch (const srs::InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("report: read_results reads srs-bench's result lines") {
  report_test::TempDir tmp;
  const auto lines = report_test::write_model(tmp.path, {"FSRS-6", 0.03, 0.0, true, 1}, 5, /*null_auc_user=*/2);
  const report::ModelResults m = report::read_results(tmp.path / "FSRS-6.jsonl");
  CHECK(m.name == "FSRS-6");
  CHECK(m.file == tmp.path / "FSRS-6.jsonl");
  REQUIRE(m.users.size() == 5);
  CHECK(m.metric_names ==
        std::vector<std::string>{"RMSE", "LogLoss", "RMSE(bins)", "AUC", "MBE", "ICI", "MAE(calibration)"});
  for (std::size_t k = 0; k < 5; ++k) {
    CAPTURE(k);
    const report::UserLine& u = m.users[k];
    CHECK(u.user == srs::stats::UserId(static_cast<std::int64_t>(k + 1)));
    CHECK(u.line == k + 1);
    CHECK(u.size == lines[k]["size"].as_double());
    CHECK(u.metric("LogLoss") == lines[k]["metrics"]["LogLoss"].as_double());
    CHECK(u.metric("AUC").has_value() == (k != 1));  // user 2's AUC is null
    CHECK_FALSE(u.metric("smECE").has_value());
    REQUIRE(u.calibration.has_value());
    CHECK(u.calibration->count() == static_cast<std::size_t>(u.size));
  }
  report_test::write_model(tmp.path, {"AVG", 0.1, 0.0, false, 2}, 3);
  CHECK_FALSE(report::read_results(tmp.path / "AVG.jsonl").users[0].calibration.has_value());
}

TEST_CASE("report: read_results names the file, line and field of bad input") {
  report_test::TempDir tmp;
  const std::string file = (tmp.path / "M.jsonl").string();
  const std::string good = srs::detail::json::dump(report_test::synthetic_line({"M"}, 1, 80));
  const std::pair<std::string, std::string> cases[] = {
      {good + "\n\n{\"metrics\": {}, \"user\": 2,\n", file + ":3: "},
      {good + "\n[1, 2]\n", file + ":2: expected a JSON object per line"},
      {"{\"metrics\": {\"LogLoss\": 0.3}, \"user\": 1}\n", file + ":1: column 'size': missing"},
      {"{\"metrics\": {\"LogLoss\": 0.3}, \"user\": 1, \"size\": 0}\n",
       file + ":1: column 'size': expected a positive integer"},
      {"{\"metrics\": {\"LogLoss\": 0.3}, \"user\": 1.5, \"size\": 3}\n", file + ":1: column 'user'"},
      {"{\"metrics\": {\"LogLoss\": 0.3}, \"size\": 3}\n", file + ":1: column 'user': missing"},
      {"{\"user\": 1, \"size\": 3}\n", file + ":1: column 'metrics': missing"},
      {"{\"metrics\": [], \"user\": 1, \"size\": 3}\n", file + ":1: column 'metrics': expected an object"},
      {"{\"metrics\": {\"LogLoss\": \"0.3\"}, \"user\": 1, \"size\": 3}\n",
       file + ":1: column 'metrics.LogLoss': expected a number or null, got string"},
      {good + "\n" + good + "\n", file + ":2: column 'user': user 1 already appears on line 1"},
      {"{\"metrics\": {}, \"user\": 1, \"size\": 3, \"calibration\": {\"bins\": 2, \"n\": [1]}}\n",
       file + ":1: column 'calibration': calibration: \"n\" must be an array of 2 entries"},
      {"\n \n", file + ": no result lines"},
  };
  for (const auto& [text_b, needle_b] : cases) {
    // (clang 14 cannot capture structured bindings: named copies of them)
    const auto& text = text_b;
    const auto& needle = needle_b;
    CAPTURE(text);
    const std::string message = results_error(tmp.path, text);
    CHECK_MESSAGE(report_test::contains(message, needle), message);
  }
  CHECK(report_test::contains(results_error(tmp.path, "{\"metrics\": {}, \"user\": \"bob\", \"size\": 3}\r\n\r\n"),
                              "(no error)"));
  report_test::write_file(tmp.path / "S.jsonl", "{\"metrics\": {\"LogLoss\": 0.3}, \"user\": \"007\", \"size\": 3}\n");
  const report::ModelResults s = report::read_results(tmp.path / "S.jsonl");
  CHECK(s.users[0].user == srs::stats::UserId(std::string("007")));
  CHECK_THROWS_AS(report::read_results(tmp.path / "none.jsonl"), srs::InputError);
}

TEST_CASE("report: read_result_dir reads a folder, all of it or the named results") {
  report_test::TempDir tmp;
  const report_test::fs::path dir = tmp.path / "result";
  report_test::fs::create_directory(dir);
  CHECK_THROWS_WITH_AS(report::read_result_dir(dir), doctest::Contains("no result files (*.jsonl)"), srs::InputError);
  report_test::write_model(dir, {"FSRS-6", 0.03, 0.0, true, 1}, 3);
  report_test::write_model(dir, {"AVG", 0.1, 0.0, false, 2}, 3);
  report_test::write_model(dir, {"HLR-short", 0.05, 0.0, false, 3}, 3);
  report_test::write_file(dir / "report.html", "<!DOCTYPE html>");
  std::vector<std::string> names;
  for (const report::ModelResults& m : report::read_result_dir(dir)) names.push_back(m.name);
  CHECK(names == std::vector<std::string>{"AVG", "FSRS-6", "HLR-short"});
  names.clear();
  for (const report::ModelResults& m : report::read_result_dir(dir, {"HLR-short", "FSRS-6"})) names.push_back(m.name);
  CHECK(names == std::vector<std::string>{"HLR-short", "FSRS-6"});
  CHECK_THROWS_WITH_AS(report::read_result_dir(dir, {"FSRS-6", "Other"}),
                       doctest::Contains("Other.jsonl: no such result file (--models Other)"), srs::InputError);
  CHECK_THROWS_WITH_AS(report::read_result_dir(tmp.path / "nowhere"), doctest::Contains("not a folder"),
                       srs::InputError);
}

TEST_CASE("report: from_user_results reads in-memory results as their result file") {
  std::vector<srs::eval::UserResult> results;
  for (int u = 1; u <= 3; ++u) {
    srs::eval::UserResult r;
    r.user = u == 3 ? "carol" : std::to_string(u);
    r.size = 100 + static_cast<std::size_t>(u);
    r.metrics = {
        {"RMSE", 0.31234567 + u}, {"LogLoss", 0.4 + 0.01 * u}, {"AUC", u == 2 ? std::nullopt : std::optional(0.6)}};
    srs::eval::CalibrationGraph<4> graph;
    graph.add({0.3, 1, 1, 1, 0});
    graph.add({0.9, 1, 1, 1, 0});
    r.calibration = graph.data();
    results.push_back(std::move(r));
  }
  report_test::TempDir tmp;
  std::string text;
  for (const auto& r : results) text += srs::eval::result_line(r) + "\n";
  report_test::write_file(tmp.path / "Mine.jsonl", text);
  const report::ModelResults from_file = report::read_results(tmp.path / "Mine.jsonl");
  const report::ModelResults in_memory = report::from_user_results("Mine", results);
  CHECK(in_memory.name == "Mine");
  CHECK(in_memory.file == "(in memory)");
  CHECK(in_memory.metric_names == from_file.metric_names);
  REQUIRE(in_memory.users.size() == 3);
  for (std::size_t k = 0; k < 3; ++k) {
    CHECK(in_memory.users[k].user == from_file.users[k].user);
    CHECK(in_memory.users[k].size == from_file.users[k].size);
    CHECK(in_memory.users[k].metrics == from_file.users[k].metrics);
    REQUIRE(in_memory.users[k].calibration.has_value());
    CHECK(in_memory.users[k].calibration->count() == 2);
  }
  CHECK(in_memory.users[0].metric("RMSE") == 1.312346);  // rounded to 6 decimals, as in a file
  CHECK(std::holds_alternative<std::string>(in_memory.users[2].user));
  CHECK_FALSE(in_memory.users[1].metric("AUC").has_value());
  CHECK_THROWS_WITH_AS(report::from_user_results("None", {}), doctest::Contains("(in memory): no result lines"),
                       srs::InputError);
}

TEST_CASE("report: restrict_to_common_users keeps the users every model has") {
  report_test::TempDir tmp;
  report_test::write_model(tmp.path, {"A", 0.03, 0.0, false, 1}, 6);
  report_test::write_model(tmp.path, {"B", 0.05, 0.0, false, 2}, 4);
  std::vector<report::ModelResults> models = report::read_result_dir(tmp.path);
  report::restrict_to_common_users(models);
  CHECK(models[0].users.size() == 4);
  CHECK(models[1].users.size() == 4);
  report_test::write_file(tmp.path / "C.jsonl", "{\"metrics\": {}, \"user\": 99, \"size\": 3}\n");
  std::vector<report::ModelResults> none = report::read_result_dir(tmp.path);
  CHECK_THROWS_WITH_AS(report::restrict_to_common_users(none), doctest::Contains("no user in common"), srs::Error);
}

TEST_CASE("report: keep_users keeps the listed users in file order") {
  report_test::TempDir tmp;
  report_test::write_model(tmp.path, {"A", 0.03, 0.0, false, 1}, 6);
  report::ModelResults m = report::read_results(tmp.path / "A.jsonl");
  report::keep_users(m, {srs::stats::UserId(std::int64_t{2}), srs::stats::UserId(std::int64_t{5}),
                         srs::stats::UserId(std::int64_t{9})});
  REQUIRE(m.users.size() == 2);
  CHECK(m.users[0].user == srs::stats::UserId(std::int64_t{2}));
  CHECK(m.users[1].user == srs::stats::UserId(std::int64_t{5}));
  report::keep_users(m, {});
  CHECK(m.users.empty());
}

TEST_CASE("report: the parameters field gives the parameters per partition") {
  namespace json = srs::detail::json;
  auto count = [](const std::string& text) { return report::parameter_count_of(json::parse(text)); };
  CHECK(count("[0.4, 1.2, 3]") == 3u);                       // the reference's FSRS-4.5 and LR: a list
  CHECK(count(R"({"0": [0.1, 0.2], "-1": [1, 2]})") == 2u);  // srs-bench's and FSRS-7's: one list per partition
  CHECK(count("[]") == 0u);
  CHECK_FALSE(count("null").has_value());
  CHECK_FALSE(count("{}").has_value());
  CHECK_FALSE(count(R"({"0": [0.1, 0.2], "1": [0.3]})").has_value());  // partitions that differ
  CHECK_FALSE(count("[[0.1, 0.2], [0.3, 0.4]]").has_value());          // nested (a network's layers)
  CHECK_FALSE(count(R"({"0": 3})").has_value());
  CHECK_FALSE(count(R"(["a"])").has_value());
  CHECK_FALSE(count("7").has_value());

  report_test::TempDir tmp;
  auto lines_count = [&](const std::string& text) {
    report_test::write_file(tmp.path / "P.jsonl", text);
    const report::ModelResults m = report::read_results(tmp.path / "P.jsonl");
    return report::lines_parameter_count(m);
  };
  const std::string a = R"({"metrics": {"LogLoss": 0.3}, "user": 1, "size": 3, "parameters": {"0": [1, 2, 3]}})";
  const std::string b = R"({"metrics": {"LogLoss": 0.3}, "user": 2, "size": 3, "parameters": [1, 2, 3]})";
  const std::string c = R"({"metrics": {"LogLoss": 0.3}, "user": 3, "size": 3})";
  const std::string d = R"({"metrics": {"LogLoss": 0.3}, "user": 4, "size": 3, "parameters": [1, 2]})";
  CHECK(lines_count(a + "\n" + b + "\n" + c + "\n") == 3u);  // a line without parameters does not count
  CHECK_FALSE(lines_count(c + "\n").has_value());
  CHECK_FALSE(lines_count(a + "\n" + d + "\n").has_value());  // lines that disagree
  report_test::write_file(tmp.path / "P.jsonl", a + "\n" + c + "\n");
  const report::ModelResults m = report::read_results(tmp.path / "P.jsonl");
  CHECK(m.users[0].parameters == 3u);
  CHECK_FALSE(m.users[1].parameters.has_value());
}

TEST_CASE("report: the fallbacks field of result lines") {
  namespace json = srs::detail::json;
  report_test::TempDir tmp;
  report_test::write_model_with_fallbacks(tmp.path, {"FSRS-6"}, 5,
                                          {{2, report_test::fallbacks_field(3, 0, 1)},
                                           {4, report_test::fallbacks_field(0, 2, 0)},
                                           {5, json::Value(nullptr)}});
  report::ModelResults m = report::read_results(tmp.path / "FSRS-6.jsonl");
  REQUIRE(m.users.size() == 5);
  CHECK(m.users[0].fallbacks.total() == 0);
  CHECK(m.users[1].fallbacks.defaults == 3);
  CHECK(m.users[1].fallbacks.user_level == 0);
  CHECK(m.users[1].fallbacks.numerical == 1);
  CHECK(m.users[3].fallbacks.user_level == 2);
  CHECK(m.users[4].fallbacks.total() == 0);  // null: none
  report::FallbackCount c = report::fallback_count(m);
  CHECK(c.any());
  CHECK(c.users == 2);
  CHECK(c.of_users == 5);
  CHECK(c.trainings.defaults == 3);
  CHECK(c.trainings.user_level == 2);
  CHECK(c.trainings.numerical == 1);
  // Only the users kept count.
  report::keep_users(m, {srs::stats::UserId(std::int64_t{1}), srs::stats::UserId(std::int64_t{4})});
  c = report::fallback_count(m);
  CHECK(c.users == 1);
  CHECK(c.of_users == 2);
  CHECK(c.trainings.total() == 2);
  report::keep_users(m, {srs::stats::UserId(std::int64_t{1})});
  CHECK_FALSE(report::fallback_count(m).any());

  // In-memory results carry them through their result lines.
  srs::eval::UserResult r;
  r.user = "1";
  r.size = 10;
  r.metrics = {{"LogLoss", 0.3}};
  r.numerical_fallbacks = 5;
  const report::ModelResults mem = report::from_user_results("Mine", {r});
  CHECK(mem.users[0].fallbacks.numerical == 5);

  // A malformed field names the file, the line and the field.
  const std::string file = (tmp.path / "M.jsonl").string();
  const std::string not_object = R"({"metrics": {}, "user": 1, "size": 3, "fallbacks": 2})";
  const std::string not_count = R"({"metrics": {}, "user": 1, "size": 3, "fallbacks": {"defaults": "1"}})";
  CHECK(report_test::contains(results_error(tmp.path, not_object + "\n"),
                              file + ":1: column 'fallbacks': fallbacks: expected an object"));
  CHECK(report_test::contains(results_error(tmp.path, not_count + "\n"),
                              file + ":1: column 'fallbacks': fallbacks: \"defaults\" must be a non-negative integer"));
}
