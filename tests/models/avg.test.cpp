// SPDX-License-Identifier: MIT
// Tests of srs/models/avg.hpp: AVG predicts the mean recall of the training rows.
#include <doctest/doctest.h>

#include <vector>  // std::vector

#include <srs/models/avg.hpp>  // srs::models::Avg

TEST_CASE("AVG: fit is the mean y of exactly the given rows, predict returns it for any row") {
  srs::data::Dataset ds;
  for (int y : {1, 1, 0, 1, 0, 0, 1}) {
    srs::data::Item it;
    it.y = y;
    ds.items.push_back(it);
  }
  const srs::models::Avg avg;
  const std::vector<std::size_t> rows{0, 1, 2, 3};
  const auto p = avg.fit(ds, rows);
  CHECK(p.p == 0.75);
  CHECK(avg.predict(p, ds, ds.items[6]) == 0.75);
  CHECK(avg.fit(ds, std::vector<std::size_t>{2, 4, 5}).p == 0.0);
  CHECK(avg.fit(ds, std::vector<std::size_t>{}).p == 0.5);  // no data: no information
  CHECK(srs::models::Avg::name == "AVG");
  CHECK(srs::models::Avg::num_params == 0);
}
