// SPDX-License-Identifier: MIT
/// @file tests/detail/json.test.cpp
/// srs::detail::json: the Value type, the strict parser (every error path), and
/// dump() against Python's json.dumps. The table between the GENERATED markers
/// comes from tests/tools/gen_repr_golden.py; rerun it rather than editing it.
#include <doctest/doctest.h>

#include <cmath>        // std::isnan, std::isinf, std::signbit
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int64_t, std::uint64_t
#include <filesystem>   // std::filesystem::exists
#include <fstream>      // std::ifstream
#include <iterator>     // std::istreambuf_iterator
#include <limits>       // std::numeric_limits
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view, std::literals
#include <vector>       // std::vector

#include <srs/core/error.hpp>   // srs::InputError
#include <srs/detail/json.hpp>  // srs::detail::json::*

namespace json = srs::detail::json;
using namespace std::literals;

namespace {

struct DumpCase {
  std::string_view text;   // JSON text given to json.loads
  std::string_view utf8;   // json.dumps(json.loads(text), ensure_ascii=False)
  std::string_view ascii;  // json.dumps(json.loads(text))
};

// clang-format off
// BEGIN GENERATED dumps
const DumpCase dump_cases[] = {
    {"{\"metrics\": {\"RMSE\": 0.177478, \"LogLoss\": 0.141614, \"RMSE(bins)\": 0.023347, \"AUC\": null}, \"user\": 1, \"size\": 3055, \"parameters\": {\"0\": [0.4318, 3.6098]}}"sv,
     "{\"metrics\": {\"RMSE\": 0.177478, \"LogLoss\": 0.141614, \"RMSE(bins)\": 0.023347, \"AUC\": null}, \"user\": 1, \"size\": 3055, \"parameters\": {\"0\": [0.4318, 3.6098]}}"sv,
     "{\"metrics\": {\"RMSE\": 0.177478, \"LogLoss\": 0.141614, \"RMSE(bins)\": 0.023347, \"AUC\": null}, \"user\": 1, \"size\": 3055, \"parameters\": {\"0\": [0.4318, 3.6098]}}"sv},
    {"{ \"a\" :1,\"b\":[ 1.5 ,null,true,false ] ,\012 \"c\" : { } , \"d\":[]}"sv,
     "{\"a\": 1, \"b\": [1.5, null, true, false], \"c\": {}, \"d\": []}"sv,
     "{\"a\": 1, \"b\": [1.5, null, true, false], \"c\": {}, \"d\": []}"sv},
    {"[0, -0, -0.0, 1E2, 1e-2, 0.1e1, 1.0e+2, 123456789012345678, -9223372036854775808, 9223372036854775807, 1e400, -1e400, 1e-400, -1e-400, 5e-324, 2.5e-7, 1e16]"sv,
     "[0, 0, -0.0, 100.0, 0.01, 1.0, 100.0, 123456789012345678, -9223372036854775808, 9223372036854775807, Infinity, -Infinity, 0.0, -0.0, 5e-324, 2.5e-07, 1e+16]"sv,
     "[0, 0, -0.0, 100.0, 0.01, 1.0, 100.0, 123456789012345678, -9223372036854775808, 9223372036854775807, Infinity, -Infinity, 0.0, -0.0, 5e-324, 2.5e-07, 1e+16]"sv},
    {"[NaN, Infinity, -Infinity]"sv,
     "[NaN, Infinity, -Infinity]"sv,
     "[NaN, Infinity, -Infinity]"sv},
    {"\"plain\""sv,
     "\"plain\""sv,
     "\"plain\""sv},
    {"\"quote \\\" backslash \\\\ slash \\/ controls \\b\\f\\n\\r\\t\""sv,
     "\"quote \\\" backslash \\\\ slash / controls \\b\\f\\n\\r\\t\""sv,
     "\"quote \\\" backslash \\\\ slash / controls \\b\\f\\n\\r\\t\""sv},
    {"\"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\u0008\\u0009\\u000a\\u000b\\u000c\\u000d\\u000e\\u000f\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017\\u0018\\u0019\\u001a\\u001b\\u001c\\u001d\\u001e\\u001f\\u007f\""sv,
     "\"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000b\\f\\r\\u000e\\u000f\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017\\u0018\\u0019\\u001a\\u001b\\u001c\\u001d\\u001e\\u001f\177\""sv,
     "\"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000b\\f\\r\\u000e\\u000f\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017\\u0018\\u0019\\u001a\\u001b\\u001c\\u001d\\u001e\\u001f\\u007f\""sv},
    {"\"\\u00e9\\u4e2d\\u2028\\ud83d\\ude00 raw: \303\251\344\270\255\360\237\230\200\""sv,
     "\"\303\251\344\270\255\342\200\250\360\237\230\200 raw: \303\251\344\270\255\360\237\230\200\""sv,
     "\"\\u00e9\\u4e2d\\u2028\\ud83d\\ude00 raw: \\u00e9\\u4e2d\\ud83d\\ude00\""sv},
    {"{\"a\": 1, \"b\": 2, \"a\": 3}"sv,
     "{\"a\": 3, \"b\": 2}"sv,
     "{\"a\": 3, \"b\": 2}"sv},
    {"{\"k\": {\"k\": {\"k\": [[[], {}], [{\"x\": \"y\"}]]}}}"sv,
     "{\"k\": {\"k\": {\"k\": [[[], {}], [{\"x\": \"y\"}]]}}}"sv,
     "{\"k\": {\"k\": {\"k\": [[[], {}], [{\"x\": \"y\"}]]}}}"sv},
    {"\"\\u0000 after nul\""sv,
     "\"\\u0000 after nul\""sv,
     "\"\\u0000 after nul\""sv},
};
// END GENERATED dumps
// clang-format on

/// The InputError parse() throws for text (fails the test if it parses).
srs::InputError parse_error(std::string_view text, const std::string& source = "t.json") {
  try {
    json::parse(text, source);
  } catch (const srs::InputError& e) {
    return e;
  }
  FAIL("no error for: " << std::string(text));
  return srs::InputError("", 0, "", "");
}

bool contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

}  // namespace

