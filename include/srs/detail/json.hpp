// SPDX-License-Identifier: MIT
/// @file srs/detail/json.hpp
/// A small JSON value type with a strict parser and a writer that matches
/// Python's json.dumps byte for byte, for the benchmark's result files
/// (docs/protocol.md §8: JSON Lines, one object per user).
///
/// Reading: RFC 8259 JSON plus the three non-standard literals Python writes
/// for non-finite floats (NaN, Infinity, -Infinity). Numbers without a fraction
/// or exponent that fit in int64 become integers, all others doubles (a number
/// too large for a double reads as +-Infinity and one too small as 0, as in
/// Python). Strings must be valid UTF-8; \uXXXX escapes, including surrogate
/// pairs, are decoded to UTF-8. For a repeated object key the last value wins
/// at the key's first position, as in a Python dict. Errors throw
/// srs::InputError naming the source, the line, and in the message the column
/// and what was expected.
///
/// Writing: json.dumps(obj) with its default separators ", " and ": ", no
/// indentation, floats as repr(float) (see number.hpp), NaN/Infinity/-Infinity
/// for non-finite floats, and strings escaped as Python does: \" \\ \n \r \t
/// \b \f, other control characters as \u00XX (lowercase hex). Non-ASCII text
/// is written as UTF-8 (ensure_ascii=False) unless DumpOptions::ensure_ascii
/// asks for Python's default \uXXXX escapes (DEL and everything above ASCII,
/// astral characters as surrogate pairs).
#pragma once

#include <algorithm>     // std::stable_sort
#include <charconv>      // std::from_chars, std::to_chars
#include <cstddef>       // std::size_t, std::nullptr_t
#include <cstdint>       // std::int64_t, std::uint32_t
#include <cstring>       // std::memcmp
#include <concepts>      // std::integral, std::same_as
#include <limits>        // std::numeric_limits
#include <optional>      // std::optional
#include <string>        // std::string, std::to_string
#include <string_view>   // std::string_view
#include <system_error>  // std::errc
#include <type_traits>   // std::is_signed_v, std::is_nothrow_move_constructible_v
#include <utility>       // std::pair, std::move
#include <variant>       // std::variant, std::get, std::get_if
#include <vector>        // std::vector

#include <srs/core/error.hpp>     // srs::Error, srs::InputError
#include <srs/detail/charconv.hpp>  // srs::detail::parse_double
#include <srs/detail/number.hpp>  // srs::detail::append_repr

namespace srs::detail::json {

class Value;

/// A JSON array.
using Array = std::vector<Value>;
/// One member of a JSON object: key and value.
using Member = std::pair<std::string, Value>;
/// A JSON object: members in insertion order (lookup is a linear scan, which
/// suits the small objects of result files).
using Object = std::vector<Member>;

/// The kind of a Value. `integer` and `number` are both JSON numbers: integer
/// holds an int64, number a double.
enum class Kind : unsigned char { null, boolean, integer, number, string, array, object };

/// "null", "bool", "integer", "number", "string", "array" or "object".
inline constexpr std::string_view kind_name(Kind kind) noexcept {
  constexpr std::string_view names[] = {"null", "bool", "integer", "number", "string", "array", "object"};
  return names[static_cast<unsigned>(kind)];
}

/// Misuse of a Value: an accessor called on the wrong kind, a missing key, an
/// index out of range, an integer outside int64.
class ValueError : public srs::Error {
 public:
  using srs::Error::Error;
};

/// Deepest array/object nesting parse() accepts, so hostile input cannot
/// overflow the stack.
inline constexpr std::size_t max_depth = 256;

/// A JSON value: null, bool, integer (int64), number (double), string (UTF-8),
/// array or object. Default-constructed values are null. The constructors are
/// implicit so that results read naturally:
///
///   Value row = Object{{"metrics", Object{{"RMSE", 0.177478}, {"AUC", nullptr}}},
///                      {"user", 1}, {"parameters", Object{{"0", Array{0.4318, 3.6098}}}}};
class Value {
 public:
  /// null
  Value() noexcept = default;
  /// null
  Value(std::nullptr_t) noexcept {}
  /// true or false
  Value(bool b) noexcept : data_(b) {}
  /// An integer, from any integer type except bool (char included: Value('a')
  /// is 97). Unsigned values above INT64_MAX throw ValueError.
  template <std::integral I>
  requires(!std::same_as<I, bool>) Value(I i) : data_(to_int64(i)) {}
  /// A number (a float converts to the double it represents).
  Value(double d) noexcept : data_(d) {}
  /// The number, or null when empty (how the reference writes a missing AUC).
  Value(std::optional<double> d) noexcept {
    if (d) data_ = *d;
  }
  /// A string; its bytes should be UTF-8 (parse() guarantees it, dump() passes them on).
  Value(std::string s) noexcept : data_(std::move(s)) {}
  /// A string (copied).
  Value(std::string_view s) : data_(std::string(s)) {}
  /// A string (copied from a NUL-terminated text).
  Value(const char* s) : data_(std::string(s)) {}
  /// An array.
  Value(Array a) noexcept : data_(std::move(a)) {}
  /// An object; keep keys unique (parse() merges repeated keys, this does not).
  Value(Object o) noexcept : data_(std::move(o)) {}

