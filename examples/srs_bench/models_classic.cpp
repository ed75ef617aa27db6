// SPDX-License-Identifier: MIT
// srs-bench's other non-neural models (eval::ClassicModels): HLR, DASH, ACT-R,
// SM-2, Anki's SM-2, Ebisu, the baselines, LogisticRegression and SBD.
#include "tables.hpp"

namespace srs_bench {

std::span<const bench::ModelEntry> classic_models() { return bench::model_table(eval::ClassicModels{}); }

}  // namespace srs_bench
