// SPDX-License-Identifier: MIT
// The example of docs/migration.md, compiled and run as it stands there:
// tests/CMakeLists.txt copies the code block after `<!-- migration-example -->`
// in docs/migration.md into migration_example_block.inc (in the build folder),
// which is included below inside main(); this file then checks what it
// computed against the API called directly. Run by ctest as example.migration.
#include <cmath>    // std::isfinite
#include <cstdio>   // std::printf
#include <vector>   // std::vector

#include "migration_example_includes.inc"  // the block's #include lines

int main() {
#include "migration_example_block.inc"
  // The block's variables: start (SM-2 state), state (after the reviews since), days, e (evaluation).
  const auto again = srs::sched::memory_state_from_sm2(fsrs, w, {.ease_factor = 2.5, .interval = 12},
                                                       srs::sched::Sm2Retention{0.88});
  bool ok = start.s == again.s && start.d == again.d;
  ok = ok && state.s > 0 && state.s < start.s * 2.5 && days >= 1 && days == srs::sched::next_interval(fsrs, w, state, 0.9);
  ok = ok && e.reviews == 3 && std::isfinite(e.log_loss) && e.log_loss > 0 && e.rmse_bins >= 0 && e.rmse_bins <= 1;
  if (!ok) {
    std::printf("docs/migration.md example: unexpected results\n");
    return 1;
  }
  return 0;
}