  /// The kind of value held.
  Kind kind() const noexcept { return static_cast<Kind>(data_.index()); }
  /// Kind tests; they never throw.
  bool is_null() const noexcept { return kind() == Kind::null; }
  bool is_bool() const noexcept { return kind() == Kind::boolean; }
  /// An integral JSON number that fits int64 (written without '.' or exponent).
  bool is_integer() const noexcept { return kind() == Kind::integer; }
  /// A JSON number held as a double.
  bool is_double() const noexcept { return kind() == Kind::number; }
  /// Any JSON number, integer or double.
  bool is_number() const noexcept { return is_integer() || is_double(); }
  bool is_string() const noexcept { return kind() == Kind::string; }
  bool is_array() const noexcept { return kind() == Kind::array; }
  bool is_object() const noexcept { return kind() == Kind::object; }

  /// Typed access. Each throws ValueError naming both kinds on a mismatch,
  /// e.g. "json: expected integer, got number".
  bool as_bool() const { return get<bool>(Kind::boolean); }
  /// The integer; throws ValueError for any other kind (doubles included).
  std::int64_t as_int() const { return get<std::int64_t>(Kind::integer); }
  /// The number as a double; accepts integers too.
  double as_double() const {
    if (const auto* i = std::get_if<std::int64_t>(&data_)) return static_cast<double>(*i);
    return get<double>(Kind::number);
  }
  const std::string& as_string() const { return get<std::string>(Kind::string); }
  std::string& as_string() { return get<std::string>(Kind::string); }
  const Array& as_array() const { return get<Array>(Kind::array); }
  Array& as_array() { return get<Array>(Kind::array); }
  /// The members in order, e.g. `for (const auto& [key, value] : v.as_object())`.
  const Object& as_object() const { return get<Object>(Kind::object); }
  Object& as_object() { return get<Object>(Kind::object); }

  /// Number of elements of an array or members of an object.
  std::size_t size() const {
    if (const auto* a = std::get_if<Array>(&data_)) return a->size();
    if (const auto* o = std::get_if<Object>(&data_)) return o->size();
    throw ValueError("json: size() of a " + std::string(kind_name(kind())) + ", expected array or object");
  }

  /// The member named key, or nullptr. Throws ValueError if this is not an object.
  const Value* find(std::string_view key) const {
    for (const auto& [k, v] : as_object())
      if (k == key) return &v;
    return nullptr;
  }
  Value* find(std::string_view key) {
    for (auto& [k, v] : as_object())
      if (k == key) return &v;
    return nullptr;
  }
  /// Whether this object has a member named key. Throws ValueError if not an object.
  bool contains(std::string_view key) const { return find(key) != nullptr; }

