// SPDX-License-Identifier: MIT
// fsrs_rs_items: the C++ side of bench/fsrs_rs_crosscheck.sh, which compares
// srs::models::FsrsRs with the real fsrs-rs (npm @open-spaced-repetition/binding).
// Every mode reads one user's revlogs CSV, preprocesses it as srs-bench --short
// does, and works on the LAST fold of TimeSeriesSplit(5); output is one JSON
// object on stdout.
//
//   fsrs_rs_items items FILE
//       the fold's training rows as fsrs-rs items, in time order:
//       {"user", "train_rows", "test_rows", "items": [[[delta_t, rating], ...], ...]}
//       (each item = the card's history + the row's own review, whole days)
//   fsrs_rs_items ours FILE [--batch B] [SEED ...]
//       our parameters and test LogLoss for each seed (default 2023) and batch
//       size B (default 512; a huge B makes one batch, whose order cannot differ), under
//       "benchmark" (FsrsRs::train: fsrs-rs's benchmark() rules, the FSRS-rs
//       row) and "compute_parameters" (the same pieces assembled as fsrs-rs
//       v6.5.0's compute_parameters() with FSRS_NO_OUTLIER set, which is what
//       the npm binding exposes: see compute_parameters_rules below)
//   fsrs_rs_items eval FILE W0,W1,...,W20
//       {"logloss": ...} of the fold's test rows predicted with that vector
//       (rounded to 4 decimals first, as the benchmark does) by srs's FSRS-6
//   fsrs_rs_items simulate OUT.csv [SEED]
//       write a simulated user's revlogs CSV (for machines without real data)
//
// Test LogLoss: mean of -ln p (y = 1) or -ln(1 - p) (y = 0) over the test rows,
// p from srs::models::Fsrs6 in double, clipped as srs::eval::LogLoss.
#include <srs/core/error.hpp>       // srs::UsageError
#include <srs/data/csv.hpp>         // srs::data::read_revlog_csv, write_revlog_csv
#include <srs/data/dataset.hpp>     // srs::data::Dataset, Item
#include <srs/data/preprocess.hpp>  // srs::data::preprocess, PreprocessOptions
#include <srs/eval/metrics.hpp>     // srs::eval::LogLoss
#include <srs/eval/split.hpp>       // srs::eval::TimeSeriesSplit
#include <srs/models/fsrs.hpp>      // srs::models::Fsrs6
#include <srs/models/fsrs_rs.hpp>   // srs::models::FsrsRs, detail::make_rs_items
#include <srs/optim/replay.hpp>     // srs::optim::predict
#include <srs/optim/trainer.hpp>    // srs::optim::train, TrainOptions, TrainMode, Batching
#include <srs/sched/synthetic.hpp>  // srs::sched::simulate_user, SimulationOptions

#include <array>       // std::array
#include <cstdint>     // std::uint32_t, std::uint64_t
#include <cstdio>      // std::printf, std::fprintf, std::snprintf, std::fputs
#include <exception>   // std::exception
#include <filesystem>  // std::filesystem::path
#include <limits>      // std::numeric_limits
#include <span>        // std::span
#include <string>      // std::string, std::stod, std::stoul, std::to_string
#include <vector>      // std::vector

namespace {

using namespace srs;
using Params = std::array<double, 21>;

/// One user's preprocessed data and its last fold.
struct UserFold {
  data::Dataset ds;
  Fold fold;
};

UserFold load(const std::filesystem::path& file) {
  const std::string user = file.parent_path().filename().string();
  data::PreprocessOptions po;
  po.short_term = true;  // FSRS-rs is run with --short
  UserFold u;
  u.ds = data::preprocess(data::read_revlog_csv(file, user.empty() ? file.stem().string() : user), po);
  const eval::TimeSeriesSplit split;
  u.fold = split.fold(u.ds, split.num_folds(u.ds) - 1);
  return u;
}

double test_logloss(const UserFold& u, Params w) {
  models::Fsrs6{}.round_params(std::span<double, 21>(w));
  eval::LogLoss metric;
  const models::Fsrs6 model;
  for (std::size_t r : u.fold.test) {
    const data::Item& it = u.ds.items[r];
    const double p = optim::predict(model, std::span<const double, 21>(w), u.ds.history(it), it.delta_t);
    metric.add(Prediction{p, it.y, it.elapsed_days, it.i, it.lapses});
  }
  return metric.value().value_or(std::numeric_limits<double>::quiet_NaN());
}

std::string json_params(const Params& w) {
  std::string s = "[";
  for (std::size_t k = 0; k < w.size(); ++k) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%s%.10g", k ? ", " : "", w[k]);
    s += buf;
  }
  return s + "]";
}

