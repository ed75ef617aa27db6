// SPDX-License-Identifier: MIT
// Tests of srs/bench/models.hpp: a model class becomes an entry by what it
// declares; a program's models (Models) refuse a name given twice; the --model
// lines of the usage text; the runners of the --model flags (every model by
// default, the refusals of flags a model does not take) and that a runner's
// result is the library's StandardEvaluator's, line for line.
#include <doctest/doctest.h>

#include <srs/bench/models.hpp>     // srs::bench::model_entry, model_table, Models, model_help, make_runners
#include <srs/core/error.hpp>       // srs::Error, srs::UsageError
#include <srs/data/preprocess.hpp>  // srs::data::preprocess
#include <srs/eval/report.hpp>      // srs::eval::result_line
#include <srs/models/anki.hpp>      // srs::models::AnkiSm2, AnkiSm2Trainable
#include <srs/models/avg.hpp>       // srs::models::Avg
#include <srs/models/fsrs.hpp>      // srs::models::Fsrs6
#include <srs/models/fsrs7.hpp>     // srs::models::Fsrs7
#include <srs/sched/synthetic.hpp>  // srs::sched::simulate_user

#include <array>        // std::array
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

namespace bench_models_test {

namespace bench = srs::bench;
namespace eval = srs::eval;

/// A model as a researcher writes it: 2 parameters, nothing else declared.
struct Toy {
  static constexpr std::size_t num_params = 2;
  static constexpr std::string_view name = "Toy";
  template <class T>
  struct State {
    T s;
  };
  std::array<double, 2> default_params() const { return {1.0, 2.0}; }
  void clamp(std::span<double, 2> w) const {
    for (double& x : w) x = x < 0.1 ? 0.1 : x > 50 ? 50 : x;
  }
  template <class T>
  State<T> init(std::span<const T, 2> w, srs::data::Step) const {
    return {w[0]};
  }
  template <class T>
  State<T> next(std::span<const T, 2> w, const State<T>& s, srs::data::Step r) const {
    return {r.rating == 1 ? s.s : s.s * w[1]};
  }
  template <class T>
  T recall(std::span<const T, 2>, const State<T>& s, double t) const {
    using V = srs::core::value_t<T>;
    return V(1) / (V(1) + V(t) / (V(9) * s.s));
  }
};

/// Another class named "Toy".
struct ToyTwin : Toy {};

bench::Options options(std::vector<std::string> models) {
  bench::Options o;
  o.models = std::move(models);
  return o;
}

srs::data::Dataset user() {
  srs::sched::SimulationOptions so;
  so.days = 60;
  so.new_cards_per_day = 6;
  srs::data::PreprocessOptions po;
  po.short_term = true;
  return srs::data::preprocess(srs::sched::simulate_user(so, "7"), po);
}

std::string usage_message(const bench::Options& o, const bench::Models& models) {
  try {
    (void)bench::make_runners(o, models);
  } catch (const srs::UsageError& e) {
    return e.what();
  }
  return "";
}

}  // namespace bench_models_test

using namespace bench_models_test;

TEST_CASE("bench::model_entry: a model is described by its own declarations") {
  const bench::ModelEntry toy = bench::model_entry<Toy>();
  CHECK(toy.info.name == "Toy");
  CHECK(toy.info.num_params == 2);
  CHECK(toy.info.trained);
  CHECK_FALSE(toy.info.neural);
  const bool no_pretraining = toy.pretrain == nullptr;
  CHECK(no_pretraining);
  CHECK_FALSE(toy.durations);
  const bench::ModelEntry avg = bench::model_entry<srs::models::Avg>();
  CHECK_FALSE(avg.info.trained);  // no parameters
  // Anki-SM-2 has parameters but declares that the benchmark runs it with its defaults.
  CHECK_FALSE(bench::model_entry<srs::models::AnkiSm2>().info.trained);
  CHECK(bench::model_entry<srs::models::AnkiSm2Trainable>().info.trained);
  CHECK(bench::model_entry<srs::models::AnkiSm2Trainable>().info.name == "Anki-SM-2-trainable");
  const bench::ModelEntry fsrs6 = bench::model_entry<srs::models::Fsrs6>();
  CHECK(fsrs6.info.initialized_params == 4);
  CHECK(fsrs6.info.hard_easy_params == 4);
}