  /// The member named key; throws ValueError if absent or not an object.
  const Value& at(std::string_view key) const {
    if (const Value* v = find(key)) return *v;
    throw ValueError("json: no member \"" + std::string(key) + "\" in object");
  }
  Value& at(std::string_view key) { return const_cast<Value&>(static_cast<const Value&>(*this).at(key)); }
  /// Element i of an array; throws ValueError if out of range or not an array.
  const Value& at(std::size_t i) const {
    const Array& a = as_array();
    if (i >= a.size())
      throw ValueError("json: index " + std::to_string(i) + " out of range for array of size " +
                       std::to_string(a.size()));
    return a[i];
  }
  Value& at(std::size_t i) { return const_cast<Value&>(static_cast<const Value&>(*this).at(i)); }

  /// Same as at(key).
  const Value& operator[](std::string_view key) const { return at(key); }
  /// The member named key, appended as null if absent; a null value first
  /// becomes an empty object (so `v["metrics"]["RMSE"] = 0.1` builds objects).
  /// Like any vector element, the reference is invalidated by later insertions.
  Value& operator[](std::string_view key) {
    if (is_null()) data_ = Object{};
    if (Value* v = find(key)) return *v;
    Object& o = std::get<Object>(data_);
    o.emplace_back(std::string(key), Value{});
    return o.back().second;
  }
  /// Same as at(i) (bounds-checked, never grows the array).
  const Value& operator[](std::size_t i) const { return at(i); }
  Value& operator[](std::size_t i) { return at(i); }

  /// Appends to an array; a null value first becomes an empty array.
  void push_back(Value v) {
    if (is_null()) data_ = Array{};
    get<Array>(Kind::array).push_back(std::move(v));
  }

  /// Iteration over the elements of an array (throws ValueError otherwise).
  Array::const_iterator begin() const { return as_array().begin(); }
  Array::const_iterator end() const { return as_array().end(); }
  Array::iterator begin() { return as_array().begin(); }
  Array::iterator end() { return as_array().end(); }

  /// Deep equality with Python's rules: an integer equals a double of the same
  /// value, NaN equals nothing, objects compare regardless of member order.
  friend bool operator==(const Value& a, const Value& b) {
    if (a.is_number() && b.is_number()) {
      if (a.is_integer() && b.is_integer()) return a.as_int() == b.as_int();
      return a.as_double() == b.as_double();
    }
    if (a.kind() != b.kind()) return false;
    if (a.is_object()) {
      const Object& x = a.as_object();
      if (x.size() != b.size()) return false;
      for (const auto& [k, v] : x) {
        const Value* w = b.find(k);
        if (w == nullptr || !(v == *w)) return false;
      }
      return true;
    }
    return a.data_ == b.data_;
  }

 private:
  using Data = std::variant<std::nullptr_t, bool, std::int64_t, double, std::string, Array, Object>;

  template <class I>
  static std::int64_t to_int64(I i) {
    if constexpr (!std::is_signed_v<I> && sizeof(I) >= sizeof(std::int64_t)) {
      if (i > static_cast<I>(std::numeric_limits<std::int64_t>::max()))
        throw ValueError("json: integer " + std::to_string(i) + " does not fit int64");
    }
    return static_cast<std::int64_t>(i);
  }

  template <class T>
  const T& get(Kind expected) const {
    if (const T* p = std::get_if<T>(&data_)) return *p;
    throw ValueError("json: expected " + std::string(kind_name(expected)) + ", got " + std::string(kind_name(kind())));
  }
  template <class T>
  T& get(Kind expected) {
    return const_cast<T&>(static_cast<const Value&>(*this).get<T>(expected));
  }

