// SPDX-License-Identifier: MIT
// Tests of srs/eval/registry.hpp, the benchmark's models and the parameter
// count of every result name:
//
//   * the models, in srs-bench's order, with the counts the model classes
//     declare (num_params; FSRS v4 on: the S0 fit's 4 and 4 Hard/Easy-only
//     parameters; FSRS-rs as FSRS-6; Anki, NN-17 and the LSTM's Hard/Easy-only
//     parameters), and which are trained;
//   * every name srs-bench can write: each model x every flag combination
//     srs-bench accepts (--default / --S0 only for trained models, each alone;
//     --equalize_test_with_non_secs only with --secs; --partitions none,
//     preset, deck; --short, --recency, --fast, --two_buttons on or off;
//     the LSTM also with --duration):
//     eval::result_name's name reads back (parse_result_name) as the same
//     model and flags, and result_parameter_count gives the count of the rule
//     (0 untrained or -default, the S0 fit's with -S0, all but the Hard/Easy-
//     only ones with -binary, else num_params) — never nothing, so srs-report
//     never prints "—" for them;
//   * the reference's own names: FSRS-6 21, FSRS-6-binary 17, FSRS-5-binary
//     15, FSRS-6-dry-run 0, FSRS-5-pretrain 4, SM2 0, SM2-short 0,
//     SM2-trainable 6, Anki 7, Anki-dry-run 0, GRU-P-short 297, FSRS-rs 21,
//     FSRS-7 34 (and its -sched_penalties and -100epochs runs),
//     FSRS-5-disable_short_term 17, the neutral suffixes (-dev, ...);
//     -duration reads back as the --duration flag (LSTM 8869); unknown models
//     and repeated suffixes give nothing.
#include <cstddef>      // std::size_t
#include <optional>     // std::optional
#include <set>          // std::set
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <doctest/doctest.h>  // TEST_CASE, CHECK, REQUIRE, CAPTURE

#include <srs/data/dataset.hpp>   // srs::data::PartitionBy
#include <srs/eval/registry.hpp>  // srs::eval::benchmark_models, find_benchmark_model, parameter_count, ...
#include <srs/eval/report.hpp>    // srs::eval::RunFlags, result_name

namespace {

namespace eval = srs::eval;

/// Every flag combination srs-bench accepts for a model (see the file comment).
std::vector<eval::RunFlags> registry_flag_sets(bool trained, bool duration) {
  std::vector<eval::RunFlags> out;
  for (int mode = 0; mode < (trained ? 3 : 1); ++mode)  // none, --default, --S0
    for (int secs = 0; secs < 3; ++secs)                // none, --secs, --secs --equalize_test_with_non_secs
      for (int partitions = 0; partitions < 3; ++partitions)
        for (int bits = 0; bits < 16; ++bits) {
          eval::RunFlags f;
          f.defaults = mode == 1;
          f.s0 = mode == 2;
          f.secs = secs >= 1;
          f.equalize = secs == 2;
          f.partitions = partitions == 0   ? srs::data::PartitionBy::none
                         : partitions == 1 ? srs::data::PartitionBy::preset
                                           : srs::data::PartitionBy::deck;
          f.short_term = bits & 1;
          f.recency = bits & 2;
          f.fast = bits & 4;
          f.two_buttons = bits & 8;
          out.push_back(f);
        }
  if (duration)  // --duration (the LSTM only): each of them again with it
    for (std::size_t k = 0, n = out.size(); k < n; ++k) {
      eval::RunFlags f = out[k];
      f.duration = true;
      out.push_back(f);
    }
  return out;
}

bool same_flags(const eval::RunFlags& a, const eval::RunFlags& b) {
  return a.defaults == b.defaults && a.s0 == b.s0 && a.sched_penalties == b.sched_penalties &&
         a.two_buttons == b.two_buttons && a.short_term == b.short_term && a.secs == b.secs &&
         a.duration == b.duration && a.recency == b.recency && a.equalize == b.equalize &&
         a.partitions == b.partitions && a.epochs == b.epochs && a.fast == b.fast;
}

std::optional<std::size_t> count_of(std::string_view name) { return eval::result_parameter_count(name); }

}  // namespace

