// SPDX-License-Identifier: MIT
/// @file srs/srs.hpp
/// Umbrella header: everything in srs.
#pragma once

#include <srs/version.hpp>
#include <srs/concepts.hpp>
#include <srs/core/dual.hpp>
#include <srs/core/error.hpp>
#include <srs/data/dataset.hpp>
#include <srs/data/revlog.hpp>
#include <srs/models/fsrs.hpp>