  Data data_;
};

static_assert(std::is_nothrow_move_constructible_v<Value>);

namespace detail {

inline bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }
inline bool is_space(char c) noexcept { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/// Length of the well-formed UTF-8 sequence at [p, end), or 0 if it is not
/// one (overlong forms, surrogates and code points above U+10FFFF rejected).
inline std::size_t utf8_sequence_length(const char* p, const char* end) noexcept {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(p[i]); };
  const auto cont = [&](std::size_t i, unsigned lo, unsigned hi) { return byte(i) >= lo && byte(i) <= hi; };
  const auto left = static_cast<std::size_t>(end - p);
  const unsigned c = byte(0);
  if (c < 0x80) return 1;
  if (c < 0xC2) return 0;
  if (c < 0xE0) return left >= 2 && cont(1, 0x80, 0xBF) ? 2 : 0;
  if (c < 0xF0) {
    if (left < 3) return 0;
    const unsigned lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    return cont(1, lo, hi) && cont(2, 0x80, 0xBF) ? 3 : 0;
  }
  if (c < 0xF5) {
    if (left < 4) return 0;
    const unsigned lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    return cont(1, lo, hi) && cont(2, 0x80, 0xBF) && cont(3, 0x80, 0xBF) ? 4 : 0;
  }
  return 0;
}

/// Appends code point cp (at most U+10FFFF, not a surrogate) as UTF-8.
inline void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

/// Python's dict semantics for repeated keys: the last value wins, kept at the
/// position where the key first appeared.
inline void merge_duplicate_keys(Object& members) {
  const std::size_t n = members.size();
  if (n < 2) return;
  bool any = false;
  if (n <= 16) {
    for (std::size_t i = 1; i < n && !any; ++i)
      for (std::size_t j = 0; j < i && !any; ++j) any = members[i].first == members[j].first;
    if (!any) return;
  }
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return members[a].first < members[b].first; });
  std::vector<bool> drop(n, false);
  for (std::size_t g = 0; g < n;) {
    std::size_t h = g + 1;
    while (h < n && members[order[h]].first == members[order[g]].first) ++h;
    if (h - g > 1) {  // order[g] is the first occurrence, order[h - 1] the last
      members[order[g]].second = std::move(members[order[h - 1]].second);
      for (std::size_t k = g + 1; k < h; ++k) drop[order[k]] = true;
      any = true;
    }
    g = h;
  }
  if (!any) return;
  std::size_t out = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (!drop[i]) {
      if (out != i) members[out] = std::move(members[i]);
      ++out;
    }
  members.resize(out);
}

/// Recursive-descent parser over one text buffer; see json::parse.
class Parser {
 public:
  Parser(std::string_view text, const std::string& source, std::size_t first_line)
      : p_(text.data()), end_(text.data() + text.size()), line_start_(p_), source_(source), line_(first_line) {}

  Value parse_document() {
    skip_space();
    if (p_ == end_) fail("expected a JSON value");
    Value v = parse_value();
    skip_space();
    if (p_ != end_) fail("expected end of input after the JSON value");
    return v;
  }

 private:
  /// A position in the text with its line, for errors reported behind p_.
  struct Mark {
    const char* at;
    std::size_t line;
    const char* line_start;
  };
  Mark mark() const noexcept { return {p_, line_, line_start_}; }

  /// Throws InputError at p_: "column C: <what>, got <what is at p_>".
  [[noreturn]] void fail(const std::string& what) const { fail_at(mark(), what + ", got " + describe(p_)); }

  /// Throws InputError at m: "column C: <what>", C being 1-based and counting
  /// UTF-8 characters.
  [[noreturn]] void fail_at(const Mark& m, const std::string& what) const {
    std::size_t column = 1;
    for (const char* q = m.line_start; q < m.at; ++q)
      if ((static_cast<unsigned char>(*q) & 0xC0) != 0x80) ++column;
    throw srs::InputError(source_, m.line, "", "column " + std::to_string(column) + ": " + what);
  }

