// SPDX-License-Identifier: MIT
// srs-bench's FSRS family: FSRS v1 to 7 and FSRS-rs.
#include "models.hpp"

#include <srs/models/fsrs.hpp>     // models::Fsrs1 ... models::Fsrs6
#include <srs/models/fsrs7.hpp>    // models::Fsrs7
#include <srs/models/fsrs_rs.hpp>  // models::FsrsRs

namespace srs_bench {

std::span<const ModelEntry> fsrs_models() {
  static constexpr ModelEntry table[] = {
      {"FSRSv1", &make_model<models::Fsrs1>},     {"FSRSv2", &make_model<models::Fsrs2>},
      {"FSRSv3", &make_model<models::Fsrs3>},     {"FSRSv4", &make_model<models::Fsrs4>},
      {"FSRS-4.5", &make_model<models::Fsrs4_5>}, {"FSRS-5", &make_model<models::Fsrs5>},
      {"FSRS-6", &make_model<models::Fsrs6>},     {"FSRS-7", &make_model<models::Fsrs7>},
      {"FSRS-rs", &make_model<models::FsrsRs>},
  };
  return table;
}

}  // namespace srs_bench
