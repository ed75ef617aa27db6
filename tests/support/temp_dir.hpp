// SPDX-License-Identifier: MIT
// Test helpers shared by the tests that run programs or write files: a scratch
// folder removed at the end, /bin/sh quoting and whole-file reading.
#pragma once

#include <filesystem>  // std::filesystem
#include <fstream>     // std::ifstream
#include <iterator>    // std::istreambuf_iterator
#include <random>      // std::random_device
#include <string>      // std::string, std::to_string

namespace srs::test {

/// A fresh folder under the system temp directory, removed at the end.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::random_device rd;
    do {
      path = std::filesystem::temp_directory_path() / ("srs_test_" + std::to_string(rd()) + std::to_string(rd()));
    } while (!std::filesystem::create_directory(path));
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

/// `s` quoted for /bin/sh.
inline std::string sh_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// The whole file, bytes as they are (empty if it cannot be read).
inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace srs::test