  std::string describe(const char* at) const {
    if (at >= end_) return "end of input";
    const auto c = static_cast<unsigned char>(*at);
    if (c > 0x20 && c < 0x7F) return std::string("'") + static_cast<char>(c) + "'";
    constexpr char hex[] = "0123456789abcdef";
    return std::string("byte 0x") + hex[c >> 4] + hex[c & 0xF];
  }

  void skip_space() {
    while (p_ != end_ && is_space(*p_)) {
      if (*p_ == '\n') {
        ++line_;
        line_start_ = p_ + 1;
      }
      ++p_;
    }
  }

  bool consume_literal(std::string_view word) {
    if (static_cast<std::size_t>(end_ - p_) < word.size() || std::memcmp(p_, word.data(), word.size()) != 0)
      return false;
    p_ += word.size();
    return true;
  }

  Value parse_value() {
    if (p_ == end_) fail("expected a JSON value");
    switch (*p_) {
      case '{':
        return parse_object();
      case '[':
        return parse_array();
      case '"': {
        std::string s;
        parse_string(s);
        return Value(std::move(s));
      }
      case 't':
        if (consume_literal("true")) return Value(true);
        break;
      case 'f':
        if (consume_literal("false")) return Value(false);
        break;
      case 'n':
        if (consume_literal("null")) return Value(nullptr);
        break;
      case 'N':
        if (consume_literal("NaN")) return Value(std::numeric_limits<double>::quiet_NaN());
        break;
      case 'I':
        if (consume_literal("Infinity")) return Value(std::numeric_limits<double>::infinity());
        break;
      default:
        if (*p_ == '-' || is_digit(*p_)) return parse_number();
        break;
    }
    fail("expected a JSON value");
  }

  void enter() {
    if (++depth_ > max_depth) fail("nesting deeper than " + std::to_string(max_depth) + " levels");
  }

  Value parse_array() {
    enter();
    ++p_;  // '['
    Array items;
    skip_space();
    if (p_ != end_ && *p_ == ']') {
      ++p_;
      --depth_;
      return Value(std::move(items));
    }
    for (;;) {
      items.push_back(parse_value());
      skip_space();
      if (p_ != end_ && *p_ == ',') {
        const Mark comma = mark();
        ++p_;
        skip_space();
        if (p_ != end_ && *p_ == ']') fail_at(comma, "trailing comma before ']'");
        continue;
      }
      if (p_ != end_ && *p_ == ']') break;
      fail("expected ',' or ']' after an array element");
    }
    ++p_;
    --depth_;
    return Value(std::move(items));
  }

  Value parse_object() {
    enter();
    ++p_;  // '{'
    Object members;
    skip_space();
    if (p_ != end_ && *p_ == '}') {
      ++p_;
      --depth_;
      return Value(std::move(members));
    }
    for (;;) {
      if (p_ == end_ || *p_ != '"') fail("expected a string key");
      std::string key;
      parse_string(key);
      skip_space();
      if (p_ == end_ || *p_ != ':') fail("expected ':' after an object key");
      ++p_;
      skip_space();
      members.emplace_back(std::move(key), parse_value());
      skip_space();
      if (p_ != end_ && *p_ == ',') {
        const Mark comma = mark();
        ++p_;
        skip_space();
        if (p_ != end_ && *p_ == '}') fail_at(comma, "trailing comma before '}'");
        continue;
      }
      if (p_ != end_ && *p_ == '}') break;
      fail("expected ',' or '}' after an object member");
    }
    ++p_;
    --depth_;
    merge_duplicate_keys(members);
    return Value(std::move(members));
  }