TEST_CASE("Value: construction and kinds") {
  CHECK(json::Value().is_null());
  CHECK(json::Value(nullptr).is_null());
  CHECK(json::Value(true).as_bool());
  CHECK(json::Value(42).as_int() == 42);
  CHECK(json::Value(std::int64_t{-7}).as_int() == -7);
  CHECK(json::Value(42u).is_integer());
  CHECK(json::Value(1.5).as_double() == 1.5);
  CHECK(json::Value(1.5f).is_double());
  CHECK(json::Value(42).as_double() == 42.0);  // as_double accepts integers
  CHECK(json::Value("abc").as_string() == "abc");
  CHECK(json::Value("abc"sv).is_string());
  CHECK(json::Value(std::string("abc")).is_string());
  CHECK(json::Value(std::optional<double>{}).is_null());
  CHECK(json::Value(std::optional<double>{0.25}).as_double() == 0.25);
  CHECK(json::Value(json::Array{1, 2.5, nullptr}).size() == 3);
  CHECK(json::Value(json::Object{{"a", 1}}).size() == 1);
  CHECK(json::Value(2.5).is_number());
  CHECK(json::Value(2).is_number());
  CHECK(json::kind_name(json::Value(2).kind()) == "integer");
  CHECK_THROWS_AS((void)json::Value{std::numeric_limits<std::uint64_t>::max()}, json::ValueError);
}

