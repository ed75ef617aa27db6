// SPDX-License-Identifier: MIT
/// @file srs/srs.hpp
/// Umbrella header: everything in srs. Per-area headers can be included on
/// their own (e.g. <srs/models/fsrs.hpp>) for faster builds.
#pragma once

#include <srs/version.hpp>
#include <srs/concepts.hpp>

#include <srs/core/dual.hpp>
#include <srs/core/error.hpp>

#include <srs/data/bins.hpp>
#include <srs/data/csv.hpp>
#include <srs/data/dataset.hpp>
#include <srs/data/discover.hpp>
#include <srs/data/preprocess.hpp>
#include <srs/data/revlog.hpp>
#include <srs/data/revlog_builder.hpp>
#include <srs/data/tables.hpp>

#include <srs/models/act_r.hpp>
#include <srs/models/anki.hpp>
#include <srs/models/avg.hpp>
#include <srs/models/dash.hpp>
#include <srs/models/ebisu.hpp>
#include <srs/models/fsrs.hpp>
#include <srs/models/fsrs_rs.hpp>
#include <srs/models/hlr.hpp>
#include <srs/models/lstm.hpp>
#include <srs/models/neural.hpp>
#include <srs/models/nn17.hpp>
#include <srs/models/online.hpp>
#include <srs/models/rnn.hpp>
#include <srs/models/sm2.hpp>
#include <srs/models/transformer.hpp>

#include <srs/optim/adam.hpp>
#include <srs/optim/recency.hpp>
#include <srs/optim/replay.hpp>
#include <srs/optim/schedule.hpp>
#include <srs/optim/settings.hpp>
#include <srs/optim/trainer.hpp>

#include <srs/eval/calibration.hpp>
#include <srs/eval/evaluator.hpp>
#include <srs/eval/metrics.hpp>
#include <srs/eval/report.hpp>
#include <srs/eval/split.hpp>

#include <srs/sched/compat.hpp>
#include <srs/sched/fit.hpp>
#include <srs/sched/scheduler.hpp>
#include <srs/sched/synthetic.hpp>

#include <srs/stats/argsort.hpp>
#include <srs/stats/bootstrap.hpp>
#include <srs/stats/distributions.hpp>
#include <srs/stats/format.hpp>
#include <srs/stats/pairing.hpp>
#include <srs/stats/random.hpp>
#include <srs/stats/significance.hpp>
#include <srs/stats/summary.hpp>
#include <srs/stats/superiority.hpp>