  /// Reads the string starting at the opening quote at p_ into out.
  void parse_string(std::string& out) {
    const Mark open = mark();  // a string never spans lines: raw newlines are rejected
    ++p_;
    const char* run = p_;  // start of the current run of plain characters
    // Fast path: plain ASCII up to the closing quote.
    while (p_ != end_) {
      const auto c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        out.assign(run, p_);
        ++p_;
        return;
      }
      if (c == '\\' || c < 0x20 || c >= 0x80) break;
      ++p_;
    }
    out.assign(run, p_);
    for (;;) {
      run = p_;
      while (p_ != end_) {
        const auto c = static_cast<unsigned char>(*p_);
        if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) break;
        ++p_;
      }
      out.append(run, p_);
      if (p_ == end_) fail_at(open, "unterminated string (no closing '\"')");
      const auto c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        ++p_;
        return;
      }
      if (c == '\\') {
        parse_escape(out);
      } else if (c < 0x20) {
        fail("expected a character or an escape in the string (control characters must be escaped)");
      } else {
        const std::size_t n = utf8_sequence_length(p_, end_);
        if (n == 0) fail("expected valid UTF-8 in the string");
        out.append(p_, n);
        p_ += n;
      }
    }
  }

  /// Reads 4 hex digits after "\u" at p_ - 2.
  std::uint32_t parse_hex4() {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      if (p_ == end_) fail("expected 4 hex digits after \\u");
      const char c = *p_;
      unsigned d;
      if (is_digit(c))
        d = static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f')
        d = static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        d = static_cast<unsigned>(c - 'A' + 10);
      else
        fail("expected 4 hex digits after \\u");
      v = v * 16 + d;
      ++p_;
    }
    return v;
  }

  void parse_escape(std::string& out) {
    const Mark backslash = mark();
    ++p_;
    if (p_ == end_) fail("expected an escape character after '\\'");
    const char c = *p_++;
    switch (c) {
      case '"':
        out += '"';
        return;
      case '\\':
        out += '\\';
        return;
      case '/':
        out += '/';
        return;
      case 'b':
        out += '\b';
        return;
      case 'f':
        out += '\f';
        return;
      case 'n':
        out += '\n';
        return;
      case 'r':
        out += '\r';
        return;
      case 't':
        out += '\t';
        return;
      case 'u':
        break;
      default:
        --p_;
        fail("expected one of \" \\ / b f n r t u after '\\'");
    }
    std::uint32_t cp = parse_hex4();
    if (cp >= 0xDC00 && cp <= 0xDFFF)
      fail_at(backslash, "lone low surrogate \\u" + hex4(cp) + " (expected a high surrogate before it)");
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u')
        fail_at(backslash, "lone high surrogate \\u" + hex4(cp) + " (expected a \\uDC00-\\uDFFF escape after it)");
      p_ += 2;
      const std::uint32_t low = parse_hex4();
      if (low < 0xDC00 || low > 0xDFFF)
        fail_at(backslash, "lone high surrogate \\u" + hex4(cp) + " (expected a \\uDC00-\\uDFFF escape after it)");
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    }
    append_utf8(out, cp);
  }

  static std::string hex4(std::uint32_t v) {
    constexpr char hex[] = "0123456789abcdef";
    return {hex[(v >> 12) & 0xF], hex[(v >> 8) & 0xF], hex[(v >> 4) & 0xF], hex[v & 0xF]};
  }

  Value parse_number() {
    const Mark start_mark = mark();
    const char* start = p_;
    if (*p_ == '-') {
      ++p_;
      if (consume_literal("Infinity")) return Value(-std::numeric_limits<double>::infinity());
    }
    if (p_ == end_ || !is_digit(*p_)) fail("expected a digit in the number");
    if (*p_ == '0') {
      ++p_;
      if (p_ != end_ && is_digit(*p_)) fail("expected '.', 'e' or the end of the number after a leading 0");
    } else {
      while (p_ != end_ && is_digit(*p_)) ++p_;
    }
    bool integral = true;
    if (p_ != end_ && *p_ == '.') {
      integral = false;
      ++p_;
      if (p_ == end_ || !is_digit(*p_)) fail("expected a digit after the decimal point");
      while (p_ != end_ && is_digit(*p_)) ++p_;
    }
    if (p_ != end_ && (*p_ == 'e' || *p_ == 'E')) {
      integral = false;
      ++p_;
      if (p_ != end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (p_ == end_ || !is_digit(*p_)) fail("expected a digit in the exponent");
      while (p_ != end_ && is_digit(*p_)) ++p_;
    }
    if (integral) {
      std::int64_t i = 0;
      const auto res = std::from_chars(start, p_, i);
      if (res.ec == std::errc{}) return Value(i);
      // Too large for int64: read it as a double below (Python would keep a big int).
    }
    double d = 0;
    const auto res = srs::detail::parse_double(start, p_, d);
    if (res.ec == std::errc::result_out_of_range) return Value(out_of_range_value(start, p_));
    if (res.ec != std::errc{} || res.ptr != p_) fail_at(start_mark, "expected a number");
    return Value(d);
  }

  /// What Python's float() gives for a valid number text a double cannot hold:
  /// +-Infinity if its magnitude is huge, +-0.0 if it is tiny.
  static double out_of_range_value(const char* p, const char* end) {
    const bool negative = *p == '-';
    if (negative) ++p;
    // Decimal exponent of the leading significant digit, before the explicit exponent.
    long long lead = 0;
    bool found = false;
    const char* int_begin = p;
    while (p != end && is_digit(*p)) ++p;
    for (const char* q = int_begin; q != p; ++q)
      if (*q != '0') {
        lead = static_cast<long long>(p - q) - 1;
        found = true;
        break;
      }
    if (p != end && *p == '.') {
      ++p;
      const char* frac_begin = p;
      while (p != end && is_digit(*p)) {
        if (!found && *p != '0') {
          lead = -static_cast<long long>(p - frac_begin) - 1;
          found = true;
        }
        ++p;
      }
    }
    long long exponent = 0;
    if (p != end && (*p == 'e' || *p == 'E')) {
      ++p;
      const bool negative_exponent = *p == '-';
      if (*p == '+' || *p == '-') ++p;
      for (; p != end; ++p)
        if (exponent < 1'000'000'000) exponent = exponent * 10 + (*p - '0');  // saturates
      if (negative_exponent) exponent = -exponent;
    }
    const double magnitude = found && lead + exponent > 0 ? std::numeric_limits<double>::infinity() : 0.0;
    return negative ? -magnitude : magnitude;
  }

  const char* p_;
  const char* end_;
  const char* line_start_;
  const std::string& source_;
  std::size_t line_;
  std::size_t depth_ = 0;
};

inline std::string_view strip_bom(std::string_view text) noexcept {
  if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  return text;
}

}  // namespace detail

