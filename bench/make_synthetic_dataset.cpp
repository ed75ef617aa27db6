// SPDX-License-Identifier: MIT
// make_synthetic_dataset: a synthetic stand-in for the anki-revlogs-10k dataset,
// N simulated users whose sizes follow the real dataset's, written in its
// layout, for measuring what the whole benchmark costs (bench/project_full_run.sh,
// bench/README.md).
//
//   make_synthetic_dataset --out ROOT [--users N] [--seed S] [--format parquet|csv]
//                          [--sizes lognormal|resample] [--sizes-file FILE]
//                          [--mean-evaluated M] [--sigma X] [--min-evaluated A]
//                          [--max-evaluated B] [--overwrite] [--quiet]
//   make_synthetic_dataset --sizes-only [--users N] [--seed S] [--sizes ...]
//       print the drawn target sizes' statistics as one JSON line, simulate nothing
//
// Sizes. A user's size is its number of evaluated reviews: the test rows of
// srs-bench's 5-fold split after its `--short` preprocessing (data::preprocess
// with short_term, then eval::TimeSeriesSplit), which is the `size` srs-bench
// writes in its result files. The default distribution is a log-normal whose
// spread is that of the published sizes of users 1..116 (standard deviation of
// ln size: 1.2335; their mean ln size 9.4105 gives a log-normal mean of 26,100,
// close to their sample mean of 26,600, so the shape fits) and whose mean is the
// whole dataset's, 35,000 evaluated reviews (about 350 M over 10,000 users), so
// sizes are drawn from it restricted to [--min-evaluated, --max-evaluated]
// (default 500 .. 1,000,000; the published sample spans 800 .. 480,230; a draw
// outside is drawn again), mu chosen so that the restricted distribution's
// mean is exactly M: mu = 9.7182 for the defaults (median e^mu = 16,620; the
// unrestricted ln 35000 - sigma^2 / 2 = 9.7023 would give a mean 1.5 % lower).
// `--sizes resample --sizes-file FILE` draws instead, with replacement, from
// the sizes listed in FILE (whitespace-separated integers, '#' comment lines),
// each multiplied by M / (their mean), so the mean is M again.
//
// Users. User k (1..N) depends only on --seed and k: its size, its FSRS-6
// simulation settings and its simulator seed come from its own random stream
// (xoshiro256** seeded from a splitmix64 mix of seed and k), so users 1..10 of a
// 1,000-user dataset are the 10-user dataset of the same seed. Each user is
// sched::simulate_user with the FSRS-6 default parameters as ground truth, a
// desired retention uniform in [0.80, 0.95], new cards per day log-uniform in
// [5, 50] (whole numbers), no daily review limit; the simulated period is
// lengthened until the log holds at least the target's evaluated reviews, and
// the log is then cut to the prefix (in time) whose evaluated count is closest
// to the target. The user's cards table lists its cards (note_id = card_id) in
// 1..8 decks (card c in deck c mod decks), and its decks table those decks, deck
// 0 the parent of the others, deck d with preset d mod 3: labels for
// `--partitions`, not part of the simulated memory.
//
// Layout (what srs-bench --data ROOT discovers, docs/srs-bench.md):
//   ROOT/revlogs/user_id=<k>/data.parquet   (or data.csv with --format csv)
//   ROOT/cards/user_id=<k>/data.parquet, ROOT/decks/user_id=<k>/data.parquet
//   ROOT/synthetic_users.tsv                one line per user: its settings, raw
//                                           reviews, target and evaluated count
// The same --seed and options give the same files, byte for byte.
//
// Progress (unless --quiet) on stderr: users done, users/s, reviews/s and the
// time left, estimated from the target sizes still to do.
#include <srs/core/error.hpp>       // srs::Error, srs::UsageError, srs::NotEnoughData
#include <srs/data/csv.hpp>         // srs::data::write_revlog_csv
#include <srs/data/preprocess.hpp>  // srs::data::preprocess, PreprocessOptions
#include <srs/data/revlog.hpp>      // srs::data::Revlog
#include <srs/data/tables.hpp>      // srs::data::CardsTable, DecksTable
#include <srs/eval/split.hpp>       // srs::eval::TimeSeriesSplit
#include <srs/sched/synthetic.hpp>  // srs::sched::simulate_user, SimulationOptions, detail::Xoshiro256
#if SRS_SYNTH_PARQUET
#include <srs/data/parquet_writer.hpp>  // srs::data::parquet::write_revlog_parquet, write_cards_parquet, ...
#endif