/// fsrs-rs v6.5.0's compute_parameters() (training.rs) with FSRS_NO_OUTLIER
/// set, built from FsrsRs's pieces. It differs from benchmark() in:
///  * items with exactly one long-term review feed the S0 fit only; training,
///    p̄ and the recency weights use the other items;
///  * fewer than 8 training items -> the defaults; fewer than 64 (or as many
///    as S0 items) -> the S0 fit only;
///  * the trained w0..w3 go through smooth_and_fill again, with the S0 counts.
Params compute_parameters_rules(const models::FsrsRs& m, const UserFold& u) {
  const auto all = models::detail::make_rs_items(u.ds, u.fold.train);
  models::detail::RsItems init, train;
  for (std::size_t k = 0; k < all.size(); ++k) {
    const auto item = all[k];
    auto& dst = models::detail::long_term_review_count(item) == 1 ? init : train;
    dst.push(item.first(item.size() - 1), item.back());
  }
  Params w = m.default_params();
  if (train.size() < 8) return w;
  const auto s0 = models::detail::rs_initial_stability(models::detail::rs_s0_groups(init),
                                                       models::detail::rs_average_recall(train));
  for (std::size_t k = 0; k < 4; ++k) w[k] = s0.s[k];
  if (train.size() == init.size() || train.size() < 64) return w;
  w = optim::fit_fsrs_rs(m, train, models::detail::rs_recency_weights(train.size()), w);
  std::array<bool, 4> known{};
  for (std::size_t k = 0; k < 4; ++k) known[k] = s0.count[k] > 0;
  const auto smoothed = models::detail::repair_and_fill(
      {w[0], w[1], w[2], w[3]}, known, s0.count,
      {models::Fsrs6::defaults[0], models::Fsrs6::defaults[1], models::Fsrs6::defaults[2], models::Fsrs6::defaults[3]},
      m.s_min, m.init_s_max, true);
  for (std::size_t k = 0; k < 4; ++k) w[k] = smoothed[k];
  return w;
}

int mode_items(const std::filesystem::path& file) {
  const UserFold u = load(file);
  const auto items = models::detail::make_rs_items(u.ds, u.fold.train);
  std::string out = "{\"user\": \"" + u.ds.user + "\", \"train_rows\": " + std::to_string(u.fold.train.size()) +
                    ", \"test_rows\": " + std::to_string(u.fold.test.size()) + ", \"items\": [";
  for (std::size_t k = 0; k < items.size(); ++k) {
    out += k ? ",\n[" : "\n[";
    const auto item = items[k];
    for (std::size_t j = 0; j < item.size(); ++j) {
      out += (j ? ", [" : "[") + std::to_string(static_cast<long>(item[j].t)) + ", " + std::to_string(item[j].rating) +
             "]";
    }
    out += "]";
  }
  out += "]}\n";
  std::fputs(out.c_str(), stdout);
  return 0;
}

int mode_ours(const std::filesystem::path& file, const std::vector<std::uint32_t>& seeds, std::size_t batch) {
  const UserFold u = load(file);
  std::string bench = "[", cp = "[";
  for (std::size_t k = 0; k < seeds.size(); ++k) {
    models::FsrsRs m;
    m.seed = seeds[k];
    m.batch_size = batch;
    const Params wb = optim::train(m, u.ds, u.fold.train, {}, {.mode = optim::TrainMode::full});
    Params wc = compute_parameters_rules(m, u);
    m.round_params(std::span<double, 21>(wc));
    const std::string sep = k ? ", " : "";
    bench += sep + "{\"seed\": " + std::to_string(seeds[k]) + ", \"params\": " + json_params(wb) +
             ", \"logloss\": " + std::to_string(test_logloss(u, wb)) + "}";
    cp += sep + "{\"seed\": " + std::to_string(seeds[k]) + ", \"params\": " + json_params(wc) +
          ", \"logloss\": " + std::to_string(test_logloss(u, wc)) + "}";
  }
  std::printf("{\"user\": \"%s\", \"benchmark\": %s], \"compute_parameters\": %s]}\n", u.ds.user.c_str(), bench.c_str(),
              cp.c_str());
  return 0;
}

int mode_eval(const std::filesystem::path& file, const std::string& list) {
  Params w{};
  std::size_t n = 0, pos = 0;
  while (pos <= list.size() && n < 21) {
    const std::size_t comma = list.find(',', pos);
    w[n++] = std::stod(list.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  if (n != 21) throw UsageError("eval needs 21 comma-separated parameters, got " + std::to_string(n));
  const UserFold u = load(file);
  std::printf("{\"logloss\": %.6f}\n", test_logloss(u, w));
  return 0;
}

int mode_simulate(const std::filesystem::path& out, std::uint64_t seed) {
  sched::SimulationOptions o;
  o.seed = seed;
  o.days = 200;
  o.new_cards_per_day = 10;
  o.params[8] = 1.5;
  o.params[20] = 0.3;
  data::write_revlog_csv(out, sched::simulate_user(o, "simulated"));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.size() >= 2 && args[0] == "items") return mode_items(args[1]);
    if (args.size() >= 2 && args[0] == "ours") {
      std::vector<std::uint32_t> seeds;
      std::size_t batch = 512;
      for (std::size_t k = 2; k < args.size(); ++k) {
        if (args[k] == "--batch" && k + 1 < args.size()) {
          batch = std::stoul(args[++k]);
        } else {
          seeds.push_back(static_cast<std::uint32_t>(std::stoul(args[k])));
        }
      }
      if (seeds.empty()) seeds.push_back(2023);
      return mode_ours(args[1], seeds, batch);
    }
    if (args.size() == 3 && args[0] == "eval") return mode_eval(args[1], args[2]);
    if (args.size() >= 2 && args[0] == "simulate")
      return mode_simulate(args[1], args.size() > 2 ? std::stoull(args[2]) : 42);
    std::fprintf(stderr,
                 "usage: fsrs_rs_items items FILE | ours FILE [--batch B] [SEED ...] | eval FILE W0,...,W20 | simulate "
                 "OUT [SEED]\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fsrs_rs_items: %s\n", e.what());
    return 1;
  }
}