/// Parses one JSON text (strict RFC 8259 plus NaN, Infinity, -Infinity; a
/// leading UTF-8 byte-order mark is skipped). Throws srs::InputError(source,
/// line, "", "column C: expected ..., got ...") on malformed input, trailing
/// characters after the value, or nesting deeper than max_depth.
/// @param source      file name for error messages
/// @param first_line  line number of the first line of text (for texts cut from a file)
inline Value parse(std::string_view text, const std::string& source = {}, std::size_t first_line = 1) {
  return detail::Parser(detail::strip_bom(text), source, first_line).parse_document();
}

/// Parses JSON Lines: one JSON value per line, skipping lines that are empty or
/// only whitespace ("\r\n" endings are fine). Errors name the 1-based line of
/// text and the column within it.
inline std::vector<Value> parse_lines(std::string_view text, const std::string& source) {
  text = detail::strip_bom(text);
  std::vector<Value> values;
  std::size_t line = 1;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    const std::string_view current = text.substr(0, nl);
    bool blank = true;
    for (const char c : current)
      if (!detail::is_space(c)) {
        blank = false;
        break;
      }
    if (!blank) values.push_back(detail::Parser(current, source, line).parse_document());
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
    ++line;
  }
  return values;
}

/// Options of dump().
struct DumpOptions {
  /// Escape every non-ASCII character as \uXXXX (Python's json.dumps default).
  /// Off: write UTF-8 as is (ensure_ascii=False).
  bool ensure_ascii = false;
};

