// SPDX-License-Identifier: MIT
// srs-bench's other non-neural models: HLR, DASH, ACT-R, SM-2, Anki's SM-2,
// Ebisu and the baselines.
#include "models.hpp"

#include <srs/models/act_r.hpp>   // models::ActR
#include <srs/models/anki.hpp>    // models::AnkiSm2
#include <srs/models/avg.hpp>     // models::Avg
#include <srs/models/dash.hpp>    // models::Dash, models::DashMcm, models::DashActR
#include <srs/models/ebisu.hpp>   // models::EbisuV2
#include <srs/models/hlr.hpp>     // models::Hlr
#include <srs/models/online.hpp>  // models::MovingAvg, models::RmseBinsExploit
#include <srs/models/sm2.hpp>     // models::Sm2, models::Sm2Trainable

namespace srs_bench {

std::span<const ModelEntry> classic_models() {
  static constexpr ModelEntry table[] = {
      {"HLR", &make_model<models::Hlr>, true},
      {"DASH", &make_model<models::Dash>, true},
      {"DASH[MCM]", &make_model<models::DashMcm>, true},
      {"DASH[ACT-R]", &make_model<models::DashActR>, true},
      {"ACT-R", &make_model<models::ActR>, true},
      {"SM-2", &make_model<models::Sm2>, false},
      {"SM-2-trainable", &make_model<models::Sm2Trainable>, true},
      {"Anki-SM-2", &make_untrained<models::AnkiSm2>, false},
      {"Anki-SM-2-trainable", &make_model<models::AnkiSm2>, true},
      {"Ebisu-v2", &make_model<models::EbisuV2>, false},
      {"MOVING-AVG", &make_model<models::MovingAvg>, false},
      {"RMSE-BINS-EXPLOIT", &make_model<models::RmseBinsExploit>, false},
      {"AVG", &make_model<models::Avg>, false},
  };
  return table;
}

}  // namespace srs_bench
