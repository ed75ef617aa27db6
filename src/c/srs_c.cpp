// SPDX-License-Identifier: MIT
/// @file src/c/srs_c.cpp
/// The C API (include/srs/c/srs.h) over srs::sched with srs::models::Fsrs6.
/// Every entry point catches everything: srs::UsageError becomes
/// SRS_INVALID_ARGUMENT, srs::InputError SRS_INVALID_INPUT, sched::Cancelled
/// SRS_CANCELLED, any other exception SRS_ERROR, each with its message kept
/// per thread for srs_last_error().
#include <srs/c/srs.h>

#include <array>      // std::array
#include <cstddef>    // std::size_t
#include <cstdint>    // std::int32_t, std::int64_t
#include <exception>  // std::exception
#include <new>        // std::bad_alloc
#include <optional>   // std::optional
#include <span>       // std::span
#include <string>     // std::string
#include <vector>     // std::vector

#include <srs/core/error.hpp>           // srs::UsageError, srs::InputError
#include <srs/data/dataset.hpp>         // srs::data::Step
#include <srs/data/revlog_builder.hpp>  // srs::data::kind_unknown
#include <srs/models/fsrs.hpp>          // srs::models::Fsrs6
#include <srs/sched/fit.hpp>            // srs::sched::fit, revlog_from_reviews, Cancelled
#include <srs/sched/scheduler.hpp>      // srs::sched::memory_state, retrievability, next_interval, next_states
#include <srs/version.hpp>              // srs::version_string

namespace {

using srs::models::Fsrs6;
using State = srs::sched::MemoryState<Fsrs6>;

thread_local std::string last_error;

srs_status fail(srs_status status, const std::string& message) {
  last_error = message;
  return status;
}

/// Run `f`, translating exceptions into a status and the per-thread message.
template <class F>
srs_status guarded(F&& f) {
  try {
    f();
    return SRS_OK;
  } catch (const srs::sched::Cancelled& e) {
    return fail(SRS_CANCELLED, e.what());
  } catch (const srs::UsageError& e) {
    return fail(SRS_INVALID_ARGUMENT, e.what());
  } catch (const srs::InputError& e) {
    return fail(SRS_INVALID_INPUT, e.what());
  } catch (const std::bad_alloc&) {
    return fail(SRS_ERROR, "out of memory");
  } catch (const std::exception& e) {
    return fail(SRS_ERROR, e.what());
  } catch (...) {
    return fail(SRS_ERROR, "unknown error");
  }
}

void require(bool ok, const char* what) {
  if (!ok) throw srs::UsageError(what);
}

std::array<double, 21> params_of(const double* p) {
  if (!p) return Fsrs6::defaults;
  std::array<double, 21> w{};
  for (std::size_t k = 0; k < 21; ++k) w[k] = p[k];
  return w;
}

std::int32_t max_of(std::int32_t max_interval) {
  return max_interval <= 0 ? srs::sched::default_max_interval : max_interval;
}

srs_memory_state to_c(const State& s) { return {s.s, s.d}; }
State from_c(const srs_memory_state& s) {
  require(s.stability > 0 && s.difficulty >= 1 && s.difficulty <= 10,
          "a memory state needs stability > 0 and difficulty in [1, 10]");
  return {s.stability, s.difficulty};
}

}  // namespace