TEST_CASE("Value: accessors throw a clear error on misuse") {
  const json::Value v = json::parse(R"({"a": [1, "x"], "b": 2.5})");
  CHECK_THROWS_WITH_AS(v.at("a").as_int(), "json: expected integer, got array", json::ValueError);
  CHECK_THROWS_WITH_AS(v["b"].as_int(), "json: expected integer, got number", json::ValueError);
  CHECK_THROWS_WITH_AS(v["a"][1].as_double(), "json: expected number, got string", json::ValueError);
  CHECK_THROWS_WITH_AS(v["missing"], "json: no member \"missing\" in object", json::ValueError);
  CHECK_THROWS_WITH_AS(v["a"][2], "json: index 2 out of range for array of size 2", json::ValueError);
  CHECK_THROWS_WITH_AS(v["a"]["k"], "json: expected object, got array", json::ValueError);
  CHECK_THROWS_WITH_AS(v[0], "json: expected array, got object", json::ValueError);
  CHECK_THROWS_WITH_AS(v["b"].size(), "json: size() of a number, expected array or object", json::ValueError);
  CHECK_THROWS_AS(v["b"].contains("x"), json::ValueError);
  CHECK_THROWS_AS(v["b"].as_string(), json::ValueError);
  CHECK_THROWS_AS(v["b"].as_bool(), json::ValueError);
  CHECK_THROWS_AS(v["b"].as_object(), json::ValueError);
  CHECK_THROWS_AS(json::Value(1).push_back(2), json::ValueError);
  CHECK_THROWS_AS((void)json::Value(1).begin(), json::ValueError);
}

TEST_CASE("Value: lookup, building and iteration") {
  json::Value v;
  v["metrics"]["RMSE"] = 0.177478;
  v["metrics"]["AUC"] = std::optional<double>{};
  v["user"] = 1;
  v["parameters"]["0"].push_back(0.4318);
  v["parameters"]["0"].push_back(3.6098);
  v["user"] = 2;  // overwrite keeps the position
  CHECK(json::dump(v) ==
        R"({"metrics": {"RMSE": 0.177478, "AUC": null}, "user": 2, "parameters": {"0": [0.4318, 3.6098]}})");
  CHECK(v.contains("user"));
  CHECK_FALSE(v.contains("size"));
  CHECK(v.find("size") == nullptr);
  CHECK(v.find("user")->as_int() == 2);
  CHECK(v["metrics"]["AUC"].is_null());
  CHECK(v.at("parameters").at("0").at(1).as_double() == 3.6098);

  double sum = 0;
  for (const json::Value& x : v["parameters"]["0"]) sum += x.as_double();
  CHECK(sum == 0.4318 + 3.6098);
  std::vector<std::string> keys;
  for (const auto& [key, value] : v.as_object()) keys.push_back(key);
  CHECK(keys == std::vector<std::string>{"metrics", "user", "parameters"});

  json::Value a = json::Array{1, 2};
  for (json::Value& x : a) x = x.as_int() * 10;
  CHECK(json::dump(a) == "[10, 20]");
}

TEST_CASE("Value: equality follows Python") {
  CHECK(json::parse("1") == json::parse("1.0"));
  CHECK(json::parse(R"({"a": 1, "b": [true, null]})") == json::parse(R"({"b": [true, null], "a": 1.0})"));
  CHECK_FALSE(json::parse(R"({"a": 1})") == json::parse(R"({"a": 1, "b": 2})"));
  CHECK_FALSE(json::parse(R"({"a": 1, "c": 2})") == json::parse(R"({"a": 1, "b": 2})"));
  CHECK_FALSE(json::parse("[1, 2]") == json::parse("[2, 1]"));
  CHECK_FALSE(json::parse("NaN") == json::parse("NaN"));
  CHECK_FALSE(json::parse("\"1\"") == json::parse("1"));
  CHECK_FALSE(json::parse("true") == json::parse("1"));
}

TEST_CASE("dump: the result-file example is byte-identical to Python") {
  const json::Value v = json::Object{
      {"metrics", json::Object{{"RMSE", 0.177478}, {"LogLoss", 0.141614}, {"RMSE(bins)", 0.023347}, {"AUC", nullptr}}},
      {"user", 1},
      {"size", 3055},
      {"parameters", json::Object{{"0", json::Array{0.4318, 3.6098}}}}};
  const std::string python =
      R"py({"metrics": {"RMSE": 0.177478, "LogLoss": 0.141614, "RMSE(bins)": 0.023347, "AUC": null}, )py"
      R"py("user": 1, "size": 3055, "parameters": {"0": [0.4318, 3.6098]}})py";
  CHECK(json::dump(v) == python);
  CHECK(json::dump(json::parse(python)) == python);
  std::string line = "x";
  json::dump_to(line, v);
  CHECK(line == "x" + python);
}

