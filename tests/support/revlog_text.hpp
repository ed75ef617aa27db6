// SPDX-License-Identifier: MIT
// The revlog CSV text the data tests start from: the benchmark's header line
// and a small valid body (card 0 reviewed on days 0, 0, 3; card 1 on days 0
// and 2; file lines 2..6).
#pragma once

#include <string_view>  // std::string_view

namespace srs::test {

inline constexpr std::string_view revlog_header =
    "card_id,day_offset,rating,state,duration,elapsed_days,elapsed_seconds\n";

inline constexpr std::string_view revlog_body =
    "0,0,3,0,5000,-1,-1\n"
    "1,0,1,0,7000,-1,-1\n"
    "0,0,3,1,4000,0,600\n"
    "1,2,2,2,3000,2,180000\n"
    "0,3,4,2,2000,3,259200\n";

}  // namespace srs::test
