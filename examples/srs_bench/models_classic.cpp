// SPDX-License-Identifier: MIT
// srs-bench's other non-neural models: HLR, DASH, ACT-R, SM-2, Anki's SM-2,
// Ebisu, the baselines, LogisticRegression and SBD.
#include "models.hpp"

#include <srs/models/act_r.hpp>   // models::ActR
#include <srs/models/anki.hpp>    // models::AnkiSm2
#include <srs/models/avg.hpp>     // models::Avg
#include <srs/models/dash.hpp>    // models::Dash, models::DashMcm, models::DashActR
#include <srs/models/ebisu.hpp>   // models::EbisuV2
#include <srs/models/hlr.hpp>     // models::Hlr
#include <srs/models/logistic_regression.hpp>  // models::LogisticRegression
#include <srs/models/online.hpp>  // models::MovingAvg, models::RmseBinsExploit
#include <srs/models/sbd.hpp>     // models::Sbd
#include <srs/models/sm2.hpp>     // models::Sm2, models::Sm2Trainable

namespace srs_bench {

std::span<const ModelEntry> classic_models() {
  static constexpr ModelEntry table[] = {
      {"HLR", &make_model<models::Hlr>},
      {"DASH", &make_model<models::Dash>},
      {"DASH[MCM]", &make_model<models::DashMcm>},
      {"DASH[ACT-R]", &make_model<models::DashActR>},
      {"ACT-R", &make_model<models::ActR>},
      {"SM-2", &make_model<models::Sm2>},
      {"SM-2-trainable", &make_model<models::Sm2Trainable>},
      {"Anki-SM-2", &make_untrained<models::AnkiSm2>},
      {"Anki-SM-2-trainable", &make_model<models::AnkiSm2>},
      {"Ebisu-v2", &make_model<models::EbisuV2>},
      {"MOVING-AVG", &make_model<models::MovingAvg>},
      {"RMSE-BINS-EXPLOIT", &make_model<models::RmseBinsExploit>},
      {"AVG", &make_model<models::Avg>},
      {"LogisticRegression", &make_model<models::LogisticRegression>},
      {"SBD", &make_model<models::Sbd>},
  };
  return table;
}

}  // namespace srs_bench
