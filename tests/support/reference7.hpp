// SPDX-License-Identifier: MIT
// Test helpers for the newest reference's outputs in ../shared/data/real/reference7
// (its README): the raw per-user evaluation tables raw/raw_<entry>_<dataset>.csv.gz
// (read through `gzip -dc`, quoted fields such as "1,3,3" allowed) and results.json.
// Used only by tests compiled with SRS_HAVE_REFERENCE7 (tests/CMakeLists.txt).
#pragma once

#include <array>       // std::array
#include <cstddef>     // std::size_t
#include <cstdio>      // popen, pclose, fgets
#include <filesystem>  // std::filesystem::path
#include <stdexcept>   // std::runtime_error
#include <string>      // std::string, std::stod, std::stoll
#include <vector>      // std::vector

namespace srs::test {

/// The reference7 folder.
inline std::filesystem::path reference7_dir() { return std::filesystem::path(SRS_REAL_DATA_DIR) / "reference7"; }

/// The seven shared collections reference7 ran on (beside user 1 of anki-revlogs-10k).
inline constexpr std::array<const char*, 7> reference7_collections{
    "ASproson_anki",       "IllDepence_kanjiplot",        "hbnordin2_anki_cards",
    "maxproft_Anki",       "noawe-boi_NoahsObsidianSync", "superdrdood_kanji",
    "yourchocobro_Anki-Collection-Dump"};

/// One raw table: the header and the rows, as strings.
struct RawTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;

  /// The index of a column (throws when absent).
  std::size_t column(const std::string& name) const {
    for (std::size_t k = 0; k < header.size(); ++k)
      if (header[k] == name) return k;
    throw std::runtime_error("no column " + name);
  }
  bool has(const std::string& name) const {
    for (const std::string& h : header)
      if (h == name) return true;
    return false;
  }
  /// A column as doubles (Python's float repr, or True/False as 1/0).
  std::vector<double> doubles(const std::string& name) const {
    const std::size_t c = column(name);
    std::vector<double> out;
    out.reserve(rows.size());
    for (const auto& r : rows) out.push_back(r[c] == "True" ? 1.0 : r[c] == "False" ? 0.0 : std::stod(r[c]));
    return out;
  }
  /// A column as integers.
  std::vector<long long> integers(const std::string& name) const {
    const std::size_t c = column(name);
    std::vector<long long> out;
    out.reserve(rows.size());
    for (const auto& r : rows) out.push_back(std::stoll(r[c]));
    return out;
  }
};

/// The fields of one CSV line (double quotes enclose fields with commas).
inline std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      out.emplace_back();
    } else if (c != '\n' && c != '\r') {
      out.back() += c;
    }
  }
  return out;
}

/// reference7/raw/raw_<entry>_<dataset>.csv.gz (throws when it cannot be read).
inline RawTable read_reference7_raw(const std::string& entry, const std::string& dataset) {
  const std::filesystem::path file = reference7_dir() / "raw" / ("raw_" + entry + "_" + dataset + ".csv.gz");
  const std::string cmd = "gzip -dc \"" + file.string() + "\"";
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) throw std::runtime_error("cannot run " + cmd);
  RawTable t;
  std::string line;
  char buf[65536];
  while (std::fgets(buf, sizeof buf, pipe)) {
    line += buf;
    if (line.empty() || line.back() != '\n') continue;  // a line longer than the buffer
    std::vector<std::string> fields = split_csv_line(line);
    line.clear();
    if (t.header.empty()) {
      t.header = std::move(fields);
    } else {
      if (fields.size() != t.header.size()) throw std::runtime_error(file.string() + ": a row of another width");
      t.rows.push_back(std::move(fields));
    }
  }
  if (pclose(pipe) != 0 || t.header.empty()) throw std::runtime_error("cannot read " + file.string());
  return t;
}

}  // namespace srs::test