TEST_CASE("registry: the models srs-bench runs, with the counts their classes declare") {
  // The registry is BuiltinModels described: no list here to keep in step with it
  // (a new model needs no change of this test); the names are distinct, and the
  // models below are there with the counts their papers and the reference give.
  std::set<std::string_view> names;
  for (const eval::BenchmarkModel& m : eval::benchmark_models()) CHECK(names.insert(m.name).second);
  CHECK(eval::benchmark_models().size() == eval::BuiltinModels::size);
  CHECK(eval::benchmark_models().front().name == "FSRSv1");  // the benchmark's order: the FSRS family first

  struct Facts {
    const char* name;
    std::size_t params, initialized, hard_easy, both;
    bool trained;
    bool neural;
  };
  constexpr bool N = true, C = false;  // neural, not
  const Facts facts[] = {
      {"FSRSv1", 7, 0, 0, 0, true, C},
      {"FSRSv2", 14, 0, 0, 0, true, C},
      {"FSRSv3", 13, 0, 0, 0, true, C},
      {"FSRSv4", 17, 4, 4, 2, true, C},
      {"FSRS-4.5", 17, 4, 4, 2, true, C},
      {"FSRS-5", 19, 4, 4, 2, true, C},
      {"FSRS-6", 21, 4, 4, 2, true, C},
      {"FSRS-7", 34, 0, 6, 0, true, C},
      {"FSRS-rs", 21, 4, 4, 2, true, C},
      {"HLR", 3, 0, 0, 0, true, C},
      {"DASH", 9, 0, 0, 0, true, C},
      {"DASH[MCM]", 9, 0, 0, 0, true, C},
      {"DASH[ACT-R]", 5, 0, 0, 0, true, C},
      {"ACT-R", 5, 0, 0, 0, true, C},
      {"SM-2", 0, 0, 0, 0, false, C},
      {"SM-2-trainable", 6, 0, 0, 0, true, C},
      {"Anki-SM-2", 7, 0, 2, 0, false, C},
      {"Anki-SM-2-trainable", 7, 0, 2, 0, true, C},
      {"Ebisu-v2", 0, 0, 0, 0, false, C},
      {"MOVING-AVG", 0, 0, 0, 0, false, C},
      {"RMSE-BINS-EXPLOIT", 0, 0, 0, 0, false, C},
      {"AVG", 0, 0, 0, 0, false, C},
      {"LogisticRegression", 34, 0, 0, 0, true, C},
      {"SBD", 7, 0, 0, 0, true, C},
      {"GRU", 39, 0, 0, 0, true, N},
      {"GRU-P", 297, 0, 0, 0, true, N},
      {"GRU-mix", 503, 0, 14, 0, true, N},
      {"LSTM", 8869, 0, 40, 0, true, N},
      {"Transformer", 127, 0, 0, 0, true, N},
      {"NN-17", 39, 0, 4, 0, true, N},
  };
  for (const Facts& f : facts) {
    CAPTURE(f.name);
    const eval::BenchmarkModel* m = eval::find_benchmark_model(f.name);
    REQUIRE(m != nullptr);
    CHECK(m->num_params == f.params);
    CHECK(m->initialized_params == f.initialized);
    CHECK(m->hard_easy_params == f.hard_easy);
    CHECK(m->initialized_hard_easy == f.both);
    CHECK(m->trained == f.trained);
    CHECK(m->neural == f.neural);
  }
  CHECK(eval::find_benchmark_model("SM2") == nullptr);  // a reference name, not srs-bench's
  CHECK(eval::find_benchmark_model("FSRS-6-short") == nullptr);
}

