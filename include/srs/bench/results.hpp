// SPDX-License-Identifier: MIT
/// @file srs/bench/results.hpp
/// srs-bench's result files: appending lines, --resume, and the shard files of
/// --shard, --merge and srs-bench-mpi.
#pragma once

#include <srs/bench/options.hpp>  // bench::Options, bench::detail::program_name
#include <srs/core/error.hpp>     // srs::Error, srs::InputError, srs::UsageError
#include <srs/detail/json.hpp>    // srs::detail::json::parse
#include <srs/eval/report.hpp>    // eval::UserResult

#include <algorithm>      // std::sort, std::stable_sort, std::min
#include <cerrno>         // errno, EINTR
#include <cstdint>        // std::uintmax_t
#include <cstdio>         // std::fprintf
#include <fcntl.h>        // open, O_APPEND
#include <fstream>        // std::ifstream, std::ofstream
#include <map>            // std::map
#include <mutex>          // std::mutex
#include <optional>       // std::optional
#include <set>            // std::set
#include <string>         // std::string
#include <string_view>    // std::string_view
#include <system_error>   // std::generic_category
#include <unistd.h>       // write, close
#include <unordered_map>  // std::unordered_map
#include <unordered_set>  // std::unordered_set
#include <utility>        // std::pair
#include <vector>         // std::vector

namespace srs::bench {

/// Append-only result file. Each line, with its "\n", goes to the file in one
/// write() on a descriptor opened with O_APPEND, and nothing is buffered in the
/// process: a run killed at any moment leaves whole lines, except at worst one
/// cut-off last line, which --resume drops. (No fsync: the lines outlive the
/// process, not a power failure of the machine.)
class LineSink {
 public:
  /// Opens `path` for appending; `truncate` empties it first (a new run).
  LineSink(const fs::path& path, bool truncate);
  LineSink(const LineSink&) = delete;
  LineSink& operator=(const LineSink&) = delete;
  ~LineSink();
  void write(const std::string& line);
  void close();
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
  int fd_ = -1;
  std::mutex mutex_;
};

/// What --resume finds in one existing result (or raw) file.
struct ResumeFile {
  std::uintmax_t keep = 0;                ///< bytes of whole lines
  bool cut = false;                       ///< an incomplete last line follows them (dropped)
  std::unordered_set<std::string> users;  ///< users with a line
  std::vector<eval::UserResult> results;  ///< result files: each user's size and metrics (for the table)
};

/// One shard file: DIR/<name>.shard-I-of-N.jsonl.
struct ShardFile {
  fs::path path;
  std::string name;
  std::size_t index = 0, count = 0;
};

/// The file name suffix of shard `index` of `count` (".shard-2-of-4"), empty without sharding.
inline std::string shard_suffix(std::size_t index, std::size_t count) {
  return count ? ".shard-" + std::to_string(index) + "-of-" + std::to_string(count) : std::string();
}

/// Refuse to replace a non-empty result file unless --overwrite was given.
inline void check_writable(const fs::path& path, bool overwrite) {
  if (!overwrite && fs::exists(path) && fs::file_size(path) > 0) {
    throw UsageError(path.string() + " already exists; pass --overwrite to replace it");
  }
}

inline LineSink::LineSink(const fs::path& path, bool truncate) : path_(path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (truncate ? O_TRUNC : 0), 0644);
  if (fd_ < 0) throw UsageError("cannot write " + path.string() + ": " + std::generic_category().message(errno));
}

inline LineSink::~LineSink() {
  if (fd_ >= 0) ::close(fd_);
}

