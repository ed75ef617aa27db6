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
#include <chrono>     // std::chrono::milliseconds, minutes
#include <cmath>      // std::isfinite
#include <cstddef>    // std::size_t, offsetof
#include <cstdint>    // std::int32_t, std::int64_t, std::uint32_t
#include <cstring>    // std::memcpy, std::memset
#include <exception>  // std::exception
#include <limits>     // std::numeric_limits
#include <new>        // std::bad_alloc
#include <numeric>    // std::accumulate
#include <optional>   // std::optional
#include <span>       // std::span
#include <string>     // std::string
#include <type_traits>  // std::is_trivially_copyable_v
#include <vector>     // std::vector

#include <srs/core/error.hpp>           // srs::UsageError, srs::InputError
#include <srs/data/dataset.hpp>         // srs::data::Step
#include <srs/data/revlog_builder.hpp>  // srs::data::kind_unknown
#include <srs/data/time_zone.hpp>       // srs::data::TimeZone
#include <srs/models/fsrs.hpp>          // srs::models::Fsrs6
#include <srs/sched/card_scheduler.hpp>  // srs::sched::Scheduler, Card, ReviewLog, SchedulerOptions
#include <srs/sched/evaluate.hpp>       // srs::sched::evaluate, EvaluateOptions
#include <srs/sched/fit.hpp>            // srs::sched::fit, revlog_from_reviews, Cancelled
#include <srs/sched/scheduler.hpp>      // srs::sched::memory_state, retrievability, next_interval, next_states, memory_state_from_sm2
#include <srs/sched/simulator.hpp>      // srs::sched::simulate, optimal_retention, SimulatorConfig
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
  } catch (const srs::NotEnoughData& e) {  // review data with nothing to evaluate
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
static_assert(offsetof(srs_train_options, time_zone) == train_options_min_size,
              "0.3.0's time_zone starts at 0.2.0's sizeof");
constexpr std::size_t train_info_min_size = offsetof(srs_train_info, items) + sizeof(std::size_t);
/// A struct_size above this is not a size any version wrote (an uninitialized struct).
constexpr std::size_t sized_struct_max = 4096;

/// Checks the size `size` an app gives for the argument `arg`, a struct `type`:
/// the first layout's `min_size`, or at least this library's `full_size` (a
/// size between them would end inside a field of a later layout).
void require_size(std::size_t size, std::size_t min_size, const std::string& arg, const std::string& type,
                  std::size_t full_size = 0) {
  const bool between = full_size > min_size && size > min_size && size < full_size;
  if (size < min_size || size > sized_struct_max || between) {
    const std::string sizes = full_size > min_size
                                  ? std::to_string(min_size) + " or at least " + std::to_string(full_size)
                                  : "at least " + std::to_string(min_size);
    throw srs::UsageError(arg + ": struct_size " + std::to_string(size) + " is not a size of " + type + " (" + sizes +
                          "; initialize it with " + type + "_init)");
  }
}
void require_size(std::size_t size, std::size_t min_size, const char* name) { require_size(size, min_size, name, name); }

/// The app's struct `in` over `defaults`: the fields inside in->struct_size, the
/// defaults for the others. Bytes past this library's layout must be zero (fields
/// of a newer header this library cannot honour).
template <class T>
T read_sized(const T& in, T defaults, std::size_t min_size, const std::string& arg, const std::string& type) {
  static_assert(std::is_trivially_copyable_v<T>);
  require_size(in.struct_size, min_size, arg, type, sizeof(T));
  const auto* bytes = reinterpret_cast<const unsigned char*>(&in);
  for (std::size_t k = sizeof(T); k < in.struct_size; ++k) {
    if (bytes[k] != 0) {
      throw srs::UsageError(arg + ": byte " + std::to_string(k) +
                            " is set, a field this library (C API " + std::to_string(SRS_C_API_VERSION_MAJOR) + "." +
                            std::to_string(SRS_C_API_VERSION_MINOR) + ") does not know");
    }
  }
  std::memcpy(&defaults, &in, std::min<std::size_t>(in.struct_size, sizeof(T)));
  return defaults;
}
template <class T>
T read_sized(const T& in, T defaults, std::size_t min_size, const char* name) {
  return read_sized(in, defaults, min_size, std::string(name), std::string(name));
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
  require_size(size, min_size, name, name, sizeof(T));
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
  o.time_zone = nullptr;
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

/// The data rules an app's int names (srs_fit_rules values).
srs::sched::FitRules fit_rules_of(int rules) {
  if (rules != SRS_FIT_BENCHMARK && rules != SRS_FIT_FSRS_RS) {
    throw srs::UsageError("unknown rules " + std::to_string(rules) + " (SRS_FIT_BENCHMARK 0 or SRS_FIT_FSRS_RS 1)");
  }
  return rules == SRS_FIT_FSRS_RS ? srs::sched::FitRules::fsrs_rs : srs::sched::FitRules::benchmark;
}

/// The zone an app names (NULL: none, the fixed UTC offset).
srs::data::TimeZone zone_of(const char* name, const char* arg) {
  if (name == nullptr) return {};
  try {
    return srs::data::TimeZone::load(name);
  } catch (const srs::UsageError& e) {
    throw srs::UsageError(std::string(arg) + ": time_zone: " + e.what());
  }
}

/// The revlog of an app's raw reviews (srs_fsrs6_train's and srs_fsrs6_evaluate's arrays).
srs::data::Revlog revlog_of(const std::int64_t* card_ids, const std::int64_t* times_ms, const std::int32_t* ratings,
                            const std::int32_t* kinds, std::size_t n, std::int32_t rollover_hour,
                            std::int32_t utc_offset_minutes, const char* time_zone) {
  std::vector<srs::sched::Review> reviews(n);
  for (std::size_t k = 0; k < n; ++k) {
    require(ratings[k] >= 0 && ratings[k] <= 4, "ratings are 0 (manual entry) to 4");
    reviews[k] = {card_ids[k], times_ms[k], ratings[k], kinds ? kinds[k] : srs::data::kind_unknown};
  }
  return srs::sched::revlog_from_reviews(reviews, {.rollover_hour = rollover_hour,
                                                   .utc_offset_minutes = utc_offset_minutes,
                                                   .time_zone = zone_of(time_zone, "options")});
}

/// srs_fsrs6_train of any version: the options as this library knows them.
void train(const std::int64_t* card_ids, const std::int64_t* times_ms, const std::int32_t* ratings,
           const std::int32_t* kinds, std::size_t n, const srs_train_options& opt, double* out_params,
           srs_train_info* info) {
  require(out_params != nullptr, "out_params is NULL");
  require(n == 0 || (card_ids != nullptr && times_ms != nullptr && ratings != nullptr),
          "card_ids, times_ms or ratings is NULL");
  const srs::sched::FitRules rules = fit_rules_of(enum_value(opt.rules));

  const srs::data::Revlog log = revlog_of(card_ids, times_ms, ratings, kinds, n, opt.rollover_hour,
                                          opt.utc_offset_minutes, opt.time_zone);

  srs::sched::FitOptions fo;
  fo.rules = rules;
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


// ---- The card scheduler -----------------------------------------------------

using Scheduler = srs::sched::Scheduler<Fsrs6>;
using Card = srs::sched::Card<Fsrs6>;
using Log = srs::sched::ReviewLog<Fsrs6>;
using srs::sched::Time;

// The 0.2.0 layouts end with these members (no end padding: see `reserved`).
constexpr std::size_t scheduler_options_min_size = offsetof(srs_scheduler_options, reserved) + sizeof(std::int32_t);
static_assert(offsetof(srs_scheduler_options, time_zone) == scheduler_options_min_size &&
                  sizeof(srs_scheduler_options) == scheduler_options_min_size + sizeof(const char*),
              "0.3.0's time_zone starts at 0.2.0's sizeof and ends the struct");
constexpr std::size_t card_min_size = offsetof(srs_card, elapsed_days) + sizeof(std::int32_t);
constexpr std::size_t review_log_min_size = offsetof(srs_review_log, reserved) + sizeof(std::int32_t);
static_assert(card_min_size == sizeof(srs_card) &&
                  review_log_min_size == sizeof(srs_review_log),
              "the sized structs have no end padding (a later field must start at the old sizeof)");

/// The C options of a default srs::sched::SchedulerOptions<Fsrs6> (ts-fsrs's defaults).
srs_scheduler_options default_scheduler_options() {
  const srs::sched::SchedulerOptions<Fsrs6> d;
  srs_scheduler_options o{};
  o.struct_size = sizeof(srs_scheduler_options);
  o.maximum_interval = d.maximum_interval;
  for (std::size_t k = 0; k < 21; ++k) o.parameters[k] = Fsrs6::defaults[k];
  o.desired_retention = d.desired_retention.value();
  o.learning_step_count = static_cast<std::int32_t>(d.learning_steps.size());
  for (std::size_t k = 0; k < d.learning_steps.size(); ++k)
    o.learning_steps_minutes[k] = static_cast<std::int32_t>(d.learning_steps[k].count());
  o.relearning_step_count = static_cast<std::int32_t>(d.relearning_steps.size());
  for (std::size_t k = 0; k < d.relearning_steps.size(); ++k)
    o.relearning_steps_minutes[k] = static_cast<std::int32_t>(d.relearning_steps[k].count());
  o.enable_fuzz = d.enable_fuzz ? 1 : 0;
  o.rollover_hour = d.rollover_hour;
  o.utc_offset_minutes = d.utc_offset_minutes;
  o.reserved = 0;
  o.time_zone = nullptr;
  return o;
}

std::vector<std::chrono::minutes> steps_of(std::int32_t count, const std::int32_t* minutes, const char* name) {
  if (count < 0 || count > SRS_SCHEDULER_MAX_STEPS) {
    throw srs::UsageError(std::string("options: ") + name + "_count must be 0.." +
                          std::to_string(SRS_SCHEDULER_MAX_STEPS) + ", got " + std::to_string(count));
  }
  std::vector<std::chrono::minutes> out;
  for (std::int32_t k = 0; k < count; ++k) out.emplace_back(minutes[k]);
  return out;
}

srs::sched::SchedulerOptions<Fsrs6> options_of(const srs_scheduler_options& o) {
  require(o.reserved == 0, "options: reserved must be 0");
  srs::sched::SchedulerOptions<Fsrs6> out;
  std::array<double, 21> w{};
  for (std::size_t k = 0; k < 21; ++k) w[k] = o.parameters[k];
  // FSRS-6's ranges (its training box, as fsrs-rs's and ts-fsrs's clips): outside them the
  // curve is no probability (e.g. w20 < 0 gives a recall above 1). Non-finite values are left
  // to the Scheduler's own check, which names them.
  std::array<double, 21> boxed = w, lo{}, hi{};
  lo.fill(-std::numeric_limits<double>::infinity());
  hi.fill(std::numeric_limits<double>::infinity());
  const Fsrs6 model;
  model.clamp(std::span<double, 21>(boxed));
  model.clamp(std::span<double, 21>(lo));
  model.clamp(std::span<double, 21>(hi));
  for (std::size_t k = 0; k < 21; ++k) {
    if (std::isfinite(w[k]) && boxed[k] != w[k]) {
      throw srs::UsageError("options: parameters[" + std::to_string(k) + "] = " + std::to_string(w[k]) +
                            " is outside FSRS-6's range [" + std::to_string(lo[k]) + ", " + std::to_string(hi[k]) +
                            "]");
    }
  }
  out.parameters = w;
  out.desired_retention = srs::sched::DesiredRetention(o.desired_retention);
  out.learning_steps = steps_of(o.learning_step_count, o.learning_steps_minutes, "learning_step");
  out.relearning_steps = steps_of(o.relearning_step_count, o.relearning_steps_minutes, "relearning_step");
  out.maximum_interval = o.maximum_interval;
  out.enable_fuzz = o.enable_fuzz != 0;
  out.rollover_hour = o.rollover_hour;
  out.utc_offset_minutes = o.utc_offset_minutes;
  out.time_zone = zone_of(o.time_zone, "options");
  return out;  // the rest is checked by the Scheduler's constructor, which names the option
}

Time time_of(std::int64_t ms) { return Time{std::chrono::milliseconds(ms)}; }

void require_state(std::int32_t state, const std::string& arg) {
  if (state < SRS_STATE_NEW || state > SRS_STATE_RELEARNING) {
    throw srs::UsageError(arg + ": state " + std::to_string(state) +
                          " is not an SRS_STATE_* value (0 new, 1 learning, 2 review, 3 relearning)");
  }
}

/// A memory state from C: none when stability and difficulty are both 0.
std::optional<State> memory_of(double stability, double difficulty, const std::string& arg) {
  if (stability == 0 && difficulty == 0) return std::nullopt;
  if (!(std::isfinite(stability) && stability > 0 && difficulty >= 1 && difficulty <= 10)) {
    throw srs::UsageError(arg + ": a memory state needs stability > 0 and difficulty in [1, 10] (both 0: none), got " +
                          std::to_string(stability) + " and " + std::to_string(difficulty));
  }
  return State{stability, difficulty};
}

std::optional<Time> last_review_of(std::int32_t has, std::int64_t ms, const std::string& arg) {
  if (!has) return std::nullopt;
  if (ms < -srs::data::max_time_ms || ms > srs::data::max_time_ms) {
    throw srs::UsageError(arg + ": last_review_ms must be within +-8.64e15 ms of 1970, got " + std::to_string(ms));
  }
  return time_of(ms);
}

srs_card card_defaults() {
  srs_card c{};
  c.struct_size = sizeof(srs_card);
  c.state = SRS_STATE_NEW;
  return c;
}

/// The app's card `arg` (its struct_size checked, unknown bytes zero).
Card card_from_c(const srs_card* in, const char* arg) {
  if (!in) throw srs::UsageError(std::string(arg) + " is NULL");
  const srs_card c = read_sized(*in, card_defaults(), card_min_size, arg, "srs_card");
  require_state(c.state, arg);
  Card card;
  card.id = c.id;
  card.state = static_cast<srs::sched::CardState>(c.state);
  card.memory = memory_of(c.stability, c.difficulty, arg);
  card.due = time_of(c.due_ms);
  card.last_review = last_review_of(c.has_last_review, c.last_review_ms, arg);
  card.step = c.step;
  card.reps = c.reps;
  card.lapses = c.lapses;
  card.scheduled_days = c.scheduled_days;
  card.elapsed_days = c.elapsed_days;
  return card;
}

srs_card card_to_c(const Card& card) {
  srs_card c = card_defaults();
  c.id = card.id;
  c.state = static_cast<std::int32_t>(card.state);
  c.stability = card.memory ? card.memory->s : 0.0;
  c.difficulty = card.memory ? card.memory->d : 0.0;
  c.due_ms = card.due.time_since_epoch().count();
  c.has_last_review = card.last_review ? 1 : 0;
  c.last_review_ms = card.last_review ? card.last_review->time_since_epoch().count() : 0;
  c.step = card.step;
  c.reps = card.reps;
  c.lapses = card.lapses;
  c.scheduled_days = card.scheduled_days;
  c.elapsed_days = card.elapsed_days;
  return c;
}

srs_review_log log_defaults() {
  srs_review_log l{};
  l.struct_size = sizeof(srs_review_log);
  return l;
}

Log log_from_c(const srs_review_log* in, const char* arg) {
  if (!in) throw srs::UsageError(std::string(arg) + " is NULL");
  const srs_review_log l = read_sized(*in, log_defaults(), review_log_min_size, arg, "srs_review_log");
  require(l.reserved == 0, (std::string(arg) + ": reserved must be 0").c_str());
  if (l.rating < 1 || l.rating > 4) {
    throw srs::UsageError(std::string(arg) + ": rating must be 1 (Again) to 4 (Easy), got " + std::to_string(l.rating));
  }
  require_state(l.state, arg);
  Log log;
  log.card_id = l.card_id;
  log.rating = static_cast<srs::sched::Rating>(l.rating);
  log.review_time = time_of(l.review_time_ms);
  log.elapsed_days = l.elapsed_days;
  log.scheduled_days = l.scheduled_days;
  log.state = static_cast<srs::sched::CardState>(l.state);
  log.memory = memory_of(l.stability, l.difficulty, arg);
  log.due = time_of(l.due_ms);
  log.step = l.step;
  log.last_review = last_review_of(l.has_last_review, l.last_review_ms, arg);
  log.last_scheduled_days = l.last_scheduled_days;
  log.last_elapsed_days = l.last_elapsed_days;
  return log;
}

srs_review_log log_to_c(const Log& log) {
  srs_review_log l = log_defaults();
  l.rating = static_cast<std::int32_t>(log.rating);
  l.card_id = log.card_id;
  l.review_time_ms = log.review_time.time_since_epoch().count();
  l.elapsed_days = log.elapsed_days;
  l.scheduled_days = log.scheduled_days;
  l.state = static_cast<std::int32_t>(log.state);
  l.step = log.step;
  l.stability = log.memory ? log.memory->s : 0.0;
  l.difficulty = log.memory ? log.memory->d : 0.0;
  l.due_ms = log.due.time_since_epoch().count();
  l.has_last_review = log.last_review ? 1 : 0;
  l.last_review_ms = log.last_review ? log.last_review->time_since_epoch().count() : 0;
  l.last_scheduled_days = log.last_scheduled_days;
  l.last_elapsed_days = log.last_elapsed_days;
  return l;
}

/// An output array of `n` sized structs T the app initialized: the stride is the
/// first element's struct_size, which every element must carry. Checked before
/// anything is written.
template <class T>
class OutArray {
 public:
  OutArray(T* base, std::size_t n, std::size_t min_size, const char* arg, const char* type)
      : base_(reinterpret_cast<unsigned char*>(base)) {
    if (!base) throw srs::UsageError(std::string(arg) + " is NULL");
    stride_ = size_at(0);
    require_size(stride_, min_size, std::string(arg) + "[0]", type);
    for (std::size_t k = 1; k < n; ++k) {
      const std::uint32_t size = size_at(k);
      if (size != stride_) {
        throw srs::UsageError(std::string(arg) + "[" + std::to_string(k) + "]: struct_size " + std::to_string(size) +
                              " differs from " + arg + "[0]'s " + std::to_string(stride_) +
                              " (initialize every element with " + type + "_init)");
      }
    }
  }
  void write(std::size_t k, const T& value) { write_sized(*reinterpret_cast<T*>(base_ + k * stride_), value); }

 private:
  std::uint32_t size_at(std::size_t k) const {
    std::uint32_t size = 0;
    std::memcpy(&size, base_ + k * stride_, sizeof size);
    return size;
  }
  unsigned char* base_;
  std::size_t stride_ = 0;
};


// ---- Migration and tuning ---------------------------------------------------

// The 0.2.0 layouts, each ending without padding (a later field starts at the old sizeof).
constexpr std::size_t sm2_card_min_size = offsetof(srs_sm2_card, interval_days) + sizeof(double);
constexpr std::size_t evaluate_options_min_size = offsetof(srs_evaluate_options, user_data) + sizeof(void*);
constexpr std::size_t evaluation_min_size = offsetof(srs_evaluation, items) + sizeof(std::size_t);
constexpr std::size_t simulator_config_min_size = offsetof(srs_simulator_config, relearning_step_count) +
                                                  sizeof(std::uint32_t);
constexpr std::size_t simulation_summary_min_size = offsetof(srs_simulation_summary, learned_per_day) +
                                                    sizeof(std::uint64_t*);
constexpr std::size_t retention_options_min_size = offsetof(srs_retention_options, user_data) + sizeof(void*);
constexpr std::size_t retention_result_min_size = offsetof(srs_retention_result, simulations) +
                                                  sizeof(std::uint64_t);
static_assert(offsetof(srs_evaluate_options, time_zone) == evaluate_options_min_size &&
                  sizeof(srs_evaluate_options) == evaluate_options_min_size + sizeof(const char*),
              "0.3.0's time_zone starts at 0.2.0's sizeof and ends the struct");
static_assert(sm2_card_min_size == sizeof(srs_sm2_card) &&
                  evaluation_min_size == sizeof(srs_evaluation) &&
                  simulator_config_min_size == sizeof(srs_simulator_config) &&
                  simulation_summary_min_size == sizeof(srs_simulation_summary) &&
                  retention_options_min_size == sizeof(srs_retention_options) &&
                  retention_result_min_size == sizeof(srs_retention_result),
              "the sized structs have no end padding (a later field must start at the old sizeof)");

srs_sm2_card sm2_card_defaults() {
  srs_sm2_card c{};
  c.struct_size = sizeof(srs_sm2_card);
  c.ease_factor = srs::sched::Sm2Card{}.ease_factor;
  c.interval_days = 0;
  return c;
}

srs_evaluate_options default_evaluate_options() {
  const srs::sched::EvaluateOptions e;
  const srs::sched::DayOptions d;
  srs_evaluate_options o{};
  o.struct_size = sizeof(srs_evaluate_options);
  o.rollover_hour = d.rollover_hour;
  o.utc_offset_minutes = d.utc_offset_minutes;
  o.short_term = e.short_term ? 1 : 0;
  o.recency = e.recency ? 1 : 0;
  o.rules = e.rules == srs::sched::FitRules::fsrs_rs ? SRS_FIT_FSRS_RS : SRS_FIT_BENCHMARK;
  o.progress = nullptr;
  o.user_data = nullptr;
  o.time_zone = nullptr;
  return o;
}

std::uint64_t limit_to_c(std::size_t v) { return v == srs::sched::no_limit ? SRS_NO_LIMIT : v; }

/// The C configuration of srs::sched::SimulatorConfig{} (fsrs-rs's defaults).
srs_simulator_config default_simulator_config() {
  const srs::sched::SimulatorConfig d;
  srs_simulator_config c{};
  c.struct_size = sizeof(srs_simulator_config);
  c.max_interval = d.max_interval;
  c.deck_size = d.deck_size;
  c.learn_span = d.learn_span;
  c.max_cost_per_day = d.max_cost_per_day;
  c.learn_limit = limit_to_c(d.learn_limit);
  c.review_limit = limit_to_c(d.review_limit);
  c.new_cards_ignore_review_limit = d.new_cards_ignore_review_limit ? 1 : 0;
  c.suspend_after_lapses = d.suspend_after_lapses.value_or(0);
  for (std::size_t k = 0; k < 4; ++k) c.first_rating_prob[k] = d.first_rating_prob[k];
  for (std::size_t k = 0; k < 3; ++k) c.review_rating_prob[k] = d.review_rating_prob[k];
  for (std::size_t r = 0; r < 3; ++r) {
    for (std::size_t k = 0; k < 4; ++k) {
      c.learning_step_transitions[r][k] = d.learning_step_transitions[r][k];
      c.relearning_step_transitions[r][k] = d.relearning_step_transitions[r][k];
      c.state_rating_costs[r][k] = d.state_rating_costs[r][k];
    }
  }
  c.learning_step_count = static_cast<std::uint32_t>(d.learning_step_count);
  c.relearning_step_count = static_cast<std::uint32_t>(d.relearning_step_count);
  return c;
}

/// A count or limit from C as a size_t (SRS_NO_LIMIT: no limit where allowed).
std::size_t size_of_c(std::uint64_t v, const char* field, bool limit) {
  if (limit && v == SRS_NO_LIMIT) return srs::sched::no_limit;
  if (v > std::numeric_limits<std::size_t>::max()) {
    throw srs::UsageError(std::string(field) + " " + std::to_string(v) + " does not fit a size_t on this platform");
  }
  return static_cast<std::size_t>(v);
}

/// The C++ configuration of the app's `config` (NULL: the defaults); its values
/// are checked by srs::sched::validate, which names the field.
srs::sched::SimulatorConfig simulator_config_of(const srs_simulator_config* config) {
  const srs_simulator_config c =
      config ? read_sized(*config, default_simulator_config(), simulator_config_min_size, "config",
                          "srs_simulator_config")
             : default_simulator_config();
  srs::sched::SimulatorConfig out;
  out.deck_size = size_of_c(c.deck_size, "config: deck_size", false);
  out.learn_span = size_of_c(c.learn_span, "config: learn_span", false);
  out.max_cost_per_day = c.max_cost_per_day;
  out.max_interval = c.max_interval;
  out.learn_limit = size_of_c(c.learn_limit, "config: learn_limit", true);
  out.review_limit = size_of_c(c.review_limit, "config: review_limit", true);
  out.new_cards_ignore_review_limit = c.new_cards_ignore_review_limit != 0;
  if (c.suspend_after_lapses > 0) out.suspend_after_lapses = c.suspend_after_lapses;
  for (std::size_t k = 0; k < 4; ++k) out.first_rating_prob[k] = c.first_rating_prob[k];
  for (std::size_t k = 0; k < 3; ++k) out.review_rating_prob[k] = c.review_rating_prob[k];
  for (std::size_t r = 0; r < 3; ++r) {
    for (std::size_t k = 0; k < 4; ++k) {
      out.learning_step_transitions[r][k] = c.learning_step_transitions[r][k];
      out.relearning_step_transitions[r][k] = c.relearning_step_transitions[r][k];
      out.state_rating_costs[r][k] = c.state_rating_costs[r][k];
    }
  }
  out.learning_step_count = c.learning_step_count;
  out.relearning_step_count = c.relearning_step_count;
  return out;
}

srs_retention_options default_retention_options() {
  const srs::sched::RetentionOptions d;
  srs_retention_options o{};
  o.struct_size = sizeof(srs_retention_options);
  o.samples = d.samples;
  o.first_seed = d.first_seed;
  return o;
}

/// Checks that the output `out` (the argument `arg`, a struct `type`) is initialized.
template <class T>
T& out_sized(T* out, std::size_t min_size, const char* arg, const char* type) {
  if (!out) throw srs::UsageError(std::string(arg) + " is NULL");
  require_size(out->struct_size, min_size, arg, type);
  return *out;
}

const Scheduler& scheduler_of(const srs_scheduler* s);

}  // namespace

/// The opaque handle: a validated scheduler, immutable.
struct srs_scheduler {
  Scheduler scheduler;
};

namespace {
const Scheduler& scheduler_of(const srs_scheduler* s) {
  if (!s) throw srs::UsageError("scheduler is NULL");
  return s->scheduler;
}

/// Checks that `out` (the argument `arg`) is an initialized srs_card before anything is written.
srs_card& out_card(srs_card* out, const char* arg) {
  if (!out) throw srs::UsageError(std::string(arg) + " is NULL");
  require_size(out->struct_size, card_min_size, arg, "srs_card");
  return *out;
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
    const srs::sched::DesiredRetention retention{desired_retention};
    // A new card (state NULL): the first review, whose elapsed days do not count.
    const auto n = state ? srs::sched::next_states(m, w, from_c(*state), retention,
                                                   srs::sched::ElapsedDays{elapsed_days}, max_of(max_interval))
                         : srs::sched::next_states(m, w, std::nullopt, retention, srs::sched::ElapsedDays{0.0},
                                                   max_of(max_interval));
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

srs_status srs_scheduler_options_init_sized(srs_scheduler_options* options, size_t size) {
  return guarded([&] {
    init_sized(options, size, default_scheduler_options(), scheduler_options_min_size, "srs_scheduler_options");
  });
}

srs_status srs_card_init_sized(srs_card* card, size_t size) {
  return guarded([&] { init_sized(card, size, card_defaults(), card_min_size, "srs_card"); });
}

srs_status srs_review_log_init_sized(srs_review_log* log, size_t size) {
  return guarded([&] { init_sized(log, size, log_defaults(), review_log_min_size, "srs_review_log"); });
}

srs_status srs_scheduler_create(const srs_scheduler_options* options, srs_scheduler** out) {
  return guarded([&] {
    require(out != nullptr, "out is NULL");
    const srs_scheduler_options defaults = default_scheduler_options();
    const srs_scheduler_options o =
        options ? read_sized(*options, defaults, scheduler_options_min_size, "options", "srs_scheduler_options")
                : defaults;
    *out = new srs_scheduler{Scheduler(options_of(o))};
  });
}

void srs_scheduler_free(srs_scheduler* scheduler) { delete scheduler; }

srs_status srs_scheduler_new_card(const srs_scheduler* scheduler, int64_t id, int64_t now_ms, srs_card* out) {
  return guarded([&] {
    const Scheduler& s = scheduler_of(scheduler);
    srs_card& dst = out_card(out, "out");
    write_sized(dst, card_to_c(s.new_card(id, time_of(now_ms))));
  });
}

srs_status srs_scheduler_review(const srs_scheduler* scheduler, const srs_card* card, int32_t rating, int64_t now_ms,
                                srs_card* out_card_arg, srs_review_log* out_log) {
  return guarded([&] {
    const Scheduler& s = scheduler_of(scheduler);
    const Card c = card_from_c(card, "card");
    srs_card& dst = out_card(out_card_arg, "out_card");
    if (out_log) require_size(out_log->struct_size, review_log_min_size, "out_log", "srs_review_log");
    const auto r = s.review(c, srs::sched::rating_from_int(rating), time_of(now_ms));
    write_sized(dst, card_to_c(r.card));
    if (out_log) write_sized(*out_log, log_to_c(r.log));
  });
}

srs_status srs_scheduler_preview(const srs_scheduler* scheduler, const srs_card* card, int64_t now_ms,
                                 srs_card* out_cards, srs_review_log* out_logs) {
  return guarded([&] {
    const Scheduler& s = scheduler_of(scheduler);
    const Card c = card_from_c(card, "card");
    OutArray<srs_card> cards(out_cards, 4, card_min_size, "out_cards", "srs_card");
    std::optional<OutArray<srs_review_log>> logs;
    if (out_logs) logs.emplace(out_logs, 4, review_log_min_size, "out_logs", "srs_review_log");
    const auto p = s.preview(c, time_of(now_ms));
    const srs::sched::ReviewResult<Fsrs6>* results[4] = {&p.again, &p.hard, &p.good, &p.easy};
    for (std::size_t k = 0; k < 4; ++k) {
      cards.write(k, card_to_c(results[k]->card));
      if (logs) logs->write(k, log_to_c(results[k]->log));
    }
  });
}

srs_status srs_scheduler_retrievability(const srs_scheduler* scheduler, const srs_card* card, int64_t now_ms,
                                        double* out) {
  return guarded([&] {
    const Scheduler& s = scheduler_of(scheduler);
    const Card c = card_from_c(card, "card");
    require(out != nullptr, "out is NULL");
    *out = s.retrievability(c, time_of(now_ms));
  });
}

srs_status srs_scheduler_forget(const srs_scheduler* scheduler, const srs_card* card, int64_t now_ms,
                                int32_t reset_counts, srs_card* out) {
  return guarded([&] {
    const Scheduler& s = scheduler_of(scheduler);
    const Card c = card_from_c(card, "card");
    srs_card& dst = out_card(out, "out");
    write_sized(dst, card_to_c(s.forget(c, time_of(now_ms), reset_counts != 0).card));
  });
}

srs_status srs_scheduler_rollback(const srs_scheduler* scheduler, const srs_card* card, const srs_review_log* log,
                                  srs_card* out) {
  return guarded([&] {
    const Scheduler& s = scheduler_of(scheduler);
    const Card c = card_from_c(card, "card");
    const Log l = log_from_c(log, "log");
    srs_card& dst = out_card(out, "out");
    write_sized(dst, card_to_c(s.rollback(c, l)));
  });
}

srs_status srs_scheduler_reschedule(const srs_scheduler* scheduler, int64_t card_id, const int64_t* times_ms,
                                    const int32_t* ratings, size_t n, srs_card* out, srs_review_log* out_logs) {
  return guarded([&] {
    const Scheduler& s = scheduler_of(scheduler);
    require(n >= 1, "n must be at least 1 (a history of one review or more)");
    require(times_ms != nullptr, "times_ms is NULL");
    require(ratings != nullptr, "ratings is NULL");
    srs_card& dst = out_card(out, "out");
    std::optional<OutArray<srs_review_log>> logs;
    if (out_logs) logs.emplace(out_logs, n, review_log_min_size, "out_logs", "srs_review_log");
    std::vector<srs::sched::HistoryEntry> history(n);
    for (std::size_t k = 0; k < n; ++k) {
      if (ratings[k] < 1 || ratings[k] > 4) {
        throw srs::UsageError("ratings[" + std::to_string(k) + "] must be 1 (Again) to 4 (Easy), got " +
                              std::to_string(ratings[k]));
      }
      history[k] = {time_of(times_ms[k]), static_cast<srs::sched::Rating>(ratings[k])};
    }
    const auto r = s.reschedule(card_id, history);
    write_sized(dst, card_to_c(r.card));
    if (logs) {
      for (std::size_t k = 0; k < n; ++k) logs->write(k, log_to_c(r.logs[k]));
    }
  });
}


srs_status srs_sm2_card_init_sized(srs_sm2_card* card, size_t size) {
  return guarded([&] { init_sized(card, size, sm2_card_defaults(), sm2_card_min_size, "srs_sm2_card"); });
}

srs_status srs_fsrs6_memory_state_from_sm2(const double* params, const srs_sm2_card* card, double sm2_retention,
                                           srs_memory_state* out) {
  return guarded([&] {
    require(card != nullptr, "card is NULL");
    require(out != nullptr, "out is NULL");
    const srs_sm2_card c = read_sized(*card, sm2_card_defaults(), sm2_card_min_size, "card", "srs_sm2_card");
    require(c.reserved == 0, "card: reserved must be 0");
    const auto w = params_of(params);
    *out = to_c(srs::sched::memory_state_from_sm2(Fsrs6{}, w, srs::sched::Sm2Card{c.ease_factor, c.interval_days},
                                                  srs::sched::Sm2Retention{sm2_retention}));
  });
}

srs_status srs_fsrs6_memory_state_from(const double* params, srs_memory_state start, const double* elapsed_days,
                                       const int32_t* ratings, size_t n, srs_memory_state* out) {
  return guarded([&] {
    require(out != nullptr, "out is NULL");
    require(n == 0 || (elapsed_days != nullptr && ratings != nullptr), "elapsed_days or ratings is NULL");
    std::vector<srs::data::Step> h(n);
    for (std::size_t k = 0; k < n; ++k) h[k] = {elapsed_days[k], ratings[k]};
    const auto w = params_of(params);
    *out = to_c(srs::sched::memory_state(Fsrs6{}, w, h, State{start.stability, start.difficulty}));
  });
}

srs_status srs_evaluate_options_init_sized(srs_evaluate_options* options, size_t size) {
  return guarded([&] {
    init_sized(options, size, default_evaluate_options(), evaluate_options_min_size, "srs_evaluate_options");
  });
}

srs_status srs_evaluation_init_sized(srs_evaluation* evaluation, size_t size) {
  return guarded([&] { init_sized(evaluation, size, srs_evaluation{}, evaluation_min_size, "srs_evaluation"); });
}

srs_status srs_fsrs6_evaluate(const double* params, const int64_t* card_ids, const int64_t* times_ms,
                              const int32_t* ratings, const int32_t* kinds, size_t n,
                              const srs_evaluate_options* options, srs_evaluation* out) {
  return guarded([&] {
    const srs_evaluate_options opt =
        options ? read_sized(*options, default_evaluate_options(), evaluate_options_min_size, "options",
                             "srs_evaluate_options")
                : default_evaluate_options();
    srs_evaluation& dst = out_sized(out, evaluation_min_size, "out", "srs_evaluation");
    require(n == 0 || (card_ids != nullptr && times_ms != nullptr && ratings != nullptr),
            "card_ids, times_ms or ratings is NULL");
    srs::sched::EvaluateOptions eo;
    eo.rules = fit_rules_of(opt.rules);
    eo.short_term = opt.short_term != 0;
    eo.recency = opt.recency != 0;
    if (opt.progress) {
      eo.progress = [&opt](const srs::sched::FitProgress& p) { return opt.progress(opt.user_data, p.step, p.total) != 0; };
    }
    const srs::data::Revlog log =
        revlog_of(card_ids, times_ms, ratings, kinds, n, opt.rollover_hour, opt.utc_offset_minutes, opt.time_zone);
    const auto w = params_of(params);
    const srs::sched::Evaluation e = srs::sched::evaluate(Fsrs6{}, w, log, eo);
    srs_evaluation r{};
    r.log_loss = e.log_loss;
    r.rmse_bins = e.rmse_bins;
    r.reviews = log.rows.size();
    r.items = e.reviews;
    write_sized(dst, r);
  });
}

srs_status srs_simulator_config_init_sized(srs_simulator_config* config, size_t size) {
  return guarded([&] {
    init_sized(config, size, default_simulator_config(), simulator_config_min_size, "srs_simulator_config");
  });
}

srs_status srs_simulation_summary_init_sized(srs_simulation_summary* summary, size_t size) {
  return guarded([&] {
    init_sized(summary, size, srs_simulation_summary{}, simulation_summary_min_size, "srs_simulation_summary");
  });
}

srs_status srs_retention_options_init_sized(srs_retention_options* options, size_t size) {
  return guarded([&] {
    init_sized(options, size, default_retention_options(), retention_options_min_size, "srs_retention_options");
  });
}

srs_status srs_retention_result_init_sized(srs_retention_result* result, size_t size) {
  return guarded([&] {
    init_sized(result, size, srs_retention_result{}, retention_result_min_size, "srs_retention_result");
  });
}

srs_status srs_fsrs6_simulate(const double* params, double desired_retention, const srs_simulator_config* config,
                              uint64_t seed, srs_simulation_summary* out) {
  return guarded([&] {
    const srs::sched::SimulatorConfig cfg = simulator_config_of(config);
    require(out != nullptr, "out is NULL");
    // The app's arrays are inputs: read under the input rules (a series of a newer header refused).
    const srs_simulation_summary in =
        read_sized(*out, srs_simulation_summary{}, simulation_summary_min_size, "out", "srs_simulation_summary");
    const auto w = params_of(params);
    const srs::sched::SimulationResult r = srs::sched::simulate(Fsrs6{}, w, desired_retention, cfg, seed);
    srs_simulation_summary s = in;
    s.reserved = 0;
    s.memorized = r.memorized();
    s.cost = r.total_cost();
    s.cost_per_memorized = r.cost_per_memorized();
    s.reviews = r.total_reviews();
    s.learned = r.total_learned();
    s.correct = std::accumulate(r.correct_count_per_day.begin(), r.correct_count_per_day.end(), std::uint64_t{0});
    for (std::size_t d = 0; d < cfg.learn_span; ++d) {
      if (in.memorized_per_day) in.memorized_per_day[d] = r.memorized_per_day[d];
      if (in.cost_per_day) in.cost_per_day[d] = r.cost_per_day[d];
      if (in.reviews_per_day) in.reviews_per_day[d] = r.review_count_per_day[d];
      if (in.learned_per_day) in.learned_per_day[d] = r.learn_count_per_day[d];
    }
    write_sized(*out, s);
  });
}

srs_status srs_fsrs6_optimal_retention(const double* params, const srs_simulator_config* config,
                                       const srs_retention_options* options, srs_retention_result* out) {
  return guarded([&] {
    const srs::sched::SimulatorConfig cfg = simulator_config_of(config);
    const srs_retention_options opt =
        options ? read_sized(*options, default_retention_options(), retention_options_min_size, "options",
                             "srs_retention_options")
                : default_retention_options();
    require(opt.reserved == 0, "options: reserved must be 0");
    srs_retention_result& dst = out_sized(out, retention_result_min_size, "out", "srs_retention_result");
    srs::sched::RetentionOptions ro;
    ro.samples = size_of_c(opt.samples, "options: samples", false);
    ro.first_seed = opt.first_seed;
    if (opt.progress) {
      ro.progress = [&opt](const srs::sched::RetentionProgress& p) {
        return opt.progress(opt.user_data, p.step, p.total) != 0;
      };
    }
    const auto w = params_of(params);
    const srs::sched::RetentionResult r = srs::sched::optimal_retention(Fsrs6{}, w, cfg, ro);
    srs_retention_result res{};
    res.retention = r.retention;
    res.cost_per_memorized = r.cost_per_memorized;
    res.evaluations = r.evaluations;
    res.simulations = r.simulations;
    write_sized(dst, res);
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