TEST_CASE("bench::Models: the tables joined in order, a name given twice refused") {
  const bench::Models models{bench::model_table<Toy, srs::models::Fsrs6>(), bench::model_table<srs::models::Avg>()};
  REQUIRE(models.entries().size() == 3);
  CHECK(models.entries()[0].info.name == "Toy");
  CHECK(models.entries()[2].info.name == "AVG");
  CHECK(models.find("FSRS-6") == &models.entries()[1]);
  CHECK(models.find("FSRS-5") == nullptr);
  CHECK_THROWS_WITH_AS((bench::Models{bench::model_table<Toy, ToyTwin>()}), "two models are named 'Toy'", srs::Error);
}

TEST_CASE("bench::model_help: the models wrapped at 80 columns, the last without a comma") {
  const bench::Models models{bench::model_table<Toy, srs::models::Fsrs6, srs::models::Avg>()};
  CHECK(bench::model_help(models) == "  --model NAME        Toy, FSRS-6, AVG\n");
}

TEST_CASE("bench::make_runners: every model by default, refusals naming the model and the flag") {
  const bench::Models models{bench::model_table<Toy, srs::models::Fsrs6, srs::models::Fsrs7, srs::models::Avg,
                                                srs::models::AnkiSm2>()};
  bench::Options all = options({});
  all.flags.short_term = true;
  const std::vector<bench::Runner> runners = bench::make_runners(all, models);
  REQUIRE(runners.size() == 5);
  CHECK(runners[0].name == "Toy-short");
  CHECK(runners[4].name == "Anki-SM-2-short");

  CHECK(usage_message(options({"Nope"}), models) ==
        "unknown model 'Nope'; available: Toy, FSRS-6, FSRS-7, AVG, Anki-SM-2 (see srs-bench --help)");
  CHECK(usage_message(options({"Toy", "Toy"}), models) == "model 'Toy' is given twice (see srs-bench --help)");
  bench::Options d = options({"AVG"});
  d.flags.defaults = true;
  CHECK(usage_message(d, models) == "--default/--S0 apply to trained models, not AVG (see srs-bench --help)");
  bench::Options p = options({"Toy"});
  p.flags.sched_penalties = true;
  CHECK(usage_message(p, models) == "--sched_penalties applies to FSRS-7, not Toy (see srs-bench --help)");
  p.models = {"FSRS-7"};
  CHECK(usage_message(p, models).empty());
  bench::Options e = options({"FSRS-6"});
  e.flags.epochs = 3;
  CHECK(usage_message(e, models) == "--epochs applies to FSRS-7, not FSRS-6 (see srs-bench --help)");
  bench::Options u = options({"Toy"});
  u.flags.duration = true;
  CHECK(usage_message(u, models) == "--duration applies to the LSTM only, not Toy (see srs-bench --help)");
}

TEST_CASE("bench::make_runners: a runner's result is the StandardEvaluator's, trained or with the defaults") {
  const srs::data::Dataset ds = user();
  const bench::Models models{bench::model_table<Toy, srs::models::AnkiSm2>()};
  bench::Options o = options({"Toy", "Anki-SM-2"});
  o.threads = o.fold_threads = 1;
  const std::vector<bench::Runner> runners = bench::make_runners(o, models);
  REQUIRE(runners.size() == 2);

  eval::EvalOptions eo;
  const eval::StandardEvaluator<Toy> toy(Toy{}, eval::ReferenceSplit{}, eo);
  CHECK(eval::result_line(runners[0].run(ds)) == eval::result_line(toy.run(ds)));
  // Anki-SM-2: Anki's defaults, not trained (benchmark_untrained).
  eo.train.mode = srs::optim::TrainMode::defaults;
  const eval::StandardEvaluator<srs::models::AnkiSm2> anki(srs::models::AnkiSm2{}, eval::ReferenceSplit{}, eo);
  CHECK(eval::result_line(runners[1].run(ds)) == eval::result_line(anki.run(ds)));
}
