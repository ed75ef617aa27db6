// SPDX-License-Identifier: MIT
// Tests of srs/eval/report.hpp: result names and result-file lines in the
// reference benchmark's formats (docs/protocol.md §8), and the summary over users.
//
//   * result_name: the suffix order -default, -S0, -binary, -short, -recency
//     for every flag combination srs-bench accepts (--default and --S0 exclude
//     each other), as a literal table; -duration after -secs, before -recency;
//   * user_value: canonical non-negative integers that fit in int64 become JSON
//     integers; everything else (including "007", so it stays distinct from
//     "7") a JSON string;
//   * result_line / raw_line: the exact text of hand-made results. The expected
//     strings were produced by Python's json.dumps on round()-ed values, as the
//     reference writes them (see the comments at each case); the one deliberate
//     difference is a negative value rounding to zero, which we write as 0.0;
//   * summarize: unweighted and size-weighted means, users with a null metric
//     left out of that metric only;
//   * format_table: rows sorted by unweighted LogLoss, every name and count
//     present, the numbers formatted with 4 decimals, the column rules aligned;
//   * fallbacks: summarize counts the users with fallbacks and sums their
//     trainings; format_table marks such a model ("*") and says under the
//     table how many users fell back in how many trainings (nothing without);
//     the result line's "fallbacks" field read back (fallbacks_from_json).
#include <cstddef>      // std::size_t
#include <optional>     // std::optional, std::nullopt
#include <sstream>      // std::istringstream
#include <string>       // std::string, std::getline
#include <string_view>  // std::string_view
#include <utility>      // std::pair
#include <vector>       // std::vector

#include <doctest/doctest.h>  // TEST_CASE, SUBCASE, CHECK, REQUIRE, CAPTURE

#include <srs/detail/json.hpp>     // srs::detail::json::Value, dump, parse
#include <srs/eval/evaluator.hpp>  // srs::eval::UserResult
#include <srs/eval/report.hpp>  // srs::eval::RunFlags, result_name, user_value, result_line, raw_line, summarize, format_table

