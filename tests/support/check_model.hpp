// SPDX-License-Identifier: MIT
// tests/support/check_model.hpp: the memory-model checks of the tests, a thin doctest
// adapter over the public checker <srs/testing/check_model.hpp> (which says what
// each check does).
//
// srs::test::check_model and check_clamp run srs::testing's, then turn every
// failure line of the report into a failed doctest check (with the inputs as
// INFO) and its notes into MESSAGEs (the kink notes only with
// announce_nonsmooth); they return the report (`threw`, `any_nan`, `values`,
// `nonsmooth_params`, `max_value_rel_diff`) for further assertions. The helpers
// (predictions, predict, predict_dual, seed_variables, simulate_history,
// random_params, to_string, HistoryOptions) are srs::testing's.
//
// Usage, a few lines per test:
//
//     const srs::models::Fsrs6 m;
//     const auto w = m.default_params();
//     for (std::uint64_t seed = 0; seed < 100; ++seed)
//       srs::test::check_model(m, w, srs::test::simulate_history(seed), 10.0);
#pragma once

#include <srs/concepts.hpp>             // srs::MemoryModel, srs::DualTrainable
#include <srs/data/dataset.hpp>         // srs::data::Step
#include <srs/testing/check_model.hpp>  // srs::testing::check_model, CheckReport, helpers

#include <doctest/doctest.h>  // FAIL_CHECK, MESSAGE, INFO

#include <array>        // std::array
#include <cstdint>      // std::uint64_t
#include <optional>     // std::optional
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::pair

namespace srs::test {

using srs::testing::HistoryOptions;
using srs::testing::predict;
using srs::testing::predict_dual;
using srs::testing::predictions;
using srs::testing::random_params;
using srs::testing::seed_variables;
using srs::testing::simulate_history;
using srs::testing::to_string;

/// check_model's options: the public checker's, plus whether the kink notes are MESSAGEd.
struct ModelCheckOptions : srs::testing::CheckOptions {
  bool announce_nonsmooth = true;  ///< MESSAGE the parameters checked one-sidedly
};

/// What check_model saw (srs::testing::CheckReport).
using ModelCheckReport = srs::testing::CheckReport;

/// Every failure of `rep` a failed check (its context as INFO), its notes MESSAGEs
/// (the "[kink]" ones only when `kink_notes`).
inline void report_to_doctest(const srs::testing::CheckReport& rep, bool kink_notes = true) {
  INFO(rep.context);
  for (const std::string& f : rep.failures) FAIL_CHECK(f);
  if (rep.omitted_failures > 0) FAIL_CHECK("... and " << rep.omitted_failures << " more failures");
  for (const std::string& n : rep.notes) {
    if (kink_notes || std::string_view(n).find("[kink]") == std::string_view::npos) MESSAGE(n);
  }
}

/// srs::testing::check_clamp as doctest checks.
template <MemoryModel M>
srs::testing::CheckReport check_clamp(
    const M& model, std::uint64_t seed = 7,
    std::optional<std::array<std::pair<double, double>, M::num_params>> box = std::nullopt, int trials = 64) {
  srs::testing::CheckReport rep = srs::testing::check_clamp(model, seed, box, trials);
  report_to_doctest(rep);
  return rep;
}

/// srs::testing::check_model as doctest checks.
template <DualTrainable M>
srs::testing::CheckReport check_model(const M& model, std::span<const double, M::num_params> w,
                                      std::span<const data::Step> history, double t,
                                      const ModelCheckOptions& opt = {}) {
  srs::testing::CheckReport rep = srs::testing::check_model(model, w, history, t, opt);
  report_to_doctest(rep, opt.announce_nonsmooth);
  return rep;
}

}  // namespace srs::test