TEST_CASE("parse + dump match Python's json.loads + json.dumps") {
  for (const DumpCase& c : dump_cases) {
    CAPTURE(c.text);
    const json::Value v = json::parse(c.text);
    CHECK(json::dump(v) == c.utf8);
    CHECK(json::dump(v, {.ensure_ascii = true}) == c.ascii);
    CHECK(json::dump(json::parse(c.utf8)) == c.utf8);  // dump output reads back unchanged
    CHECK(json::dump(json::parse(c.ascii)) == c.utf8);
  }
}

TEST_CASE("parse: numbers") {
  const json::Value v = json::parse(
      "[0, -0, 42, -9223372036854775808, 9223372036854775807, 9223372036854775808, 1.0, 1e2, -0.0, 1e400, "
      "-1e400, 1e-400, 5e-324, NaN, Infinity, -Infinity, 0.141614]");
  CHECK(v[0].is_integer());
  CHECK(v[1].as_int() == 0);
  CHECK(v[2].as_int() == 42);
  CHECK(v[3].as_int() == std::numeric_limits<std::int64_t>::min());
  CHECK(v[4].as_int() == std::numeric_limits<std::int64_t>::max());
  CHECK(v[5].is_double());  // beyond int64: a double (Python would keep an int)
  CHECK(v[5].as_double() == 9223372036854775808.0);
  CHECK(v[6].is_double());
  CHECK(v[7].is_double());
  CHECK(v[7].as_double() == 100.0);
  CHECK(std::signbit(v[8].as_double()));
  CHECK(v[9].as_double() == std::numeric_limits<double>::infinity());
  CHECK(v[10].as_double() == -std::numeric_limits<double>::infinity());
  CHECK(v[11].as_double() == 0.0);
  CHECK(v[12].as_double() == 5e-324);
  CHECK(std::isnan(v[13].as_double()));
  CHECK(v[14].as_double() == std::numeric_limits<double>::infinity());
  CHECK(v[15].as_double() == -std::numeric_limits<double>::infinity());
  CHECK(v[16].as_double() == 0.141614);
  CHECK(std::signbit(json::parse("-1e-400").as_double()));
  CHECK(json::parse("0.00000000000000000000000000000000000001e-300").as_double() == 0.0);
  CHECK(json::parse("10000000000000000000000000000000000000e300").as_double() ==
        std::numeric_limits<double>::infinity());
  CHECK(json::parse("123456789012345678901234567890e-400").as_double() == 0.0);
}

TEST_CASE("parse: strings") {
  CHECK(json::parse(R"("\u00e9")").as_string() == "\xc3\xa9");
  CHECK(json::parse(R"("\u20AC")").as_string() == "\xe2\x82\xac");
  CHECK(json::parse(R"("\ud83d\ude00")").as_string() == "\xf0\x9f\x98\x80");
  CHECK(json::parse(R"("\uDBFF\uDFFF")").as_string() == "\xf4\x8f\xbf\xbf");
  CHECK(json::parse(R"("a\u0000b")").as_string() == "a\0b"sv);
  CHECK(json::parse("\"\xf0\x9f\x98\x80 \xc3\xa9\"").as_string() == "\xf0\x9f\x98\x80 \xc3\xa9");
  CHECK(json::parse(R"("\"\\\/\b\f\n\r\t")").as_string() == "\"\\/\b\f\n\r\t");
  CHECK(json::parse("\"\x7f\"").as_string() == "\x7f");
}

