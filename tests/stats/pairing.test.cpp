// SPDX-License-Identifier: MIT
// Tests of srs/stats/pairing.hpp: models' per-user values aligned by user id
// (integers before strings), a clear error for different user sets or a
// repeated user, and the common users.
#include <string>  // std::string
#include <vector>  // std::vector

#include <doctest/doctest.h>  // TEST_CASE, CHECK, REQUIRE, CHECK_THROWS_WITH_AS

#include <srs/stats/pairing.hpp>  // srs::stats::pair_by_user, common_users, UserValues, UserId, UserSetMismatch

namespace stats = srs::stats;
using stats::UserId;

TEST_CASE("stats: pair_by_user aligns by id, integers first") {
  const std::vector<stats::UserValues> models{
      {"A", {{UserId{std::string("bob")}, 0.5}, {UserId{10}, 0.1}, {UserId{2}, 0.2}}},
      {"B", {{UserId{2}, 0.4}, {UserId{std::string("bob")}, 0.6}, {UserId{10}, 0.3}}},
  };
  const auto p = stats::pair_by_user(models);
  REQUIRE(p.users.size() == 3);
  CHECK(p.users[0] == UserId{2});
  CHECK(p.users[1] == UserId{10});  // numeric order, not "10" < "2"
  CHECK(p.users[2] == UserId{std::string("bob")});
  CHECK(p.values[0] == std::vector<double>{0.2, 0.1, 0.5});
  CHECK(p.values[1] == std::vector<double>{0.4, 0.3, 0.6});
  CHECK(stats::to_string(UserId{7}) == "7");
  CHECK(stats::to_string(UserId{std::string("7")}) == "\"7\"");
}

TEST_CASE("stats: pair_by_user refuses different user sets and repeated users") {
  const std::vector<stats::UserValues> missing{
      {"FSRS-6", {{UserId{1}, 0.1}, {UserId{2}, 0.2}, {UserId{3}, 0.3}}},
      {"AVG", {{UserId{1}, 0.1}, {UserId{3}, 0.3}}},
  };
  CHECK_THROWS_WITH_AS(stats::pair_by_user(missing),
                       "paired statistics need the same users in every model: 'FSRS-6' has user 2, 'AVG' does not "
                       "('FSRS-6' has 3 users, 'AVG' 2)",
                       stats::UserSetMismatch);
  const std::vector<stats::UserValues> extra{
      {"A", {{UserId{1}, 0.1}}},
      {"B", {{UserId{1}, 0.1}, {UserId{5}, 0.3}}},
  };
  CHECK_THROWS_WITH_AS(stats::pair_by_user(extra),
                       "paired statistics need the same users in every model: 'B' has user 5, 'A' does not "
                       "('A' has 1 users, 'B' 2)",
                       stats::UserSetMismatch);
  const std::vector<stats::UserValues> same_size{
      {"A", {{UserId{1}, 0.1}, {UserId{4}, 0.1}}},
      {"B", {{UserId{1}, 0.1}, {UserId{std::string("4")}, 0.3}}},
  };
  CHECK_THROWS_AS(stats::pair_by_user(same_size), stats::UserSetMismatch);
  const std::vector<stats::UserValues> twice{{"A", {{UserId{1}, 0.1}, {UserId{1}, 0.2}}}};
  CHECK_THROWS_WITH_AS(stats::pair_by_user(twice), "model 'A' has user 1 twice", stats::UserSetMismatch);
  CHECK(stats::pair_by_user(std::vector<stats::UserValues>{}).users.empty());
}

TEST_CASE("stats: common_users") {
  const std::vector<stats::UserValues> models{
      {"A", {{UserId{3}, 0}, {UserId{1}, 0}, {UserId{2}, 0}}},
      {"B", {{UserId{2}, 0}, {UserId{3}, 0}, {UserId{9}, 0}}},
      {"C", {{UserId{3}, 0}, {UserId{2}, 0}}},
  };
  CHECK(stats::common_users(models) == std::vector<UserId>{UserId{2}, UserId{3}});
}
