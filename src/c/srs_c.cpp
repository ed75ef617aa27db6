// SPDX-License-Identifier: MIT
/// @file src/c/srs_c.cpp
/// The C API (include/srs/c/srs.h) over srs::sched with srs::models::Fsrs6.
/// Every entry point catches everything: srs::UsageError becomes
/// SRS_INVALID_ARGUMENT, srs::InputError SRS_INVALID_INPUT, sched::Cancelled
/// SRS_CANCELLED, any other exception SRS_ERROR, each with its message kept
/// per thread for srs_last_error().
///
/// Struct sizes (docs/c-api.md): the sized structs are read and written through
/// read_sized / write_sized, which touch only the first struct_size bytes of
/// the app's struct. The 0.1.0 entry points srs_train_options_init and
/// srs_fsrs6_train keep their unsized layouts (Options_0_1_0, Info_0_1_0 below).
#include <srs/c/srs.h>

#include <algorithm>  // std::min
#include <array>      // std::array
#include <cstddef>    // std::size_t, offsetof
#include <cstdint>    // std::int32_t, std::int64_t, std::uint32_t
#include <cstring>    // std::memcpy, std::memset
#include <exception>  // std::exception
#include <new>        // std::bad_alloc
#include <optional>   // std::optional
#include <span>       // std::span
#include <string>     // std::string
#include <type_traits>  // std::is_trivially_copyable_v
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


// ---- Sized structs ----------------------------------------------------------

/// The first sized layouts (C API 0.2.0) end with these members; a struct_size
/// below is refused. Later minor versions only append members, so these stay.
constexpr std::size_t train_options_min_size = offsetof(srs_train_options, user_data) + sizeof(void*);
constexpr std::size_t train_info_min_size = offsetof(srs_train_info, items) + sizeof(std::size_t);
/// A struct_size above this is not a size any version wrote (an uninitialized struct).
constexpr std::size_t sized_struct_max = 4096;

/// Checks the size `size` an app gives for a struct `name` whose library layout is T.
void require_size(std::size_t size, std::size_t min_size, const char* name) {
  if (size < min_size || size > sized_struct_max) {
    throw srs::UsageError(std::string(name) + ": struct_size " + std::to_string(size) + " is not a size of " + name +
                          " (at least " + std::to_string(min_size) + "; initialize it with " + name + "_init)");
  }
}

/// The app's struct `in` over `defaults`: the fields inside in->struct_size, the
/// defaults for the others. Bytes past this library's layout must be zero (fields
/// of a newer header this library cannot honour).
template <class T>
T read_sized(const T& in, T defaults, std::size_t min_size, const char* name) {
  static_assert(std::is_trivially_copyable_v<T>);
  require_size(in.struct_size, min_size, name);
  const auto* bytes = reinterpret_cast<const unsigned char*>(&in);
  for (std::size_t k = sizeof(T); k < in.struct_size; ++k) {
    if (bytes[k] != 0) {
      throw srs::UsageError(std::string(name) + ": byte " + std::to_string(k) +
                            " is set, a field this library (C API " + std::to_string(SRS_C_API_VERSION_MAJOR) + "." +
                            std::to_string(SRS_C_API_VERSION_MINOR) + ") does not know");
    }
  }
  std::memcpy(&defaults, &in, std::min<std::size_t>(in.struct_size, sizeof(T)));
  return defaults;
}

/// Writes `value` into the first min(out.struct_size, sizeof(T)) bytes of `out`
/// (struct_size itself unchanged).
template <class T>
void write_sized(T& out, T value) {
  static_assert(std::is_trivially_copyable_v<T>);
  value.struct_size = out.struct_size;
  std::memcpy(&out, &value, std::min<std::size_t>(out.struct_size, sizeof(T)));
}