TEST_CASE("parse: whitespace, BOM, duplicate keys") {
  CHECK(json::parse(" \t\r\n [ 1 , 2 ] \n").size() == 2);
  CHECK(json::parse("\xEF\xBB\xBF{}").is_object());
  CHECK(json::dump(json::parse(R"({"a": 1, "b": 2, "a": 3})")) == R"({"a": 3, "b": 2})");
  // A large object takes the sorting path of the duplicate merge.
  std::string text = "{";
  for (int i = 0; i < 40; ++i) text += "\"k" + std::to_string(i % 25) + "\": " + std::to_string(i) + ", ";
  text += "\"end\": true}";
  const json::Value big = json::parse(text);
  CHECK(big.size() == 26);
  CHECK(big.as_object()[0].first == "k0");
  CHECK(big["k0"].as_int() == 25);
  CHECK(big["k14"].as_int() == 39);
  CHECK(big["k15"].as_int() == 15);
  CHECK(big.as_object()[24].first == "k24");
  CHECK(big.as_object()[25].first == "end");
}

TEST_CASE("parse: every error names line, column and what was expected") {
  struct ErrorCase {
    std::string_view text;
    std::string_view message;  // expected InputError::message()
    std::size_t line = 1;
  };
  const ErrorCase cases[] = {
      {"", "column 1: expected a JSON value, got end of input"},
      {"   ", "column 4: expected a JSON value, got end of input"},
      {"\"abc", "column 1: unterminated string (no closing '\"')"},
      {"[\"ab\\\"]", "column 2: unterminated string (no closing '\"')"},
      {"\"a\\x\"", "column 4: expected one of \" \\ / b f n r t u after '\\', got 'x'"},
      {"\"a\\", "column 4: expected an escape character after '\\', got end of input"},
      {"\"\\ud800\"", "column 2: lone high surrogate \\ud800 (expected a \\uDC00-\\uDFFF escape after it)"},
      {"\"\\ud800\\u0041\"", "column 2: lone high surrogate \\ud800 (expected a \\uDC00-\\uDFFF escape after it)"},
      {"\"\\udc00\"", "column 2: lone low surrogate \\udc00 (expected a high surrogate before it)"},
      {"\"\\u12G4\"", "column 6: expected 4 hex digits after \\u, got 'G'"},
      {"\"\\u12", "column 6: expected 4 hex digits after \\u, got end of input"},
      {"\"a\tb\"",
       "column 3: expected a character or an escape in the string (control characters must be escaped), got byte "
       "0x09"},
      {"\"\xff\"", "column 2: expected valid UTF-8 in the string, got byte 0xff"},
      {"\"\xed\xa0\x80\"", "column 2: expected valid UTF-8 in the string, got byte 0xed"},  // encoded surrogate
      {"\"\xc0\xaf\"", "column 2: expected valid UTF-8 in the string, got byte 0xc0"},      // overlong
      {"\"\xe2\x82\"", "column 2: expected valid UTF-8 in the string, got byte 0xe2"},      // truncated
      {"\xc3\xa9", "column 1: expected a JSON value, got byte 0xc3"},
      {"[1, 2,]", "column 6: trailing comma before ']'"},
      {"{\"a\": 1,}", "column 8: trailing comma before '}'"},
      {"{\"a\": 1, }", "column 8: trailing comma before '}'"},
      {"[1,\n  ]", "column 3: trailing comma before ']'"},  // reported at the comma, not the bracket
      {"{\"a\": 1,\n\n}", "column 8: trailing comma before '}'"},
      {"\n\n  [1,\n2,\n]", "column 2: trailing comma before ']'", 4},
      {"[1] x", "column 5: expected end of input after the JSON value, got 'x'"},
      {"{} {}", "column 4: expected end of input after the JSON value, got '{'"},
      {"1 2", "column 3: expected end of input after the JSON value, got '2'"},
      {"[1 2]", "column 4: expected ',' or ']' after an array element, got '2'"},
      {"[1", "column 3: expected ',' or ']' after an array element, got end of input"},
      {"{\"a\": 1 \"b\": 2}", "column 9: expected ',' or '}' after an object member, got '\"'"},
      {"{\"a\" 1}", "column 6: expected ':' after an object key, got '1'"},
      {"{1: 2}", "column 2: expected a string key, got '1'"},
      {"{", "column 2: expected a string key, got end of input"},
      {"[,]", "column 2: expected a JSON value, got ','"},
      {"01", "column 2: expected '.', 'e' or the end of the number after a leading 0, got '1'"},
      {"-", "column 2: expected a digit in the number, got end of input"},
      {"-a", "column 2: expected a digit in the number, got 'a'"},
      {"1.", "column 3: expected a digit after the decimal point, got end of input"},
      {"1.e5", "column 3: expected a digit after the decimal point, got 'e'"},
      {"1e", "column 3: expected a digit in the exponent, got end of input"},
      {"1e+", "column 4: expected a digit in the exponent, got end of input"},
      {"+1", "column 1: expected a JSON value, got '+'"},
      {".5", "column 1: expected a JSON value, got '.'"},
      {"tru", "column 1: expected a JSON value, got 't'"},
      {"nan", "column 1: expected a JSON value, got 'n'"},
      {"inf", "column 1: expected a JSON value, got 'i'"},
      {"-inf", "column 2: expected a digit in the number, got 'i'"},
      {"'a'", "column 1: expected a JSON value, got '''"},
      {"[\"\xc3\xa9\", x]", "column 7: expected a JSON value, got 'x'"},  // columns count characters
      {"{\n  \"a\": 1,\n  \"b\": ?\n}", "column 8: expected a JSON value, got '?'", 3},
  };
  for (const ErrorCase& c : cases) {
    CAPTURE(c.text);
    const srs::InputError e = parse_error(c.text);
    CHECK(e.message() == c.message);
    CHECK(e.file() == "t.json");
    CHECK(e.column().empty());
    CHECK(e.line() == c.line);
  }
  const srs::InputError e = parse_error("[1,]", "results.json");
  CHECK(std::string(e.what()) == "results.json:1: column 3: trailing comma before ']'");
}

