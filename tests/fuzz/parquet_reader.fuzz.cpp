// SPDX-License-Identifier: MIT
// libFuzzer harness: arbitrary bytes through the Parquet reader
// (srs/data/parquet.hpp, the parquet component): the file layer (footer,
// schema, every integer column of every row group), and the revlogs, cards and
// decks readers. Built as a fuzzer by tests/fuzz/run_fuzz.sh, and with
// replay_main.cpp as the plain regression driver srs_fuzz_parquet_reader_replay
// in the normal test build.
//
// Every input must end in a result or an srs::InputError (nothing else thrown,
// no crash, no sanitizer report), with small ReadLimits so that a file claiming
// millions of rows fails instead of allocating them. A revlogs table that reads
// must hold values in the documented ranges and survive a round trip through
// the writer; a column that reads holds one value per row.
#include <cstddef>    // std::size_t
#include <cstdint>    // std::uint8_t
#include <cstdio>     // std::fprintf, stderr
#include <cstdlib>    // std::abort
#include <exception>  // std::exception
#include <string>     // std::string

#include <srs/core/error.hpp>           // srs::InputError
#include <srs/data/parquet.hpp>         // parse_revlog_parquet, parse_cards_parquet, parse_decks_parquet
#include <srs/data/parquet_writer.hpp>  // parquet::format_revlog_parquet

namespace {

void expect(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "srs fuzz invariant broken: %s\n", what);
    std::abort();
  }
}

/// An InputError names the file and, for a row, a row of the file.
void check_error(const srs::InputError& e, std::size_t max_rows) {
  expect(e.file() == "f.parquet", "InputError names the file");
  expect(e.line() <= max_rows, "InputError's row is within the limit");
  expect(!e.message().empty(), "InputError has a message");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  srs::data::parquet::ReadLimits limits;
  limits.max_rows = 1u << 16;
  limits.max_page_bytes = 1u << 22;
  try {
    const srs::data::parquet::File file(bytes, "f.parquet", limits);
    for (const auto& c : file.columns()) {
      try {
        const auto col = file.read_int_column(c.name);
        expect(col.values.size() == file.num_rows(), "a column holds one value per row");
        expect(col.nulls.empty() || col.nulls.size() == file.num_rows(), "null flags per row");
      } catch (const srs::InputError& e) {
        check_error(e, limits.max_rows);
      }
    }
  } catch (const srs::InputError& e) {
    check_error(e, limits.max_rows);
  }
  try {
    const srs::data::Revlog log = srs::data::parse_revlog_parquet(bytes, "f.parquet", "u", limits);
    expect(!log.rows.empty(), "a revlog has rows");
    for (const auto& r : log.rows) {
      expect(r.rating >= 0 && r.rating <= 4 && r.state >= 0 && r.state <= 4, "rating and state in range");
      expect(r.day_offset >= 0 && r.duration >= 0 && r.elapsed_days >= -1 && r.elapsed_seconds >= -1,
             "days, duration and elapsed values in range");
    }
    const std::string again = srs::data::parquet::format_revlog_parquet(log);
    const srs::data::Revlog back = srs::data::parse_revlog_parquet(again, "f.parquet", "u");
    expect(back.rows.size() == log.rows.size(), "the writer's file reads back");
    for (std::size_t k = 0; k < log.rows.size(); ++k)
      expect(back.rows[k].card_id == log.rows[k].card_id && back.rows[k].elapsed_seconds == log.rows[k].elapsed_seconds,
             "the writer's file reads back the same rows");
  } catch (const srs::InputError& e) {
    check_error(e, limits.max_rows);
  }
  try {
    (void)srs::data::parse_cards_parquet(bytes, "f.parquet", limits);
  } catch (const srs::InputError& e) {
    check_error(e, limits.max_rows);
  }
  try {
    (void)srs::data::parse_decks_parquet(bytes, "f.parquet", limits);
  } catch (const srs::InputError& e) {
    check_error(e, limits.max_rows);
  }
  return 0;
}