inline void LineSink::write(const std::string& line) {
  std::string l;
  l.reserve(line.size() + 1);
  l.append(line).push_back('\n');
  std::lock_guard<std::mutex> lock(mutex_);
  // One write() takes the whole line; a second one only after a short write
  // (disk full, a signal), whose cut-off line --resume would drop.
  const char* p = l.data();
  std::size_t left = l.size();
  while (left > 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw Error("write error on " + path_.string() + ": " + std::generic_category().message(errno));
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

inline void LineSink::close() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (fd_ < 0) return;
  const int rc = ::close(fd_);
  fd_ = -1;
  if (rc != 0) throw Error("error closing " + path_.string() + ": " + std::generic_category().message(errno));
}

/// Reads an existing output file for --resume. Every whole line must be a line
/// this run could have written: a JSON object whose "user" is one of `known` and
/// named by no earlier line, with "metrics" and "size" (result files) or "p" and
/// "y" (raw files). A last line without its "\n" is the cut-off line of a killed
/// run: it is not counted (the caller cuts it off). Anything else: UsageError
/// naming the file and line. A missing file holds nothing.
inline ResumeFile scan_for_resume(const fs::path& path, bool raw, const std::unordered_set<std::string>& known) {
  ResumeFile f;
  std::error_code ec;
  if (!fs::exists(path, ec)) return f;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("--resume: cannot read " + path.string());
  std::unordered_map<std::string, std::size_t> line_of;
  std::size_t line_no = 0;
  auto refuse = [&](const std::string& why) {
    throw UsageError("--resume: " + path.string() + ":" + std::to_string(line_no) + ": " + why +
                     "; the file is not from an interrupted run of this command (remove it, choose another --out, "
                     "or pass --overwrite instead of --resume)");
  };
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (in.eof()) {  // no "\n" after it: cut off when the run was killed
      f.cut = true;
      break;
    }
    f.keep += line.size() + 1;
    if (line.empty()) continue;
    srs::detail::json::Value v;
    try {
      v = srs::detail::json::parse(line, path.string());
    } catch (const InputError& e) {
      refuse("not a JSON line (" + e.message() + ")");
    }
    if (!v.is_object() || !v.contains("user")) refuse("not a JSON object with a \"user\"");
    const srs::detail::json::Value& u = v.at("user");
    if (!u.is_integer() && !u.is_string()) refuse("\"user\" is neither an integer nor a string");
    const std::string user = u.is_integer() ? std::to_string(u.as_int()) : u.as_string();
    if (!known.count(user)) refuse("user " + user + " is not one of this run's users");
    if (const auto it = line_of.find(user); it != line_of.end())
      refuse("user " + user + " already has a line (line " + std::to_string(it->second) + ")");
    line_of.emplace(user, line_no);
    if (raw) {
      if (!v.contains("p") || !v.contains("y") || !v.at("p").is_array() || !v.at("y").is_array())
        refuse("not a raw line (no \"p\" and \"y\" arrays)");
    } else {
      if (!v.contains("metrics") || !v.contains("size") || !v.at("metrics").is_object() || !v.at("size").is_integer())
        refuse("not a result line (no \"metrics\" and \"size\")");
      eval::UserResult r;
      r.user = user;
      r.size = static_cast<std::size_t>(v.at("size").as_int());
      for (const auto& [name, x] : v.at("metrics").as_object()) {
        if (!x.is_null() && !x.is_number()) refuse("metric " + name + " is not a number");
        r.metrics.emplace_back(name, x.is_null() ? std::nullopt : std::optional<double>(x.as_double()));
      }
      // The fallbacks, for the closing table's marks.
      if (const srs::detail::json::Value* fb = v.find("fallbacks"); fb && !fb->is_null()) {
        try {
          const eval::Fallbacks counts = eval::fallbacks_from_json(*fb);
          r.fallbacks = counts.defaults;
          r.user_fallbacks = counts.user_level;
          r.numerical_fallbacks = counts.numerical;
        } catch (const srs::detail::json::ValueError& e) {
          refuse(std::string("\"fallbacks\": ") + e.what());
        }
      }
      f.results.push_back(std::move(r));
    }
    f.users.insert(user);
  }
  if (in.bad()) throw UsageError("--resume: error while reading " + path.string());
  return f;
}

/// Rewrite a JSONL file sorted by its "user" field (numbers first, then strings).
inline void sort_by_user(const fs::path& path) {
  std::ifstream in(path);
  std::vector<std::pair<std::string, std::string>> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto v = srs::detail::json::parse(line, path.string());
    const auto& u = v.at("user");
    std::string key = u.is_string()
                          ? "1" + u.as_string()
                          : "0" + std::string(20 - std::min<std::size_t>(20, std::to_string(u.as_int()).size()), '0') +
                                std::to_string(u.as_int());
    lines.emplace_back(std::move(key), line);
  }
  std::stable_sort(lines.begin(), lines.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  const fs::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    for (const auto& [k, l] : lines) out << l << '\n';
    if (!out) throw Error("write error on " + tmp.string());
  }
  fs::rename(tmp, path);
}

namespace detail {

/// A file name NAME.shard-I-of-N.jsonl read back (NAME not empty, I and N digits), or nothing.
inline std::optional<ShardFile> parse_shard_name(const std::string& file) {
  const std::string_view ext = ".jsonl", mark = ".shard-", of = "-of-";
  std::string_view s = file;
  if (s.size() <= ext.size() || s.substr(s.size() - ext.size()) != ext) return std::nullopt;
  s.remove_suffix(ext.size());
  const std::size_t at = s.rfind(mark);
  if (at == std::string_view::npos || at == 0) return std::nullopt;
  const std::string_view numbers = s.substr(at + mark.size());
  const std::size_t sep = numbers.find(of);
  if (sep == std::string_view::npos) return std::nullopt;
  const std::string_view index = numbers.substr(0, sep), count = numbers.substr(sep + of.size());
  auto digits = [](std::string_view d) {
    return !d.empty() && d.find_first_not_of("0123456789") == std::string_view::npos;
  };
  if (!digits(index) || !digits(count)) return std::nullopt;
  ShardFile f;
  f.name = std::string(s.substr(0, at));
  f.index = std::stoul(std::string(index));
  f.count = std::stoul(std::string(count));
  return f;
}

}  // namespace detail

