// SPDX-License-Identifier: MIT
// Tests of srs/bench/results.hpp's shard file names: NAME.shard-I-of-N.jsonl
// read back, anything else not a shard file; the suffix they are written with.
#include <doctest/doctest.h>

#include <srs/bench/results.hpp>  // srs::bench::detail::parse_shard_name, shard_suffix

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