TEST_CASE("parse: nesting depth is limited") {
  const std::string ok = std::string(json::max_depth, '[') + std::string(json::max_depth, ']');
  CHECK(json::parse(ok).is_array());
  const std::string deep = std::string(json::max_depth + 1, '[') + std::string(json::max_depth + 1, ']');
  CHECK(parse_error(deep).message() == "column 257: nesting deeper than 256 levels, got '['");
  const std::string objects = std::string(300, ' ') + [] {
    std::string s;
    for (int i = 0; i < 300; ++i) s += "{\"a\":";
    return s;
  }();
  CHECK(contains(parse_error(objects).message(), "nesting deeper than 256 levels"));
  // Hostile input far deeper than any stack could take fails cleanly.
  CHECK(contains(parse_error(std::string(10'000'000, '[')).message(), "nesting deeper"));
}

TEST_CASE("parse_lines: one value per line, errors name the line") {
  const std::string text =
      "{\"user\": 1, \"size\": 10}\n"
      "\n"
      "{\"user\": 2, \"size\": 20}\r\n"
      "   \n"
      "{\"user\": 3, \"size\": 30}";
  const std::vector<json::Value> rows = json::parse_lines(text, "r.jsonl");
  REQUIRE(rows.size() == 3);
  CHECK(rows[1]["user"].as_int() == 2);
  CHECK(rows[2]["size"].as_int() == 30);
  CHECK(json::parse_lines("", "r.jsonl").empty());
  CHECK(json::parse_lines("\n\n", "r.jsonl").empty());
  CHECK(json::parse_lines("\xEF\xBB\xBF[1]\n[2]\n", "r.jsonl").size() == 2);

  const std::string bad =
      "{\"user\": 1, \"metrics\": {\"RMSE\": 0.1}}\n"
      "{\"user\": 2, \"metrics\": {\"RMSE\": 0.2}}\n"
      "{\"user\": 3, \"metrics\": {\"RMSE\": 0.3,}}\n"
      "{\"user\": 4, \"metrics\": {\"RMSE\": 0.4}}\n";
  try {
    json::parse_lines(bad, "FSRS-6.jsonl");
    FAIL("no error");
  } catch (const srs::InputError& e) {
    CHECK(e.file() == "FSRS-6.jsonl");
    CHECK(e.line() == 3);
    CHECK(e.message() == "column 36: trailing comma before '}'");
    CHECK(std::string(e.what()) == "FSRS-6.jsonl:3: column 36: trailing comma before '}'");
  }
  try {  // a value may not continue on the next line
    json::parse_lines("[1,\n2]\n", "split.jsonl");
    FAIL("no error");
  } catch (const srs::InputError& e) {
    CHECK(e.line() == 1);
    CHECK(e.message() == "column 4: expected a JSON value, got end of input");
  }
  try {  // first_line offsets the numbering of parse()
    json::parse("\n\n  ]", "part.json", 41);
    FAIL("no error");
  } catch (const srs::InputError& e) {
    CHECK(e.line() == 43);
    CHECK(e.message() == "column 3: expected a JSON value, got ']'");
  }
}