/// The shard files in `dir` (not recursive), in name order.
inline std::vector<ShardFile> find_shard_files(const fs::path& dir) {
  std::vector<ShardFile> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    std::optional<ShardFile> f = detail::parse_shard_name(e.path().filename().string());
    if (!f) continue;
    f->path = e.path();
    out.push_back(std::move(*f));
  }
  std::sort(out.begin(), out.end(), [](const ShardFile& a, const ShardFile& b) { return a.path < b.path; });
  return out;
}

/// Merges the shard files of `dir` into DIR/<name>.jsonl per result name,
/// sorted by user as a single run writes them, then removes them. `mpi`
/// (srs-bench-mpi's final step): shard files of any counts are taken, and an
/// existing <name>.jsonl and a cut-off last line (a killed earlier run whose
/// user was evaluated again) are accepted; otherwise (--merge) every shard
/// 1..N of one N must be there, complete, and <name>.jsonl must not exist
/// unless `overwrite`. A user in two lines is an error either way.
/// @returns the merged result names
inline std::vector<std::string> merge_shards(const fs::path& dir, bool mpi, bool overwrite) {
  std::map<std::string, std::vector<ShardFile>> by_name;
  for (ShardFile& f : find_shard_files(dir)) by_name[f.name].push_back(std::move(f));
  std::vector<std::string> merged;
  for (auto& [name, files] : by_name) {
    const fs::path target = dir / (name + ".jsonl");
    if (!mpi) {
      std::set<std::size_t> indices;
      for (const ShardFile& f : files) {
        if (f.count != files[0].count)
          throw UsageError("--merge: " + dir.string() + " holds shards of " + name + " from runs with " +
                           std::to_string(files[0].count) + " and " + std::to_string(f.count) + " shards");
        indices.insert(f.index);
      }
      for (std::size_t i = 1; i <= files[0].count; ++i)
        if (!indices.count(i))
          throw UsageError("--merge: shard " + std::to_string(i) + " of " + std::to_string(files[0].count) + " of " +
                           name + " is missing in " + dir.string());
      check_writable(target, overwrite);
    }
    std::vector<fs::path> sources;
    if (mpi && fs::exists(target)) sources.push_back(target);
    for (const ShardFile& f : files) sources.push_back(f.path);
    std::map<std::string, fs::path> seen;  // user -> file of its line
    const fs::path tmp = target.string() + ".merge";
    {
      std::ofstream out(tmp, std::ios::trunc | std::ios::binary);
      if (!out) throw Error("cannot write " + tmp.string());
      for (const fs::path& src : sources) {
        std::ifstream in(src, std::ios::binary);
        if (!in) throw Error("cannot read " + src.string());
        std::size_t line_no = 0;
        for (std::string line; std::getline(in, line);) {
          ++line_no;
          if (in.eof()) {  // no "\n": a cut-off line
            if (mpi) break;
            throw UsageError("--merge: " + src.string() + ":" + std::to_string(line_no) +
                             ": incomplete last line: that shard did not finish (run it again with --resume)");
          }
          if (line.empty()) continue;
          const auto v = srs::detail::json::parse(line, src.string());
          const auto& u = v.at("user");
          const std::string user = u.is_string() ? u.as_string() : std::to_string(u.as_int());
          if (const auto it = seen.find(user); it != seen.end())
            throw UsageError("merging " + name + ": user " + user + " is in both " + it->second.string() + " and " +
                             src.string());
          seen.emplace(user, src);
          out << line << '\n';
        }
      }
      if (!out) throw Error("write error on " + tmp.string());
    }
    sort_by_user(tmp);
    fs::rename(tmp, target);
    for (const ShardFile& f : files) fs::remove(f.path);
    merged.push_back(name);
  }
  return merged;
}

/// srs-bench --merge: the shard files of DIR and DIR/raw.
inline int run_merge(const Options& o) {
  try {
    const std::vector<std::string> names = merge_shards(o.out, false, o.overwrite);
    const std::vector<std::string> raw = merge_shards(o.out / "raw", false, o.overwrite);
    if (names.empty() && raw.empty())
      throw UsageError("--merge: no shard files (*.shard-I-of-N.jsonl) in " + o.out.string());
    if (!o.quiet) {
      for (const std::string& n : names) std::fprintf(stderr, "merged %s\n", (o.out / (n + ".jsonl")).c_str());
      for (const std::string& n : raw) std::fprintf(stderr, "merged %s\n", (o.out / "raw" / (n + ".jsonl")).c_str());
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", detail::program_name().c_str(), e.what());
    return 2;
  }
}

}  // namespace srs::bench