/// Initializes the first `size` bytes of `*out` to `value` (zeros past T).
template <class T>
void init_sized(T* out, std::size_t size, T value, std::size_t min_size, const char* name) {
  require(out != nullptr, (std::string(name) + " is NULL").c_str());
  require_size(size, min_size, name);
  value.struct_size = static_cast<std::uint32_t>(size);
  auto* bytes = reinterpret_cast<unsigned char*>(out);
  std::memset(bytes, 0, size);
  std::memcpy(bytes, &value, std::min<std::size_t>(size, sizeof(T)));
}

/// The integer an enum field or argument from C holds. C lets an app store any int in an
/// enum; in C++ loading a value outside the enumerators' range is undefined, so the bytes
/// are copied instead of the enum read.
template <class E>
int enum_value(const E& e) {
  static_assert(sizeof(E) == sizeof(int), "the C enums of srs.h are int-sized");
  int v = 0;
  std::memcpy(&v, &e, sizeof v);
  return v;
}

srs_train_options default_train_options() {
  srs_train_options o{};
  o.struct_size = sizeof(srs_train_options);
  o.rollover_hour = 4;
  o.utc_offset_minutes = 0;
  o.short_term = 1;
  o.recency = 0;
  o.rules = SRS_FIT_BENCHMARK;
  o.progress = nullptr;
  o.user_data = nullptr;
  return o;
}

/// The layouts of C API 0.1.0 (its header: tests/c/abi/srs_0_1_0.h), frozen: the
/// symbols srs_train_options_init and srs_fsrs6_train keep reading and writing them.
struct Options_0_1_0 {
  std::int32_t rollover_hour;
  std::int32_t utc_offset_minutes;
  std::int32_t short_term;
  std::int32_t recency;
  srs_fit_rules rules;
  srs_progress_fn progress;
  void* user_data;
};
struct Info_0_1_0 {
  srs_fit_outcome outcome;
  std::size_t reviews;
  std::size_t items;
};

/// srs_fsrs6_train of any version: the options as this library knows them.
void train(const std::int64_t* card_ids, const std::int64_t* times_ms, const std::int32_t* ratings,
           const std::int32_t* kinds, std::size_t n, const srs_train_options& opt, double* out_params,
           srs_train_info* info) {
  require(out_params != nullptr, "out_params is NULL");
  require(n == 0 || (card_ids != nullptr && times_ms != nullptr && ratings != nullptr),
          "card_ids, times_ms or ratings is NULL");
  const int rules = enum_value(opt.rules);
  if (rules != SRS_FIT_BENCHMARK && rules != SRS_FIT_FSRS_RS) {
    throw srs::UsageError("unknown rules " + std::to_string(rules) + " (SRS_FIT_BENCHMARK 0 or SRS_FIT_FSRS_RS 1)");
  }

  std::vector<srs::sched::Review> reviews(n);
  for (std::size_t k = 0; k < n; ++k) {
    require(ratings[k] >= 0 && ratings[k] <= 4, "ratings are 0 (manual entry) to 4");
    reviews[k] = {card_ids[k], times_ms[k], ratings[k], kinds ? kinds[k] : srs::data::kind_unknown};
  }
  const srs::data::Revlog log = srs::sched::revlog_from_reviews(
      reviews, {.rollover_hour = opt.rollover_hour, .utc_offset_minutes = opt.utc_offset_minutes});

  srs::sched::FitOptions fo;
  fo.rules = rules == SRS_FIT_FSRS_RS ? srs::sched::FitRules::fsrs_rs : srs::sched::FitRules::benchmark;
  fo.short_term = opt.short_term != 0;
  fo.recency = opt.recency != 0;
  if (opt.progress) {
    fo.progress = [&opt](const srs::sched::FitProgress& p) { return opt.progress(opt.user_data, p.step, p.total) != 0; };
  }
  const srs::sched::FitResult<21> r = srs::sched::fit(log, fo);
  for (std::size_t k = 0; k < 21; ++k) out_params[k] = r.params[k];
  if (info) {
    info->outcome = r.outcome == srs::sched::FitOutcome::trained                  ? SRS_FIT_TRAINED
                    : r.outcome == srs::sched::FitOutcome::initial_stability_only ? SRS_FIT_INITIAL_STABILITY_ONLY
                                                                                  : SRS_FIT_DEFAULTS;
    info->reviews = log.rows.size();
    info->items = r.items;
  }
}

}  // namespace

