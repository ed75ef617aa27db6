// SPDX-License-Identifier: MIT
/// @file srs/optim/kernels/fsrs7.hpp
/// The gradient kernel of FSRS-7 (GradientKernel<models::Fsrs7>): reverse mode
/// through the model's own equations on a tape (ReverseModeKernel,
/// reverse_mode.hpp). A card's review costs about one tape record per
/// operation instead of 34 partial derivatives carried through each: several
/// times faster than forward mode, the same gradient to rounding
/// (tests/optim/kernels.test.cpp), the same predictions bit for bit.
#pragma once

#include <srs/models/fsrs7.hpp>                   // models::Fsrs7
#include <srs/optim/kernels/gradient_kernel.hpp>  // optim::GradientKernel
#include <srs/optim/kernels/reverse_mode.hpp>     // optim::ReverseModeKernel

namespace srs::optim {

/// FSRS-7's kernel: reverse mode on a tape.
template <>
class GradientKernel<models::Fsrs7> : public ReverseModeKernel<models::Fsrs7> {
 public:
  using ReverseModeKernel<models::Fsrs7>::ReverseModeKernel;
};

}  // namespace srs::optim
