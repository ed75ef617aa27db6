// SPDX-License-Identifier: MIT
// A header with forbidden includes, for the ctests layering.detects_forbidden (models/ must not
// include eval/) and layering.detects_kernel_include (models/ must not include the gradient kernels
// of optim/kernels/); tests/layering/check_layering.cmake. Never compiled.
#pragma once
#include <srs/data/dataset.hpp>  // allowed
#include <srs/eval/metrics.hpp>  // forbidden: reported as line 7
#include <srs/optim/replay.hpp>  // allowed
#include <srs/optim/kernels/fsrs6.hpp>  // forbidden: reported as line 9
