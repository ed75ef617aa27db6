// SPDX-License-Identifier: MIT
/// @file srs/version.hpp
#pragma once

#define SRS_VERSION_MAJOR 0
#define SRS_VERSION_MINOR 1
#define SRS_VERSION_PATCH 0

namespace srs {
inline constexpr const char* version_string = "0.1.0";
}  // namespace srs