TEST_CASE("dump: escapes, non-finite floats, ensure_ascii") {
  CHECK(json::dump(json::Value("a\"b\\c\nd\te\x01\x1f\x7f/\xc3\xa9")) ==
        "\"a\\\"b\\\\c\\nd\\te\\u0001\\u001f\x7f/\xc3\xa9\"");
  CHECK(json::dump(json::Value("\x7f\xc3\xa9\xf0\x9f\x98\x80"), {.ensure_ascii = true}) ==
        "\"\\u007f\\u00e9\\ud83d\\ude00\"");
  CHECK_THROWS_AS(json::dump(json::Value("\xff"), {.ensure_ascii = true}), json::ValueError);
  CHECK(json::dump(json::Value("\xff")) == "\"\xff\"");  // passed through unchecked
  CHECK(json::dump(json::Array{std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                               -std::numeric_limits<double>::infinity(), -0.0, 1e16, 1e-5, 100.0}) ==
        "[NaN, Infinity, -Infinity, -0.0, 1e+16, 1e-05, 100.0]");
  CHECK(json::dump(json::Array{std::numeric_limits<std::int64_t>::min(), true, false, nullptr, json::Array{},
                               json::Object{}}) == "[-9223372036854775808, true, false, null, [], {}]");
}

TEST_CASE("parse_lines: large input") {
  // 20,000 result lines; dump and parse must round-trip exactly.
  std::string text;
  for (int u = 1; u <= 20000; ++u) {
    json::Value row;
    row["metrics"]["RMSE"] = 1.0 / u;
    row["metrics"]["AUC"] = u % 7 == 0 ? std::optional<double>{} : std::optional<double>{0.5 + 1.0 / (u + 2)};
    row["user"] = u;
    row["size"] = u * 3;
    row["parameters"]["0"] = json::Array{0.4318, 3.6098, 1e-5 * u};
    json::dump_to(text, row);
    text += '\n';
  }
  const std::vector<json::Value> rows = json::parse_lines(text, "big.jsonl");
  REQUIRE(rows.size() == 20000);
  std::string again;
  for (const json::Value& row : rows) {
    json::dump_to(again, row);
    again += '\n';
  }
  CHECK(again == text);
  CHECK(rows[999]["metrics"]["RMSE"].as_double() == 1.0 / 1000);
}

#ifdef SRS_HAVE_REAL_DATA  // the shared data folder exists (tests/CMakeLists.txt)
TEST_CASE("parse: the reference results.json") {
  const std::filesystem::path path = std::filesystem::path(SRS_REAL_DATA_DIR) / "reference" / "results.json";
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const json::Value doc = json::parse(text, path.string());
  REQUIRE(doc.is_object());
  CHECK(doc.size() == 26);
  const json::Value& run = doc["FSRS-6"]["IllDepence_kanjiplot"];
  CHECK(run["LogLoss"].as_double() == 0.141614);
  CHECK(run["RMSE"].as_double() == 0.177478);
  CHECK(run["size"].is_integer());
  CHECK(run["size"].as_int() == 3055);
  const json::Value& w = run["parameters"]["0"];
  REQUIRE(w.size() == 21);
  CHECK(w[3].is_double());
  CHECK(w[3].as_double() == 100.0);
  CHECK(w[0].as_double() == 0.4318);
  for (const json::Member& model : doc.as_object()) {
    CAPTURE(model.first);
    CHECK(model.second.size() == 7);
  }
  CHECK(json::parse(json::dump(doc)) == doc);
}
#endif