#include <algorithm>   // std::sort, std::min, std::max, std::clamp
#include <chrono>      // std::chrono::steady_clock
#include <cmath>       // std::log, std::exp, std::sqrt, std::cos, std::llround, std::isfinite
#include <cstddef>     // std::size_t, std::ptrdiff_t
#include <cstdint>     // std::uint64_t, std::int64_t
#include <cstdio>      // std::fprintf, std::printf
#include <cstdlib>     // std::strtod, std::strtoull, std::llabs
#include <exception>   // std::exception
#include <filesystem>  // std::filesystem
#include <fstream>     // std::ifstream, std::ofstream
#include <numbers>     // std::numbers::pi
#include <optional>    // std::nullopt
#include <sstream>     // std::ostringstream
#include <string>      // std::string
#include <vector>      // std::vector

namespace {

namespace fs = std::filesystem;
using srs::UsageError;

/// The published sizes' spread: the standard deviation of ln(evaluated reviews)
/// over users 1..116 of anki-revlogs-10k (the srs-benchmark's AVG result file).
constexpr double published_log_sd = 1.2335;

struct Options {
  fs::path out;
  std::size_t users = 1000;
  std::uint64_t seed = 1;
  bool csv = false;
  bool resample = false;
  fs::path sizes_file;
  double mean_evaluated = 35000;
  double sigma = published_log_sd;
  double min_evaluated = 500;
  double max_evaluated = 1'000'000;
  bool sizes_only = false;
  bool overwrite = false;
  bool quiet = false;
};

/// What the generator chose for one user, and what came out.
struct UserPlan {
  std::size_t user = 0;
  std::int64_t target = 0;  ///< evaluated reviews aimed at
  std::uint64_t sim_seed = 0;
  int new_cards_per_day = 0;
  double desired_retention = 0.9;
  int n_decks = 1;
  // filled by generate():
  int days = 0;                ///< simulated period (before the cut)
  std::size_t raw_reviews = 0;  ///< rows written
  std::int64_t evaluated = 0;   ///< evaluated reviews of the rows written
};

[[noreturn]] void usage_fail(const std::string& what) {
  throw UsageError("make_synthetic_dataset: " + what + " (see the comment at the top of bench/make_synthetic_dataset.cpp)");
}

double parse_double(const std::string& flag, const std::string& v) {
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0' || !std::isfinite(x)) usage_fail(flag + " needs a number, not '" + v + "'");
  return x;
}

std::uint64_t parse_count(const std::string& flag, const std::string& v) {
  if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos)
    usage_fail(flag + " needs a non-negative integer, not '" + v + "'");
  return std::strtoull(v.c_str(), nullptr, 10);
}

