// SPDX-License-Identifier: MIT
// Tests of srs/bench/results.hpp's shard file names: NAME.shard-I-of-N.jsonl
// read back, anything else not a shard file; the suffix they are written with;
// --resume reading the lines' fallbacks back.
#include <doctest/doctest.h>

#include <srs/bench/results.hpp>  // srs::bench::detail::parse_shard_name, shard_suffix, scan_for_resume
#include <srs/core/error.hpp>      // srs::UsageError

#include "../support/temp_dir.hpp"  // srs::test::TempDir

#include <filesystem>  // std::filesystem
#include <fstream>     // std::ofstream

#include <optional>  // std::optional
#include <string>    // std::string

TEST_CASE("bench::results: shard file names read back as written") {
  using srs::bench::detail::parse_shard_name;
  const std::string written = "FSRS-6-short" + srs::bench::shard_suffix(2, 16) + ".jsonl";
  CHECK(written == "FSRS-6-short.shard-2-of-16.jsonl");
  const std::optional<srs::bench::ShardFile> f = parse_shard_name(written);
  REQUIRE(f.has_value());
  CHECK(f->name == "FSRS-6-short");
  CHECK(f->index == 2);
  CHECK(f->count == 16);
  // The last ".shard-" is the suffix; a name may hold the word itself.
  const auto g = parse_shard_name("a.shard-x.shard-1-of-3.jsonl");
  REQUIRE(g.has_value());
  CHECK(g->name == "a.shard-x");
  CHECK(srs::bench::shard_suffix(0, 0).empty());
  for (const char* other : {"FSRS-6-short.jsonl", ".shard-1-of-2.jsonl", "x.shard-1-of-2.json", "x.shard-1-of-.jsonl",
                            "x.shard--of-2.jsonl", "x.shard-1-2.jsonl", "x.shard-a-of-2.jsonl", "x.shard-1-of-2x.jsonl",
                            "x.shard-1-of-2.jsonl.tmp"}) {
    CAPTURE(other);
    CHECK_FALSE(parse_shard_name(other).has_value());
  }
}

TEST_CASE("bench::results: --resume reads each line's fallbacks back, for the closing table's marks") {
  const srs::test::TempDir tmp;
  const std::filesystem::path file = tmp.path / "FSRS-6.jsonl";
  {
    std::ofstream out(file);
    out << R"({"metrics": {"LogLoss": 0.3}, "user": 1, "size": 10, "fallbacks": {"defaults": 2, "user_level": 1, "numerical": 3}})"
        << "\n"
        << R"({"metrics": {"LogLoss": 0.4}, "user": 2, "size": 12})" << "\n";
  }
  const srs::bench::ResumeFile f = srs::bench::scan_for_resume(file, false, {"1", "2"});
  REQUIRE(f.results.size() == 2);
  CHECK(f.results[0].fallbacks == 2);
  CHECK(f.results[0].user_fallbacks == 1);
  CHECK(f.results[0].numerical_fallbacks == 3);
  CHECK(f.results[1].fallbacks + f.results[1].user_fallbacks + f.results[1].numerical_fallbacks == 0);
  {
    std::ofstream out(file);
    out << R"({"metrics": {"LogLoss": 0.3}, "user": 1, "size": 10, "fallbacks": 3})" << "\n";
  }
  CHECK_THROWS_WITH_AS((void)srs::bench::scan_for_resume(file, false, {"1"}),
                       doctest::Contains("\"fallbacks\": "), srs::UsageError);
}