extern "C" {

const char* srs_version(void) { return srs::version_string; }

uint32_t srs_c_api_version(void) { return SRS_C_API_VERSION; }

const char* srs_status_string(srs_status status) {
  // Switch on the integer: an app may pass a code of a later version (or any int).
  switch (enum_value(status)) {
    case SRS_OK: return "ok";
    case SRS_INVALID_ARGUMENT: return "invalid argument";
    case SRS_INVALID_INPUT: return "invalid input";
    case SRS_CANCELLED: return "cancelled";
    case SRS_ERROR: return "error";
    default: return "unknown status";
  }
}

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

srs_status srs_train_options_init_sized(srs_train_options* options, size_t size) {
  return guarded([&] {
    init_sized(options, size, default_train_options(), train_options_min_size, "srs_train_options");
  });
}

srs_status srs_train_info_init_sized(srs_train_info* info, size_t size) {
  return guarded([&] { init_sized(info, size, srs_train_info{}, train_info_min_size, "srs_train_info"); });
}

srs_status srs_fsrs6_train_v2(const int64_t* card_ids, const int64_t* times_ms, const int32_t* ratings,
                              const int32_t* kinds, size_t n, const srs_train_options* options,
                              double out_params[SRS_FSRS6_NUM_PARAMS], srs_train_info* info) {
  return guarded([&] {
    const srs_train_options defaults = default_train_options();
    const srs_train_options opt =
        options ? read_sized(*options, defaults, train_options_min_size, "srs_train_options") : defaults;
    if (info) require_size(info->struct_size, train_info_min_size, "srs_train_info");
    srs_train_info out{};
    train(card_ids, times_ms, ratings, kinds, n, opt, out_params, info ? &out : nullptr);
    if (info) write_sized(*info, out);
  });
}

// The 0.1.0 entry points, unsized (the header now maps these names to the sized ones).
#undef srs_train_options_init
#undef srs_fsrs6_train
SRS_C_API void srs_train_options_init(Options_0_1_0* options);
SRS_C_API srs_status srs_fsrs6_train(const int64_t* card_ids, const int64_t* times_ms, const int32_t* ratings,
                                     const int32_t* kinds, size_t n, const Options_0_1_0* options,
                                     double out_params[SRS_FSRS6_NUM_PARAMS], Info_0_1_0* info);

void srs_train_options_init(Options_0_1_0* options) {
  if (!options) return;
  const srs_train_options d = default_train_options();
  *options = {d.rollover_hour, d.utc_offset_minutes, d.short_term, d.recency, d.rules, d.progress, d.user_data};
}

srs_status srs_fsrs6_train(const int64_t* card_ids, const int64_t* times_ms, const int32_t* ratings,
                           const int32_t* kinds, size_t n, const Options_0_1_0* options,
                           double out_params[SRS_FSRS6_NUM_PARAMS], Info_0_1_0* info) {
  return guarded([&] {
    srs_train_options opt = default_train_options();
    if (options) {
      opt.rollover_hour = options->rollover_hour;
      opt.utc_offset_minutes = options->utc_offset_minutes;
      opt.short_term = options->short_term;
      opt.recency = options->recency;
      std::memcpy(&opt.rules, &options->rules, sizeof opt.rules);  // bytes, not an enum load (enum_value)
      opt.progress = options->progress;
      opt.user_data = options->user_data;
    }
    srs_train_info out{};
    train(card_ids, times_ms, ratings, kinds, n, opt, out_params, info ? &out : nullptr);
    if (info) *info = {out.outcome, out.reviews, out.items};
  });
}

}  // extern "C"