Options parse_args(int argc, char** argv) {
  Options o;
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    auto value = [&]() -> std::string {
      if (k + 1 >= argc) usage_fail(a + " needs a value");
      return argv[++k];
    };
    if (a == "--out") {
      o.out = value();
    } else if (a == "--users") {
      o.users = parse_count(a, value());
      if (o.users == 0) usage_fail("--users must be at least 1");
    } else if (a == "--seed") {
      o.seed = parse_count(a, value());
    } else if (a == "--format") {
      const std::string f = value();
      if (f != "parquet" && f != "csv") usage_fail("--format is parquet or csv, not '" + f + "'");
      o.csv = f == "csv";
    } else if (a == "--sizes") {
      const std::string s = value();
      if (s != "lognormal" && s != "resample") usage_fail("--sizes is lognormal or resample, not '" + s + "'");
      o.resample = s == "resample";
    } else if (a == "--sizes-file") {
      o.sizes_file = value();
    } else if (a == "--mean-evaluated") {
      o.mean_evaluated = parse_double(a, value());
    } else if (a == "--sigma") {
      o.sigma = parse_double(a, value());
    } else if (a == "--min-evaluated") {
      o.min_evaluated = parse_double(a, value());
    } else if (a == "--max-evaluated") {
      o.max_evaluated = parse_double(a, value());
    } else if (a == "--sizes-only") {
      o.sizes_only = true;
    } else if (a == "--overwrite") {
      o.overwrite = true;
    } else if (a == "--quiet") {
      o.quiet = true;
    } else {
      usage_fail("unknown argument '" + a + "'");
    }
  }
  if (!o.sizes_only && o.out.empty()) usage_fail("--out ROOT is required (or --sizes-only)");
  if (!(o.mean_evaluated >= 6)) usage_fail("--mean-evaluated must be at least 6");
  if (!(o.sigma >= 0)) usage_fail("--sigma must be >= 0");
  if (!(o.min_evaluated >= 5)) usage_fail("--min-evaluated must be at least 5");
  if (!(o.max_evaluated >= o.min_evaluated)) usage_fail("--max-evaluated must be >= --min-evaluated");
  if (o.resample && o.sizes_file.empty()) usage_fail("--sizes resample needs --sizes-file FILE");
  if (!o.resample && !o.sizes_file.empty()) usage_fail("--sizes-file is for --sizes resample");
#if !SRS_SYNTH_PARQUET
  if (!o.csv && !o.sizes_only) usage_fail("this build has no parquet component: use --format csv");
#endif
  return o;
}

/// The sizes listed in `file` (integers separated by whitespace; lines starting with '#' skipped).
std::vector<double> read_sizes(const fs::path& file) {
  std::ifstream in(file);
  if (!in) throw srs::InputError(file.string(), 0, "", "cannot open the sizes file");
  std::vector<double> sizes;
  std::string line;
  std::size_t lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::string w;
    while (words >> w) {
      if (w.find_first_not_of("0123456789") != std::string::npos)
        throw srs::InputError(file.string(), lineno, "", "not a size (a whole number): '" + w + "'");
      sizes.push_back(std::stod(w));
    }
  }
  if (sizes.empty()) throw srs::InputError(file.string(), 0, "", "no sizes in the file");
  return sizes;
}

/// The random stream of user k: a splitmix64 mix of the seed and k.
srs::sched::detail::Xoshiro256 user_stream(std::uint64_t seed, std::size_t k) {
  std::uint64_t s = seed;
  const std::uint64_t a = srs::sched::detail::splitmix64(s);
  std::uint64_t t = a ^ (0xd1b54a32d192ed03ULL * static_cast<std::uint64_t>(k));
  return srs::sched::detail::Xoshiro256(srs::sched::detail::splitmix64(t));
}