namespace detail {

inline void append_u_escape(std::string& out, std::uint32_t unit) {
  constexpr char hex[] = "0123456789abcdef";
  out += "\\u";
  out += hex[(unit >> 12) & 0xF];
  out += hex[(unit >> 8) & 0xF];
  out += hex[(unit >> 4) & 0xF];
  out += hex[unit & 0xF];
}

inline void dump_string(std::string& out, std::string_view s, bool ensure_ascii) {
  out += '"';
  const char* p = s.data();
  const char* const end = p + s.size();
  while (p != end) {
    const char* run = p;
    while (p != end) {
      const auto c = static_cast<unsigned char>(*p);
      if (c < 0x20 || c == '"' || c == '\\' || (ensure_ascii && c >= 0x7F)) break;
      ++p;
    }
    out.append(run, p);
    if (p == end) break;
    const auto c = static_cast<unsigned char>(*p);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (c < 0x20 || c == 0x7F) {  // DEL is escaped only with ensure_ascii
          append_u_escape(out, c);
        } else {  // non-ASCII with ensure_ascii: decode one UTF-8 sequence
          const std::size_t n = utf8_sequence_length(p, end);
          if (n == 0) throw ValueError("json: invalid UTF-8 in a string, cannot escape it as ASCII");
          std::uint32_t cp = n == 2 ? c & 0x1Fu : n == 3 ? c & 0x0Fu : c & 0x07u;
          for (std::size_t i = 1; i < n; ++i) cp = (cp << 6) | (static_cast<unsigned char>(p[i]) & 0x3Fu);
          if (cp >= 0x10000) {
            cp -= 0x10000;
            append_u_escape(out, 0xD800 + (cp >> 10));
            append_u_escape(out, 0xDC00 + (cp & 0x3FF));
          } else {
            append_u_escape(out, cp);
          }
          p += n - 1;
        }
        break;
    }
    ++p;
  }
  out += '"';
}

inline void dump_value(std::string& out, const Value& v, bool ensure_ascii) {
  switch (v.kind()) {
    case Kind::null:
      out += "null";
      break;
    case Kind::boolean:
      out += v.as_bool() ? "true" : "false";
      break;
    case Kind::integer: {
      char buf[24];
      const auto res = std::to_chars(buf, buf + sizeof buf, v.as_int());
      out.append(buf, res.ptr);
      break;
    }
    case Kind::number:
      append_repr(out, v.as_double());
      break;
    case Kind::string:
      dump_string(out, v.as_string(), ensure_ascii);
      break;
    case Kind::array: {
      out += '[';
      bool first = true;
      for (const Value& x : v.as_array()) {
        if (!first) out += ", ";
        first = false;
        dump_value(out, x, ensure_ascii);
      }
      out += ']';
      break;
    }
    case Kind::object: {
      out += '{';
      bool first = true;
      for (const auto& [key, x] : v.as_object()) {
        if (!first) out += ", ";
        first = false;
        dump_string(out, key, ensure_ascii);
        out += ": ";
        dump_value(out, x, ensure_ascii);
      }
      out += '}';
      break;
    }
  }
}

}  // namespace detail

/// Appends json.dumps(v) to out (see dump()).
inline void dump_to(std::string& out, const Value& v, DumpOptions options = {}) {
  detail::dump_value(out, v, options.ensure_ascii);
}

/// Python's json.dumps(v) byte for byte: `{"a": 1, "b": [1.5, null]}`, floats
/// as repr(float), NaN/Infinity/-Infinity, strings escaped as Python does.
/// Strings are written as UTF-8 unless options.ensure_ascii (then invalid
/// UTF-8 throws ValueError).
inline std::string dump(const Value& v, DumpOptions options = {}) {
  std::string out;
  dump_to(out, v, options);
  return out;
}

}  // namespace srs::detail::json
