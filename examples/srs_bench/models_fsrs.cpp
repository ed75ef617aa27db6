// SPDX-License-Identifier: MIT
// srs-bench's FSRS family: FSRS v1 to 7 and FSRS-rs (eval::FsrsModels).
#include "tables.hpp"

#include <srs/models/fsrs.hpp>     // models::Fsrs1 ... models::Fsrs6
#include <srs/models/fsrs7.hpp>    // models::Fsrs7
#include <srs/models/fsrs_rs.hpp>  // models::FsrsRs

namespace srs_bench {

std::span<const bench::ModelEntry> fsrs_models() { return bench::model_table(eval::FsrsModels{}); }

}  // namespace srs_bench