/// A standard normal draw (Box-Muller on two uniforms; no <random> distribution,
/// whose output differs between standard libraries).
double normal(srs::sched::detail::Xoshiro256& rng) {
  const double u1 = 1.0 - rng.uniform();  // (0, 1]
  const double u2 = rng.uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

/// The standard normal distribution function.
double phi(double x) { return 0.5 * std::erfc(-x / std::numbers::sqrt2); }

/// mu of the log-normal (spread sigma) whose restriction to [a, b] has mean m
/// (bisection: that mean grows with mu). E[X | a <= X <= b] for ln X ~ N(mu, sigma^2) is
/// e^(mu + sigma^2/2) (Phi(B - sigma) - Phi(A - sigma)) / (Phi(B) - Phi(A)),
/// A = (ln a - mu) / sigma, B = (ln b - mu) / sigma.
double lognormal_mu(double m, double sigma, double a, double b) {
  if (!(m > a && m < b)) usage_fail("--mean-evaluated must lie strictly between --min-evaluated and --max-evaluated");
  if (sigma == 0) return std::log(m);
  auto mean = [&](double mu) {
    const double lo = (std::log(a) - mu) / sigma, hi = (std::log(b) - mu) / sigma;
    const double mass = phi(hi) - phi(lo);
    // far outside [a, b] the ratio is 0/0: the mean is then a or b
    if (!(mass > 1e-300)) return mu < std::log(a) ? a : b;
    return std::exp(mu + sigma * sigma / 2) * (phi(hi - sigma) - phi(lo - sigma)) / mass;
  };
  double lo = std::log(a) - 10 * sigma, hi = std::log(b) + 10 * sigma;
  for (int k = 0; k < 200; ++k) {
    const double mid = (lo + hi) / 2;
    (mean(mid) < m ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

/// User k's plan: its target size and simulation settings, from its own stream.
UserPlan plan_user(const Options& o, const std::vector<double>& pool, double mu, std::size_t k) {
  auto rng = user_stream(o.seed, k);
  UserPlan p;
  p.user = k;
  double size = 0;
  for (int tries = 0;; ++tries) {
    if (tries == 10000) usage_fail("no size drawn within [--min-evaluated, --max-evaluated] in 10,000 tries");
    if (pool.empty()) {
      size = std::exp(mu + o.sigma * normal(rng));
    } else {
      size = pool[static_cast<std::size_t>(rng.uniform_int(0, static_cast<std::int64_t>(pool.size()) - 1))];
    }
    if (size >= o.min_evaluated && size <= o.max_evaluated) break;
  }
  // Evaluated counts are multiples of 5 (5 folds of equal size).
  p.target = std::max<std::int64_t>(5, 5 * std::llround(size / 5));
  p.sim_seed = rng.next();
  p.new_cards_per_day = static_cast<int>(std::lround(std::exp(std::log(5.0) + rng.uniform() * std::log(10.0))));
  p.desired_retention = 0.80 + 0.15 * rng.uniform();
  p.n_decks = static_cast<int>(rng.uniform_int(1, 8));
  return p;
}

/// Evaluated reviews of `log` in srs-bench's --short pipeline: 5 test folds of
/// floor(n / 6) rows each, n the preprocessed rows (0 if too few).
std::int64_t evaluated(const srs::data::Revlog& log) {
  srs::data::PreprocessOptions po;
  po.short_term = true;
  try {
    const std::size_t n = srs::data::preprocess(log, po).size();
    const srs::eval::TimeSeriesSplit split{};
    return static_cast<std::int64_t>(n - split.first_test(n));
  } catch (const srs::NotEnoughData&) {
    return 0;
  }
}

srs::data::Revlog prefix(const srs::data::Revlog& log, std::size_t m) {
  srs::data::Revlog p;
  p.user = log.user;
  p.source = log.source;
  p.rows.assign(log.rows.begin(), log.rows.begin() + static_cast<std::ptrdiff_t>(m));
  return p;
}

/// Simulates user p until its log holds its target, then cuts it to the prefix
/// whose evaluated count is closest to the target (a few proportional steps).
srs::data::Revlog generate(UserPlan& p) {
  srs::sched::SimulationOptions so;
  so.seed = p.sim_seed;
  so.new_cards_per_day = p.new_cards_per_day;
  so.desired_retention = p.desired_retention;
  // A first guess: a year of the simulator gives about 5 evaluated reviews per card.
  so.days = static_cast<int>(std::clamp<std::int64_t>(p.target / (p.new_cards_per_day * 5) + 10, 10, 36500));
  srs::data::Revlog log;
  std::int64_t e = 0;
  for (int round = 0;; ++round) {
    log = srs::sched::simulate_user(so, std::to_string(p.user));
    e = evaluated(log);
    if (e >= p.target) break;
    if (round == 40) throw srs::Error("user " + std::to_string(p.user) + ": the simulation does not reach its size");
    const double grow = std::min(4.0, 1.1 * static_cast<double>(p.target) / static_cast<double>(std::max<std::int64_t>(e, 1)));
    if (so.days >= 36500) {  // a century is enough: more cards a day instead
      so.new_cards_per_day = static_cast<int>(std::ceil(so.new_cards_per_day * grow));
    } else {
      so.days = static_cast<int>(std::min(36500.0, std::ceil(so.days * grow)));
    }
  }
  p.days = so.days;
  p.new_cards_per_day = so.new_cards_per_day;
  // The prefix nearest the target: evaluated(prefix) grows about linearly with its length.
  std::size_t best_m = log.rows.size();
  std::int64_t best_e = e;
  std::size_t m = log.rows.size();
  std::int64_t em = e;
  for (int step = 0; step < 6 && em != p.target; ++step) {
    const double scaled = static_cast<double>(m) * static_cast<double>(p.target) / static_cast<double>(std::max<std::int64_t>(em, 1));
    const std::size_t next = std::clamp<std::size_t>(static_cast<std::size_t>(std::llround(scaled)), 1, log.rows.size());
    if (next == m) break;
    m = next;
    em = evaluated(prefix(log, m));
    if (std::llabs(em - p.target) < std::llabs(best_e - p.target)) {
      best_m = m;
      best_e = em;
    }
  }
  log.rows.resize(best_m);
  p.raw_reviews = best_m;
  p.evaluated = best_e;
  return log;
}

void write_text(const fs::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw srs::InputError(file.string(), 0, "", "cannot write the file");
}

/// The user's cards and decks tables (labels only; see the file comment).
void write_tables(const Options& o, const UserPlan& p, const srs::data::Revlog& log) {
  std::int64_t n_cards = 0;
  for (const auto& r : log.rows) n_cards = std::max(n_cards, r.card_id + 1);
  srs::data::CardsTable cards;
  for (std::int64_t c = 0; c < n_cards; ++c)
    cards.rows.push_back({c, c, static_cast<std::int32_t>(c % p.n_decks)});
  srs::data::DecksTable decks;
  for (std::int32_t d = 0; d < p.n_decks; ++d) {
    srs::data::DeckInfo info{d, std::nullopt, d % 3};
    if (d > 0) info.parent_id = 0;
    decks.rows.push_back(info);
  }
  const std::string dir = "user_id=" + std::to_string(p.user);
  fs::create_directories(o.out / "cards" / dir);
  fs::create_directories(o.out / "decks" / dir);
  if (o.csv) {
    std::string ct = "card_id,note_id,deck_id\n";
    for (const auto& c : cards.rows)
      ct += std::to_string(c.card_id) + "," + std::to_string(*c.note_id) + "," + std::to_string(*c.deck_id) + "\n";
    std::string dt = "deck_id,parent_id,preset_id\n";
    for (const auto& d : decks.rows)
      dt += std::to_string(d.deck_id) + "," + (d.parent_id ? std::to_string(*d.parent_id) : "") + "," +
            std::to_string(*d.preset_id) + "\n";
    write_text(o.out / "cards" / dir / "data.csv", ct);
    write_text(o.out / "decks" / dir / "data.csv", dt);
  } else {
#if SRS_SYNTH_PARQUET
    srs::data::parquet::write_cards_parquet(o.out / "cards" / dir / "data.parquet", cards);
    srs::data::parquet::write_decks_parquet(o.out / "decks" / dir / "data.parquet", decks);
#endif
  }
}

void write_user(const Options& o, const UserPlan& p, const srs::data::Revlog& log) {
  const fs::path dir = o.out / "revlogs" / ("user_id=" + std::to_string(p.user));
  fs::create_directories(dir);
  if (o.csv) {
    srs::data::write_revlog_csv(dir / "data.csv", log);
  } else {
#if SRS_SYNTH_PARQUET
    srs::data::parquet::write_revlog_parquet(dir / "data.parquet", log);
#endif
  }
  write_tables(o, p, log);
}

std::string fmt(const char* f, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
}

/// {"users", "mean", "median", "min", "max", "sum"} of the target sizes, and
/// the log-normal's "mu" (0 when resampling).
void print_size_stats(const std::vector<UserPlan>& plans, double mu) {
  std::vector<double> s;
  for (const auto& p : plans) s.push_back(static_cast<double>(p.target));
  std::sort(s.begin(), s.end());
  double sum = 0;
  for (double x : s) sum += x;
  const std::size_t n = s.size();
  const double median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  std::printf("{\"users\": %zu, \"mean\": %.1f, \"median\": %.1f, \"min\": %.0f, \"max\": %.0f, \"sum\": %.0f, \"mu\": %.4f}\n",
              n, sum / static_cast<double>(n), median, s.front(), s.back(), sum, mu);
}

int run(const Options& o) {
  std::vector<double> pool;
  if (o.resample) {
    pool = read_sizes(o.sizes_file);
    double mean = 0;
    for (double x : pool) mean += x;
    mean /= static_cast<double>(pool.size());
    for (double& x : pool) x *= o.mean_evaluated / mean;
  }
  const double mu = o.resample ? 0.0 : lognormal_mu(o.mean_evaluated, o.sigma, o.min_evaluated, o.max_evaluated);
  std::vector<UserPlan> plans;
  for (std::size_t k = 1; k <= o.users; ++k) plans.push_back(plan_user(o, pool, mu, k));
  if (o.sizes_only) {
    print_size_stats(plans, mu);
    return 0;
  }

  const fs::path manifest = o.out / "synthetic_users.tsv";
  for (const char* sub : {"revlogs", "cards", "decks"}) {
    if (fs::exists(o.out / sub)) {
      if (!o.overwrite) usage_fail(o.out.string() + " already holds " + sub + "/: add --overwrite to replace it");
      fs::remove_all(o.out / sub);
    }
  }
  fs::create_directories(o.out);

  double total_target = 0;
  for (const auto& p : plans) total_target += static_cast<double>(p.target);
  const auto t0 = std::chrono::steady_clock::now();
  auto last = t0;
  double done_target = 0;
  std::size_t done_rows = 0;
  for (std::size_t i = 0; i < plans.size(); ++i) {
    UserPlan& p = plans[i];
    const srs::data::Revlog log = generate(p);
    write_user(o, p, log);
    done_target += static_cast<double>(p.target);
    done_rows += p.raw_reviews;
    const auto now = std::chrono::steady_clock::now();
    const bool finished = i + 1 == plans.size();
    if (!o.quiet && (finished || now - last >= std::chrono::seconds(1))) {
      last = now;
      const double secs = std::max(1e-9, std::chrono::duration<double>(now - t0).count());
      const double left = secs * (total_target - done_target) / std::max(1.0, done_target);
      std::fprintf(stderr, "make_synthetic_dataset: %zu/%zu users, %.1f users/s, %.0f reviews/s, %s s left\n", i + 1,
                   plans.size(), static_cast<double>(i + 1) / secs, static_cast<double>(done_rows) / secs,
                   fmt("%.0f", left).c_str());
    }
  }

  std::ostringstream m;
  m << "# make_synthetic_dataset --users " << o.users << " --seed " << o.seed << " --sizes "
    << (o.resample ? "resample" : "lognormal") << " --mean-evaluated " << o.mean_evaluated << " --sigma " << o.sigma
    << " --min-evaluated " << o.min_evaluated << " --max-evaluated " << o.max_evaluated << "\n";
  m << "user\tnew_cards_per_day\tdesired_retention\tdays\traw_reviews\ttarget_evaluated\tevaluated\n";
  std::size_t raw = 0;
  std::int64_t eval = 0;
  for (const auto& p : plans) {
    m << p.user << '\t' << p.new_cards_per_day << '\t' << fmt("%.4f", p.desired_retention) << '\t' << p.days << '\t'
      << p.raw_reviews << '\t' << p.target << '\t' << p.evaluated << '\n';
    raw += p.raw_reviews;
    eval += p.evaluated;
  }
  write_text(manifest, m.str());
  std::printf("{\"users\": %zu, \"raw_reviews\": %zu, \"evaluated\": %lld, \"mean_evaluated\": %.1f, \"root\": \"%s\"}\n",
              plans.size(), raw, static_cast<long long>(eval), static_cast<double>(eval) / static_cast<double>(plans.size()),
              o.out.string().c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse_args(argc, argv));
  } catch (const UsageError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_synthetic_dataset: %s\n", e.what());
    return 1;
  }
}
