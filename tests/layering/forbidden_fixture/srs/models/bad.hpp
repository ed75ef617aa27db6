// SPDX-License-Identifier: MIT
// A header with a forbidden include, for the ctest layering.detects_forbidden: models/ must not
// include eval/ (tests/layering/check_layering.cmake). Never compiled.
#pragma once
#include <srs/data/dataset.hpp>  // allowed
#include <srs/eval/metrics.hpp>  // forbidden: reported as line 6