namespace {

using srs::eval::ModelSummary;
using srs::eval::RunFlags;
using srs::eval::UserResult;
namespace json = srs::detail::json;

/// A result with the given LogLoss, RMSE(bins) and AUC (no predictions).
UserResult result(std::string user, std::size_t size, double ll, double bins, std::optional<double> auc) {
  UserResult r;
  r.user = std::move(user);
  r.size = size;
  r.metrics = {{"LogLoss", ll}, {"RMSE(bins)", bins}, {"AUC", auc}};
  return r;
}

/// The lines of a text.
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------
// result_name
// ---------------------------------------------------------------------------

TEST_CASE("report: result_name: suffixes in the reference's order") {
  struct Case {
    bool defaults, s0, two_buttons, short_term, recency;
    std::string_view name;
  };
  // Every combination except --default with --S0 (rejected by srs-bench).
  const Case cases[] = {
      {false, false, false, false, false, "FSRS-6"},
      {false, false, false, false, true, "FSRS-6-recency"},
      {false, false, false, true, false, "FSRS-6-short"},
      {false, false, false, true, true, "FSRS-6-short-recency"},
      {false, false, true, false, false, "FSRS-6-binary"},
      {false, false, true, false, true, "FSRS-6-binary-recency"},
      {false, false, true, true, false, "FSRS-6-binary-short"},
      {false, false, true, true, true, "FSRS-6-binary-short-recency"},
      {false, true, false, false, false, "FSRS-6-S0"},
      {false, true, false, false, true, "FSRS-6-S0-recency"},
      {false, true, false, true, false, "FSRS-6-S0-short"},
      {false, true, false, true, true, "FSRS-6-S0-short-recency"},
      {false, true, true, false, false, "FSRS-6-S0-binary"},
      {false, true, true, false, true, "FSRS-6-S0-binary-recency"},
      {false, true, true, true, false, "FSRS-6-S0-binary-short"},
      {false, true, true, true, true, "FSRS-6-S0-binary-short-recency"},
      {true, false, false, false, false, "FSRS-6-default"},
      {true, false, false, false, true, "FSRS-6-default-recency"},
      {true, false, false, true, false, "FSRS-6-default-short"},
      {true, false, false, true, true, "FSRS-6-default-short-recency"},
      {true, false, true, false, false, "FSRS-6-default-binary"},
      {true, false, true, false, true, "FSRS-6-default-binary-recency"},
      {true, false, true, true, false, "FSRS-6-default-binary-short"},
      {true, false, true, true, true, "FSRS-6-default-binary-short-recency"},
  };
  for (const Case& c : cases) {
    RunFlags f;
    f.defaults = c.defaults;
    f.s0 = c.s0;
    f.two_buttons = c.two_buttons;
    f.short_term = c.short_term;
    f.recency = c.recency;
    CHECK(srs::eval::result_name("FSRS-6", f) == c.name);
  }
  RunFlags short_only;
  short_only.short_term = true;
  CHECK(srs::eval::result_name("AVG", short_only) == "AVG-short");
  CHECK(srs::eval::result_name("AVG", RunFlags{}) == "AVG");
  // --fast (card-window batching, ours) always comes last.
  RunFlags fast = short_only;
  fast.fast = true;
  fast.recency = true;
  fast.partitions = srs::data::PartitionBy::preset;
  CHECK(srs::eval::result_name("FSRS-6", fast) == "FSRS-6-short-recency-preset-fast");
  // --duration (the LSTM's): after -secs, before -recency, as the reference's.
  RunFlags lstm;
  lstm.short_term = true;
  lstm.secs = true;
  lstm.duration = true;
  lstm.equalize = true;
  CHECK(srs::eval::result_name("LSTM", lstm) == "LSTM-short-secs-duration-equalize_test_with_non_secs");
  lstm.recency = true;
  lstm.fast = true;
  CHECK(srs::eval::result_name("LSTM", lstm) == "LSTM-short-secs-duration-recency-equalize_test_with_non_secs-fast");
  RunFlags duration_only;
  duration_only.duration = true;
  CHECK(srs::eval::result_name("LSTM", duration_only) == "LSTM-duration");
}

// ---------------------------------------------------------------------------
// user_value
// ---------------------------------------------------------------------------

TEST_CASE("report: user_value: integers for digit ids, strings otherwise") {
  auto dumped = [](const std::string& user) { return json::dump(srs::eval::user_value(user)); };
  SUBCASE("all digits: a JSON integer") {
    CHECK(srs::eval::user_value("42").is_integer());
    CHECK(srs::eval::user_value("42").as_int() == 42);
    CHECK(dumped("42") == "42");
    CHECK(dumped("0") == "0");
    CHECK(dumped("10000") == "10000");
    CHECK(dumped("123456789012345678") == "123456789012345678");
    // The largest int64 is still an integer.
    CHECK(dumped("9223372036854775807") == "9223372036854775807");
  }
  SUBCASE("ids with leading zeros stay strings, so \"007\" and \"7\" remain different users") {
    CHECK(srs::eval::user_value("007").is_string());
    CHECK(dumped("007") == "\"007\"");
    CHECK(dumped("00") == "\"00\"");
    CHECK(dumped("0") == "0");
  }
  SUBCASE("anything else: a JSON string") {
    CHECK(srs::eval::user_value("bob").is_string());
    CHECK(dumped("bob") == "\"bob\"");
    CHECK(dumped("ASproson_anki") == "\"ASproson_anki\"");
    CHECK(dumped("") == "\"\"");
    CHECK(dumped("-5") == "\"-5\"");
    CHECK(dumped("+5") == "\"+5\"");
    CHECK(dumped("12a") == "\"12a\"");
    CHECK(dumped("1.5") == "\"1.5\"");
    CHECK(dumped(" 1") == "\" 1\"");
  }
  SUBCASE("integers beyond int64 are strings") {
    CHECK(srs::eval::user_value("9223372036854775808").is_string());
    CHECK(dumped("99999999999999999999") == "\"99999999999999999999\"");
    CHECK(dumped("0000000000000000001") == "\"0000000000000000001\"");
  }
}

// ---------------------------------------------------------------------------
// result_line / raw_line
// ---------------------------------------------------------------------------

TEST_CASE("report: result_line: the exact JSON line of a hand-made result") {
  UserResult r;
  r.user = "42";
  r.size = 1234;
  // In the evaluator's order (LogLoss, RMSE(bins), smECE, AUC, precision@90,
  // recall@90, RMSE, MBE, ICI, MAE(calibration)); the line uses the newest
  // reference's key order RMSE, LogLoss, RMSE(bins), smECE, AUC, precision@90,
  // recall@90, ICI, MBE, then srs's MAE(calibration).
  r.metrics = {{"LogLoss", 0.12345678}, {"RMSE(bins)", 5e-7},      {"smECE", 0.0528532}, {"AUC", std::nullopt},
               {"precision@90", 0.875}, {"recall@90", 0.0},        {"RMSE", 0.3},        {"MBE", -0.0123456789},
               {"ICI", 0.1234565},      {"MAE(calibration)", 0.02}};
  r.parameters = {{0, {0.2120, 2.0, 1.2345675, 1e-7, 123.4567891}}, {3, {1.5}}};
  r.predictions = {{0.5, 1, 1, 2, 0}};  // not part of the line
  // Python: json.dumps({"metrics": {k: round(v, 6) ...}, "user": 42, "size": 1234,
  //                     "parameters": {"0": [round(x, 6) ...], "3": [1.5]}})
  // Note round(5e-7, 6) == 0.0 and round(0.1234565, 6) == 0.123456 (the exact
  // binary values lie below the halfway point), round(1.2345675, 6) == 1.234568.
  CHECK(srs::eval::result_line(r) ==
        R"j({"metrics": {"RMSE": 0.3, "LogLoss": 0.123457, "RMSE(bins)": 0.0, "smECE": 0.052853, "AUC": null, )j"
        R"j("precision@90": 0.875, "recall@90": 0.0, "ICI": 0.123456, "MBE": -0.012346, "MAE(calibration)": 0.02}, )j"
        R"j("user": 42, "size": 1234, )j"
        R"j("parameters": {"0": [0.212, 2.0, 1.234568, 0.0, 123.456789], "3": [1.5]}})j");
}

TEST_CASE("report: result_line: no parameters, a string user, a defined AUC") {
  UserResult r;
  r.user = "bob";
  r.size = 6;
  r.metrics = {{"AUC", 0.75}, {"LogLoss", 0.5}};
  CHECK(srs::eval::result_line(r) == R"j({"metrics": {"LogLoss": 0.5, "AUC": 0.75}, "user": "bob", "size": 6})j");
  r.metrics.clear();
  CHECK(srs::eval::result_line(r) == R"j({"metrics": {}, "user": "bob", "size": 6})j");
}

TEST_CASE("report: result_line: a negative value rounding to zero is written 0.0") {
  // Python writes round(-4e-7, 6) as -0.0; srs::detail::round_decimal gives +0.0
  // on purpose (srs/detail/number.hpp). Both read back as zero.
  UserResult r;
  r.user = "1";
  r.size = 10;
  r.metrics = {{"MBE", -4e-7}};
  r.parameters = {{-1, {-4e-7}}};
  CHECK(srs::eval::result_line(r) ==
        R"j({"metrics": {"MBE": 0.0}, "user": 1, "size": 10, "parameters": {"-1": [0.0]}})j");
}

TEST_CASE("report: result_line: the line parses back to the same values") {
  UserResult r;
  r.user = "2";
  r.size = 3055;
  r.metrics = {{"LogLoss", 0.1416}, {"RMSE(bins)", 0.0233}, {"AUC", 0.6258}, {"RMSE", 0.1775}, {"MBE", -0.0062}};
  r.parameters = {{0, std::vector<double>(21, 0.4318)}};
  const json::Value v = json::parse(srs::eval::result_line(r));
  CHECK(v.at("user").as_int() == 2);
  CHECK(v.at("size").as_int() == 3055);
  const json::Value& m = v.at("metrics");
  REQUIRE(m.size() == 5);
  CHECK(m.as_object()[0].first == "RMSE");
  CHECK(m.as_object()[1].first == "LogLoss");
  CHECK(m.as_object()[2].first == "RMSE(bins)");
  CHECK(m.as_object()[3].first == "AUC");
  CHECK(m.as_object()[4].first == "MBE");
  CHECK(m.at("AUC").as_double() == 0.6258);
  CHECK(m.at("MBE").as_double() == -0.0062);
  REQUIRE(v.at("parameters").at("0").size() == 21);
  CHECK(v.at("parameters").at("0").at(20).as_double() == 0.4318);
}

TEST_CASE("report: raw_line: predictions rounded to 4 decimals, integer labels") {
  UserResult r;
  r.user = "7";
  r.size = 6;
  for (auto [p, y] : std::vector<std::pair<double, int>>{
           {0.12345, 1}, {0.99995, 0}, {0.5, 1}, {1e-5, 0}, {0.00005, 0}, {0.33335, 1}}) {
    r.predictions.push_back({p, y, 1, 2, 0});
  }
  // Python: json.dumps({"user": 7, "p": [round(p, 4) ...], "y": [...]})
  CHECK(srs::eval::raw_line(r) ==
        R"j({"user": 7, "p": [0.1235, 1.0, 0.5, 0.0, 0.0001, 0.3333], "y": [1, 0, 1, 0, 0, 1]})j");
  r.user = "alice";
  r.predictions.clear();
  CHECK(srs::eval::raw_line(r) == R"j({"user": "alice", "p": [], "y": []})j");
}

// ---------------------------------------------------------------------------
// summarize
// ---------------------------------------------------------------------------

TEST_CASE("report: summarize: unweighted and size-weighted means, null AUC left out of AUC only") {
  const std::vector<UserResult> results = {
      result("1", 10, 0.5, 0.25, 0.75),
      result("2", 30, 0.25, 0.125, std::nullopt),
      result("3", 60, 0.125, 0.0625, 0.5),
  };
  const ModelSummary s = srs::eval::summarize("FSRS-6-short", results);
  CHECK(s.name == "FSRS-6-short");
  CHECK(s.users == 3);
  CHECK(s.reviews == 100);
  REQUIRE(s.metrics.size() == 3);
  CHECK(s.metrics[0].first == "LogLoss");
  CHECK(s.metrics[1].first == "RMSE(bins)");
  CHECK(s.metrics[2].first == "AUC");

  const auto* ll = s.find("LogLoss");
  REQUIRE(ll != nullptr);
  CHECK(ll->users == 3);
  CHECK(ll->unweighted == 0.875 / 3);
  CHECK(ll->weighted == 0.2);  // (0.5·10 + 0.25·30 + 0.125·60) / 100

  const auto* bins = s.find("RMSE(bins)");
  REQUIRE(bins != nullptr);
  CHECK(bins->users == 3);
  CHECK(bins->unweighted == 0.4375 / 3);
  CHECK(bins->weighted == 0.1);  // (2.5 + 3.75 + 3.75) / 100

  const auto* auc = s.find("AUC");
  REQUIRE(auc != nullptr);
  CHECK(auc->users == 2);
  CHECK(auc->unweighted == 0.625);    // (0.75 + 0.5) / 2
  CHECK(auc->weighted == 37.5 / 70);  // (0.75·10 + 0.5·60) / (10 + 60)

  CHECK(s.find("MBE") == nullptr);
}

TEST_CASE("report: summarize: edge cases") {
  SUBCASE("no users") {
    const ModelSummary s = srs::eval::summarize("AVG", {});
    CHECK(s.users == 0);
    CHECK(s.reviews == 0);
    CHECK(s.metrics.empty());
  }
  SUBCASE("a metric null for every user") {
    const ModelSummary s = srs::eval::summarize("AVG", {result("1", 10, 0.5, 0.1, std::nullopt)});
    const auto* auc = s.find("AUC");
    REQUIRE(auc != nullptr);
    CHECK(auc->users == 0);
    CHECK(auc->unweighted == 0);
    CHECK(auc->weighted == 0);
  }
}

// ---------------------------------------------------------------------------
// format_table
// ---------------------------------------------------------------------------

TEST_CASE("report: format_table: rows sorted by unweighted LogLoss, with names and counts") {
  std::vector<ModelSummary> rows;
  rows.push_back(
      srs::eval::summarize("AVG-short", {result("1", 100, 0.3, 0.05, 0.5), result("2", 23, 0.3, 0.05, 0.5)}));
  rows.push_back(
      srs::eval::summarize("FSRS-6-short", {result("1", 100, 0.1, 0.02, 0.7), result("2", 23, 0.1, 0.02, 0.7)}));
  rows.push_back(srs::eval::summarize("FSRS-6-default-short", {result("1", 4567, 0.2, 0.03, std::nullopt)}));
  ModelSummary empty;  // no LogLoss at all: sorted last
  empty.name = "NOTHING";
  rows.push_back(empty);

  const std::string table = srs::eval::format_table(rows);
  CAPTURE(table);
  const std::vector<std::string> lines = lines_of(table);
  REQUIRE(lines.size() == 3 + 4);  // two header lines, a rule, one line per model
  auto starts = [](const std::string& line, std::string_view prefix) { return line.rfind(prefix, 0) == 0; };
  CHECK(starts(lines[0], "Model"));
  CHECK(starts(lines[3], "FSRS-6-short "));
  CHECK(starts(lines[4], "FSRS-6-default-short "));
  CHECK(starts(lines[5], "AVG-short "));
  CHECK(starts(lines[6], "NOTHING "));
  // The counts and the values, with the widths of the format: name padded to
  // the longest name (20), users in 6, reviews in 9, metrics %8.4f, "-" when undefined.
  CHECK(lines[3] ==
        "FSRS-6-short              2       123 |   0.1000     0.0200   0.7000 |   0.1000     0.0200   0.7000");
  CHECK(lines[4] ==
        "FSRS-6-default-short      1      4567 |   0.2000     0.0300        - |   0.2000     0.0300        -");
  CHECK(lines[5] ==
        "AVG-short                 2       123 |   0.3000     0.0500   0.5000 |   0.3000     0.0500   0.5000");
  CHECK(lines[6] ==
        "NOTHING                   0         0 |        -          -        - |        -          -        -");
}

TEST_CASE("report: format_table: column rules line up with the header's separators") {
  std::vector<ModelSummary> rows = {srs::eval::summarize("FSRS-6", {result("1", 10, 0.3, 0.05, 0.5)})};
  const std::vector<std::string> lines = lines_of(srs::eval::format_table(rows));
  REQUIRE(lines.size() == 4);
  // Columns of a character in a line.
  auto columns = [](const std::string& line, char c) {
    std::vector<std::size_t> out;
    for (std::size_t col = 0; col < line.size(); ++col)
      if (line[col] == c) out.push_back(col);
    return out;
  };
  const std::vector<std::size_t> crossings = columns(lines[2], '+');
  CHECK(crossings.size() == 2);
  for (std::size_t line : {0u, 1u, 3u}) {
    CAPTURE(lines[line]);
    CAPTURE(lines[2]);
    CHECK(columns(lines[line], '|') == crossings);
  }
}

// ---------------------------------------------------------------------------
// Fallbacks
// ---------------------------------------------------------------------------

namespace {
/// result() with fallbacks: trainings on the defaults, on the user-level model, not finite.
UserResult fell_back(std::string user, std::size_t defaults, std::size_t user_level, std::size_t numerical) {
  UserResult r = result(std::move(user), 100, 0.3, 0.05, 0.5);
  r.fallbacks = defaults;
  r.user_fallbacks = user_level;
  r.numerical_fallbacks = numerical;
  return r;
}
}  // namespace

TEST_CASE("report: summarize counts the users with fallbacks and their trainings") {
  const ModelSummary s = srs::eval::summarize(
      "FSRS-6", {fell_back("1", 2, 0, 0), fell_back("2", 0, 0, 0), fell_back("3", 1, 3, 1), fell_back("4", 0, 0, 0)});
  CHECK(s.users == 4);
  CHECK(s.users_with_fallbacks == 2);
  CHECK(s.fallbacks.defaults == 3);
  CHECK(s.fallbacks.user_level == 3);
  CHECK(s.fallbacks.numerical == 1);
  CHECK(s.fallbacks.total() == 7);
  CHECK(srs::eval::fallback_note(s) ==
        "FSRS-6: 2 of 4 users fell back to other parameters in 7 trainings (3 to the defaults, 3 to a user-level "
        "model, 1 not finite)");
  const ModelSummary none = srs::eval::summarize("AVG", {fell_back("1", 0, 0, 0)});
  CHECK(none.users_with_fallbacks == 0);
  CHECK(none.fallbacks.total() == 0);
  CHECK(srs::eval::fallback_note(none).empty());
  const ModelSummary one = srs::eval::summarize("HLR", {fell_back("1", 0, 0, 1)});
  CHECK(srs::eval::fallback_note(one) ==
        "HLR: 1 of 1 user fell back to other parameters in 1 training (0 to the defaults, 0 to a user-level model, 1 "
        "not finite)");
}

TEST_CASE("report: format_table marks a model with fallbacks and says how many under the table") {
  std::vector<ModelSummary> rows;
  rows.push_back(srs::eval::summarize("AVG", {result("1", 100, 0.3, 0.05, 0.5), result("2", 23, 0.3, 0.05, 0.5)}));
  rows.push_back(srs::eval::summarize("FSRS-6", {fell_back("1", 4, 0, 1), fell_back("2", 0, 2, 0)}));
  rows.push_back(srs::eval::summarize("HLR", {fell_back("1", 0, 0, 0), fell_back("2", 1, 0, 0)}));
  const std::string table = srs::eval::format_table(rows);
  CAPTURE(table);
  const std::vector<std::string> lines = lines_of(table);
  REQUIRE(lines.size() == 3 + 3 + 1 + 2);  // header, rule, rows; a blank line, one note per model with fallbacks
  CHECK(lines[3] == "AVG          2       123 |   0.3000     0.0500   0.5000 |   0.3000     0.0500   0.5000");
  CHECK(lines[4] == "FSRS-6*      2       200 |   0.3000     0.0500   0.5000 |   0.3000     0.0500   0.5000");
  CHECK(lines[5] == "HLR*         2       200 |   0.3000     0.0500   0.5000 |   0.3000     0.0500   0.5000");
  CHECK(lines[6].empty());
  CHECK(lines[7] ==
        "* FSRS-6: 2 of 2 users fell back to other parameters in 7 trainings (4 to the defaults, 2 to a user-level "
        "model, 1 not finite)");
  CHECK(lines[8] ==
        "* HLR: 1 of 2 users fell back to other parameters in 1 training (1 to the defaults, 0 to a user-level "
        "model, 0 not finite)");
  // Without fallbacks: the rows alone, no mark.
  const std::string plain = srs::eval::format_table({rows[0]});
  CHECK(lines_of(plain).size() == 4);
  CHECK(plain.find('*') == std::string::npos);
}

TEST_CASE("report: a result line's fallbacks field read back") {
  UserResult r = fell_back("7", 3, 2, 1);
  const json::Value line = json::parse(srs::eval::result_line(r));
  const srs::eval::Fallbacks f = srs::eval::fallbacks_from_json(line["fallbacks"]);
  CHECK(f.defaults == 3);
  CHECK(f.user_level == 2);
  CHECK(f.numerical == 1);
  CHECK(srs::eval::fallbacks_from_json(json::parse(R"({"numerical": 4})")).total() == 4);  // the others 0
  CHECK_THROWS_WITH_AS(srs::eval::fallbacks_from_json(json::parse("3")), "fallbacks: expected an object",
                       json::ValueError);
  CHECK_THROWS_WITH_AS(srs::eval::fallbacks_from_json(json::parse(R"({"defaults": -1})")),
                       "fallbacks: \"defaults\" must be a non-negative integer", json::ValueError);
  CHECK_THROWS_AS(srs::eval::fallbacks_from_json(json::parse(R"({"user_level": 1.5})")), json::ValueError);
}