TEST_CASE("registry: every result name srs-bench can write has a parameter count") {
  std::set<std::string> seen;
  std::size_t names = 0, refused = 0;
  for (const eval::BenchmarkModel& m : eval::benchmark_models()) {
    for (const eval::RunFlags& f : registry_flag_sets(m.trained, m.name == "LSTM")) {
      // GRU and GRU-mix share the stem "GRU": srs-bench runs each with its --secs setting only.
      if (eval::run_conflict(m, f.secs)) {
        ++refused;
        continue;
      }
      const std::string name = eval::result_name(eval::result_stem(m), f);
      CAPTURE(name);
      CHECK(seen.insert(name).second);  // distinct flags, distinct names
      ++names;
      const std::optional<eval::ResultName> parsed = eval::parse_result_name(name);
      REQUIRE(parsed.has_value());
      CHECK(parsed->model == &m);
      CHECK(parsed->reference == nullptr);
      CHECK(same_flags(parsed->flags, f));
      // The rule of the file comment, from the model's declarations.
      std::size_t expected = m.num_params - (f.two_buttons ? m.hard_easy_params : 0);
      if (f.s0) expected = m.initialized_params - (f.two_buttons ? m.initialized_hard_easy : 0);
      if (!m.trained || f.defaults) expected = 0;
      const std::optional<std::size_t> count = count_of(name);
      REQUIRE(count.has_value());
      CHECK(*count == expected);
      CHECK(*count == eval::parameter_count(m, f));
    }
  }
  // 24 trained models x 3 x 3 x 3 x 16 flag sets (the LSTM twice: --duration)
  // + 6 untrained x 3 x 3 x 16, less GRU's --secs runs (2/3 of 432) and
  // GRU-mix's runs without --secs (1/3).
  CHECK(refused == 432);
  CHECK(names == 24 * 432 + 6 * 144);
  // FSRS-7's own flags, --sched_penalties and --epochs N, on every flag set.
  const eval::BenchmarkModel& fsrs7 = *eval::find_benchmark_model("FSRS-7");
  for (eval::RunFlags f : registry_flag_sets(true, false)) {
    f.sched_penalties = true;
    f.epochs = 100;
    const std::string name = eval::result_name("FSRS-7", f);
    CAPTURE(name);
    CHECK(seen.insert(name).second);
    const std::optional<eval::ResultName> parsed = eval::parse_result_name(name);
    REQUIRE(parsed.has_value());
    CHECK(parsed->model == &fsrs7);
    CHECK(same_flags(parsed->flags, f));
    CHECK(count_of(name) == eval::parameter_count(fsrs7, f));
  }
  CHECK(eval::result_name("FSRS-7", {.s0 = true, .sched_penalties = true, .two_buttons = true, .short_term = true,
                                     .secs = true, .recency = true, .equalize = true,
                                     .partitions = srs::data::PartitionBy::deck, .epochs = 100, .fast = true}) ==
        "FSRS-7-S0-sched_penalties-binary-short-secs-recency-equalize_test_with_non_secs-deck-100epochs-fast");
  // Spot checks.
  CHECK(count_of("FSRS-6-short") == 21u);
  CHECK(count_of("FSRS-6-short-fast") == 21u);
  CHECK(count_of("FSRS-6-binary-short-fast") == 17u);
  CHECK(count_of("FSRS-6-default-short") == 0u);
  CHECK(count_of("FSRS-6-S0-short") == 4u);
  CHECK(count_of("FSRS-6-S0-binary-short") == 2u);  // w0, w2: w1 and w3 see no first Hard or Easy
  CHECK(count_of("FSRS-5-short-secs-recency-equalize_test_with_non_secs-preset-fast") == 19u);
  CHECK(count_of("FSRS-rs-binary") == 17u);
  CHECK(count_of("FSRSv3-binary") == 13u);
  CHECK(count_of("FSRSv3-S0") == 0u);  // no S0 fit before v4: --S0 keeps the defaults
  CHECK(count_of("SM-2-short") == 0u);
  CHECK(count_of("MOVING-AVG") == 0u);
  CHECK(count_of("Anki-SM-2") == 0u);
  CHECK(count_of("Anki-SM-2-trainable-binary") == 5u);
  CHECK(count_of("HLR-default") == 0u);
  CHECK(count_of("GRU-S0") == 0u);
  CHECK(count_of("LSTM-binary-short") == 8829u);
  CHECK(count_of("LSTM-short-secs-duration-recency-equalize_test_with_non_secs-fast") == 8869u);
  CHECK(count_of("NN-17-binary") == 35u);
  CHECK(count_of("DASH[MCM]-short-deck") == 9u);
  CHECK(count_of("LogisticRegression-short-secs-recency-equalize_test_with_non_secs") == 34u);
}