extern "C" {

const char* srs_version(void) { return srs::version_string; }

const char* srs_last_error(void) { return last_error.c_str(); }

srs_status srs_fsrs6_default_parameters(double out[SRS_FSRS6_NUM_PARAMS]) {
  return guarded([&] {
    require(out != nullptr, "out is NULL");
    for (std::size_t k = 0; k < 21; ++k) out[k] = Fsrs6::defaults[k];
  });
}

srs_status srs_fsrs6_memory_state(const double* params, const double* elapsed_days, const int32_t* ratings, size_t n,
                                  srs_memory_state* out) {
  return guarded([&] {
    require(out != nullptr && ratings != nullptr && elapsed_days != nullptr, "elapsed_days, ratings or out is NULL");
    require(n >= 1, "a history needs at least one review");
    std::vector<srs::data::Step> h(n);
    for (std::size_t k = 0; k < n; ++k) h[k] = {k == 0 ? 0.0 : elapsed_days[k], ratings[k]};
    const Fsrs6 m;
    const auto w = params_of(params);
    *out = to_c(srs::sched::memory_state(m, w, h));
  });
}

srs_status srs_fsrs6_retrievability(const double* params, srs_memory_state state, double elapsed_days, double* out) {
  return guarded([&] {
    require(out != nullptr, "out is NULL");
    require(elapsed_days >= 0, "elapsed_days must be >= 0");
    const Fsrs6 m;
    const auto w = params_of(params);
    *out = srs::sched::retrievability(m, w, from_c(state), elapsed_days);
  });
}

srs_status srs_fsrs6_next_interval(const double* params, srs_memory_state state, double desired_retention,
                                   int32_t max_interval, int32_t* out) {
  return guarded([&] {
    require(out != nullptr, "out is NULL");
    const Fsrs6 m;
    const auto w = params_of(params);
    *out = srs::sched::next_interval(m, w, from_c(state), desired_retention, max_of(max_interval));
  });
}

srs_status srs_fsrs6_next_states(const double* params, const srs_memory_state* state, double desired_retention,
                                 double elapsed_days, int32_t max_interval, srs_next_states* out) {
  return guarded([&] {
    require(out != nullptr, "out is NULL");
    const Fsrs6 m;
    const auto w = params_of(params);
    const std::optional<State> st = state ? std::optional<State>(from_c(*state)) : std::nullopt;
    const auto n = srs::sched::next_states(m, w, st, desired_retention, state ? elapsed_days : 0.0, max_of(max_interval));
    auto item = [](const srs::sched::ItemState<State>& x) { return srs_item_state{to_c(x.memory), x.interval}; };
    *out = {item(n.again), item(n.hard), item(n.good), item(n.easy)};
  });
}

void srs_train_options_init(srs_train_options* options) {
  if (!options) return;
  options->rollover_hour = 4;
  options->utc_offset_minutes = 0;
  options->short_term = 1;
  options->recency = 0;
  options->rules = SRS_FIT_BENCHMARK;
  options->progress = nullptr;
  options->user_data = nullptr;
}

srs_status srs_fsrs6_train(const int64_t* card_ids, const int64_t* times_ms, const int32_t* ratings,
                           const int32_t* kinds, size_t n, const srs_train_options* options,
                           double out_params[SRS_FSRS6_NUM_PARAMS], srs_train_info* info) {
  return guarded([&] {
    require(out_params != nullptr, "out_params is NULL");
    require(n == 0 || (card_ids != nullptr && times_ms != nullptr && ratings != nullptr),
            "card_ids, times_ms or ratings is NULL");
    srs_train_options opt;
    srs_train_options_init(&opt);
    if (options) opt = *options;
    require(opt.rules == SRS_FIT_BENCHMARK || opt.rules == SRS_FIT_FSRS_RS, "unknown rules");

    std::vector<srs::sched::Review> reviews(n);
    for (std::size_t k = 0; k < n; ++k) {
      require(ratings[k] >= 0 && ratings[k] <= 4, "ratings are 0 (manual entry) to 4");
      reviews[k] = {card_ids[k], times_ms[k], ratings[k], kinds ? kinds[k] : srs::data::kind_unknown};
    }
    const srs::data::Revlog log = srs::sched::revlog_from_reviews(
        reviews, {.rollover_hour = opt.rollover_hour, .utc_offset_minutes = opt.utc_offset_minutes});

    srs::sched::FitOptions fo;
    fo.rules = opt.rules == SRS_FIT_FSRS_RS ? srs::sched::FitRules::fsrs_rs : srs::sched::FitRules::benchmark;
    fo.short_term = opt.short_term != 0;
    fo.recency = opt.recency != 0;
    if (opt.progress) {
      fo.progress = [&opt](const srs::sched::FitProgress& p) {
        return opt.progress(opt.user_data, p.step, p.total) != 0;
      };
    }
    const srs::sched::FitResult<21> r = srs::sched::fit(log, fo);
    for (std::size_t k = 0; k < 21; ++k) out_params[k] = r.params[k];
    if (info) {
      info->outcome = r.outcome == srs::sched::FitOutcome::trained ? SRS_FIT_TRAINED
                      : r.outcome == srs::sched::FitOutcome::initial_stability_only ? SRS_FIT_INITIAL_STABILITY_ONLY
                                                                                      : SRS_FIT_DEFAULTS;
      info->reviews = log.rows.size();
      info->items = r.items;
    }
  });
}

}  // extern "C"
