// SPDX-License-Identifier: MIT
/// @file srs/srs.hpp
/// Umbrella header: every header of srs::srs (Boost headers and threads only;
/// the ctest umbrella.every_header keeps it so).
/// Per-area headers can be included on their own (e.g. <srs/models/fsrs.hpp>)
/// for faster builds. The headers of the optional components are not here:
/// the neural models (component `neural`, Eigen: <srs/models/neural.hpp>,
/// rnn.hpp, lstm.hpp, transformer.hpp, nn17.hpp), the Anki import (`anki`,
/// SQLite: <srs/anki/collection.hpp>), the Parquet reader (`parquet`:
/// <srs/data/parquet.hpp>, parquet_file.hpp, parquet_writer.hpp), the C API
/// (`c`: <srs/c/srs.h>), srs-bench over MPI (<srs/bench/mpi.hpp>) and the
/// Google Benchmark helper (`benchmark`: <srs/testing/benchmark.hpp>).
#pragma once

#include <srs/version.hpp>
#include <srs/concepts.hpp>
#include <srs/training.hpp>
#include <srs/core/dual.hpp>
#include <srs/core/error.hpp>
#include <srs/core/parallel.hpp>
#include <srs/core/tape.hpp>
#include <srs/detail/args.hpp>
#include <srs/detail/charconv.hpp>
#include <srs/detail/cpu.hpp>
#include <srs/detail/json.hpp>
#include <srs/detail/matmul.hpp>
#include <srs/detail/number.hpp>
#include <srs/detail/reference_float.hpp>
#include <srs/data/bins.hpp>
#include <srs/data/csv.hpp>
#include <srs/data/dataset.hpp>
#include <srs/data/discover.hpp>
#include <srs/data/parquet_format.hpp>
#include <srs/data/preprocess.hpp>
#include <srs/data/revlog.hpp>
#include <srs/data/revlog_builder.hpp>
#include <srs/data/tables.hpp>
#include <srs/data/time_zone.hpp>
#include <srs/stats/argsort.hpp>
#include <srs/stats/bootstrap.hpp>
#include <srs/stats/distributions.hpp>
#include <srs/stats/format.hpp>
#include <srs/stats/pairing.hpp>
#include <srs/stats/random.hpp>
#include <srs/stats/significance.hpp>
#include <srs/stats/summary.hpp>
#include <srs/stats/superiority.hpp>
#include <srs/optim/adam.hpp>
#include <srs/optim/adamw.hpp>
#include <srs/optim/history_tree.hpp>
#include <srs/optim/kernels/act_r.hpp>
#include <srs/optim/kernels/fsrs6.hpp>
#include <srs/optim/kernels/fsrs6_lanes.hpp>
#include <srs/optim/kernels/fsrs7.hpp>
#include <srs/optim/kernels/fsrs7_lanes.hpp>
#include <srs/optim/kernels/fsrs_rs.hpp>
#include <srs/optim/kernels/gradient_kernel.hpp>
#include <srs/optim/kernels/lanes.hpp>
#include <srs/optim/kernels/reverse_mode.hpp>
#include <srs/optim/lbfgs.hpp>
#include <srs/optim/randperm.hpp>
#include <srs/optim/recency.hpp>
#include <srs/optim/replay.hpp>
#include <srs/optim/schedule.hpp>
#include <srs/optim/trainer.hpp>
#include <srs/optim/trainers/fsrs_rs.hpp>
#include <srs/optim/trainers/logistic_regression.hpp>
#include <srs/models/act_r.hpp>
#include <srs/models/anki.hpp>
#include <srs/models/avg.hpp>
#include <srs/models/curves.hpp>
#include <srs/models/dash.hpp>
#include <srs/models/ebisu.hpp>
#include <srs/models/fsrs.hpp>
#include <srs/models/fsrs7.hpp>
#include <srs/models/fsrs_rs.hpp>
#include <srs/models/hlr.hpp>
#include <srs/models/logistic_regression.hpp>
#include <srs/models/neural_shapes.hpp>
#include <srs/models/online.hpp>
#include <srs/models/sbd.hpp>
#include <srs/models/sm2.hpp>
#include <srs/eval/calibration.hpp>
#include <srs/eval/evaluator.hpp>
#include <srs/eval/metrics.hpp>
#include <srs/eval/model_info.hpp>
#include <srs/eval/registry.hpp>
#include <srs/eval/result.hpp>
#include <srs/eval/report.hpp>
#include <srs/eval/split.hpp>
#include <srs/sched/card_scheduler.hpp>
#include <srs/sched/compat.hpp>
#include <srs/sched/evaluate.hpp>
#include <srs/sched/fit.hpp>
#include <srs/sched/fuzz.hpp>
#include <srs/sched/scheduler.hpp>
#include <srs/sched/simulator.hpp>
#include <srs/sched/synthetic.hpp>
#include <srs/report/colors.hpp>
#include <srs/report/html.hpp>
#include <srs/report/markdown.hpp>
#include <srs/report/readme.hpp>
#include <srs/report/results.hpp>
#include <srs/report/summary.hpp>
#include <srs/report/text.hpp>
#include <srs/bench/main.hpp>
#include <srs/bench/models.hpp>
#include <srs/bench/options.hpp>
#include <srs/bench/results.hpp>
#include <srs/bench/run.hpp>
#include <srs/testing/check_model.hpp>