TEST_CASE("registry: the reference benchmark's own result names") {
  const std::pair<const char*, std::size_t> known[] = {
      {"FSRS-6", 21},
      {"FSRS-6-short", 21},
      {"FSRS-6-dry-run", 0},
      {"FSRS-6-default", 0},
      {"FSRS-6-pretrain", 4},
      {"FSRS-5-pretrain", 4},
      {"FSRS-6-binary", 17},
      {"FSRS-5-binary", 15},
      {"FSRS-6-preset", 21},
      {"FSRS-6-deck", 21},
      {"FSRS-6-recency", 21},
      {"FSRS-5", 19},
      {"FSRS-4.5", 17},
      {"FSRSv4", 17},
      {"FSRSv3", 13},
      {"FSRSv2", 14},
      {"FSRSv1", 7},
      {"FSRS-rs", 21},
      {"FSRS-7", 34},
      {"FSRS-7-short-secs-recency-equalize_test_with_non_secs", 34},
      {"FSRS-7-short-secs-equalize_test_with_non_secs-preset", 34},
      {"FSRS-7-sched_penalties-short-secs-equalize_test_with_non_secs", 34},
      {"FSRS-7-short-secs-recency-equalize_test_with_non_secs-100epochs", 34},
      {"FSRS-7-S0-sched_penalties-short", 0},  // FSRS-7 fits no initial stabilities: --S0 keeps the defaults
      {"FSRS-7-default-short-secs-equalize_test_with_non_secs", 0},
      {"FSRS-7-binary", 28},
      {"FSRS-5-disable_short_term", 17},
      {"SM2", 0},
      {"SM2-short", 0},
      {"SM2-trainable", 6},
      {"Anki", 7},
      {"Anki-dry-run", 0},
      {"Anki-short", 7},
      {"HLR-short", 3},
      {"DASH-short", 9},
      {"DASH[ACT-R]", 5},
      {"ACT-R", 5},
      {"Ebisu-v2", 0},
      {"AVG", 0},
      {"RMSE-BINS-EXPLOIT", 0},
      {"SBD-short-secs-recency-equalize_test_with_non_secs", 7},
      {"SBD-default-short-secs", 0},
      {"GRU", 39},
      {"GRU-P", 297},
      {"GRU-P-short", 297},
      {"GRU-short", 39},
      {"GRU-short-secs-equalize_test_with_non_secs", 503},  // the reference's GRU-mix
      {"GRU-short-secs", 503},
      {"GRU-secs", 503},
      {"GRU-binary-short-secs", 489},
      {"GRU-mix-short-secs", 503},
      {"LSTM-short-secs-duration-equalize_test_with_non_secs", 8869},
      {"Transformer", 127},
      {"NN-17", 39},
      {"NN-17-no_test_same_day-no_train_same_day-train_equals_test-dev", 39},
  };
  for (const auto& [name_b, count_b] : known) {
    // (clang 14 cannot capture structured bindings: named copies of them)
    const auto& name = name_b;
    const auto& count = count_b;
    CAPTURE(name);
    CHECK(count_of(name) == count);
  }
  const eval::ResultName sm2 = eval::parse_result_name("SM2-short").value();
  CHECK(sm2.model == eval::find_benchmark_model("SM-2"));
  CHECK(sm2.flags.short_term);
  const eval::ResultName anki = eval::parse_result_name("Anki-dry-run").value();
  CHECK(anki.model == eval::find_benchmark_model("Anki-SM-2-trainable"));
  CHECK(anki.flags.defaults);
  const eval::ResultName fsrs7 = eval::parse_result_name("FSRS-7-short-secs-recency-equalize_test_with_non_secs-100epochs").value();
  CHECK(fsrs7.model == eval::find_benchmark_model("FSRS-7"));
  CHECK(fsrs7.flags.recency);
  CHECK(fsrs7.flags.epochs == 100);
  const eval::ResultName f5 = eval::parse_result_name("FSRS-5-disable_short_term").value();
  CHECK(f5.model == nullptr);
  REQUIRE(f5.reference != nullptr);
  CHECK(f5.reference->name == "FSRS-5-disable_short_term");
  // -duration is the --duration flag (the LSTM's real review durations), in
  // the reference's published name and in srs-bench's.
  const eval::ResultName lstm = eval::parse_result_name("LSTM-short-secs-duration-equalize_test_with_non_secs").value();
  CHECK(lstm.model == eval::find_benchmark_model("LSTM"));
  CHECK(lstm.flags.duration);
  CHECK(lstm.flags.short_term);
  CHECK(lstm.flags.secs);
  CHECK(lstm.flags.equalize);
  CHECK_FALSE(eval::parse_result_name("LSTM-short-secs-equalize_test_with_non_secs").value().flags.duration);
  CHECK_FALSE(eval::parse_result_name("LSTM-duration-duration").has_value());
  // GRU and GRU-mix share the result stem "GRU": the -secs names are GRU-mix's.
  const eval::BenchmarkModel* gru = eval::find_benchmark_model("GRU");
  const eval::BenchmarkModel* gru_mix = eval::find_benchmark_model("GRU-mix");
  REQUIRE(gru);
  REQUIRE(gru_mix);
  CHECK(eval::parse_result_name("GRU-short-secs-equalize_test_with_non_secs").value().model == gru_mix);
  CHECK(eval::parse_result_name("GRU-short").value().model == gru);
  CHECK(eval::parse_result_name("GRU").value().model == gru);
  CHECK(eval::result_stem(*gru_mix) == "GRU");
  CHECK(eval::result_stem(*gru) == "GRU");
  CHECK(eval::stem_sharer(*gru) == gru_mix);
  CHECK(eval::stem_sharer(*gru_mix) == gru);
  CHECK(eval::stem_sharer(*eval::find_benchmark_model("GRU-P")) == nullptr);
  CHECK_FALSE(eval::run_conflict(*gru_mix, true).has_value());
  CHECK_FALSE(eval::run_conflict(*gru, false).has_value());
  CHECK(eval::run_conflict(*gru_mix, false).value().find("runs only with --secs") != std::string::npos);
  CHECK(eval::run_conflict(*gru, true).value().find("--model GRU-mix") != std::string::npos);
  CHECK_FALSE(eval::run_conflict(*eval::find_benchmark_model("FSRS-6"), true).has_value());

  // Unknown models, repeated or conflicting suffixes, suffixes alone: nothing.
  for (const char* name : {"My-model", "RWKV", "RWKV-P", "FSRS-6-short-short", "FSRS-6-default-dry-run",
                           "FSRS-6-preset-deck", "-short", "", "FSRS-6-", "fsrs-6", "FSRS-7-100epochs-100epochs",
                           "FSRS-7-0epochs", "FSRS-7-010epochs", "FSRS-7epochs", "FSRS-7--5epochs"}) {
    CAPTURE(name);
    CHECK_FALSE(count_of(name).has_value());
  }
  CHECK_FALSE(eval::parse_result_name("FSRS-6-short-short").has_value());
}
