// SPDX-License-Identifier: MIT
// The README's "Embedding in ten lines", compiled and run as it stands there:
// tests/CMakeLists.txt copies the code block after `<!-- embedding-example -->`
// in README.md into readme_embedding_block.inc (in the build folder), which is
// included below inside main(); this file gives it an app's reviews and checks
// what it computes. Run by ctest as example.readme_embedding.
#include <cmath>    // std::isfinite
#include <cstdint>  // std::int64_t
#include <cstdio>   // std::printf
#include <vector>   // std::vector

#include "readme_embedding_includes.inc"  // the block's #include lines

namespace {

/// An app's reviews: 60 cards, each reviewed 6 times at growing intervals, every fifth review Again.
std::vector<srs::sched::Review> load_reviews() {
  std::vector<srs::sched::Review> reviews;
  const std::int64_t day = 86'400'000;
  for (std::int64_t card = 0; card < 60; ++card) {
    std::int64_t t = 1'700'000'000'000 + card * 3'600'000;
    for (int k = 0; k < 6; ++k) {
      reviews.push_back({card, t, (card + k) % 5 == 4 ? 1 : 3});
      t += day * (1 + 2 * k);
    }
  }
  return reviews;
}

}  // namespace

int main() {
#include "readme_embedding_block.inc"  // the block's other lines
  std::printf("due in %d days; recall after 5 days %.4f\n", due_in_days, recall_after_5_days);
  const bool ok = due_in_days >= 1 && std::isfinite(recall_after_5_days) && recall_after_5_days > 0 &&
                  recall_after_5_days < 1;
  return ok ? 0 : 1;
}
